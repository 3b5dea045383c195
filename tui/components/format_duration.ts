/**
 * Elapsed-time formatting for the loader.
 *
 * @module
 */

/**
 * Elapsed time: "7s", "1m 05s", "2h 03m".
 *
 * @example
 * ```ts
 * import { formatDuration } from "./format_duration.ts";
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
