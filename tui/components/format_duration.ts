/**
 * Number and duration formatting shared by the footer, loader and
 * compaction summary.
 *
 * @module
 */

/**
 * Compact token counts: 950, 1.2k, 12k, 1.2M.
 *
 * @example
 * ```ts
 * import { formatTokens } from "@panto/tui";
 * console.assert(formatTokens(1234) === "1.2k" && formatTokens(56789) === "57k");
 * ```
 */
export function formatTokens(count: number): string {
  if (count < 1000) return String(Math.round(count));
  if (count < 10_000) return `${(count / 1000).toFixed(1)}k`;
  if (count < 1_000_000) return `${Math.round(count / 1000)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}

/**
 * Elapsed time: "7s", "1m 05s", "2h 03m".
 *
 * @example
 * ```ts
 * import { formatDuration } from "@panto/tui";
 * console.assert(formatDuration(65_000) === "1m 05s");
 * ```
 */
export function formatDuration(milliseconds: number): string {
  const seconds = Math.max(0, Math.floor(milliseconds / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}
