/**
 * The control sequences the engine writes to draw its frames.
 *
 * @module
 */

/** Begins a synchronized update: the terminal shows nothing of the frame until {@linkcode SYNC_END}. */
export const SYNC_BEGIN = "\x1b[?2026h";
/** Ends a synchronized update. */
export const SYNC_END = "\x1b[?2026l";
/** Hides the hardware cursor. */
export const HIDE_CURSOR = "\x1b[?25l";
/** Shows the hardware cursor. */
export const SHOW_CURSOR = "\x1b[?25h";
/** Erases the cursor's row. */
export const CLEAR_LINE = "\x1b[2K";
/** Erases from the cursor to the end of its row. */
export const CLEAR_TO_LINE_END = "\x1b[K";
/** Erases from the cursor to the end of the screen. */
export const CLEAR_BELOW = "\x1b[J";
/** Moves the cursor to the top-left corner (only a move: erasing from there would push to history). */
export const HOME = "\x1b[H";
/**
 * Auto-wrap is off while we own the screen: if a terminal measures a
 * cluster wider than we do (some draw ZWJ emoji as several glyphs), the
 * line is clipped at the edge instead of wrapping and shifting every row.
 */
export const AUTOWRAP_OFF = "\x1b[?7l";
/** Auto-wrap back on, as the shell expects it. */
export const AUTOWRAP_ON = "\x1b[?7h";
