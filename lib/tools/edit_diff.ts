import { truncateLine } from "./truncate.ts";

/** Unchanged lines shown around each change. */
const CONTEXT_LINES = 2;
/** Diff lines (hunk headers included) shown; the rest are counted. */
const MAX_DIFF_LINES = 80;
/** Longest diff line shown, in characters: a minified file is one line. */
const MAX_DIFF_LINE_CHARS = 500;
/** Most edits the line diff of one changed block may find before the block is shown whole. */
const MAX_EDIT_LENGTH = 200;
/** Time the line diffs of all blocks together may take, in ms; later blocks are shown whole. */
const LINE_DIFF_BUDGET_MS = 200;
/** Longest the diff keeps the event loop to itself before letting an interrupt in, in ms. */
const BUSY_MS = 30;

/** Where an edit replaced text: `oldText` at each of `positions` (ascending, apart) became `newText`. */
export interface Replacement {
  /** The replaced text, as found in the file. */
  oldText: string;
  /** What replaced it. */
  newText: string;
  /** The offsets of the replaced occurrences in the old content. */
  positions: readonly number[];
}

/**
 * The text after `replacement`.
 *
 * @param content The text before.
 * @param replacement What was replaced, and where.
 * @returns The text after.
 *
 * @example
 * ```ts
 * import { applyReplacement } from "./edit_diff.ts";
 * const after = applyReplacement("a-b-a", { oldText: "a", newText: "z", positions: [0, 4] });
 * console.assert(after === "z-b-z");
 * ```
 */
export function applyReplacement(
  content: string,
  { oldText, newText, positions }: Replacement,
): string {
  const parts: string[] = [];
  let from = 0;
  for (const at of positions) {
    parts.push(content.slice(from, at), newText);
    from = at + oldText.length;
  }
  parts.push(content.slice(from));
  return parts.join("");
}

/**
 * The unified diff of an edit, built from where the replacements are rather
 * than by diffing the files, so the work grows with the file, never with
 * the file times the changes (the `diff` package on a whole 20,000-line file
 * after a `replaceAll` took minutes). The lines a replacement touches form a
 * block; a block of several lines gets a line diff of its own (the `diff`
 * package, bounded in edits and time; past the bound it is shown removed and
 * added whole). At most 80 lines are shown, then a count of the rest and of
 * the lines added and removed. The work lets the event loop run now and
 * then, and stops with the signal's reason.
 *
 * @param before The old content.
 * @param after The new content (`before` with the replacements applied).
 * @param replacement What was replaced where.
 * @param signal Stops the work.
 * @returns The hunks (`@@ -a,b +c,d @@` and ` `/`-`/`+` lines).
 *
 * @example
 * ```ts
 * import { editDiff } from "./edit_diff.ts";
 * const replacement = { oldText: "b", newText: "B", positions: [2] };
 * const diff = await editDiff("a\nb\nc\n", "a\nB\nc\n", replacement, new AbortController().signal);
 * console.assert(diff === "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c");
 * ```
 */
export async function editDiff(
  before: string,
  after: string,
  replacement: Replacement,
  signal: AbortSignal,
): Promise<string> {
  const pacer = new Pacer(signal);
  const oldLines = splitLines(before);
  const newLines = splitLines(after);
  const script = new Script();
  const lineDiffUntil = performance.now() + LINE_DIFF_BUDGET_MS;
  let oldAt = 0;
  for (const block of changedBlocks(before, after, replacement)) {
    await pacer.tick();
    script.same(block.oldFrom - oldAt);
    await addBlock(script, oldLines, newLines, block, lineDiffUntil);
    oldAt = block.oldTo;
  }
  script.same(oldLines.length - oldAt);
  return await formatHunks(script.ops, oldLines, newLines, pacer);
}

/** Lines with their `\n` kept, so that a change of the last line's ending still shows. */
function splitLines(text: string): string[] {
  const lines = text.split("\n");
  const last = lines.pop()!;
  const withEnds = lines.map((line) => `${line}\n`);
  if (last !== "") withEnds.push(last);
  return withEnds;
}

/** Whole lines that differ: old lines `[oldFrom, oldTo)` became new lines `[newFrom, newTo)`. */
interface Block {
  oldFrom: number;
  oldTo: number;
  newFrom: number;
  newTo: number;
}

/** A block being found, in offsets of the old content. */
interface Span {
  start: number;
  end: number;
  /** Where its last replacement ends. */
  lastEnd: number;
  /** The offset shift at its start. */
  startShift: number;
}

/**
 * The line blocks the replacements touch, in order: each the fewest whole
 * lines holding one or more replacements. Every scan starts at or after the
 * end of the one before, so finding them is linear in the file.
 */
