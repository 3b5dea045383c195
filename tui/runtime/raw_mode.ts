/**
 * Raw mode on the process's stdin, hiding `Deno.stdin.setRaw`.
 *
 * @module
 */

/**
 * Turns raw mode on or off. Throws a descriptive error when stdin is not a
 * terminal (Deno reports `ENOTTY`).
 *
 * @example
 * ```ts ignore
 * import { setRawMode } from "./raw_mode.ts";
 * setRawMode(true);
 * setRawMode(false);
 * ```
 */
export function setRawMode(enabled: boolean): void {
  if (!Deno.stdin.isTerminal()) {
    if (!enabled) return; // nothing to restore
    throw new Error(
      "Cannot enter raw mode: stdin is not a terminal (run panto in a terminal, not a pipe)",
    );
  }
  Deno.stdin.setRaw(enabled);
}
