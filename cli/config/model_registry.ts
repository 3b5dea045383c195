import type { ApiStyle, ModelChoice, ProviderConfig, ReasoningLevel } from "@panto/lib";
import { adHocProvider } from "../ad_hoc_provider.ts";
import { didYouMean } from "../did_you_mean.ts";
import { keyEnvFlag, readEnv } from "../env.ts";
import { UsageError } from "../errors.ts";
import type { EnvLookup } from "./load_config.ts";
import type { ModelPricing, ModelSettings, PantoConfig } from "./panto_config.ts";
import { redactSecrets } from "./redact_secrets.ts";

/** Command-line flags that affect which model is used and how. */
export interface ModelFlags {
  /** `--api`: an ad hoc provider, not from the config. */
  api?: ApiStyle | undefined;
  /** `--base-url`: an ad hoc provider, not from the config. */
  baseUrl?: string | undefined;
  /** `--api-key-env`: read the key from this variable instead. */
  apiKeyEnv?: string | undefined;
  /** `--thinking`: overrides the model's reasoning level. */
  thinking?: ReasoningLevel | undefined;
  /** Environment lookup for the key (default: the process environment via `readEnv`). */
  env?: EnvLookup;
}

/** The model to use, ready for the agent. */
export interface ModelSelection {
  /** How the user named it: an alias, `provider/model`, or the ad hoc model name. */
  alias: string;
  /** The provider settings, with the API key read from its variable (never log them). */
  provider: ProviderConfig;
  /** Prices from the config, when known. */
  pricing?: ModelPricing;
  /** Idle timeout (ms) of the provider, else the config's default; the library's when unset. */
  idleTimeoutMs?: number;
  /**
   * The reasoning levels the model takes, from least to most (from the
   * model catalog); unset: {@linkcode DEFAULT_THINKING_LEVELS}.
   */
  thinkingLevels?: readonly ReasoningLevel[];
}

/**
 * The levels offered for a model panto knows nothing about: the ones every
 * reasoning API takes (`minimal` and `xhigh` only some models do).
 */
export const DEFAULT_THINKING_LEVELS: readonly ReasoningLevel[] = [
  "off",
  "low",
  "medium",
  "high",
];

/** A model picked from the config, before reasoning overrides and the key. */
interface Resolved {
  alias: string;
  providerName: string;
  settings: Omit<ModelSettings, "source">;
}

/**
 * Resolves a model spec: a configured alias (`sonnet`) or `provider/model`
 * (`anthropic/claude-opus-4-1`; the model part may itself contain `/`). No
 * spec means the config's `defaultModel`. `--api` or `--base-url` make an
 * ad hoc provider that ignores the config.
 *
 * @param config The loaded configuration.
 * @param spec The `-m/--model` value.
 * @param flags Other model flags.
 * @returns The selection, with the API key.
 * @throws {UsageError} For an unknown model or provider (listing the valid
 *   ones), an `--api-key-env` that is not a variable name, or a missing API
 *   key (naming the variable).
 *
 * @example
 * ```ts
 * import { loadConfig } from "./load_config.ts";
 * import { resolveModel } from "./model_registry.ts";
 * const dir = await Deno.makeTempDir();
 * const config = await loadConfig({ pantoHome: dir, cwd: dir, env: () => undefined });
 * const keys = new Map([["ANTHROPIC_API_KEY", "sk-test"]]);
 * const selection = resolveModel(config, "anthropic/claude-sonnet-4-5", { env: (n) => keys.get(n) });
 * console.assert(selection.provider.model === "claude-sonnet-4-5");
 * await Deno.remove(dir);
 * ```
 */
export function resolveModel(
  config: PantoConfig,
  spec: string | undefined,
  flags: ModelFlags = {},
): ModelSelection {
  const env = flags.env ?? readEnv;
  if (flags.api || flags.baseUrl) {
    const provider = adHocProvider({
      api: flags.api,
      baseUrl: flags.baseUrl,
      model: spec,
      apiKeyEnv: flags.apiKeyEnv,
      thinking: flags.thinking,
    }, env);
    return withIdleTimeout({ alias: provider.model, provider }, config.idleTimeoutMs);
  }
  const resolved = lookUp(config, spec ?? config.defaultModel);
  const provider = providerConfig(config, resolved, flags.thinking);
  const keyEnv = flags.apiKeyEnv === undefined
    ? config.providers[resolved.providerName]!.apiKeyEnv
    : keyEnvFlag(flags.apiKeyEnv);
  if (keyEnv) provider.apiKey = readKey(env, keyEnv, resolved);
  const selection: ModelSelection = { alias: resolved.alias, provider };
  if (resolved.settings.price) selection.pricing = resolved.settings.price;
  return withIdleTimeout(
    selection,
    config.providers[resolved.providerName]!.idleTimeoutMs ?? config.idleTimeoutMs,
  );
}

