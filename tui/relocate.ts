/**
 * Finding where the lines on screen went: after a resize (the terminal
 * moved rows between the screen and its history, and a width change
 * re-wrapped the content) or after a change above the screen.
 *
 * @module
 */
import type { ScreenPosition } from "./terminal.ts";
import { blockStarts, blockWords } from "./text_blocks.ts";

/** What the terminal shows, as the engine knows it. */
export interface ScreenView {
  /** What each content line shows (lines before `top` are history). */
  readonly screen: readonly string[];
  /** The content line on the screen's top row. */
  readonly top: number;
  /** Rows above `top` on the screen that show no line of the content as it is now. */
  readonly lead: number;
  /** The screen's height. */
  readonly rows: number;
  /** The screen's width. */
  readonly width: number;
  /** The content line the hardware cursor is on. */
  readonly cursorLine: number;
  /** The cursor's column. */
  readonly cursorCol: number;
  /** How many rows the terminal splits a line drawn on screen into at `width`. */
  rowsAt(text: string): number;
}

/** A content line and the screen row it is on. */
export interface LocatedLine {
  /** The content line. */
  line: number;
  /** Its row (0 is the top). */
  row: number;
}

/**
 * The first content line wholly on screen (not above our old top row) and
 * its row, from the cursor's row as the terminal reports it after a
 * resize: the lines above the cursor's, each as many rows as the terminal
 * splits it into at the new width, stacked up.
 *
 * @example
 * ```ts ignore
 * locate(view, await terminal.cursorPosition()); // { line: 40, row: 2 }
 * ```
 */
export function locate(view: ScreenView, report: ScreenPosition): LocatedLine {
  const rowsOf = (line: number) => view.rowsAt(view.screen[line] ?? "");
  let line = view.cursorLine;
  // On a split line the cursor is in the part holding its column.
  let row = report.row - Math.min(rowsOf(line) - 1, Math.floor(view.cursorCol / view.width));
  // Above our top row the terminal shows history (pulled back on a taller screen), which
  // may differ from our lines there: those rows are left alone.
  while (line > view.top && rowsOf(line - 1) <= row) {
    row -= rowsOf(line - 1);
    line--;
  }
  return { line, row: Math.max(0, row) };
}

/**
 * An upper bound of the content line on the screen's top row after a
 * resize the terminal did not report the cursor after: the lines on
 * screen, re-measured at the new width, stacked up from the bottom row
 * down to the cursor, which the terminal keeps on screen (a terminal that
 * kept rows below them shows fewer).
 *
 * @example
 * ```ts ignore
 * topAfterResize(view); // 41
 * ```
 */
export function topAfterResize(view: ScreenView): number {
  let top = Math.max(view.screen.length, view.cursorLine + 1);
  let used = 0;
  while (top > view.top) {
    const rows = view.rowsAt(view.screen[top - 1] ?? "");
    if (used + rows > view.rows) break;
    used += rows;
    top--;
  }
  return Math.min(view.cursorLine, top);
}

/**
 * Whether the terminal split some line on screen when it got narrower than `columns`.
 *
 * @example
 * ```ts ignore
 * reflowed(view, 120); // true when a line on screen is wider than view.width
 * ```
 */
export function reflowed(view: ScreenView, columns: number): boolean {
  if (view.width >= columns) return false;
  return view.screen.slice(view.top).some((line) => view.rowsAt(line) > 1);
}

/**
 * After a width change, the first block (lines after a blank one: a
 * paragraph, a message) that starts on screen, found again in the new
 * content: the old line it started on (its row from the cursor report)
 * and the new line it starts on. Found by the block's words, which do
 * not depend on the width, and checked against the blocks after it; the
 * best supported place wins. `null` when no block starts on screen or
 * none is found.
 *
 * @example
 * ```ts ignore
 * blockAnchor(view, locate(view, report), length, composed, 120); // { oldLine: 52, line: 60, row: 3 }
 * ```
 */
