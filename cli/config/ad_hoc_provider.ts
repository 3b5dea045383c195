import type { ApiStyle, ProviderConfig, ReasoningLevel } from "@panto/lib";
import { keyEnvFlag, readEnv } from "../shared/env.ts";
import { UsageError } from "../shared/errors.ts";

/** Default base URLs, following each vendor SDK's convention. */
export const DEFAULT_BASE_URL: Record<ApiStyle, string> = {
  "anthropic-messages": "https://api.anthropic.com",
  "openai-chat": "https://api.openai.com/v1",
  "openai-responses": "https://api.openai.com/v1",
  "google-generative-ai": "https://generativelanguage.googleapis.com/v1beta",
  "bedrock-converse": "https://bedrock-runtime.us-east-1.amazonaws.com",
};

/** The vendors' own hosts, which always want a key. */
const VENDOR_HOSTS: ReadonlySet<string> = new Set(
  Object.values(DEFAULT_BASE_URL).map((url) => new URL(url).hostname),
);

/** The conventional key variable of each API. */
export const DEFAULT_KEY_ENV: Record<ApiStyle, string> = {
  "anthropic-messages": "ANTHROPIC_API_KEY",
  "openai-chat": "OPENAI_API_KEY",
  "openai-responses": "OPENAI_API_KEY",
  "google-generative-ai": "GEMINI_API_KEY",
  "bedrock-converse": "AWS_BEARER_TOKEN_BEDROCK",
};

/** Flags that describe an ad hoc provider. */
export interface AdHocFlags {
  /** `--api`. */
  api: ApiStyle | undefined;
  /** `--base-url`. */
  baseUrl: string | undefined;
  /** `--model`. */
  model: string | undefined;
  /** `--api-key-env`. */
  apiKeyEnv: string | undefined;
  /** `--thinking`. */
  thinking: ReasoningLevel | undefined;
}

/**
 * Builds a provider from `--api/--base-url/--model` and the key variable.
 * The API defaults to anthropic-messages, or openai-chat when only
 * `OPENAI_API_KEY` is set.
 *
 * @param flags The flags.
 * @param env Reads an environment variable (tests pass a map lookup).
 * @returns The provider settings.
 * @throws {UsageError} When the model is missing, the URL is malformed,
 *   `--api-key-env` is not a variable name or names an unset variable, or an
 *   official endpoint has no key.
 */
export function adHocProvider(
  flags: AdHocFlags,
  env: (name: string) => string | undefined = readEnv,
): ProviderConfig {
  if (!flags.model) {
    throw new UsageError(
      "No model given: pass --model NAME (and --api and --base-url for a server other than the vendor's)",
    );
  }
  const api = flags.api ?? guessApi(flags.apiKeyEnv, env);
  const baseUrl = flags.baseUrl ?? DEFAULT_BASE_URL[api];
  const host = parseHost(baseUrl);
  const keyEnv = flags.apiKeyEnv === undefined ? DEFAULT_KEY_ENV[api] : keyEnvFlag(flags.apiKeyEnv);
  const apiKey = env(keyEnv);
  if (!apiKey && flags.apiKeyEnv !== undefined) {
    throw new UsageError(
      `--api-key-env ${keyEnv}: the variable ${keyEnv} is not set; set it to the API key, or leave out --api-key-env for a server that needs no key`,
    );
  }
  if (!apiKey && VENDOR_HOSTS.has(host)) {
    throw new UsageError(
      `No API key for ${host}: set ${keyEnv}, or pass --api-key-env NAME to read it from another variable`,
    );
  }
  const provider: ProviderConfig = {
    api,
    baseUrl,
    model: flags.model,
    reasoning: flags.thinking ?? "off",
  };
  if (apiKey) provider.apiKey = apiKey;
  return provider;
}

function guessApi(
  apiKeyEnv: string | undefined,
  env: (name: string) => string | undefined,
): ApiStyle {
  if (apiKeyEnv) return "anthropic-messages";
  return !env("ANTHROPIC_API_KEY") && env("OPENAI_API_KEY") ? "openai-chat" : "anthropic-messages";
}

function parseHost(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new TypeError(url.protocol);
    return url.hostname;
  } catch {
    throw new UsageError(
      `--base-url ${
        JSON.stringify(baseUrl)
      } is not an http(s) URL: pass e.g. https://api.anthropic.com`,
    );
  }
}