function* changedBlocks(
  before: string,
  after: string,
  { oldText, newText, positions }: Replacement,
): Generator<Block> {
  const oldCounter = new LineCounter(before);
  const newCounter = new LineCounter(after);
  /** Offset in `after` minus offset in `before`, after the replacements so far. */
  let shift = 0;
  let span: Span | undefined;
  // New text that stops mid-line (`a\n` became `a`) joins the next line: the block takes it too.
  const extend = (span: Span) => {
    const newStart = span.start + span.startShift;
    const newEnd = span.end + shift;
    if (
      span.lastEnd === span.end && span.end < before.length && newEnd > newStart &&
      after[newEnd - 1] !== "\n"
    ) {
      const newline = before.indexOf("\n", span.end);
      span.end = newline === -1 ? before.length : newline + 1;
    }
  };
  const block = (span: Span): Block => ({
    oldFrom: oldCounter.lineOf(span.start),
    oldTo: oldCounter.lineOf(span.end),
    newFrom: newCounter.lineOf(span.start + span.startShift),
    newTo: newCounter.lineOf(span.end + shift),
  });
  for (const at of positions) {
    const end = at + oldText.length;
    if (span && at >= span.end) extend(span);
    if (span && at >= span.end) {
      yield block(span);
      span = undefined;
    }
    if (span) {
      if (end > span.end) span.end = lineEnd(before, end);
    } else {
      const start = at === 0 ? 0 : before.lastIndexOf("\n", at - 1) + 1;
      span = { start, end: lineEnd(before, end), lastEnd: end, startShift: shift };
    }
    span.lastEnd = end;
    shift += newText.length - oldText.length;
  }
  if (span) {
    extend(span);
    yield block(span);
  }
}

/** The offset after the line in which a replacement ending at `end` (> 0) ends. */
function lineEnd(text: string, end: number): number {
  if (text[end - 1] === "\n") return end;
  const newline = text.indexOf("\n", end);
  return newline === -1 ? text.length : newline + 1;
}

/** Line numbers of line boundaries asked in ascending order, counting each newline once. */
class LineCounter {
  #text: string;
  /** Just after the last newline counted. */
  #offset = 0;
  #line = 0;

  constructor(text: string) {
    this.#text = text;
  }

  /** The 0-based line starting at `offset` (a line boundary, never before the last one asked). */
  lineOf(offset: number): number {
    for (
      let at = this.#text.indexOf("\n", this.#offset);
      at !== -1 && at < offset;
      at = this.#text.indexOf("\n", at + 1)
    ) {
      this.#line++;
      this.#offset = at + 1;
    }
    // The end of a text without a last newline is past its last line.
    return this.#line + (offset > this.#offset ? 1 : 0);
  }
}

/** One step of the edit script: a run of unchanged lines, or one removed or added line. */
type Op = { kind: "="; count: number } | { kind: "-" | "+"; line: number };

/** The edit script, runs of unchanged lines joined. */
class Script {
  readonly ops: Op[] = [];

  same(count: number): void {
    if (count <= 0) return;
    const last = this.ops.at(-1);
    if (last?.kind === "=") last.count += count;
    else this.ops.push({ kind: "=", count });
  }

  change(kind: "-" | "+", from: number, to: number): void {
    for (let line = from; line < to; line++) this.ops.push({ kind, line });
  }
}

/** A block's ops: its common first and last lines are kept, the rest gets a bounded line diff. */
async function addBlock(
  script: Script,
  oldLines: readonly string[],
  newLines: readonly string[],
  block: Block,
  lineDiffUntil: number,
): Promise<void> {
  let { oldFrom, oldTo, newFrom, newTo } = block;
  const head = oldFrom;
  while (oldFrom < oldTo && newFrom < newTo && oldLines[oldFrom] === newLines[newFrom]) {
    oldFrom++;
    newFrom++;
  }
  script.same(oldFrom - head);
  const tail = oldTo;
  while (oldTo > oldFrom && newTo > newFrom && oldLines[oldTo - 1] === newLines[newTo - 1]) {
    oldTo--;
    newTo--;
  }
  const timeout = lineDiffUntil - performance.now();
  const [removed, added] = [oldTo - oldFrom, newTo - newFrom];
  // One line for one line needs no diff; a block of one side only neither.
  const changes = removed > 0 && added > 0 && removed + added > 2 && timeout > 0
    ? await lineDiff(oldLines.slice(oldFrom, oldTo), newLines.slice(newFrom, newTo), timeout)
    : undefined;
  if (changes) {
    for (const change of changes) {
      const count = change.count ?? change.value.length;
      if (change.removed) {
        script.change("-", oldFrom, oldFrom + count);
        oldFrom += count;
      } else if (change.added) {
        script.change("+", newFrom, newFrom + count);
        newFrom += count;
      } else {
        script.same(count);
        oldFrom += count;
        newFrom += count;
      }
    }
  } else {
    script.change("-", oldFrom, oldTo);
    script.change("+", newFrom, newTo);
  }
  script.same(tail - oldTo);
}

