/**
 * Live render equals resumed render: whatever Markdown streams in, and
 * however it is cut into deltas (one character at a time or random chunks),
 * every frame of the streamed component equals a fresh component given the
 * same text (what a resumed session renders), and `firstLineChanged` names
 * the first line that really changed.
 *
 * Two generators: short documents made of lines that start (or almost
 * start) blocks, so that every pair and triple of block kinds meets at a
 * boundary, and whole documents of random blocks. `PANTO_MD_LIVE_RUNS`
 * multiplies the case counts for a deeper run.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { Markdown } from "../../../tui/components/markdown.ts";
import type { MarkdownOptions } from "../../../tui/components/markdown.ts";
import { COLOR } from "./helpers.ts";
import { checkStream } from "./markdown_stream_check.ts";

/** Case-count multiplier (`PANTO_MD_LIVE_RUNS=10` for a run ten times deeper). */
const SCALE = Math.max(1, Number(Deno.env.get("PANTO_MD_LIVE_RUNS") ?? 1) || 1);
const runs = (n: number) => Math.round(n * SCALE);

const markdown = (options: MarkdownOptions = {}) => () =>
  new Markdown("", { theme: COLOR, ...options });
/** A per-line text style like the one panto gives the model's thinking. */
const dimItalic = (text: string) => COLOR.italic(COLOR.fg("thinking", text));

/** Lines that start, or nearly start, every kind of block (and plain prose). */
const LINE_KINDS: Record<string, readonly string[]> = {
  prose: [
    "alpha",
    "beta *em*",
    "gamma **b**",
    "x `c` y",
    "[l](https://e.x) z",
    "t  ",
    "t\\",
    "a | b",
  ],
  ordered: ["1. one", "2. two", "3) three", "10. ten", "1.", "2."],
  bullet: ["- item", "* item", "+ item", "-", "*", "- [ ] task", "  - nested", "   2. deep"],
  rule: ["---", "- - -", "***", "___", "===", "--"],
  heading: ["# head", "## head ##", "#", "#hash"],
  quote: ["> quote", "> > deep", ">", "> - item", "> ```"],
  code: ["```", "```ts", "~~~", "    code", "\tcode", "   ```", "```a`"],
  table: ["| a | b |", "|---|---|", "| - | - |", ":-- | --:", "| c |"],
  html: ["<div>", "</div>", "<!-- note", "-->", "<b>bold</b>", "<?php"],
  reference: ["[r]: https://e.x/r", "[r]", "'title'", '"t"', "(t)", "[r][]"],
  blank: ["", "", "  "],
};
const KIND_WEIGHTS: Record<string, number> = { prose: 6, ordered: 3, bullet: 4, blank: 3 };

const soupLine = fc.oneof(
  ...Object.entries(LINE_KINDS).map(([kind, lines]) => ({
    arbitrary: fc.constantFrom(...lines),
    weight: KIND_WEIGHTS[kind] ?? 2,
  })),
);
/** A short document whose lines start blocks of every kind, in every order. */
const soup = fc.tuple(fc.array(soupLine, { minLength: 2, maxLength: 7 }), fc.boolean())
  .map(([lines, newline]) => lines.join("\n") + (newline ? "\n" : ""));

/**
 * Three lines where marked's look-ahead decides a boundary: a paragraph
 * line, a line that may or may not interrupt it, and a line that may
 * underline, delimit or continue them (issue 24's `alpha`, `2. alpha`,
 * `- alpha` among them), then maybe more.
 */
const boundary = fc.tuple(
  fc.constantFrom(...LINE_KINDS.prose!, ...LINE_KINDS.reference!),
  fc.constantFrom(
    ...LINE_KINDS.ordered!,
    ...LINE_KINDS.bullet!,
    ...LINE_KINDS.table!,
    ...LINE_KINDS.quote!,
    ...LINE_KINDS.heading!,
    ...LINE_KINDS.code!,
  ),
  fc.constantFrom(...LINE_KINDS.bullet!, ...LINE_KINDS.rule!, ...LINE_KINDS.table!, "- alpha"),
  fc.constantFrom("", "\n", "\nalpha", "\n\nalpha", "\n  more"),
).map(([first, second, third, rest]) => `${first}\n${second}\n${third}${rest}`);

