/**
 * ANSI-aware word wrapping: styled text in, lines no wider than the width
 * out, each line closing the styles it opened and the next reopening them.
 *
 * @module
 */
import { expandTabs, graphemeWidth } from "../text_width.ts";
import { escapeEnd, SgrState } from "./sgr_state.ts";

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Splits plain text (no escapes) into grapheme clusters, with a fast path
 * for printable ASCII.
 */
export function graphemes(text: string): string[] {
  if (PRINTABLE_ASCII.test(text)) return text.split("");
  const result: string[] = [];
  for (const { segment } of segmenter.segment(text)) result.push(segment);
  return result;
}

/**
 * One piece of a line: an escape sequence (width 0, `escape`), a grapheme,
 * or a run of printable ASCII characters that are all spaces or all not
 * (`ascii`: one column each, so it may be split between any two).
 */
interface Unit {
  text: string;
  width: number;
  escape: boolean;
  space: boolean;
  ascii: boolean;
}

const SPACE = 0x20;

function unitsOf(line: string): Unit[] {
  const units: Unit[] = [];
  let plainStart = 0;
  const pushPlain = (end: number) => {
    if (end <= plainStart) return;
    const plain = line.slice(plainStart, end);
    // One unit per word or gap, not per character: a long paragraph is mostly ASCII.
    if (PRINTABLE_ASCII.test(plain)) {
      for (let start = 0, end = 1; start < plain.length; start = end++) {
        const space = plain.charCodeAt(start) === SPACE;
        while (end < plain.length && (plain.charCodeAt(end) === SPACE) === space) end++;
        const text = plain.slice(start, end);
        units.push({ text, width: text.length, escape: false, space, ascii: true });
      }
      return;
    }
    for (const grapheme of graphemes(plain)) {
      units.push({
        text: grapheme,
        width: graphemeWidth(grapheme),
        escape: false,
        space: grapheme === " ",
        ascii: false,
      });
    }
  };
  let i = line.indexOf("\x1b");
  while (i !== -1) {
    pushPlain(i);
    const end = escapeEnd(line, i);
    units.push({ text: line.slice(i, end), width: 0, escape: true, space: false, ascii: false });
    plainStart = end;
    i = line.indexOf("\x1b", end);
  }
  pushPlain(line.length);
  return units;
}

/** A run of spaces or of non-spaces (escapes ride with the run they sit in). */
interface Run {
  units: Unit[];
  width: number;
  space: boolean;
}

function runsOf(units: readonly Unit[]): Run[] {
  const runs: Run[] = [];
  let current: Run | undefined;
  for (const unit of units) {
    if (current === undefined || (!unit.escape && unit.space !== current.space)) {
      current = { units: [], width: 0, space: unit.space };
      runs.push(current);
    }
    current.units.push(unit);
    current.width += unit.width;
  }
  return runs;
}

/** Accumulates output lines, keeping styles balanced across breaks. */
class LineBuilder {
  readonly lines: string[] = [];
  readonly #state = new SgrState();
  #row = "";
  #rowWidth = 0;
  #visible = false;

  constructor(readonly width: number) {}

  get rowWidth(): number {
    return this.#rowWidth;
  }

  emit(unit: Unit): void {
    this.#row += unit.text;
    if (unit.escape) {
      this.#state.apply(unit.text);
      return;
    }
    this.#rowWidth += unit.width;
    this.#visible = true;
  }

  /** Emits only the escapes of `run` (the spaces are dropped at a break). */
  emitEscapes(run: Run): void {
    for (const unit of run.units) if (unit.escape) this.emit(unit);
  }

  emitRun(run: Run): void {
    for (const unit of run.units) this.emit(unit);
  }

  /** Emits a run grapheme by grapheme, breaking where the width runs out. */
  emitBroken(run: Run): void {
    for (const unit of run.units) {
      if (unit.ascii) {
        this.#emitAsciiBroken(unit.text);
        continue;
      }
      if (!unit.escape && this.#rowWidth + unit.width > this.width) {
        if (this.#rowWidth > 0) this.newline();
        if (unit.width > this.width) {
          this.emit({ ...unit, text: "…".repeat(this.width > 0 ? 1 : 0), width: 1 });
          continue;
        }
      }
      this.emit(unit);
    }
  }

  /** {@linkcode emitBroken} for one-column characters: as many as fit on each row. */
  #emitAsciiBroken(text: string): void {
    for (let at = 0; at < text.length;) {
      if (this.#rowWidth >= this.width) this.newline();
      const piece = text.slice(at, at + this.width - this.#rowWidth);
      this.emit({ text: piece, width: piece.length, escape: false, space: false, ascii: true });
      at += piece.length;
    }
  }

  newline(): void {
    this.lines.push(this.#visible ? this.#row + this.#state.close() : "");
    this.#row = this.#state.open();
    this.#rowWidth = 0;
    this.#visible = false;
  }
}

function wrapRuns(runs: readonly Run[], builder: LineBuilder): void {
  const width = builder.width;
  let pending: Run | undefined;
  for (const run of runs) {
    if (run.space) {
      pending = run;
      continue;
    }
    const spaceWidth = pending?.width ?? 0;
    if (builder.rowWidth + spaceWidth + run.width <= width) {
      if (pending !== undefined) builder.emitRun(pending);
      builder.emitRun(run);
    } else if (builder.rowWidth > 0) {
      builder.newline();
      if (pending !== undefined) builder.emitEscapes(pending);
      if (run.width <= width) builder.emitRun(run);
      else builder.emitBroken(run);
    } else {
      if (pending !== undefined) {
        if (spaceWidth < width) builder.emitRun(pending);
        else builder.emitEscapes(pending);
      }
      builder.emitBroken(run);
    }
    pending = undefined;
  }
  if (pending !== undefined) {
    if (builder.rowWidth + pending.width <= width) builder.emitRun(pending);
    else builder.emitEscapes(pending);
  }
}

/**
 * Wraps styled text to `width` columns. Breaks at spaces, splits words
 * longer than a line between graphemes, honours `\n`, expands tabs to the
 * spaces the renderer draws ({@linkcode expandTabs}). Every returned line has visible width ≤ `width` and carries its
 * own SGR codes (styles active at a break are closed and reopened).
 *
 * @example
 * ```ts
 * import { wrapText } from "@panto/tui";
 * console.assert(wrapText("hello brave new world", 11).join("|") === "hello brave|new world");
 * ```
 */
export function wrapText(text: string, width: number): string[] {
  const columns = Math.max(1, Math.floor(width));
  const builder = new LineBuilder(columns);
  const hardLines = expandTabs(text).split("\n");
  for (let i = 0; i < hardLines.length; i++) {
    if (i > 0) builder.newline();
    wrapRuns(runsOf(unitsOf(hardLines[i] ?? "")), builder);
  }
  builder.newline();
  return builder.lines;
}

/**
 * Breaks styled text into lines of at most `width` columns between
 * graphemes, keeping every space (for code, where spacing matters).
 *
 * @example
 * ```ts
 * import { breakText } from "@panto/tui";
 * console.assert(breakText("abcdef", 4).join("|") === "abcd|ef");
 * ```
 */
export function breakText(text: string, width: number): string[] {
  const columns = Math.max(1, Math.floor(width));
  const builder = new LineBuilder(columns);
  const hardLines = expandTabs(text).split("\n");
  for (let i = 0; i < hardLines.length; i++) {
    if (i > 0) builder.newline();
    const units = unitsOf(hardLines[i] ?? "");
    builder.emitBroken({ units, width: 0, space: false });
  }
  builder.newline();
  return builder.lines;
}
