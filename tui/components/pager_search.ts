/**
 * Finding a typed pattern in styled lines and highlighting the places
 * found, for the {@linkcode Pager}.
 *
 * @module
 */
import { sliceColumns, stripEscapes, visibleWidth } from "../text_width.ts";

/** A place a pattern was found: a line and the columns `[start, end)` it covers there. */
export interface PagerMatch {
  /** Index of the line. */
  line: number;
  /** First column. */
  start: number;
  /** Column just past the match. */
  end: number;
}

/**
 * Every place `pattern` occurs in `lines`, as their text shows (escape
 * sequences ignored), in order. The search ignores case unless the pattern
 * holds an upper-case letter (less's and vim's "smart case"); it is literal
 * text, not a regular expression, and does not reach across lines; places
 * found do not overlap.
 *
 * @example
 * ```ts ignore
 * findMatches(["a \x1b[1mB\x1b[22m b"], "b"); // [{ line: 0, start: 2, end: 3 }, { line: 0, start: 4, end: 5 }]
 * ```
 */
export function findMatches(lines: readonly string[], pattern: string): PagerMatch[] {
  if (pattern === "") return [];
  const ignoreCase = pattern === pattern.toLowerCase();
  const needle = ignoreCase ? pattern.toLowerCase() : pattern;
  const found: PagerMatch[] = [];
  lines.forEach((line, index) => {
    const plain = stripEscapes(line);
    const haystack = ignoreCase ? plain.toLowerCase() : plain;
    // Lower-casing can change a string's length (a few rare letters): columns are then
    // measured on the lower-cased text, which is what was searched.
    const measured = haystack.length === plain.length ? plain : haystack;
    for (
      let at = haystack.indexOf(needle);
      at !== -1;
      at = haystack.indexOf(needle, at + needle.length)
    ) {
      const start = visibleWidth(measured.slice(0, at));
      const end = start + visibleWidth(measured.slice(at, at + needle.length));
      // A match of zero columns (combining marks alone) could not be seen.
      if (end > start) found.push({ line: index, start, end });
    }
  });
  return found;
}

/**
 * `line` with the columns of each of `matches` (all on this line, in
 * order, not overlapping) drawn by `style`; the line's own styles go on
 * after each match.
 */
export function highlightLine(
  line: string,
  matches: readonly PagerMatch[],
  style: (text: string, index: number) => string,
): string {
  // The match keeps the line's colours under the highlight; a reset after it ends the
  // highlight, and the slice after re-applies the line's styles. A plain line stays plain.
  const reset = line.includes("\x1b") ? RESET : "";
  let out = "";
  let column = 0;
  matches.forEach((match, index) => {
    if (match.start < column) return;
    out += sliceColumns(line, column, match.start);
    out += style(sliceColumns(line, match.start, match.end), index) + reset;
    column = match.end;
  });
  return out + sliceColumns(line, column, Infinity);
}

const RESET = "\x1b[0m";
