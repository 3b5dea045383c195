/**
 * Writes panto's built-in model catalog, `cli/models/catalog/`, from the
 * catalog pi ships (`@mariozechner/pi-ai`, MIT: models.dev's data with each
 * model's wire API, base URL and accepted thinking levels, kept current by
 * its maintainers), keeping the providers whose wire API panto speaks.
 *
 * Run: `deno run -A --lock=scripts/scripts.lock --frozen=false scripts/generate_catalog.ts`
 * (then `deno fmt cli/models/catalog`). The pinned version below is the
 * source; bump it to refresh the catalog.
 *
 * @module
 */
import { getModels, getProviders } from "npm:@mariozechner/pi-ai@0.73.1";
import type { ApiStyle, OpenAICompat, ReasoningLevel } from "../lib/config.ts";
import type { CatalogModel, CatalogProvider } from "../cli/models/catalog_types.ts";

const SOURCE = "@mariozechner/pi-ai 0.73.1 (models.dev data, MIT)";
const OUT = new URL("../cli/models/catalog/", import.meta.url);

/** pi's wire API names panto speaks, and as what. */
const APIS: Readonly<Record<string, ApiStyle>> = {
  "anthropic-messages": "anthropic-messages",
  "openai-completions": "openai-chat",
  "openai-responses": "openai-responses",
  "google-generative-ai": "google-generative-ai",
  // Mistral's own API has an OpenAI-compatible chat completions endpoint at /v1.
  "mistral-conversations": "openai-chat",
  "bedrock-converse-stream": "bedrock-converse",
};

/** What panto knows of each provider it offers: its key variable and ctrl+p's default models. */
interface ProviderFacts {
  name: string;
  keyEnv?: string;
  /** Replaces the catalog's base URL (Mistral's OpenAI-compatible endpoint). */
  baseUrl?: string;
  defaults: string[];
}

const PROVIDERS: Readonly<Record<string, ProviderFacts>> = {
  anthropic: {
    name: "Anthropic",
    keyEnv: "ANTHROPIC_API_KEY",
    defaults: ["claude-sonnet-4-6", "claude-opus-4-7", "claude-haiku-4-5"],
  },
  openai: {
    name: "OpenAI",
    keyEnv: "OPENAI_API_KEY",
    defaults: ["gpt-5.5", "gpt-5.4-mini", "gpt-5.3-codex"],
  },
  google: {
    name: "Google",
    keyEnv: "GEMINI_API_KEY",
    defaults: ["gemini-3.1-pro-preview", "gemini-2.5-pro", "gemini-2.5-flash"],
  },
  xai: { name: "xAI", keyEnv: "XAI_API_KEY", defaults: ["grok-4.3", "grok-code-fast-1"] },
  groq: {
    name: "Groq",
    keyEnv: "GROQ_API_KEY",
    defaults: ["openai/gpt-oss-120b", "moonshotai/kimi-k2-instruct-0905"],
  },
  cerebras: {
    name: "Cerebras",
    keyEnv: "CEREBRAS_API_KEY",
    defaults: ["gpt-oss-120b", "zai-glm-4.7"],
  },
  mistral: {
    name: "Mistral",
    keyEnv: "MISTRAL_API_KEY",
    baseUrl: "https://api.mistral.ai/v1",
    defaults: ["devstral-medium-latest", "mistral-large-latest"],
  },
  deepseek: {
    name: "DeepSeek",
    keyEnv: "DEEPSEEK_API_KEY",
    defaults: ["deepseek-v4-pro", "deepseek-v4-flash"],
  },
  openrouter: {
    name: "OpenRouter",
    keyEnv: "OPENROUTER_API_KEY",
    defaults: ["anthropic/claude-sonnet-4.6", "openai/gpt-5.5", "google/gemini-3.1-pro-preview"],
  },
  fireworks: {
    name: "Fireworks",
    keyEnv: "FIREWORKS_API_KEY",
    defaults: ["accounts/fireworks/models/kimi-k2p6", "accounts/fireworks/models/glm-5p1"],
  },
  huggingface: {
    name: "Hugging Face",
    keyEnv: "HF_TOKEN",
    defaults: ["moonshotai/Kimi-K2.6", "zai-org/GLM-5.1"],
  },
  zai: { name: "Z.ai", keyEnv: "ZAI_API_KEY", defaults: ["glm-5.1", "glm-4.7"] },
  moonshotai: { name: "Moonshot AI", keyEnv: "MOONSHOT_API_KEY", defaults: ["kimi-k2.6"] },
  "moonshotai-cn": { name: "Moonshot AI (China)", keyEnv: "MOONSHOT_API_KEY", defaults: [] },
  minimax: { name: "MiniMax", keyEnv: "MINIMAX_API_KEY", defaults: [] },
  "minimax-cn": { name: "MiniMax (China)", keyEnv: "MINIMAX_CN_API_KEY", defaults: [] },
  "vercel-ai-gateway": { name: "Vercel AI Gateway", keyEnv: "AI_GATEWAY_API_KEY", defaults: [] },
  opencode: { name: "OpenCode Zen", keyEnv: "OPENCODE_API_KEY", defaults: [] },
  "opencode-go": { name: "OpenCode Go", keyEnv: "OPENCODE_API_KEY", defaults: [] },
  xiaomi: { name: "Xiaomi MiMo", keyEnv: "XIAOMI_API_KEY", defaults: [] },
  // Or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (cli/config/provider_credentials.ts).
  "amazon-bedrock": {
    name: "Amazon Bedrock",
    keyEnv: "AWS_BEARER_TOKEN_BEDROCK",
    // Global inference profiles: served from any commercial region.
    defaults: [
      "global.anthropic.claude-sonnet-4-6",
      "global.anthropic.claude-opus-4-7",
      "global.anthropic.claude-haiku-4-5-20251001-v1:0",
    ],
  },
};

