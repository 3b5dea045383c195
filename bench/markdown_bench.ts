/**
 * Markdown streaming cost: a 2,000-line answer arrives in ~20-character
 * deltas and is rendered after each one, as the chat does. Ours (block
 * cache: only the open block is re-lexed) beside pi-tui's `Markdown` (which
 * re-lexes and re-renders the whole text per frame), same deltas, same width.
 *
 * Run: `deno run -A bench/markdown_bench.ts [lines=2000] [width=100]`
 *
 * @module
 */
import { Markdown as PiMarkdown } from "@mariozechner/pi-tui";
import type { MarkdownTheme } from "@mariozechner/pi-tui";
import { Markdown } from "../tui/components/markdown.ts";
import { createTheme } from "../tui/theme.ts";

const LINES = Number(Deno.args[0] ?? 2000);
const WIDTH = Number(Deno.args[1] ?? 100);
const DELTA = 20;

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

let piText = "";
const pi = new PiMarkdown("", 0, 0, piTheme);
const piResult = run("pi-tui", text, (delta) => {
  piText += delta;
  pi.setText(piText);
  return pi.render(WIDTH);
});
report(piResult);

console.log(`ratio: pi-tui / panto = ${(piResult.totalMs / panto.totalMs).toFixed(1)}x`);
