/**
 * Gemini's `generationConfig.thinkingConfig` for a reasoning level.
 *
 * @module
 */
import type { ProviderConfig, ReasoningLevel } from "../config.ts";
import { REASONING_LEVELS } from "../config.ts";
import { type GeminiModelTraits, geminiModelTraits } from "./google_models.ts";

/** The `thinkingConfig` request field. */
export interface GeminiThinkingConfig {
  /** Ask for thought summaries (`thought: true` parts); only when reasoning is on. */
  includeThoughts?: true;
  /** Tokens the model may think (Gemini 2.5; 0 turns thinking off where the model allows). */
  thinkingBudget?: number;
  /** How hard to think (Gemini 3): `MINIMAL`, `LOW`, `MEDIUM`, `HIGH`, `XHIGH`. */
  thinkingLevel?: string;
}

type Level = Exclude<ReasoningLevel, "off">;

/** The levels that think, least first. */
const LEVEL_NAMES = REASONING_LEVELS.filter((level): level is Level => level !== "off");

/**
 * Default budgets for Gemini 2.5. Every value is valid for Pro (128–32768),
 * Flash (0–24576) and Flash-Lite (512–24576) alike, except `xhigh`, which
 * only Pro gets in full.
 */
const BUDGETS: Readonly<Record<Level, number>> = {
  minimal: 512,
  low: 2048,
  medium: 8192,
  high: 24576,
  xhigh: 24576,
};

/**
 * Default levels for Gemini 3. `MINIMAL` is left out: Gemini 3 Pro, 3.1
 * Pro and 3.7 Flash reject it ("Thinking level MINIMAL is not supported for
 * this model"); a catalog entry that knows better sets it in
 * `reasoningValues`. Pro has no `MEDIUM` either.
 */
const LEVELS: Readonly<Record<Level, string>> = {
  minimal: "LOW",
  low: "LOW",
  medium: "MEDIUM",
  high: "HIGH",
  xhigh: "HIGH",
};
const PRO_LEVELS: Readonly<Record<Level, string>> = { ...LEVELS, medium: "HIGH" };
const GEMMA_LEVELS: Readonly<Record<Level, string>> = {
  minimal: "MINIMAL",
  low: "MINIMAL",
  medium: "HIGH",
  high: "HIGH",
  xhigh: "HIGH",
};

/**
 * The thinking parameters for a request, or `undefined` to send none.
 *
 * A level's wire value is `config.reasoningValues[level]` when the model's
 * catalog entry gives one (digits are a budget, anything else a level
 * name), else the default for the model's generation: a budget for Gemini
 * 2.5, a level for Gemini 3 and Gemma 4, and a budget for a name that tells
 * no generation (Gemini 3 still takes budgets; Gemini 2.5 rejects levels).
 * Models that cannot think get nothing. `off` sends budget 0 where the
 * model can stop thinking (2.5 Flash and Flash-Lite), else the lowest
 * setting it takes (Gemini 2.5 Pro and Gemini 3 always think), without
 * asking for thought summaries; for a name that tells no generation it
 * sends nothing (the model's default).
 *
 * @param config The provider config (model, reasoning level, catalog values).
 * @returns The `thinkingConfig`, or `undefined`.
 *
 * @example
 * ```ts
 * import { geminiThinkingConfig } from "./google_thinking.ts";
 * const base = { api: "google-generative-ai", baseUrl: "", reasoning: "high" } as const;
 * console.assert(geminiThinkingConfig({ ...base, model: "gemini-2.5-flash" })?.thinkingBudget === 24576);
 * console.assert(geminiThinkingConfig({ ...base, model: "gemini-3-pro-preview" })?.thinkingLevel === "HIGH");
 * const custom = { ...base, model: "gemini-3-flash-preview", reasoningValues: { high: "xhigh" } };
 * console.assert(geminiThinkingConfig(custom)?.thinkingLevel === "XHIGH");
 * ```
 */
export function geminiThinkingConfig(config: ProviderConfig): GeminiThinkingConfig | undefined {
  const traits = geminiModelTraits(config.model);
  const values = config.reasoningValues ?? {};
  if (config.reasoning === "off") return thinkingOff(traits, values);
  const value = values[config.reasoning];
  if (value !== undefined) return { includeThoughts: true, ...wireValue(value) };
  switch (traits.thinking) {
    case "none":
      return undefined;
    case "level":
      return { includeThoughts: true, thinkingLevel: levelsFor(traits)[config.reasoning] };
    case "budget":
    case "unknown":
      return { includeThoughts: true, thinkingBudget: budgetFor(traits, config.reasoning) };
  }
}

function thinkingOff(
  traits: GeminiModelTraits,
  values: NonNullable<ProviderConfig["reasoningValues"]>,
): GeminiThinkingConfig | undefined {
  if (traits.thinking === "none") return undefined;
  if (traits.thinking === "budget" && traits.variant.startsWith("flash")) {
    return { thinkingBudget: 0 };
  }
  // The lowest level the catalog says the model takes, else the generation's lowest.
  const lowest = LEVEL_NAMES.map((level) => values[level]).find((value) => value !== undefined);
  if (lowest !== undefined) return wireValue(lowest);
  switch (traits.thinking) {
    case "level":
      return { thinkingLevel: levelsFor(traits).minimal };
    case "budget":
      return { thinkingBudget: 128 }; // 2.5 Pro cannot stop thinking; 128 is its floor
    case "unknown":
      return undefined; // the model's own default
  }
}

/** A catalog value: digits are a budget in tokens, anything else a level name. */
function wireValue(value: string): GeminiThinkingConfig {
  const trimmed = value.trim();
  return /^\d+$/.test(trimmed)
    ? { thinkingBudget: Number(trimmed) }
    : { thinkingLevel: trimmed.toUpperCase() };
}

function levelsFor(traits: GeminiModelTraits): Readonly<Record<Level, string>> {
  if (traits.variant === "gemma") return GEMMA_LEVELS;
  return traits.variant === "pro" ? PRO_LEVELS : LEVELS;
}

function budgetFor(traits: GeminiModelTraits, level: Level): number {
  if (traits.variant === "pro") {
    if (level === "minimal") return 128;
    if (level === "xhigh") return 32768;
  }
  return BUDGETS[level];
}