// --- whole documents ------------------------------------------------------

const word = fc.constantFrom(
  "alpha",
  "beta",
  "snake_case",
  "2 * 3",
  "a < b",
  "~5",
  "**bold**",
  "*em*",
  "_under_",
  "`code`",
  "~~gone~~",
  "[link](https://e.x/a)",
  "[ref]",
  "[ref][]",
  "<https://e.x/auto>",
  "**open",
  "close**",
  "`",
  "[",
  "日本語",
  "&amp;",
  "<b>",
);
const hardBreak = fc.constantFrom("", "", "", "  ", "\\");
const textLine = fc.tuple(fc.array(word, { minLength: 1, maxLength: 6 }), hardBreak)
  .map(([words, end]) => words.join(" ") + end);
const textLines = (max: number) =>
  fc.array(textLine, { minLength: 1, maxLength: max }).map((lines) => lines.join("\n"));

const heading = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 6 }), textLine, fc.boolean()).map(([level, text, close]) =>
    `${"#".repeat(level)} ${text}${close ? " ##" : ""}`
  ),
  fc.tuple(textLines(2), fc.constantFrom("===", "---", "=", "-")).map(([text, rule]) =>
    `${text}\n${rule}`
  ),
);

const codeLine = fc.constantFrom(
  "const a = 1;",
  "function f(x) {",
  "  return `t ${x}",
  "}",
  "/* open",
  "",
  "    indented",
  "```",
  "~~~",
  "``` x",
);
const fence = fc.tuple(
  fc.constantFrom("```ts", "```", "~~~", "~~~python", "  ```", "````", "```js title"),
  fc.array(codeLine, { maxLength: 6 }),
  fc.boolean(),
).map(([open, body, closed]) => {
  const close = open.trim().startsWith("~")
    ? "~~~"
    : open.trim().startsWith("````")
    ? "````"
    : "```";
  return [open, ...body, ...(closed ? [close] : [])].join("\n");
});
const indentedCode = fc.array(fc.constantFrom("    code", "    more();", "", "\tcode"), {
  minLength: 1,
  maxLength: 4,
}).map((lines) => ["    first", ...lines].join("\n"));

const marker = fc.constantFrom("- ", "* ", "+ ", "1. ", "2. ", "7) ", "10. ", "- [ ] ", "- [x] ");
const listItem = fc.tuple(
  textLines(2),
  fc.constantFrom("", "", "\n  - nested", "\n   3. nested", "\n\n  loose continuation", "\n"),
  fc.boolean(),
).map(([text, after, lazy]) => text.replaceAll("\n", lazy ? "\n" : "\n  ") + after);
const list = fc.tuple(marker, fc.array(listItem, { minLength: 1, maxLength: 4 }), fc.boolean())
  .map(([first, items, blankBetween]) => {
    const ordered = /\d/.test(first);
    const start = ordered ? Number.parseInt(first, 10) : 0;
    return items.map((item, i) => {
      const mark = ordered ? `${start + i}${first.includes(")") ? ")" : "."} ` : first;
      return mark + item;
    }).join(blankBetween ? "\n\n" : "\n");
  });

const quoteLine = fc.oneof(
  textLine.map((text) => `> ${text}`),
  fc.constantFrom(">", "> > nested", "> - item", "> ```", "> # head", ">> tight"),
  textLine, // a lazy continuation line
);
const quote = fc.tuple(textLine, fc.array(quoteLine, { maxLength: 5 }))
  .map(([first, rest]) => [`> ${first}`, ...rest].join("\n"));

