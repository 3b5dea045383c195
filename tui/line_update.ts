/**
 * The bytes that turn a row of the screen into a new line: only the
 * changed tail when that is safe and shorter, else the whole line.
 *
 * @module
 */
import { CLEAR_LINE, CLEAR_TO_LINE_END } from "./control_sequences.ts";
import { compactForeground } from "./sgr_compact.ts";
import { sgrStateAt } from "./sgr_state.ts";
import { sliceColumns, visibleWidth } from "./text_width.ts";

/** Shortest prefix worth keeping: below it, rewriting the line is as cheap. */
const MIN_KEPT_PREFIX = 8;
const NON_ASCII = /[\u007f-\uffff]/;

/**
 * Whether a UTF-16 unit is a character every terminal draws one column
 * wide: ASCII, or box drawing (table borders and rules; a terminal set to
 * draw ambiguous-width characters wide could not fit our tables anyway).
 */
function surelyNarrow(code: number): boolean {
  return code < 0x7f || (code >= 0x2500 && code <= 0x257f);
}

/**
 * The bytes that turn the row showing `previous` into `text`, with the
 * cursor at column 0 of that row: only the part after their common prefix
 * when that saves bytes (streaming appends to the last line, a table row
 * fills its cells), else the whole line. The kept prefix holds only
 * {@linkcode surelyNarrow} characters, because terminals disagree on the
 * width of some clusters (ZWJ emoji) and a wrong column would corrupt the
 * row; a full rewrite from column 0 is immune to that.
 *
 * @example
 * ```ts ignore
 * lineUpdate("streaming an ans", "streaming an answer", 80); // "\x1b[17Gwer"
 * ```
 */
export function lineUpdate(previous: string, text: string, width: number): string {
  // A blank row (inserted, or cleared before) needs no clearing.
  if (previous === "") return text;
  const shared = Math.min(previous.length, text.length);
  let cut = 0;
  while (
    cut < shared && previous.charCodeAt(cut) === text.charCodeAt(cut) &&
    surelyNarrow(text.charCodeAt(cut))
  ) {
    cut++;
  }
  // A combining mark after the cut belongs to the cluster of the character before it.
  if (cut > 0 && cut < text.length && !surelyNarrow(text.charCodeAt(cut))) cut--;
  const escape = text.lastIndexOf("\x1b", cut - 1);
  if (escape !== -1 && !completeEscapeBefore(text, escape, cut)) cut = escape;
  if (cut < MIN_KEPT_PREFIX) return covers(text, previous) ? text : CLEAR_LINE + text;
  const column = visibleWidth(text.slice(0, cut));
  // Styles active at the cut must be re-applied: the terminal's state is reset between lines.
  const style = escape === -1 ? "" : sgrStateAt(text.slice(0, cut));
  const tail = style === null
    ? sliceColumns(text, column, Infinity)
    // The colour active at the cut is often replaced at once by the next token's.
    : style === ""
    ? text.slice(cut)
    : compactForeground(style + text.slice(cut));
  const newWidth = visibleWidth(text);
  // Erase what the old line had beyond the new one (never at the last column: in the
  // pending-wrap state that would erase the last character).
  const mayBeShorter = NON_ASCII.test(previous) || visibleWidth(previous) > newWidth;
  const erase = mayBeShorter && newWidth < width ? CLEAR_TO_LINE_END : "";
  return `\x1b[${column + 1}G${tail}${erase}`;
}

/**
 * Whether writing `text` from column 0 hides every character of
 * `previous`, so the row needs no clearing first: both ASCII (their widths
 * are certain) and `text` at least as wide.
 */
function covers(text: string, previous: string): boolean {
  return !NON_ASCII.test(previous) && !NON_ASCII.test(text) &&
    visibleWidth(text) >= visibleWidth(previous);
}

/** Whether the escape sequence starting at `start` ends at or before `end`. */
function completeEscapeBefore(text: string, start: number, end: number): boolean {
  if (text[start + 1] !== "[") return false;
  for (let i = start + 2; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x40 && code <= 0x7e) return true;
  }
  return false;
}