export function blockAnchor(
  view: ScreenView,
  located: LocatedLine,
  length: number,
  composed: (line: number) => string,
  oldColumns: number,
): { oldLine: number; line: number; row: number } | null {
  const old = (line: number) => view.screen[line] ?? "";
  const oldStarts = blockStarts(old, located.line, view.screen.length);
  // The lines on screen fill at most this many lines at the new width (and fewer at a wider one).
  const span = (view.screen.length - located.line + view.rows) *
    (Math.ceil(oldColumns / view.width) + 1);
  const newStarts = blockStarts(composed, Math.max(0, length - span), length);
  const oldWords = oldStarts.map((start) => blockWords(old, start, view.screen.length));
  const newWords = newStarts.map((start) => blockWords(composed, start, length));
  let row = located.row;
  let line = located.line;
  for (const [at, oldStart] of oldStarts.entries()) {
    for (; line < oldStart; line++) row += view.rowsAt(old(line));
    if (row >= view.rows) return null;
    let best: { line: number; support: number } | null = null;
    for (const [index, newStart] of newStarts.entries()) {
      let support = 0;
      while (
        at + support < oldWords.length && index + support < newWords.length &&
        oldWords[at + support] === newWords[index + support]
      ) {
        support++;
      }
      if (support > 0 && (best === null || support >= best.support)) {
        best = { line: newStart, support };
      }
    }
    if (best !== null) return { oldLine: oldStart, line: best.line, row };
  }
  return null;
}

/**
 * The new content line to show first after a change at `changed`, above
 * the screen's first line `top` (lines before it are history already):
 * where the first line on screen that still exists went (moved by as many
 * lines as the content grew or shrank above it, or found by its text and
 * the rows after it), preceded by any new lines between it and the last
 * line in history. When no line on screen is left: the line after the
 * last one whose text is in history since the change (so none is shown
 * twice). `null` when neither is found.
 *
 * @example
 * ```ts ignore
 * newTop(view, length, composed, changed, view.top) ?? changed;
 * ```
 */
export function newTop(
  view: ScreenView,
  length: number,
  composed: (line: number) => string,
  changed: number,
  top: number,
): number | null {
  const screen = view.screen;
  const end = Math.min(screen.length, top + view.rows - view.lead);
  const shifted = top + length - screen.length;
  const matches = (from: number, to: number) => {
    let count = 0;
    for (let row = 0; from + row < end && to + row < length; row++) {
      if (composed(to + row) === screen[from + row]) count++;
    }
    return count;
  };
  if (shifted >= changed && matches(top, shifted) === end - top) return shifted;
  const places = new Map<string, number[]>();
  for (let line = changed; line < length; line++) {
    const text = composed(line);
    const seen = places.get(text);
    if (seen === undefined) places.set(text, [line]);
    else seen.push(line);
  }
  for (let line = top; line < end; line++) {
    // Repeated lines (a table's wrapped rows, blank lines) match in many places: the
    // best supported place wins, and among equals the one nearest where the line
    // would be had only the end grown. Picking a far one would skip every line between.
    const expected = line + length - screen.length;
    let best = -1;
    let bestCount = 0;
    for (const place of places.get(screen[line]!) ?? []) {
      const count = matches(line, place);
      const nearer = Math.abs(place - expected) < Math.abs(best - expected);
      if (count > bestCount || (count === bestCount && nearer)) {
        [best, bestCount] = [place, count];
      }
    }
    if (best === -1) continue;
    // The lines just above the surviving one are shown too, up to its old row (less
    // what grew between: it may have pushed the line down), unless history has them
    // already (a collapse): those would be copies. Blank lines are everywhere, so they
    // neither stop nor count.
    const history = historyTexts(view, changed, top);
    const grown = Math.max(0, length - screen.length);
    const lowest = Math.max(changed, best - (line - top) - grown);
    let start = best;
    while (start > lowest && !history.has(composed(start - 1))) start--;
    return start;
  }
  return afterHistory(historyTexts(view, changed, top), length, composed, changed);
}

/** The line after the last one whose text is in history since the change (see {@linkcode newTop}). */
function afterHistory(
  history: ReadonlySet<string>,
  length: number,
  composed: (line: number) => string,
  changed: number,
): number | null {
  for (let line = length - 1; line >= changed; line--) {
    if (history.has(composed(line))) return line + 1;
  }
  return null;
}

/** The texts of the lines in history from `changed` to `top`, blank ones left out (they are everywhere). */
function historyTexts(view: ScreenView, changed: number, top: number): Set<string> {
  return new Set(view.screen.slice(changed, top).filter((text) => text !== ""));
}