const cell = fc.constantFrom("a", "bb", "wide cell text", "**b**", "`c`", "", "日本", "a \\| b");
const table = fc.tuple(
  fc.integer({ min: 1, max: 3 }),
  fc.array(fc.array(cell, { minLength: 1, maxLength: 4 }), { maxLength: 4 }),
  fc.constantFrom("---", ":--", "--:", ":-:", "-"),
  fc.boolean(),
).map(([columns, rows, align, pipes]) => {
  const row = (cells: readonly string[]) => {
    const inner = Array.from({ length: columns }, (_, i) => cells[i] ?? "").join(" | ");
    return pipes ? `| ${inner} |` : inner;
  };
  const delimiter = Array.from({ length: columns }, () => align).join(" | ");
  return [row(["h1", "head two", "h3"]), pipes ? `| ${delimiter} |` : delimiter, ...rows.map(row)]
    .join("\n");
});

const html = fc.constantFrom(
  "<div>\n*not* markdown\n</div>",
  "<div>\nstill html",
  "<!-- a comment\nacross lines -->",
  "<!-- unclosed",
  "<pre>\n  kept\n\n  across blank\n</pre>",
  "<custom-tag>\ntext",
);
const reference = fc.constantFrom(
  "[ref]: https://e.x/ref",
  "[ref]: https://e.x/ref 'title'",
  "[ref]: https://e.x/ref\n'title on next line'",
  "[other]: <https://e.x/o>",
);
const rule = fc.constantFrom("---", "***", "___", "- - -", " * * *");

const block = fc.oneof(
  { arbitrary: textLines(4), weight: 4 },
  { arbitrary: heading, weight: 2 },
  { arbitrary: fence, weight: 2 },
  { arbitrary: indentedCode, weight: 1 },
  { arbitrary: list, weight: 3 },
  { arbitrary: quote, weight: 2 },
  { arbitrary: table, weight: 2 },
  { arbitrary: html, weight: 1 },
  { arbitrary: reference, weight: 1 },
  { arbitrary: rule, weight: 1 },
);
/** Blocks separated by no blank line, one, or several. */
const document = fc.array(
  fc.tuple(block, fc.constantFrom("\n", "\n\n", "\n\n", "\n\n\n", "\n \n")),
  {
    minLength: 1,
    maxLength: 5,
  },
).map((blocks) => blocks.map(([text, gap], i) => (i === 0 ? "" : gap) + text).join(""));

const chunkSizes = fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 5 });
const width = fc.constantFrom(12, 30, 80);

/** Streams `text` one character at a time and in `chunks`, checking every frame. */
function checkBothWays(text: string, chunks: readonly number[], columns: number, dim: boolean) {
  const make = markdown(dim ? { textStyle: dimItalic } : {});
  checkStream(text, [1], columns, make);
  checkStream(text, chunks, columns, make);
}

Deno.test("markdown live = resumed: short documents of block-starting lines, every delta", () => {
  fc.assert(
    fc.property(soup, chunkSizes, width, fc.boolean(), checkBothWays),
    { numRuns: runs(600) },
  );
});

Deno.test("markdown live = resumed: three lines meeting at a boundary, every delta", () => {
  fc.assert(
    fc.property(boundary, chunkSizes, width, fc.boolean(), checkBothWays),
    { numRuns: runs(300) },
  );
});

Deno.test("markdown live = resumed: whole documents of random blocks, every delta", () => {
  fc.assert(
    fc.property(document, chunkSizes, width, fc.boolean(), checkBothWays),
    { numRuns: runs(40) },
  );
});

Deno.test("markdown live = resumed: an ordered item not at 1 stays paragraph text (issue 24)", () => {
  const text = "alpha\n2. alpha\n- alpha\n\nalpha";
  checkStream(text, [1], 40, markdown());
  const fresh = new Markdown(text, { theme: COLOR }).render(40);
  assert.equal(fresh.length, 6, "the paragraph holds `2. alpha`, the list is `- alpha`");
});

Deno.test("markdown live = resumed: a definition's title may span blank lines and blocks", () => {
  const texts = [
    '[r]: https://e.x/r\n"a\n\n# h\n\nb"\n\ntext [r]',
    "[r]: https://e.x/r\n(a\n\n- b\n\n```\nc)\n```\n\n[r] text",
    "[r]: https://e.x/r\n'a\nb'\n\n[r]",
  ];
  for (const text of texts) {
    checkStream(text, [1], 40, markdown());
    checkStream(text, [7, 3], 30, markdown());
  }
});