/**
 * The `diff` package's line diff of a changed block, `undefined` past its
 * bounds. It loads on the first edit of several lines, not at every start.
 */
async function lineDiff(removed: string[], added: string[], timeout: number) {
  const { diffArrays } = await import("diff");
  return diffArrays(removed, added, { maxEditLength: MAX_EDIT_LENGTH, timeout });
}

/** The script as unified diff hunks with context, cut to {@linkcode MAX_DIFF_LINES}. */
async function formatHunks(
  script: readonly Op[],
  oldLines: readonly string[],
  newLines: readonly string[],
  pacer: Pacer,
): Promise<string> {
  const out = new DiffOutput();
  let hunk: Hunk | undefined;
  let oldLine = 0;
  let newLine = 0;
  for (const [index, op] of script.entries()) {
    await pacer.tick();
    if (op.kind === "=") {
      const last = index === script.length - 1;
      if (hunk && (last || op.count > 2 * CONTEXT_LINES)) {
        hunk.context(oldLines, oldLine, Math.min(op.count, CONTEXT_LINES));
        hunk.flush(out);
        hunk = undefined;
      } else if (hunk) {
        hunk.context(oldLines, oldLine, op.count);
      }
      oldLine += op.count;
      newLine += op.count;
      continue;
    }
    if (!hunk) {
      const lead = Math.min(CONTEXT_LINES, oldLine, newLine);
      hunk = new Hunk(oldLine - lead, newLine - lead, out.room() - 1);
      hunk.context(oldLines, oldLine - lead, lead);
    }
    if (op.kind === "-") {
      hunk.line("-", oldLines[op.line]!);
      oldLine++;
    } else {
      hunk.line("+", newLines[op.line]!);
      newLine++;
    }
  }
  hunk?.flush(out);
  return out.text();
}

/** One hunk being built: its header needs its line counts, so its lines wait. */
class Hunk {
  #oldStart: number;
  #newStart: number;
  #oldCount = 0;
  #newCount = 0;
  #added = 0;
  #removed = 0;
  /** The lines the output still has room for; the others are only counted. */
  #kept: string[] = [];
  #room: number;

  constructor(oldStart: number, newStart: number, room: number) {
    this.#oldStart = oldStart;
    this.#newStart = newStart;
    this.#room = room;
  }

  context(lines: readonly string[], from: number, count: number): void {
    for (let i = from; i < from + count; i++) this.line(" ", lines[i]!);
  }

  line(kind: " " | "-" | "+", text: string): void {
    if (kind !== "+") this.#oldCount++;
    if (kind !== "-") this.#newCount++;
    if (kind === "-") this.#removed++;
    if (kind === "+") this.#added++;
    if (this.#kept.length < this.#room) this.#kept.push(`${kind}${text}`);
  }

  flush(out: DiffOutput): void {
    out.add(
      `@@ -${this.#oldStart + 1},${this.#oldCount} +${this.#newStart + 1},${this.#newCount} @@`,
    );
    for (const line of this.#kept) out.add(line);
    out.skip(this.#oldCount + this.#added - this.#kept.length);
    out.added += this.#added;
    out.removed += this.#removed;
  }
}

/** The diff lines shown, and how many more there were. */
class DiffOutput {
  #shown: string[] = [];
  #more = 0;
  added = 0;
  removed = 0;

  room(): number {
    return MAX_DIFF_LINES - this.#shown.length;
  }

  add(line: string): void {
    if (this.room() <= 0) return this.skip(1);
    this.#shown.push(truncateLine(line.replace(/\r?\n$/, ""), MAX_DIFF_LINE_CHARS));
  }

  skip(count: number): void {
    this.#more += count;
  }

  text(): string {
    const shown = this.#shown.join("\n");
    if (this.#more === 0) return shown;
    return `${shown}\n… (${this.#more} more diff lines; +${this.added} −${this.removed} lines in all)`;
  }
}

/** Lets timers and input in when the work has held the event loop for a while. */
class Pacer {
  #signal: AbortSignal;
  #since = performance.now();
  #calls = 0;

  constructor(signal: AbortSignal) {
    this.#signal = signal;
  }

  async tick(): Promise<void> {
    if (++this.#calls % 256 !== 0 || performance.now() - this.#since < BUSY_MS) return;
    await new Promise((resolve) => setTimeout(resolve, 0));
    this.#signal.throwIfAborted();
    this.#since = performance.now();
  }
}
