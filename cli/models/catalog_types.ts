import type { ApiStyle, OpenAICompat, ReasoningLevel } from "@panto/lib";

/** Input a model takes besides text. */
export type ModelInput = "text" | "image";

/** Prices in USD per million tokens. */
export interface CatalogPrice {
  /** Input tokens not read from a cache. */
  input: number;
  /** Output tokens (thinking included). */
  output: number;
  /** Input tokens read from the prompt cache. */
  cacheRead: number;
  /** Input tokens written to the prompt cache. */
  cacheWrite: number;
}

/** One model of the built-in catalog (`cli/models/catalog/`). */
export interface CatalogModel {
  /** The model's id as its provider's API knows it. */
  id: string;
  /** A display name. */
  name: string;
  /** The wire protocol, when not its provider's. */
  api?: ApiStyle;
  /** The base URL, when not its provider's. */
  baseUrl?: string;
  /** Context window in tokens. */
  contextWindow: number;
  /** Most output tokens per answer. */
  maxTokens: number;
  /** What it takes as input. */
  input: readonly ModelInput[];
  /** The reasoning levels it takes, least first; `["off"]` for a model that does not think. */
  thinkingLevels: readonly ReasoningLevel[];
  /** What its API is sent for a level, where it differs from the API's default. */
  reasoningValues?: Partial<Record<Exclude<ReasoningLevel, "off">, string>>;
  /** Prices. */
  price: CatalogPrice;
  /** Quirks of its server beyond its provider's (a DeepSeek model on OpenRouter). */
  compat?: OpenAICompat;
}

/** One provider of the built-in catalog. */
export interface CatalogProvider {
  /** Its name in `provider/model` (`anthropic`, `openrouter`). */
  id: string;
  /** A display name. */
  name: string;
  /** Its usual wire protocol. */
  api: ApiStyle;
  /** Its usual base URL. */
  baseUrl: string;
  /** The environment variable holding its key (none for a local server). */
  keyEnv?: string;
  /** Quirks of an OpenAI-compatible server, when known. */
  compat?: OpenAICompat;
  /** How many models the catalog lists for it (0: a preset, name any model it serves). */
  modelCount: number;
  /** The models ctrl+p cycles through when nothing else is configured, best first. */
  defaults: readonly string[];
}