/**
 * Providers panto knows without listing their models: OpenAI-compatible
 * servers where any model they serve is named as `provider/model`.
 */
const PRESETS: readonly CatalogProvider[] = [
  preset("together", "Together AI", "https://api.together.xyz/v1", "TOGETHER_API_KEY"),
  preset("ollama", "Ollama (local)", "http://localhost:11434/v1"),
  preset("lmstudio", "LM Studio (local)", "http://localhost:1234/v1"),
  preset("vllm", "vLLM (local)", "http://localhost:8000/v1"),
  preset("llamacpp", "llama.cpp server (local)", "http://localhost:8080/v1"),
];

function preset(id: string, name: string, baseUrl: string, keyEnv?: string): CatalogProvider {
  return {
    id,
    name,
    api: "openai-chat",
    baseUrl,
    ...(keyEnv ? { keyEnv } : {}),
    modelCount: 0,
    defaults: [],
  };
}

/** pi's model record (the part read here). */
interface PiModel {
  id: string;
  name: string;
  api: string;
  baseUrl: string;
  reasoning: boolean;
  thinkingLevelMap?: Record<string, string | null>;
  input: string[];
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number };
  contextWindow: number;
  maxTokens: number;
  compat?: Record<string, unknown>;
}

const LEVELS: readonly ReasoningLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];

/** The levels a model takes: pi's rule (a level mapped to null is refused; xhigh only when mapped). */
function thinkingLevels(model: PiModel): ReasoningLevel[] {
  if (!model.reasoning) return ["off"];
  return LEVELS.filter((level) => {
    const mapped = model.thinkingLevelMap?.[level];
    if (mapped === null) return false;
    return level !== "xhigh" || mapped !== undefined;
  });
}

function reasoningValues(model: PiModel): CatalogModel["reasoningValues"] {
  const values: Partial<Record<Exclude<ReasoningLevel, "off">, string>> = {};
  for (const [level, value] of Object.entries(model.thinkingLevelMap ?? {})) {
    if (level !== "off" && typeof value === "string" && LEVELS.includes(level as ReasoningLevel)) {
      values[level as Exclude<ReasoningLevel, "off">] = value;
    }
  }
  return Object.keys(values).length ? values : undefined;
}

/** pi's thinking formats, as panto's `reasoningParam`. */
const THINKING_FORMATS: Readonly<Record<string, OpenAICompat["reasoningParam"]>> = {
  deepseek: "thinking_effort",
  zai: "thinking",
  qwen: "enable_thinking",
};

/** pi's OpenAI-compatible quirks that panto's `OpenAICompat` can say, as a JSON string ("" for none). */
function compatOf(model: PiModel): string {
  const pi = model.compat ?? {};
  const compat: OpenAICompat = {};
  if (pi.supportsDeveloperRole === false) compat.developerRole = false;
  if (pi.maxTokensField === "max_tokens") compat.maxTokensField = "max_tokens";
  const format = THINKING_FORMATS[String(pi.thinkingFormat)];
  if (format) compat.reasoningParam = format;
  else if (pi.supportsReasoningEffort === false) compat.reasoningParam = "none";
  if (pi.requiresReasoningContentOnAssistantMessages === true) compat.reasoningContent = true;
  return Object.keys(compat).length ? JSON.stringify(compat) : "";
}

/** The quirks every model of a provider shares; the rest are said per model. */
function sharedCompat(models: readonly PiModel[]): string {
  const all = new Set(models.map(compatOf));
  return all.size === 1 ? [...all][0]! : "";
}

function mostCommon<T>(values: readonly T[]): T {
  const counts = new Map<T, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]![0];
}

