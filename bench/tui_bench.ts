/**
 * @panto/tui versus @mariozechner/pi-tui on the same content: a transcript
 * of 10,000 lines with an input line below it, on a 100×40 terminal whose
 * output is counted and dropped.
 *
 * - streamed delta: the last message grows by one word (a new line every
 *   12 words); CPU time and bytes written per frame;
 * - keystroke: one character typed in the input line (also under a
 *   1,000-line transcript, to show whether the cost depends on its length);
 * - resize: bytes written for one width change;
 * - keystroke while a code block streams: a 1,000-line fenced code block
 *   streams into a markdown message (two deltas per code line) under a
 *   1,000-line transcript, and a key is typed every other delta; CPU time of
 *   the frames that draw a keystroke (mean and worst; target ≤ 16 ms, one
 *   frame at 60 Hz), and bytes per delta.
 *
 * Run: `deno run -A bench/tui_bench.ts`
 *
 * @module
 */
import {
  type Component as PiComponent,
  Container as PiContainer,
  Markdown as PiMarkdown,
  type MarkdownTheme as PiMarkdownTheme,
  type Terminal as PiTerminal,
  TUI as PiTUI,
} from "./pi_tui.ts";
import type { Component } from "../tui/component.ts";
import { Markdown } from "../tui/components/markdown.ts";
import { createTheme } from "../tui/theme.ts";
import { Container } from "../tui/container.ts";
import type { Terminal } from "../tui/terminal.ts";
import { TUI } from "../tui/tui.ts";

const COLUMNS = 100;
const ROWS = 40;
const LINES_PER_MESSAGE = 20;
const DELTAS = 600;
const KEYSTROKES = 600;
const CODE_LINES = 1_000;

/** A message: pre-rendered styled lines; appends touch only the last line. */
class Message implements Component {
  lines: string[];
  #dirtyFrom: number | null = 0;

  constructor(index: number, lineCount: number) {
    this.lines = Array.from(
      { length: lineCount },
      (_, j) =>
        `\x1b[2m${index}.${j}\x1b[0m the quick brown fox jumps over the lazy dog ${
          "·".repeat(j % 20)
        }`,
    );
  }

  appendWord(word: string): void {
    const last = this.lines.length - 1;
    if (this.lines[last]!.length > 80) this.lines.push(word);
    else this.lines[last] = `${this.lines[last]} ${word}`;
    this.#dirtyFrom = Math.min(this.#dirtyFrom ?? last, last);
  }

  render(_width: number): string[] {
    this.#dirtyFrom = null;
    return this.lines;
  }

  firstLineChanged(): number | null {
    return this.#dirtyFrom;
  }

  invalidate(): void {
    this.#dirtyFrom = 0;
  }
}

/** The input line. */
class InputLine implements Component {
  text = "> ";
  #dirty = true;

  type(char: string): void {
    this.text = this.text.length > 80 ? "> " : this.text + char;
    this.#dirty = true;
  }

  render(_width: number): string[] {
    this.#dirty = false;
    return [this.text];
  }

  firstLineChanged(): number | null {
    return this.#dirty ? 0 : null;
  }

  invalidate(): void {
    this.#dirty = true;
  }
}

/** Counts what an engine writes. */
class Sink {
  bytes = 0;
  columns = COLUMNS;
  rows = ROWS;
  write(data: string): void {
    this.bytes += new TextEncoder().encode(data).length;
  }
}

