import { catalogProviders } from "../models/catalog.ts";

/**
 * The API key variables of the providers panto knows (its model catalog's,
 * and Azure OpenAI's), withheld from every process it starts whether or not
 * the config uses them (the launcher grants the same names).
 */
export const BUILTIN_KEY_VARIABLES: readonly string[] = [
  ...new Set([
    ...catalogProviders().flatMap((provider) => provider.keyEnv ? [provider.keyEnv] : []),
    "AZURE_OPENAI_API_KEY",
  ]),
].sort();

/**
 * The names of the variables holding API keys: the built-in vendors', every
 * provider's `apiKeyEnv` in the config, and `--api-key-env` when given.
 *
 * @param config The loaded config (only its providers' `apiKeyEnv` are read).
 * @param flag The `--api-key-env` value, if any.
 * @returns The names, without duplicates.
 *
 * @example
 * ```ts
 * import { keyVariables } from "./child_env.ts";
 * const names = keyVariables({ providers: { mine: { apiKeyEnv: "MY_KEY" } } }, "OTHER_KEY");
 * console.assert(names.includes("MY_KEY") && names.includes("OTHER_KEY"));
 * console.assert(names.includes("ANTHROPIC_API_KEY"));
 * ```
 */
export function keyVariables(
  config: { providers: Readonly<Record<string, { apiKeyEnv?: string }>> },
  flag?: string,
): string[] {
  const names = new Set(BUILTIN_KEY_VARIABLES);
  for (const provider of Object.values(config.providers)) {
    if (provider.apiKeyEnv) names.add(provider.apiKeyEnv);
  }
  if (flag) names.add(flag);
  return [...names];
}

/**
 * What panto keeps from every process it starts (see `withholdFromCommands`
 * in `cli/shared/env.ts`): the API key variables ({@linkcode keyVariables}) and the
 * variables the user lists in `tools.hideEnv`.
 *
 * @param config The loaded config (its providers' `apiKeyEnv` and `tools.hideEnv`).
 * @param flag The `--api-key-env` value, if any.
 * @returns The names, without duplicates.
 *
 * @example
 * ```ts
 * import { withheldVariables } from "./child_env.ts";
 * const names = withheldVariables({ providers: {}, tools: { hideEnv: ["DB_PASSWORD"] } });
 * console.assert(names.includes("DB_PASSWORD") && names.includes("OPENAI_API_KEY"));
 * ```
 */
export function withheldVariables(
  config: {
    providers: Readonly<Record<string, { apiKeyEnv?: string }>>;
    tools: { hideEnv?: readonly string[] };
  },
  flag?: string,
): string[] {
  return [...new Set([...keyVariables(config, flag), ...config.tools.hideEnv ?? []])];
}
