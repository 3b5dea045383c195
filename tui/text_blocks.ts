/**
 * Blocks of drawn lines (a paragraph, a message, a tool call: the lines
 * after a blank one) and their words, which do not depend on the width:
 * how a block is found again after a width change re-wrapped it.
 *
 * @module
 */
import { stripEscapes } from "./text_width.ts";

/** Whether a drawn line shows nothing (a blank line between blocks). */
function blank(text: string): boolean {
  return stripEscapes(text).trim() === "";
}

/**
 * The lines in `[from, to)` that start a block: not blank, after a blank line.
 *
 * @example
 * ```ts ignore
 * const lines = ["a", "", "b", "c", "", "d"];
 * blockStarts((line) => lines[line]!, 0, lines.length); // [2, 5]
 * ```
 */
export function blockStarts(text: (line: number) => string, from: number, to: number): number[] {
  const starts: number[] = [];
  for (let line = Math.max(1, from); line < to; line++) {
    if (blank(text(line - 1)) && !blank(text(line))) starts.push(line);
  }
  return starts;
}

/**
 * The words of the block starting at `start` (up to the next blank line
 * or `end`), whatever their wrapping.
 *
 * @example
 * ```ts ignore
 * const lines = ["one two", "three", ""];
 * blockWords((line) => lines[line]!, 0, 3); // "one two three"
 * ```
 */
export function blockWords(text: (line: number) => string, start: number, end: number): string {
  const words: string[] = [];
  for (let line = start; line < end && !blank(text(line)); line++) {
    words.push(stripEscapes(text(line)).trim());
  }
  return words.join(" ").split(/\s+/).join(" ");
}
