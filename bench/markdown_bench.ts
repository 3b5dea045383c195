/**
 * Markdown streaming cost, ours beside pi-tui's `Markdown` (which re-lexes
 * and re-renders the whole text per frame), same deltas, same width:
 *
 * 1. a 2,000-line mixed answer arriving in 20-character deltas, rendered
 *    after each one, as the chat does (total time);
 * 2. one open block of 100, 1,000 and 5,000 lines of each kind a model
 *    streams (paragraph, TypeScript fence, list, quote, table, thinking):
 *    the mean cost of the next 20-character deltas, each followed by a
 *    render. Flat cost means the 5,000-line figure stays near the 100-line
 *    one. pi gets our highlight.js colouring for code, so both colour it.
 *
 * Run: `deno run -A bench/markdown_bench.ts [lines=2000] [width=100]`
 * (`BENCH_MD_PEER=0` times ours only, for before/after comparisons).
 *
 * @module
 */
import { Markdown as PiMarkdown } from "./pi_tui.ts";
import type { MarkdownTheme } from "./pi_tui.ts";
import { Thinking } from "../cli/chat/components/thinking.ts";
import { highlightCode } from "../tui/components/code_highlight.ts";
import { Markdown } from "../tui/components/markdown.ts";
import { createTheme } from "../tui/theme.ts";

const LINES = Number(Deno.args[0] ?? 2000);
const WIDTH = Number(Deno.args[1] ?? 100);
const DELTA = 20;
/** Whether pi-tui is timed too (it takes minutes; `BENCH_MD_PEER=0` skips it). */
const PEER = Deno.env.get("BENCH_MD_PEER") !== "0";

/** A varied answer: headings, paragraphs, lists, code, tables, quotes. */
function answer(lineCount: number): string {
  const sections = [
    (n: number) =>
      `## Section ${n}\n\nThis paragraph explains step ${n} with **bold**, *emphasis* and \`code\` spans,\nthen continues on a second line so wrapping has something to do at ${WIDTH} columns.\n`,
    (n: number) =>
      `- item ${n} with a [link](https://example.com/${n})\n- another item\n  - nested detail ${n}\n- last item\n`,
    (n: number) =>
      "```ts\n" +
      `export function step${n}(input: string): number {\n  // count the words\n  return input.split(/\\s+/).length + ${n};\n}\n` +
      "```\n",
    (n: number) =>
      `| name | value | note |\n|---|---|---|\n| a${n} | ${n} | first |\n| b${n} | ${
        n * 2
      } | second row with more text |\n`,
    (n: number) => `> Quoted remark ${n}: keep the cache warm and the cut near the tail.\n`,
  ];
  const parts: string[] = [];
  let lines = 0;
  for (let n = 0; lines < lineCount; n++) {
    const section = sections[n % sections.length]!(n);
    parts.push(section);
    lines += section.split("\n").length;
  }
  return parts.join("\n");
}

const identity = (text: string) => text;
const piTheme: MarkdownTheme = {
  heading: (t) => `\x1b[1m${t}\x1b[22m`,
  link: (t) => `\x1b[34m${t}\x1b[39m`,
  linkUrl: (t) => `\x1b[90m${t}\x1b[39m`,
  code: (t) => `\x1b[33m${t}\x1b[39m`,
  codeBlock: identity,
  codeBlockBorder: (t) => `\x1b[90m${t}\x1b[39m`,
  quote: (t) => `\x1b[3m${t}\x1b[23m`,
  quoteBorder: (t) => `\x1b[90m${t}\x1b[39m`,
  hr: (t) => `\x1b[90m${t}\x1b[39m`,
  listBullet: (t) => `\x1b[36m${t}\x1b[39m`,
  bold: (t) => `\x1b[1m${t}\x1b[22m`,
  italic: (t) => `\x1b[3m${t}\x1b[23m`,
  strikethrough: (t) => `\x1b[9m${t}\x1b[29m`,
  underline: (t) => `\x1b[4m${t}\x1b[24m`,
  highlightCode: (code, lang) => highlightCode(code, lang, createTheme({ noColor: false })),
};