/** Our Terminal on a sink. */
class PantoSinkTerminal extends Sink implements Terminal {
  #resize: (() => void)[] = [];
  onInput(): void {}
  onResize(handler: () => void): void {
    this.#resize.push(handler);
  }
  start(): void {}
  stop(): void {}
  resize(columns: number): void {
    this.columns = columns;
    for (const handler of this.#resize) handler();
  }
}

/** pi-tui's Terminal on a sink. */
class PiSinkTerminal extends Sink implements PiTerminal {
  start(): void {}
  stop(): void {}
  drainInput(): Promise<void> {
    return Promise.resolve();
  }
  get kittyProtocolActive(): boolean {
    return false;
  }
  moveBy(lines: number): void {
    this.write(lines > 0 ? `\x1b[${lines}B` : lines < 0 ? `\x1b[${-lines}A` : "");
  }
  hideCursor(): void {
    this.write("\x1b[?25l");
  }
  showCursor(): void {
    this.write("\x1b[?25h");
  }
  clearLine(): void {
    this.write("\x1b[K");
  }
  clearFromCursor(): void {
    this.write("\x1b[J");
  }
  clearScreen(): void {
    this.write("\x1b[2J\x1b[H");
  }
  setTitle(): void {}
  setProgress(): void {}
  resize(columns: number): void {
    this.columns = columns;
  }
}

/** One engine under test, driven synchronously. */
interface Harness {
  name: string;
  sink: Sink & { resize(columns: number): void };
  streaming: Message;
  input: InputLine;
  frame(): void;
  stop(): void;
}

/** An engine with a markdown message below the transcript, fed a delta at a time. */
interface MarkdownHarness {
  name: string;
  sink: Sink;
  input: InputLine;
  /** Appends `delta` to the markdown message. */
  stream(delta: string): void;
  frame(): void;
  stop(): void;
}

function buildTranscript(totalLines: number): Message[] {
  const messages = Array.from(
    { length: totalLines / LINES_PER_MESSAGE },
    (_, i) => new Message(i, LINES_PER_MESSAGE),
  );
  return messages;
}

/** An engine drawing the transcript and then `below`, started. */
interface Started {
  sink: Sink & { resize(columns: number): void };
  frame(): void;
  stop(): void;
}

function startPanto(transcript: Message[], ...below: Component[]): Started {
  const sink = new PantoSinkTerminal();
  const tui = new TUI(sink);
  const container = new Container();
  for (const message of transcript) container.addChild(message);
  tui.addChild(container);
  for (const component of below) tui.addChild(component);
  tui.start();
  return { sink, frame: () => tui.renderNow(), stop: () => tui.stop() };
}

function startPi(transcript: Message[], ...below: PiComponent[]): Started {
  const sink = new PiSinkTerminal();
  const tui = new PiTUI(sink);
  const container = new PiContainer();
  for (const message of transcript) container.addChild(message);
  tui.addChild(container);
  for (const component of below) tui.addChild(component);
  tui.start();
  // pi-tui renders from a timer; call its frame function directly to measure one frame.
  const doRender = (tui as unknown as { doRender(): void }).doRender.bind(tui);
  return { sink, frame: doRender, stop: () => tui.stop() };
}

function panto(totalLines: number): Harness {
  const messages = buildTranscript(totalLines);
  const input = new InputLine();
  return { name: "@panto/tui", streaming: messages.at(-1)!, input, ...startPanto(messages, input) };
}

function pi(totalLines: number): Harness {
  const messages = buildTranscript(totalLines);
  const input = new InputLine();
  return { name: "pi-tui", streaming: messages.at(-1)!, input, ...startPi(messages, input) };
}

function pantoMarkdown(totalLines: number): MarkdownHarness {
  const markdown = new Markdown("", { theme: createTheme({ noColor: false }) });
  const input = new InputLine();
  return {
    name: "@panto/tui",
    input,
    stream: (delta) => markdown.append(delta),
    ...startPanto(buildTranscript(totalLines), markdown, input),
  };
}

/** SGR open/close around a text, for pi's theme functions. */
const sgr = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;

const PI_MARKDOWN_THEME: PiMarkdownTheme = {
  heading: sgr(1, 22),
  link: sgr(34, 39),
  linkUrl: sgr(90, 39),
  code: sgr(33, 39),
  codeBlock: (text) => text,
  codeBlockBorder: sgr(90, 39),
  quote: sgr(3, 23),
  quoteBorder: sgr(90, 39),
  hr: sgr(90, 39),
  listBullet: sgr(36, 39),
  bold: sgr(1, 22),
  italic: sgr(3, 23),
  strikethrough: sgr(9, 29),
  underline: sgr(4, 24),
};

function piMarkdown(totalLines: number): MarkdownHarness {
  // pi's Markdown takes the whole text again on every delta.
  let text = "";
  const markdown = new PiMarkdown(text, 0, 0, PI_MARKDOWN_THEME);
  const input = new InputLine();
  return {
    name: "pi-tui",
    input,
    stream: (delta) => markdown.setText(text += delta),
    ...startPi(buildTranscript(totalLines), markdown, input),
  };
}

/** The deltas of a fenced code block of `lines` lines: two per line. */
function codeBlockDeltas(lines: number): string[] {
  const deltas = ["```ts\n"];
  for (let i = 0; i < lines; i++) {
    deltas.push(`export function step${i}(input: string): number {`);
    deltas.push(` return input.length + ${i}; }\n`);
  }
  return deltas;
}

interface KeystrokeWhileStreaming {
  name: string;
  meanMs: number;
  worstMs: number;
  bytesPerDelta: number;
}

/** Streams the code block, typing a key every other delta; times the frames that draw a key. */
function keystrokeWhileStreaming(make: (lines: number) => MarkdownHarness) {
  const harness = make(1_000);
  harness.frame();
  const deltas = codeBlockDeltas(CODE_LINES);
  const bytesBefore = harness.sink.bytes;
  let total = 0;
  let worst = 0;
  let keystrokes = 0;
  for (const [i, delta] of deltas.entries()) {
    harness.stream(delta);
    if (i % 2 === 1) {
      const started = performance.now();
      harness.input.type("x");
      harness.frame();
      const elapsed = performance.now() - started;
      total += elapsed;
      worst = Math.max(worst, elapsed);
      keystrokes++;
    } else {
      harness.frame();
    }
  }
  const result: KeystrokeWhileStreaming = {
    name: harness.name,
    meanMs: total / keystrokes,
    worstMs: worst,
    bytesPerDelta: (harness.sink.bytes - bytesBefore) / deltas.length,
  };
  harness.stop();
  return result;
}

interface Measure {
  microseconds: number;
  bytes: number;
}

/** Mean CPU time and bytes per operation over `count` frames. */
function measure(harness: Harness, count: number, step: (i: number) => void): Measure {
  const bytesBefore = harness.sink.bytes;
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    step(i);
    harness.frame();
  }
  const elapsed = performance.now() - started;
  return {
    microseconds: (elapsed * 1000) / count,
    bytes: (harness.sink.bytes - bytesBefore) / count,
  };
}