function catalogModel(
  model: PiModel,
  provider: Pick<CatalogProvider, "api" | "baseUrl">,
  shared: string,
  facts: ProviderFacts,
) {
  const { api, baseUrl } = provider;
  const ownApi = APIS[model.api]!;
  const ownUrl = facts.baseUrl ?? model.baseUrl;
  const entry: CatalogModel = {
    id: model.id,
    name: model.name,
    ...(ownApi === api ? {} : { api: ownApi }),
    ...(ownUrl === baseUrl ? {} : { baseUrl: ownUrl }),
    contextWindow: model.contextWindow,
    maxTokens: model.maxTokens,
    input: model.input.includes("image") ? ["text", "image"] : ["text"],
    thinkingLevels: thinkingLevels(model),
    price: { ...model.cost },
  };
  const values = reasoningValues(model);
  if (values) entry.reasoningValues = values;
  const compat = compatOf(model);
  if (compat !== shared && compat !== "") entry.compat = JSON.parse(compat);
  return entry;
}

function providerEntry(id: string, facts: ProviderFacts): [CatalogProvider, CatalogModel[]] {
  const models = (getModels(id as never) as unknown as PiModel[]).filter((m) => m.api in APIS);
  const api = mostCommon(models.map((m) => APIS[m.api]!));
  const baseUrl = facts.baseUrl ?? mostCommon(models.map((m) => m.baseUrl));
  const shared = sharedCompat(models);
  const entries = models.map((m) => catalogModel(m, { api, baseUrl }, shared, facts))
    .sort((a, b) => a.id.localeCompare(b.id));
  for (const id2 of facts.defaults) {
    if (!entries.some((m) => m.id === id2)) {
      throw new Error(`${id}'s default model ${id2} is not in the catalog: update PROVIDERS`);
    }
  }
  const compat = shared === "" ? undefined : JSON.parse(shared) as OpenAICompat;
  const provider: CatalogProvider = {
    id,
    name: facts.name,
    api,
    baseUrl,
    ...(facts.keyEnv ? { keyEnv: facts.keyEnv } : {}),
    ...(compat ? { compat } : {}),
    modelCount: entries.length,
    defaults: facts.defaults,
  };
  return [provider, entries];
}

/** A provider's file name: its id, `-` made `_` as the other files' names are. */
function fileName(id: string): string {
  return `${id.replaceAll("-", "_")}.json`;
}

const NOTE = `Generated by scripts/generate_catalog.ts from ${SOURCE}: do not edit.`;

/** Data as JSON, laid out by the `deno fmt` that follows (as the rest of the repo). */
async function writeJson(name: string, value: unknown): Promise<void> {
  await Deno.writeTextFile(new URL(name, OUT), `${JSON.stringify(value)}\n`);
}

/**
 * The one TypeScript file: the JSON's types, and a literal `import()` a
 * provider, so `deno bundle`, `deno publish` and the module graph see every
 * file while each still loads only on first use.
 */
function indexModule(ids: readonly string[]): string {
  const loaders = ids.map((id) =>
    `  ${JSON.stringify(id)}: () => import("./${fileName(id)}", { with: { type: "json" } }),`
  ).join("\n");
  return `// ${NOTE}
import type { CatalogModel, CatalogProvider } from "../catalog_types.ts";
import catalog from "./providers.json" with { type: "json" };

/** When the catalog was generated, and from what. */
export const CATALOG_GENERATED: string = catalog.generated;
export const CATALOG_SOURCE: string = catalog.source;

/** Every provider of the catalog, presets last (the generator wrote them as the type says). */
export const CATALOG_PROVIDERS = catalog.providers as readonly CatalogProvider[];

/** Loads one provider's models. */
type Loader = () => Promise<{ default: readonly CatalogModel[] }>;

/** Each listed provider's models, loaded on first use. */
export const MODEL_LOADERS = {
${loaders}
} as Readonly<Record<string, Loader>>;
`;
}

async function main(): Promise<void> {
  const known = new Set(getProviders() as string[]);
  const providers: CatalogProvider[] = [];
  await Deno.mkdir(OUT, { recursive: true });
  for (const [id, facts] of Object.entries(PROVIDERS)) {
    if (!known.has(id)) throw new Error(`${id} is not a provider of ${SOURCE}: update PROVIDERS`);
    const [provider, models] = providerEntry(id, facts);
    providers.push(provider);
    await writeJson(fileName(id), models);
  }
  providers.push(...PRESETS);
  const generated = new Date().toISOString().slice(0, 10);
  await writeJson("providers.json", { note: NOTE, generated, source: SOURCE, providers });
  await Deno.writeTextFile(new URL("index.ts", OUT), indexModule(Object.keys(PROVIDERS)));
  const total = providers.reduce((sum, p) => sum + p.modelCount, 0);
  console.log(`${providers.length} providers, ${total} models, from ${SOURCE}`);
}

if (import.meta.main) await main();
