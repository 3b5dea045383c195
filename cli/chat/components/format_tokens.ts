/**
 * Token-count formatting shared by the footer and the compaction summary.
 *
 * @module
 */

/**
 * Compact token counts: 950, 1.2k, 12k, 1.2M.
 *
 * @example
 * ```ts
 * import { formatTokens } from "./format_tokens.ts";
 * console.assert(formatTokens(1234) === "1.2k" && formatTokens(56789) === "57k");
 * ```
 */
export function formatTokens(count: number): string {
  if (count < 1000) return String(Math.round(count));
  if (count < 10_000) return `${(count / 1000).toFixed(1)}k`;
  if (count < 1_000_000) return `${Math.round(count / 1000)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}
