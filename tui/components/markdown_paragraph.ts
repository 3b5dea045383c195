/**
 * Paragraphs rendered in segments: runs of lines that start at a line
 * boundary no inline construct crosses. A streamed paragraph then
 * re-renders only its last segment; the cut depends on the text alone, so
 * a paragraph renders the same streamed or whole, and the same as one
 * piece (a segment ends only where nothing before it is still open).
 *
 * @module
 */
import type { MarkedToken, Token, Tokens } from "marked";
import { lexBlocks, lexInline } from "./markdown_lex.ts";
import { renderInline } from "./markdown_inline.ts";
import type { MarkdownStyle } from "./markdown_inline.ts";
import { hasContent } from "./markdown_open_block.ts";
import type { BlockContext, BlockUpdate, OpenBlock } from "./markdown_open_block.ts";
import { wrapText } from "./wrap_text.ts";
import { stripEscapes } from "../text_width.ts";

/**
 * A run of lines this long is cut at the next safe line start even when a
 * delimiter before it is unmatched (it could only pair with one further on):
 * it bounds the cost of a streamed paragraph.
 */
export const MAX_SEGMENT_LINES = 40;

/** One segment: where it starts in the paragraph text and its wrapped rows. */
export interface Segment {
  offset: number;
  rows: string[];
}

/**
 * A line may start a segment when it starts with a letter (alone it lexes
 * as a paragraph line, as it does in the middle of one) and the line before
 * ends without a hard break (trailing spaces or backslash).
 */
function mayCutBefore(previous: string, line: string): boolean {
  return /^\p{L}/u.test(line) && !/[ \t\\]$/.test(previous);
}

const WHITESPACE = /\s/;
const ALPHANUMERIC = /[\p{L}\p{N}]/u;

/** Whether the delimiter run at `index` in `text` could open a span closed later. */
function mayOpen(text: string, index: number): boolean {
  const char = text[index] ?? "";
  let end = index;
  while (text[end] === char) end++;
  const next = text[end];
  if (next === undefined || WHITESPACE.test(next)) return false;
  if (char === "~") return end - index >= 2;
  if (char === "_") return !ALPHANUMERIC.test(text[index - 1] ?? " ");
  return true;
}

/** Whether text left unparsed at `index` could start a construct ended later. */
function dangerousAt(text: string, index: number): boolean {
  switch (text[index]) {
    case "`":
    case "[":
      return true;
    case "<":
      return !WHITESPACE.test(text[index + 1] ?? " ");
    case "*":
    case "_":
    case "~":
      return mayOpen(text, index);
    default:
      return false;
  }
}

/**
 * Whether every construct in `text` is closed within it: its plain text
 * holds no backtick, bracket, tag start or delimiter run that could open.
 */
function allClosed(tokens: readonly Token[], text: string): boolean {
  let offset = 0;
  for (const token of tokens) {
    if ((token as MarkedToken).type === "text") {
      for (let i = offset; i < offset + token.raw.length; i++) {
        if (dangerousAt(text, i)) return false;
      }
    }
    offset += token.raw.length;
  }
  return offset === text.length;
}

function segmentRows(tokens: readonly Token[], width: number, style: MarkdownStyle): string[] {
  return wrapText(renderInline(tokens, style), width);
}

/**
 * Splits paragraph text into segments and renders each; with
 * `splitLongLine`, a long last segment is also cut inside its line (for an
 * open paragraph, whose settled part is then cached).
 */
export function paragraphSegments(
  text: string,
  width: number,
  style: MarkdownStyle,
  splitLongLine = false,
): Segment[] {
  const lines = text.split("\n");
  const segments: Segment[] = [];
  let start = 0;
  let startOffset = 0;
  let offset = (lines[0]?.length ?? 0) + 1;
  for (let j = 1; j < lines.length; j++) {
    const line = lines[j] ?? "";
    const lineOffset = offset;
    offset += line.length + 1;
    if (!mayCutBefore(lines[j - 1] ?? "", line)) continue;
    const segment = text.slice(startOffset, lineOffset - 1);
    const tokens = lexInline(segment, style.links);
    if (!allClosed(tokens, segment) && j - start < MAX_SEGMENT_LINES) continue;
    segments.push({ offset: startOffset, rows: segmentRows(tokens, width, style) });
    start = j;
    startOffset = lineOffset;
  }
  const last = text.slice(startOffset);
  const lastRows = segmentRows(lexInline(last, style.links), width, style);
  const split = splitLongLine ? splitAtSettledRow(last, lastRows, width, style) : null;
  if (split) {
    segments.push({ offset: startOffset, rows: split.head });
    segments.push({ offset: startOffset + split.restOffset, rows: split.rest });
    return segments;
  }
  segments.push({ offset: startOffset, rows: lastRows });
  return segments;
}

