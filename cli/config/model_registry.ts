import {
  type ApiStyle,
  type ModelChoice,
  type ProviderConfig,
  REASONING_LEVELS,
  type ReasoningLevel,
} from "@panto/lib";
import { cachedCatalogModel, catalogProvider, catalogProviders } from "../models/catalog.ts";
import type { CatalogModel } from "../models/catalog_types.ts";
import { BUILTIN_PROVIDERS, providerList } from "./load_config.ts";
import { adHocProvider } from "./ad_hoc_provider.ts";
import { didYouMean } from "../shared/did_you_mean.ts";
import { keyEnvFlag, readEnv } from "../shared/env.ts";
import { UsageError } from "../shared/errors.ts";
import type { EnvLookup } from "./load_config.ts";
import type { ModelPricing, ModelSettings, PantoConfig } from "./panto_config.ts";
import { applyBedrockEnvironment, hasCredentials } from "./provider_credentials.ts";
import { redactSecrets } from "@panto/lib";

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
  const { spec: named, level } = splitLevel(spec ?? config.defaultModel);
  const resolved = lookUp(config, named, env);
  const catalog = catalogEntry(config, resolved);
  const provider = providerConfig(config, resolved, flags.thinking ?? level, catalog);
  const keyEnv = flags.apiKeyEnv === undefined
    ? config.providers[resolved.providerName]!.apiKeyEnv
    : keyEnvFlag(flags.apiKeyEnv);
  if (provider.api === "bedrock-converse" && flags.apiKeyEnv === undefined) {
    authoriseBedrock(provider, env, keyEnv, resolved);
  } else if (keyEnv) provider.apiKey = readKey(env, keyEnv, resolved);
  const selection: ModelSelection = { alias: resolved.alias, provider };
  const price = resolved.settings.price ?? catalog?.price;
  if (price) selection.pricing = price;
  if (catalog) selection.thinkingLevels = catalog.thinkingLevels;
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

/**
 * `provider/model:level` → the spec and the level. Only a reasoning level's
 * name counts: model ids hold colons too (`amazon.nova-lite-v1:0`).
 */
function splitLevel(
  spec: string | undefined,
): { spec: string | undefined; level?: ReasoningLevel } {
  const colon = spec?.lastIndexOf(":") ?? -1;
  const level = spec?.slice(colon + 1);
  if (colon <= 0 || !(REASONING_LEVELS as readonly string[]).includes(level!)) return { spec };
  return { spec: spec!.slice(0, colon), level: level as ReasoningLevel };
}

/**
 * The catalog's entry for the resolved model, when its provider is the
 * catalog's (same name and wire API: a provider the user configured
 * differently serves other models) and its models are loaded.
 */
function catalogEntry(config: PantoConfig, resolved: Resolved): CatalogModel | undefined {
  const known = catalogProvider(resolved.providerName);
  const provider = config.providers[resolved.providerName];
  if (!known || provider?.api !== known.api) return undefined;
  return cachedCatalogModel(resolved.providerName, resolved.settings.model);
}

function lookUp(config: PantoConfig, spec: string | undefined, env: EnvLookup): Resolved {
  if (!spec) {
    throw new UsageError(
      `No model chosen: pass -m ALIAS or -m provider/model (e.g. anthropic/claude-sonnet-4-5), set "defaultModel" in $PANTO_HOME/config.json, or set a provider's key variable (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, …: "panto models --all" lists them) to use its default model.${
        aliasList(config)
      }`,
    );
  }
  if (Object.hasOwn(config.models, spec)) {
    const settings = config.models[spec]!;
    return { alias: spec, providerName: settings.provider, settings };
  }
  const slash = spec.indexOf("/");
  const bare = slash <= 0 || !Object.hasOwn(config.providers, spec.slice(0, slash));
  if (bare) {
    // A catalog model's id alone (`claude-sonnet-4-5`, `openai/gpt-oss-120b` on Groq).
    const found = usableProvidersServing(config, spec, env);
    if (found.length === 1) {
      return {
        alias: `${found[0]}/${spec}`,
        providerName: found[0]!,
        settings: { provider: found[0]!, model: spec },
      };
    }
    if (found.length > 1) throw ambiguousModel(spec, found);
  }
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
  catalog?: CatalogModel,
): ProviderConfig {
  const provider = config.providers[resolved.providerName]!;
  const { settings } = resolved;
  const level = thinking ?? settings.reasoning ?? config.defaultThinkingLevel ?? "off";
  const builtin = BUILTIN_PROVIDERS[resolved.providerName];
  // A model served elsewhere than its provider's usual place, unless the user moved the provider.
  const unmoved = builtin?.baseUrl === provider.baseUrl;
  const out: ProviderConfig = {
    api: (unmoved && catalog?.api) || provider.api,
    baseUrl: (unmoved && catalog?.baseUrl) || provider.baseUrl,
    model: settings.model,
    reasoning: catalog ? clampThinkingLevel(catalog.thinkingLevels, level) : level,
  };
  if (provider.headers) out.headers = { ...provider.headers };
  // A model's own quirks (a DeepSeek model on OpenRouter) yield to the user's.
  const compat = { ...(unmoved ? catalog?.compat : undefined), ...provider.compat };
  if (Object.keys(compat).length > 0) out.compat = compat;
  if (settings.maxTokens !== undefined) out.maxTokens = settings.maxTokens;
  const window = settings.contextWindow ?? catalog?.contextWindow;
  if (window !== undefined) out.contextWindow = window;
  if (catalog?.reasoningValues) out.reasoningValues = { ...catalog.reasoningValues };
  if (catalog) out.input = catalog.input;
  return out;
}

