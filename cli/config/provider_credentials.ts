/**
 * What a provider needs besides its key variable. Bedrock takes a Bedrock
 * API key (`AWS_BEARER_TOKEN_BEDROCK`) or, as the AWS CLI does, an IAM key
 * pair from `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` (with
 * `AWS_SESSION_TOKEN` for temporary ones), and the region from `AWS_REGION`
 * or `AWS_DEFAULT_REGION`. These AWS variables are the user's own, not
 * panto's: the commands panto runs keep them (an `aws` command in the bash
 * tool works as in the user's shell); only the Bedrock API key is withheld.
 *
 * @module
 */
import type { ApiStyle, AwsCredentials, ProviderConfig } from "@panto/lib";
import type { EnvLookup } from "./load_config.ts";

/** The AWS variables panto reads for Bedrock, besides its key variable. */
export const AWS_VARIABLES: readonly string[] = [
  "AWS_REGION",
  "AWS_DEFAULT_REGION",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
];

/** A Bedrock runtime endpoint of AWS's own, whose host names its region. */
const BEDROCK_ENDPOINT = /^https:\/\/bedrock-runtime\.([a-z0-9-]+)\.amazonaws\.com\/?$/;

/**
 * The IAM key pair in the environment, if both halves are set.
 *
 * @param env Environment lookup.
 * @returns The credentials, or `undefined`.
 *
 * @example
 * ```ts
 * import { awsCredentialsFrom } from "./provider_credentials.ts";
 * const env = new Map([["AWS_ACCESS_KEY_ID", "AKIDEXAMPLE"], ["AWS_SECRET_ACCESS_KEY", "s"]]);
 * console.assert(awsCredentialsFrom((n) => env.get(n))?.accessKeyId === "AKIDEXAMPLE");
 * console.assert(awsCredentialsFrom(() => undefined) === undefined);
 * ```
 */
export function awsCredentialsFrom(env: EnvLookup): AwsCredentials | undefined {
  const accessKeyId = env("AWS_ACCESS_KEY_ID");
  const secretAccessKey = env("AWS_SECRET_ACCESS_KEY");
  if (!accessKeyId || !secretAccessKey) return undefined;
  const sessionToken = env("AWS_SESSION_TOKEN");
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

/**
 * Whether a provider can be used now: it needs no key, its key variable is
 * set, or (Bedrock) an IAM key pair is.
 *
 * @param settings The provider's API and key variable.
 * @param env Environment lookup.
 * @returns Whether requests can be authorised.
 *
 * @example
 * ```ts
 * import { hasCredentials } from "./provider_credentials.ts";
 * const bedrock = { api: "bedrock-converse" as const, apiKeyEnv: "AWS_BEARER_TOKEN_BEDROCK" };
 * const env = new Map([["AWS_ACCESS_KEY_ID", "AKIDEXAMPLE"], ["AWS_SECRET_ACCESS_KEY", "s"]]);
 * console.assert(hasCredentials(bedrock, (n) => env.get(n)));
 * console.assert(!hasCredentials(bedrock, () => undefined));
 * ```
 */
export function hasCredentials(
  settings: { api: ApiStyle; apiKeyEnv?: string | undefined },
  env: EnvLookup,
): boolean {
  if (settings.apiKeyEnv === undefined || env(settings.apiKeyEnv)) return true;
  return settings.api === "bedrock-converse" && awsCredentialsFrom(env) !== undefined;
}

/**
 * Fills in a Bedrock provider's IAM credentials (when it has no API key)
 * and region: `AWS_REGION` / `AWS_DEFAULT_REGION` moves an AWS endpoint to
 * that region, as the AWS SDKs do; a base URL of the user's own (a proxy)
 * is kept and signed for that region.
 *
 * @param provider The provider config, changed in place.
 * @param env Environment lookup.
 *
 * @example
 * ```ts
 * import { applyBedrockEnvironment } from "./provider_credentials.ts";
 * const provider = { api: "bedrock-converse" as const, baseUrl: "https://bedrock-runtime.us-east-1.amazonaws.com", model: "m", reasoning: "off" as const };
 * applyBedrockEnvironment(provider, (n) => n === "AWS_REGION" ? "eu-west-1" : undefined);
 * console.assert(provider.baseUrl === "https://bedrock-runtime.eu-west-1.amazonaws.com");
 * ```
 */
export function applyBedrockEnvironment(provider: ProviderConfig, env: EnvLookup): void {
  const region = env("AWS_REGION") || env("AWS_DEFAULT_REGION");
  if (region) {
    if (BEDROCK_ENDPOINT.test(provider.baseUrl)) {
      provider.baseUrl = `https://bedrock-runtime.${region}.amazonaws.com`;
    } else provider.awsRegion = region;
  }
  if (provider.apiKey) return;
  const credentials = awsCredentialsFrom(env);
  if (credentials) provider.awsCredentials = credentials;
}
