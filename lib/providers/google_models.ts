/**
 * What the Gemini wire format needs to know about a model, read from its
 * name: how it takes thinking parameters, and whether it takes images
 * inside function responses. Names follow Google's scheme
 * (`gemini-<major>[.<minor>]-<variant>[-preview…]`, `gemma-<major>-…`,
 * optionally prefixed with `models/`).
 *
 * @module
 */

/**
 * The parameter a model's thinking is set with: a token budget, a level
 * name, none at all, or `unknown` for a name that tells no generation.
 */
export type GeminiThinkingStyle = "budget" | "level" | "none" | "unknown";

/** What a model name tells about its generation. */
export interface GeminiModelTraits {
  /**
   * `budget` for Gemini 2.5 (`thinkingBudget`), `level` for Gemini 3 and
   * Gemma 4 (`thinkingLevel`), `none` for models that do not think
   * (Gemini 2.0 and older, Gemma 3 and older), `unknown` for a name that
   * tells no generation (`gemini-flash-latest`, a tuned model).
   */
  thinking: GeminiThinkingStyle;
  /** `pro`, `flash`, `flash-lite`, `gemma`, or `other`: the thinking defaults differ. */
  variant: "pro" | "flash" | "flash-lite" | "gemma" | "other";
  /**
   * Gemini 3 and later: images may travel inside a `functionResponse`
   * (`parts`), and a replayed function call must carry its thought
   * signature.
   */
  gemini3: boolean;
}

/**
 * Reads a Gemini or Gemma model name.
 *
 * @param model The model name, e.g. `gemini-2.5-flash` or `models/gemini-3-pro-preview`.
 * @returns Its traits.
 *
 * @example
 * ```ts
 * import { geminiModelTraits } from "./google_models.ts";
 * console.assert(geminiModelTraits("gemini-2.5-pro").thinking === "budget");
 * console.assert(geminiModelTraits("models/gemini-3-flash-preview").thinking === "level");
 * console.assert(geminiModelTraits("gemini-2.0-flash").thinking === "none");
 * console.assert(geminiModelTraits("gemini-flash-latest").thinking === "unknown");
 * ```
 */
export function geminiModelTraits(model: string): GeminiModelTraits {
  const name = model.toLowerCase().replace(/^models\//, "");
  const gemma = /(?:^|\/)gemma-?(\d+)/.exec(name);
  if (gemma) {
    return {
      thinking: Number(gemma[1]) >= 4 ? "level" : "none",
      variant: "gemma",
      gemini3: false,
    };
  }
  const variant = name.includes("flash-lite")
    ? "flash-lite"
    : /-pro\b/.test(name)
    ? "pro"
    : name.includes("flash")
    ? "flash"
    : "other";
  const gemini = /gemini-(?:live-)?(\d+)(?:\.(\d+))?/.exec(name);
  if (!gemini) return { thinking: "unknown", variant, gemini3: false };
  const version = Number(`${gemini[1]}.${gemini[2] ?? 0}`);
  return {
    thinking: version >= 3 ? "level" : version >= 2.5 ? "budget" : "none",
    variant,
    gemini3: version >= 3,
  };
}