/**
 * The level the model takes nearest `level`: itself, else the next one up,
 * else the next one down (pi's rule: asking for more thinking than a model
 * has gives its most).
 *
 * @param levels The model's levels, least first.
 * @param level The level asked for.
 * @returns A level the model takes.
 *
 * @example
 * ```ts
 * import { clampThinkingLevel } from "./model_registry.ts";
 * console.assert(clampThinkingLevel(["off", "low", "high"], "medium") === "high");
 * console.assert(clampThinkingLevel(["off", "low", "high"], "xhigh") === "high");
 * console.assert(clampThinkingLevel(["off"], "high") === "off");
 * ```
 */
export function clampThinkingLevel(
  levels: readonly ReasoningLevel[],
  level: ReasoningLevel,
): ReasoningLevel {
  if (levels.includes(level)) return level;
  const at = REASONING_LEVELS.indexOf(level);
  const up = REASONING_LEVELS.slice(at).find((l) => levels.includes(l));
  const down = REASONING_LEVELS.slice(0, at).reverse().find((l) => levels.includes(l));
  return up ?? down ?? "off";
}

/** The providers whose key is set (or that need none) and whose loaded catalog lists `model`. */
function usableProvidersServing(config: PantoConfig, model: string, env: EnvLookup): string[] {
  return catalogProviders().filter((provider) => {
    const settings = config.providers[provider.id];
    if (!settings || !cachedCatalogModel(provider.id, model)) return false;
    return hasCredentials(settings, (name) => safeEnv(env, name));
  }).map((provider) => provider.id);
}

/** A key variable panto may not read counts as unset here (a listing, not a request). */
function safeEnv(env: EnvLookup, name: string): string | undefined {
  try {
    return env(name) || undefined;
  } catch {
    return undefined;
  }
}

function ambiguousModel(model: string, providers: readonly string[]): UsageError {
  return redactedUsageError(
    `Model ${
      JSON.stringify(model)
    } is served by several providers you have keys for: name one, e.g. ${
      providers.map((p) => `${p}/${model}`).join(" or ")
    }`,
  );
}

function readKey(env: EnvLookup, keyEnv: string, resolved: Resolved): string {
  const key = env(keyEnv);
  if (key) return key;
  throw new UsageError(
    `No API key for model "${resolved.alias}": provider "${resolved.providerName}" reads it from ${keyEnv}, which is not set. Set ${keyEnv}, or pass --api-key-env NAME to read another variable`,
  );
}

/** A Bedrock API key if set, else the IAM key pair; the region from the environment. */
function authoriseBedrock(
  provider: ProviderConfig,
  env: EnvLookup,
  keyEnv: string | undefined,
  resolved: Resolved,
): void {
  const lookup = (name: string) => safeEnv(env, name);
  const key = keyEnv && lookup(keyEnv);
  if (key) provider.apiKey = key;
  applyBedrockEnvironment(provider, lookup);
  if (provider.apiKey || provider.awsCredentials) return;
  throw new UsageError(
    `No credentials for model "${resolved.alias}": provider "${resolved.providerName}" (Amazon Bedrock) takes a Bedrock API key in ${
      keyEnv ?? "AWS_BEARER_TOKEN_BEDROCK"
    }, or an IAM key pair in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (with AWS_SESSION_TOKEN for temporary ones); set one, and AWS_REGION to your region`,
  );
}

/**
 * A model name that no alias, provider or catalog entry matches (the chat's
 * `/model NAME` then opens the picker filtered by the name, as pi does).
 *
 * @example
 * ```ts
 * import { UnknownModelError } from "./model_registry.ts";
 * console.assert(new UnknownModelError("Unknown model \"x\"").exitCode === 2);
 * ```
 */
export class UnknownModelError extends UsageError {
  /**
   * Creates the error; key-shaped words in the message are masked.
   *
   * @param message What was not found, and the names there are.
   */
  constructor(message: string) {
    super(redactSecrets(message));
    this.name = "UnknownModelError";
  }
}

function unknownModel(config: PantoConfig, spec: string): UsageError {
  const guess = didYouMean(spec, Object.keys(config.models));
  return new UnknownModelError(
    `Unknown model ${JSON.stringify(spec)}${guess ? ` (did you mean "${guess}"?)` : ""}.${
      aliasList(config)
    } Or name a provider and a model, e.g. anthropic/${spec} (providers: ${providerList(config)})`,
  );
}

function unknownProvider(config: PantoConfig, spec: string, providerName: string): UsageError {
  const providers = Object.keys(config.providers);
  const guess = didYouMean(providerName, providers);
  return new UnknownModelError(
    `Unknown provider ${JSON.stringify(providerName)} in model ${JSON.stringify(spec)}${
      guess ? ` (did you mean "${guess}"?)` : ""
    }: providers are ${providerList(config)}; define others under "providers" in the config.${
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