/**
 * A segment this long is cut inside its last line, at a settled row (see
 * {@linkcode splitAtSettledRow}): models write a paragraph as one line, and
 * without this cut every delta would re-wrap the whole of it.
 */
export const LONG_SEGMENT_CHARS = 400;

/** Cuts verified per render: each lexes and wraps the text on both sides. */
const CUT_TRIES = 3;

/**
 * Whether a break between the words around the space at `cut` is a break
 * between two of `plainRows` (rendered rows without escapes): a cheap test
 * that rules out most spaces before the exact check. A word with inline
 * syntax renders differently from its source, so a cut next to one is not
 * tried.
 */
function mayBreakAt(text: string, cut: number, plainRows: readonly string[]): boolean {
  const before = text.slice(text.lastIndexOf(" ", cut - 1) + 1, cut);
  const nextSpace = text.indexOf(" ", cut + 1);
  const after = text.slice(cut + 1, nextSpace === -1 ? text.length : nextSpace);
  for (let row = 1; row < plainRows.length - 1; row++) {
    if (plainRows[row]!.startsWith(after) && plainRows[row - 1]!.endsWith(before)) return true;
  }
  return false;
}

/**
 * Cuts a long segment at a space where its wrapped rows (`rows`) can no
 * longer change: the text before is closed (no inline construct open), the
 * word after starts with a letter (so the rest lexes as a paragraph) and is
 * followed by at least a row of text (so that word, which decides the
 * break, is complete). Spaces within the two rows before the last two are
 * candidates; a cut is kept only when the text after it wraps to exactly
 * the whole's last rows, so rendering in pieces never differs.
 */
function splitAtSettledRow(
  text: string,
  rows: readonly string[],
  width: number,
  style: MarkdownStyle,
): { head: string[]; rest: string[]; restOffset: number } | null {
  if (text.length < LONG_SEGMENT_CHARS) return null;
  const plainRows = rows.slice(-8).map(stripEscapes);
  const lowest = Math.max(text.lastIndexOf("\n"), text.length - 4 * width);
  for (
    let cut = text.lastIndexOf(" ", text.length - 2 * width), tries = 0;
    cut > lowest && tries < CUT_TRIES;
    cut = text.lastIndexOf(" ", cut - 1)
  ) {
    if (!/^\p{L}/u.test(text.slice(cut + 1, cut + 2)) || text[cut - 1] === " ") continue;
    if (!mayBreakAt(text, cut, plainRows)) continue;
    tries++;
    const head = text.slice(0, cut);
    if (!allClosed(lexInline(head, style.links), head)) continue;
    const rest = segmentRows(lexInline(text.slice(cut + 1), style.links), width, style);
    const headRows = rows.length - rest.length;
    // The whole's rows before the break are kept: text after a closed head cannot change them.
    if (headRows > 0 && rest.every((row, i) => row === rows[headRows + i])) {
      return { head: rows.slice(0, headRows), rest, restOffset: cut + 1 };
    }
  }
  return null;
}

/** A paragraph's rows (its text rendered segment by segment). */
export function paragraphRows(text: string, width: number, style: MarkdownStyle): string[] {
  return paragraphSegments(text, width, style).flatMap((segment) => segment.rows);
}

/** An open paragraph: segments before the last one are settled. */
export class OpenParagraph implements OpenBlock {
  #settledOffset: number;
  #settledRows = 0;
  #started = false;
  readonly #context: BlockContext;

  private constructor(start: number, context: BlockContext) {
    this.#settledOffset = start;
    this.#context = context;
  }

  /** An open block for a paragraph token, or null. */
  static from(token: Token, start: number, context: BlockContext): OpenParagraph | null {
    return token.type === "paragraph" ? new OpenParagraph(start, context) : null;
  }

  get settledOffset(): number {
    return this.#settledOffset;
  }

  update(tail: string): BlockUpdate | null {
    const { width, style } = this.#context;
    const tokens = lexBlocks(tail, style.links);
    const first = tokens[0] as Tokens.Paragraph | undefined;
    if (first?.type !== "paragraph" || !first.raw.startsWith(first.text)) return null;
    const segments = paragraphSegments(first.text, width, style, true);
    const rows = segments.flatMap((segment) => segment.rows);
    const update: BlockUpdate = { from: this.#started ? this.#settledRows : 0, rows };
    const after = tokens.slice(1);
    if (hasContent(after)) update.ended = { end: this.#settledOffset + first.raw.length, after };
    const last = segments.at(-1);
    this.#settledOffset += last?.offset ?? 0;
    this.#settledRows = update.from + rows.length - (last?.rows.length ?? 0);
    this.#started = true;
    return update;
  }
}