const WORDS = ["stream", "token", "delta", "render", "frame", "line", "cursor", "screen"];

function run(make: (lines: number) => Harness) {
  const results: Record<string, Measure> = {};
  let harness = make(10_000);
  harness.frame();
  results.delta = measure(
    harness,
    DELTAS,
    (i) => harness.streaming.appendWord(WORDS[i % WORDS.length]!),
  );
  results.keystroke10k = measure(harness, KEYSTROKES, () => harness.input.type("x"));
  const beforeResize = harness.sink.bytes;
  harness.sink.resize(COLUMNS - 10);
  harness.frame();
  results.resize = { microseconds: 0, bytes: harness.sink.bytes - beforeResize };
  harness.stop();

  harness = make(1_000);
  harness.frame();
  results.keystroke1k = measure(harness, KEYSTROKES, () => harness.input.type("x"));
  harness.stop();
  return { name: harness.name, results };
}

function format(value: number, unit: string): string {
  return `${value.toFixed(value < 10 ? 2 : 0)} ${unit}`;
}

// Warm up the JIT on both before measuring.
for (const make of [panto, pi]) run(make);
const ours = run(panto);
const theirs = run(pi);

const rows: [string, string, (m: Measure) => number, string][] = [
  ["streamed delta, CPU", "delta", (m) => m.microseconds, "µs"],
  ["streamed delta, bytes", "delta", (m) => m.bytes, "B"],
  ["keystroke under 10k lines, CPU", "keystroke10k", (m) => m.microseconds, "µs"],
  ["keystroke under 1k lines, CPU", "keystroke1k", (m) => m.microseconds, "µs"],
  ["keystroke, bytes", "keystroke10k", (m) => m.bytes, "B"],
  ["resize (one width change), bytes", "resize", (m) => m.bytes, "B"],
];
console.log(
  `transcript 10,000 lines, ${COLUMNS}x${ROWS}; ${DELTAS} deltas, ${KEYSTROKES} keystrokes`,
);
console.log(
  ["measure".padEnd(34), ours.name.padStart(14), theirs.name.padStart(14), "pi / ours".padStart(10)]
    .join(
      "",
    ),
);
for (const [label, key, pick, unit] of rows) {
  const a = pick(ours.results[key]!);
  const b = pick(theirs.results[key]!);
  const ratio = a === 0 ? "∞" : `${(b / a).toFixed(1)}x`;
  console.log(
    [
      label.padEnd(34),
      format(a, unit).padStart(14),
      format(b, unit).padStart(14),
      ratio.padStart(10),
    ].join(""),
  );
}
const screenBytes = COLUMNS * ROWS * 4;
const ourResize = ours.results.resize!.bytes;
console.log(
  `\nresize bytes vs. one full screen of 4-byte cells (${screenBytes} B): ${
    ourResize <= screenBytes ? "bounded" : "NOT bounded"
  }`,
);
const keystrokeRatio = ours.results.keystroke10k!.microseconds /
  ours.results.keystroke1k!.microseconds;
console.log(`our keystroke CPU, 10k vs 1k lines: ${keystrokeRatio.toFixed(2)}x`);

// Warm up once, then measure each engine on the same stream.
for (const make of [pantoMarkdown, piMarkdown]) keystrokeWhileStreaming(make);
const streamingRows = [pantoMarkdown, piMarkdown].map(keystrokeWhileStreaming);
console.log(
  `\nkeystroke while a ${CODE_LINES}-line code block streams (under 1,000 lines, a key every other delta)`,
);
console.log(
  ["engine".padEnd(14), "mean CPU".padStart(12), "worst CPU".padStart(12), "B/delta".padStart(10)]
    .join(""),
);
for (const row of streamingRows) {
  console.log(
    [
      row.name.padEnd(14),
      format(row.meanMs, "ms").padStart(12),
      format(row.worstMs, "ms").padStart(12),
      format(row.bytesPerDelta, "B").padStart(10),
    ].join(""),
  );
}
const ourWorst = streamingRows[0]!.worstMs;
console.log(`our worst keystroke frame: ${ourWorst <= 16 ? "within" : "OVER"} the 16 ms target`);
