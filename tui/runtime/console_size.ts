/**
 * The terminal size, hiding `Deno.consoleSize`.
 *
 * @module
 */

/** Columns and rows of a terminal. */
export interface ConsoleSize {
  /** Width in columns. */
  columns: number;
  /** Height in rows. */
  rows: number;
}

/**
 * The size of the controlling terminal, or 80×24 when none of
 * stdin/stdout/stderr is a terminal (`Deno.consoleSize` throws then).
 *
 * @example
 * ```ts
 * import { consoleSize } from "./console_size.ts";
 * console.assert(consoleSize().columns > 0);
 * ```
 */
export function consoleSize(): ConsoleSize {
  try {
    const { columns, rows } = Deno.consoleSize();
    return { columns: columns || 80, rows: rows || 24 };
  } catch {
    return { columns: 80, rows: 24 };
  }
}