interface Result {
  name: string;
  deltas: number;
  totalMs: number;
  worstMs: number;
  lines: number;
}

function run(name: string, text: string, feed: (delta: string) => readonly string[]): Result {
  let worst = 0;
  let lines = 0;
  let deltas = 0;
  const start = performance.now();
  for (let i = 0; i < text.length; i += DELTA) {
    const before = performance.now();
    lines = feed(text.slice(i, i + DELTA)).length;
    worst = Math.max(worst, performance.now() - before);
    deltas++;
  }
  return { name, deltas, totalMs: performance.now() - start, worstMs: worst, lines };
}

function report(result: Result): void {
  const perDelta = (result.totalMs / result.deltas) * 1000;
  console.log(
    `${result.name.padEnd(8)} ${result.deltas} deltas, ${result.lines} lines: ` +
      `${result.totalMs.toFixed(0)} ms total, ${perDelta.toFixed(1)} µs/delta mean, ` +
      `${result.worstMs.toFixed(2)} ms worst`,
  );
}

const text = answer(LINES);
console.log(
  `answer: ${
    text.split("\n").length
  } lines, ${text.length} chars; width ${WIDTH}; delta ${DELTA} chars`,
);

const theme = createTheme({ noColor: false });
const ours = new Markdown("", { theme });
const panto = run("panto", text, (delta) => {
  ours.append(delta);
  return ours.render(WIDTH);
});
report(panto);

if (PEER) {
  let piText = "";
  const pi = new PiMarkdown("", 0, 0, piTheme);
  const piResult = run("pi-tui", text, (delta) => {
    piText += delta;
    pi.setText(piText);
    return pi.render(WIDTH);
  });
  report(piResult);
  console.log(`ratio: pi-tui / panto = ${(piResult.totalMs / panto.totalMs).toFixed(1)}x`);
}

// --- Part 2: one open block per kind, at several lengths. -----------------

/** How each kind's open block starts and how its line `n` reads. */
const KINDS: Record<string, { head: string; line: (n: number) => string; thinking?: boolean }> = {
  paragraph: {
    head: "",
    line: (n) => `Line ${n} of one long paragraph, with **bold**, *emphasis* and \`code\` spans.\n`,
  },
  "code (ts)": {
    head: "```ts\n",
    line: (n) =>
      [
        `export function step${n}(input: string): number {`,
        `  // count the words of step ${n}`,
        `  const words = input.split(/\\s+/).filter((w) => w !== "");`,
        `  return words.length + ${n}; /* done */`,
        "}",
      ][n % 5] + "\n",
  },
  list: {
    head: "",
    line: (n) => `- item ${n} with a [link](https://example.com/${n}) and *emphasis*\n`,
  },
  quote: {
    head: "",
    line: (n) => `> quoted line ${n}, with **bold** words to wrap at the width\n`,
  },
  table: {
    head: "| name | value | note |\n|---|---:|---|\n",
    line: (n) => `| row ${n % 100} | ${n % 1000} | a note for the row, **bold** |\n`,
  },
  thinking: {
    head: "",
    line: (n) => `Thinking line ${n}: consider the *cache* and the \`tail\` of the block.\n`,
    thinking: true,
  },
};

const SIZES = [100, 1000, 5000];
/** Deltas measured per case (fewer for a slow peer, within a time budget). */
const MEASURED_DELTAS = 200;
const PEER_BUDGET_MS = 1500;
/** Unmeasured deltas before timing ours (JIT, and layouts a table meets first). */
const PANTO_WARM_UP = 20;

interface Streamer {
  start(text: string): void;
  append(delta: string): void;
}

function pantoStreamer(thinking: boolean): Streamer {
  const theme = createTheme({ noColor: false });
  const component = thinking ? new Thinking({ theme }) : new Markdown("", { theme });
  return {
    start(text) {
      component.append(text);
      component.render(WIDTH);
    },
    append(delta) {
      component.append(delta);
      component.render(WIDTH);
    },
  };
}

