/**
 * The editor's text model: lines, a cursor, and the units the cursor moves
 * over (grapheme clusters, plus paste markers that count as one unit).
 *
 * @module
 */
import { graphemes } from "./wrap_text.ts";

/** A cursor position: line index and UTF-16 offset within the line. */
export interface CursorPosition {
  /** Line index (0-based). */
  line: number;
  /** UTF-16 offset within the line, always at a cursor stop. */
  col: number;
}

/** One cursor stop: a grapheme cluster or a whole paste marker. */
export interface TextUnit {
  start: number;
  end: number;
  text: string;
  marker: boolean;
}

/** Character classes for word motion. */
type WordClass = "space" | "word" | "punct";

/** Matches paste markers; group 1 is the paste id. */
export const PASTE_MARKER_PATTERN: RegExp = /\[paste #(\d+) (?:\+\d+ lines|\d+ chars)\]/g;

/** The marker standing in for paste `id`: `[paste #1 +42 lines]` or `[paste #2 1500 chars]`. */
export function pasteMarker(id: number, text: string): string {
  const lines = text.split("\n").length;
  return lines > 1 ? `[paste #${id} +${lines} lines]` : `[paste #${id} ${text.length} chars]`;
}
const WORD_CHAR = /^[\p{L}\p{N}\p{M}_]/u;
const SPACE = /^\s+$/u;

function wordClass(unit: TextUnit): WordClass {
  if (unit.marker) return "word";
  if (SPACE.test(unit.text)) return "space";
  return WORD_CHAR.test(unit.text) ? "word" : "punct";
}

/** Whether `unit` is whitespace (a line-wrap opportunity). */
export function isSpaceUnit(unit: TextUnit): boolean {
  return !unit.marker && SPACE.test(unit.text);
}

/**
 * Lines of text with a cursor. Paste markers (`[paste #3 +42 lines]`) whose
 * id `isMarker` accepts are single units for motion and deletion.
 */
export class EditorBuffer {
  lines: string[] = [""];
  cursor: CursorPosition = { line: 0, col: 0 };
  readonly #isMarker: (id: number) => boolean;
  #unitCache = new Map<string, TextUnit[]>();

  /** Creates an empty buffer; `isMarker` says which paste ids exist. */
  constructor(isMarker: (id: number) => boolean) {
    this.#isMarker = isMarker;
  }

  /** The whole text, lines joined with `\n`. */
  get text(): string {
    return this.lines.join("\n");
  }

  /** Replaces the text and puts the cursor at its end. */
  setText(text: string): void {
    this.lines = text.split("\n");
    const line = this.lines.length - 1;
    this.cursor = { line, col: this.lines[line]?.length ?? 0 };
  }

  /** The line at `index` ("" past the end). */
  lineText(index: number): string {
    return this.lines[index] ?? "";
  }

  /** Cursor stops of a line (memoized: rendering asks for every line). */
  units(text: string): TextUnit[] {
    let units = this.#unitCache.get(text);
    if (units !== undefined) return units;
    units = [];
    let plainStart = 0;
    const pushPlain = (end: number) => {
      let offset = plainStart;
      for (const grapheme of graphemes(text.slice(plainStart, end))) {
        units?.push({
          start: offset,
          end: offset + grapheme.length,
          text: grapheme,
          marker: false,
        });
        offset += grapheme.length;
      }
    };
    for (const match of text.matchAll(PASTE_MARKER_PATTERN)) {
      if (!this.#isMarker(Number(match[1]))) continue;
      pushPlain(match.index);
      units.push({
        start: match.index,
        end: match.index + match[0].length,
        text: match[0],
        marker: true,
      });
      plainStart = match.index + match[0].length;
    }
    pushPlain(text.length);
    if (this.#unitCache.size > 256) this.#unitCache.clear();
    this.#unitCache.set(text, units);
    return units;
  }

  /** Offset of the unit boundary before `col` on `line` (col itself at 0). */
  previousStop(line: number, col: number): number {
    const units = this.units(this.lineText(line));
    for (let i = units.length - 1; i >= 0; i--) {
      const unit = units[i];
      if (unit !== undefined && unit.start < col) return unit.start;
    }
    return 0;
  }

  /** Offset of the unit boundary after `col` on `line`. */
  nextStop(line: number, col: number): number {
    for (const unit of this.units(this.lineText(line))) if (unit.end > col) return unit.end;
    return this.lineText(line).length;
  }

  /** The position one unit left (crossing to the previous line's end). */
  left(pos: CursorPosition): CursorPosition {
    if (pos.col > 0) return { line: pos.line, col: this.previousStop(pos.line, pos.col) };
    if (pos.line === 0) return pos;
    return { line: pos.line - 1, col: this.lineText(pos.line - 1).length };
  }

  /** The position one unit right (crossing to the next line's start). */
  right(pos: CursorPosition): CursorPosition {
    const length = this.lineText(pos.line).length;
    if (pos.col < length) return { line: pos.line, col: this.nextStop(pos.line, pos.col) };
    if (pos.line >= this.lines.length - 1) return pos;
    return { line: pos.line + 1, col: 0 };
  }

  /** Start of the word left of `pos` (skipping spaces, then one class run). */
  wordLeft(pos: CursorPosition): CursorPosition {
    if (pos.col === 0) return this.left(pos);
    const units = this.units(this.lineText(pos.line)).filter((unit) => unit.end <= pos.col);
    let i = units.length - 1;
    while (i >= 0 && wordClass(units[i] as TextUnit) === "space") i--;
    if (i < 0) return { line: pos.line, col: 0 };
    const runClass = wordClass(units[i] as TextUnit);
    if ((units[i] as TextUnit).marker) return { line: pos.line, col: (units[i] as TextUnit).start };
    while (i > 0 && wordClass(units[i - 1] as TextUnit) === runClass && !units[i - 1]?.marker) i--;
    return { line: pos.line, col: units[i]?.start ?? 0 };
  }

  /** End of the word right of `pos` (skipping spaces, then one class run). */
  wordRight(pos: CursorPosition): CursorPosition {
    const length = this.lineText(pos.line).length;
    if (pos.col >= length) return this.right(pos);
    const units = this.units(this.lineText(pos.line)).filter((unit) => unit.start >= pos.col);
    let i = 0;
    while (i < units.length && wordClass(units[i] as TextUnit) === "space") i++;
    if (i >= units.length) return { line: pos.line, col: length };
    const runClass = wordClass(units[i] as TextUnit);
    if ((units[i] as TextUnit).marker) return { line: pos.line, col: (units[i] as TextUnit).end };
    while (
      i + 1 < units.length && wordClass(units[i + 1] as TextUnit) === runClass &&
      !units[i + 1]?.marker
    ) i++;
    return { line: pos.line, col: units[i]?.end ?? length };
  }

  /** Inserts `text` (may hold newlines) at the cursor and moves past it. */
  insert(text: string): void {
    const { line, col } = this.cursor;
    const current = this.lineText(line);
    const pieces = text.split("\n");
    const head = current.slice(0, col);
    const tail = current.slice(col);
    if (pieces.length === 1) {
      this.lines[line] = head + text + tail;
      this.cursor = { line, col: col + text.length };
      return;
    }
    const last = pieces.length - 1;
    const inserted = pieces.map((piece, i) =>
      (i === 0 ? head : "") + piece + (i === last ? tail : "")
    );
    this.lines.splice(line, 1, ...inserted);
    this.cursor = { line: line + last, col: (pieces[last] ?? "").length };
  }

  /** Removes the text between two positions (in either order); returns it. */
  delete(a: CursorPosition, b: CursorPosition): string {
    const [from, to] = compare(a, b) <= 0 ? [a, b] : [b, a];
    const removed = this.slice(from, to);
    const head = this.lineText(from.line).slice(0, from.col);
    const tail = this.lineText(to.line).slice(to.col);
    this.lines.splice(from.line, to.line - from.line + 1, head + tail);
    this.cursor = { ...from };
    return removed;
  }

  /** The text between two ordered positions. */
  slice(from: CursorPosition, to: CursorPosition): string {
    if (from.line === to.line) return this.lineText(from.line).slice(from.col, to.col);
    const parts = [this.lineText(from.line).slice(from.col)];
    for (let line = from.line + 1; line < to.line; line++) parts.push(this.lineText(line));
    parts.push(this.lineText(to.line).slice(0, to.col));
    return parts.join("\n");
  }

  /** Offset of a position in {@linkcode EditorBuffer.text}. */
  offsetOf(pos: CursorPosition): number {
    let offset = 0;
    for (let line = 0; line < pos.line; line++) offset += this.lineText(line).length + 1;
    return offset + pos.col;
  }

  /** Position of an offset in {@linkcode EditorBuffer.text}. */
  positionOf(offset: number): CursorPosition {
    let remaining = Math.max(0, offset);
    for (let line = 0; line < this.lines.length; line++) {
      const length = this.lineText(line).length;
      if (remaining <= length) return { line, col: remaining };
      remaining -= length + 1;
    }
    const line = this.lines.length - 1;
    return { line, col: this.lineText(line).length };
  }
}

/** Orders two positions: negative when `a` is first. */
export function compare(a: CursorPosition, b: CursorPosition): number {
  return a.line === b.line ? a.col - b.col : a.line - b.line;
}