function withIdleTimeout(selection: ModelSelection, ms: number | undefined): ModelSelection {
  if (ms !== undefined) selection.idleTimeoutMs = ms;
  return selection;
}

/**
 * The configured model aliases as choices (without API keys), in config
 * order: for a model picker and for `match()` on resume.
 *
 * @param config The loaded configuration.
 * @returns One choice per alias.
 *
 * @example
 * ```ts
 * import { loadConfig } from "./load_config.ts";
 * import { modelChoices } from "./model_registry.ts";
 * const dir = await Deno.makeTempDir();
 * const config = await loadConfig({ pantoHome: dir, cwd: dir, env: () => undefined });
 * console.assert(modelChoices(config).length === 0);
 * await Deno.remove(dir);
 * ```
 */
export function modelChoices(config: PantoConfig): ModelChoice[] {
  return Object.entries(config.models).map(([alias, settings]) => ({
    alias,
    provider: providerConfig(
      config,
      { alias, providerName: settings.provider, settings },
      undefined,
    ),
  }));
}

function lookUp(config: PantoConfig, spec: string | undefined): Resolved {
  if (!spec) {
    throw new UsageError(
      `No model chosen: pass -m ALIAS or -m provider/model (e.g. anthropic/claude-sonnet-4-5), set "defaultModel" in $PANTO_HOME/config.json, or set ANTHROPIC_API_KEY or OPENAI_API_KEY to use a default model of that vendor.${
        aliasList(config)
      }`,
    );
  }
  if (Object.hasOwn(config.models, spec)) {
    const settings = config.models[spec]!;
    return { alias: spec, providerName: settings.provider, settings };
  }
  const slash = spec.indexOf("/");
  if (slash <= 0 || slash === spec.length - 1) throw unknownModel(config, spec);
  const providerName = spec.slice(0, slash);
  const model = spec.slice(slash + 1);
  if (!Object.hasOwn(config.providers, providerName)) {
    throw unknownProvider(config, spec, providerName);
  }
  // A configured alias for the same model lends its window, limits and prices.
  const known = Object.values(config.models).find((m) =>
    m.provider === providerName && m.model === model
  );
  return { alias: spec, providerName, settings: known ?? { provider: providerName, model } };
}

function providerConfig(
  config: PantoConfig,
  resolved: Resolved,
  thinking: ReasoningLevel | undefined,
): ProviderConfig {
  const provider = config.providers[resolved.providerName]!;
  const { settings } = resolved;
  const out: ProviderConfig = {
    api: provider.api,
    baseUrl: provider.baseUrl,
    model: settings.model,
    reasoning: thinking ?? settings.reasoning ?? "off",
  };
  if (provider.headers) out.headers = { ...provider.headers };
  if (provider.compat) out.compat = { ...provider.compat };
  if (settings.maxTokens !== undefined) out.maxTokens = settings.maxTokens;
  if (settings.contextWindow !== undefined) out.contextWindow = settings.contextWindow;
  return out;
}

function readKey(env: EnvLookup, keyEnv: string, resolved: Resolved): string {
  const key = env(keyEnv);
  if (key) return key;
  throw new UsageError(
    `No API key for model "${resolved.alias}": provider "${resolved.providerName}" reads it from ${keyEnv}, which is not set. Set ${keyEnv}, or pass --api-key-env NAME to read another variable`,
  );
}

function unknownModel(config: PantoConfig, spec: string): UsageError {
  const guess = didYouMean(spec, Object.keys(config.models));
  return redactedUsageError(
    `Unknown model ${JSON.stringify(spec)}${guess ? ` (did you mean "${guess}"?)` : ""}.${
      aliasList(config)
    } Or name a provider and a model, e.g. anthropic/${spec} (providers: ${
      Object.keys(config.providers).join(", ")
    })`,
  );
}

function unknownProvider(config: PantoConfig, spec: string, providerName: string): UsageError {
  const providers = Object.keys(config.providers);
  const guess = didYouMean(providerName, providers);
  return redactedUsageError(
    `Unknown provider ${JSON.stringify(providerName)} in model ${JSON.stringify(spec)}${
      guess ? ` (did you mean "${guess}"?)` : ""
    }: providers are ${providers.join(", ")}; define others under "providers" in the config.${
      aliasList(config)
    }`,
  );
}

/** A `-m` value may be a key pasted by mistake: key-shaped words are masked. */
function redactedUsageError(message: string): UsageError {
  return new UsageError(redactSecrets(message));
}

/** " Configured models: a, b." (or a note that there are none), to end an error message. */
function aliasList(config: PantoConfig): string {
  const aliases = Object.keys(config.models);
  return aliases.length
    ? ` Configured models: ${aliases.join(", ")}.`
    : ` No model aliases are configured (define them under "models" in $PANTO_HOME/config.json).`;
}