function piStreamer(thinking: boolean): Streamer {
  const style = thinking
    ? { italic: true, color: (t: string) => `\x1b[90m${t}\x1b[39m` }
    : undefined;
  const component = new PiMarkdown("", 0, 0, piTheme, style);
  let text = "";
  return {
    start(initial) {
      text = initial;
      component.setText(text);
      component.render(WIDTH);
    },
    append(delta) {
      text += delta;
      component.setText(text);
      component.render(WIDTH);
    },
  };
}

/** Per-delta cost of one case: median (robust to GC pauses and neighbours) and mean. */
interface DeltaCost {
  median: number;
  mean: number;
}

/**
 * Cost per delta once the open block has `lines` lines: the block is built
 * in one append, `warmUp` deltas follow unmeasured (JIT, first-use costs),
 * then up to {@linkcode MEASURED_DELTAS} are timed one by one (at least 3,
 * within `budgetMs`).
 */
function perDelta(
  make: () => Streamer,
  head: string,
  line: (n: number) => string,
  lines: number,
  warmUp: number,
  budgetMs: number,
): DeltaCost {
  let text = head;
  for (let n = 0; n < lines; n++) text += line(n);
  let more = "";
  for (let n = lines; more.length < (warmUp + MEASURED_DELTAS) * DELTA; n++) more += line(n);
  const deltas = Array.from(
    { length: warmUp + MEASURED_DELTAS },
    (_, i) => more.slice(i * DELTA, (i + 1) * DELTA),
  );
  const streamer = make();
  streamer.start(text);
  for (const delta of deltas.slice(0, warmUp)) streamer.append(delta);
  const times: number[] = [];
  const start = performance.now();
  for (const delta of deltas.slice(warmUp)) {
    const before = performance.now();
    streamer.append(delta);
    times.push((performance.now() - before) * 1000);
    if (times.length >= 3 && performance.now() - start > budgetMs) break;
  }
  const sorted = times.toSorted((a, b) => a - b);
  const mean = times.reduce((sum, time) => sum + time, 0) / times.length;
  return { median: sorted[Math.floor(sorted.length / 2)] ?? 0, mean };
}

function formatMicros(micros: number): string {
  return micros >= 10_000 ? `${(micros / 1000).toFixed(1)} ms` : `${micros.toFixed(0)} µs`;
}

console.log(
  `\nopen block per kind: median (and mean) µs per ${DELTA}-char delta, append + render at width` +
    ` ${WIDTH}; ours: ${MEASURED_DELTAS} deltas after ${PANTO_WARM_UP} unmeasured;` +
    ` pi: up to ${MEASURED_DELTAS} within ${PEER_BUDGET_MS} ms`,
);
const header = [
  "kind",
  ...SIZES.map((n) => `panto ${n}`),
  "5000/100",
  "panto mean 100/5000",
  ...(PEER ? SIZES.map((n) => `pi-tui ${n}`) : []),
];
const rows: string[][] = [header];
for (const [kind, { head, line, thinking = false }] of Object.entries(KINDS)) {
  const ours = SIZES.map((n) =>
    perDelta(() => pantoStreamer(thinking), head, line, n, PANTO_WARM_UP, Infinity)
  );
  const peer = PEER
    ? SIZES.map((n) => perDelta(() => piStreamer(thinking), head, line, n, 1, PEER_BUDGET_MS))
    : [];
  const first = ours[0] ?? { median: 1, mean: 1 };
  const last = ours.at(-1) ?? first;
  rows.push([
    kind,
    ...ours.map((cost) => formatMicros(cost.median)),
    `${(last.median / first.median).toFixed(2)}x`,
    `${formatMicros(first.mean)} / ${formatMicros(last.mean)}`,
    ...peer.map((cost) => formatMicros(cost.median)),
  ]);
}
const widths = header.map((_, column) =>
  Math.max(...rows.map((row) => (row[column] ?? "").length))
);
for (const row of rows) {
  console.log(row.map((cell, column) => cell.padStart(widths[column] ?? 0)).join("  "));
}
