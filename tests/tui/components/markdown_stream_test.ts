/**
 * Streaming equals a fresh render: random markdown fed in random deltas,
 * rendered after each one, is compared with a new component given the same
 * text, and `firstLineChanged` is checked against the lines really changed.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { Markdown } from "../../../tui/components/markdown.ts";
import type { MarkdownOptions } from "../../../tui/components/markdown.ts";
import { COLOR } from "./helpers.ts";
import { checkStream } from "./markdown_stream_check.ts";

const word = fc.constantFrom(
  "alpha",
  "beta",
  "snake_case",
  "x",
  "2 * 3",
  "a < b",
  "<3",
  "~5",
  "**bold**",
  "*em*",
  "_under_",
  "`code`",
  "~~gone~~",
  "[link](https://e.x/a)",
  "**open",
  "close**",
  "*",
  "`",
  "[",
  "日本語",
  "&amp;",
  "<b>",
  "https://e.x/u",
);
const line = fc.array(word, { minLength: 1, maxLength: 8 }).map((words) => words.join(" "));
const hardBreak = fc.constantFrom("", "", "", "  ", "\\");
const lines = (max: number) =>
  fc.array(fc.tuple(line, hardBreak), { minLength: 1, maxLength: max })
    .map((pairs) => pairs.map(([text, end]) => text + end).join("\n"));

const paragraph = lines(8);

const codeLine = fc.constantFrom(
  "const a = 1;",
  "function f(x: number): string {",
  "  return `tmpl ${x}",
  "  more` + '}';",
  "}",
  "/* a comment",
  "   still comment */",
  "def g(y):",
  '    """doc',
  '    string"""',
  '{"key": [1, 2,',
  '  "v"]}',
  "echo $HOME && ls -la",
  "cat <<EOF",
  "EOF",
  "",
  "    indented",
  "```",
  "``` x",
);
const fence = fc.tuple(
  fc.constantFrom("```ts", "```python", "```json", "```bash", "```unknownlang", "```", "~~~ts"),
  fc.array(codeLine, { maxLength: 12 }),
  fc.boolean(),
).map(([open, body, closed]) =>
  [open, ...body, ...(closed ? [open.startsWith("~") ? "~~~" : "```"] : [])].join("\n")
);

const listItem = fc.tuple(
  fc.constantFrom("- ", "* ", "1. ", "2. ", "- [ ] ", "- [x] "),
  lines(2),
  fc.constantFrom("", "", "\n  - nested item", "\n\n"),
).map(([marker, text, after]) => marker + text.replaceAll("\n", "\n  ") + after);
const list = fc.array(listItem, { minLength: 1, maxLength: 6 }).map((items) => items.join("\n"));

const quote = fc.array(
  fc.oneof(line, fc.constant(""), fc.constant("> nested"), fc.constant("- quoted item")),
  { minLength: 1, maxLength: 6 },
).map((quoted) => quoted.map((text) => `> ${text}`).join("\n"));

const cell = fc.constantFrom("a", "bb", "wide cell text here", "**b**", "`c`", "", "日本");
const table = fc.tuple(
  fc.integer({ min: 1, max: 4 }),
  fc.array(fc.array(cell, { minLength: 1, maxLength: 5 }), { maxLength: 7 }),
  fc.constantFrom("---", ":--", "--:", ":-:"),
).map(([columns, rows, align]) => {
  const row = (cells: readonly string[]) =>
    `| ${Array.from({ length: columns }, (_, i) => cells[i] ?? "").join(" | ")} |`;
  return [
    row(["h1", "head two", "h3", "h4"]),
    `|${` ${align} |`.repeat(columns)}`,
    ...rows.map(row),
  ]
    .join("\n");
});

const block = fc.oneof(
  { arbitrary: paragraph, weight: 4 },
  { arbitrary: fence, weight: 3 },
  { arbitrary: list, weight: 2 },
  { arbitrary: quote, weight: 2 },
  { arbitrary: table, weight: 2 },
  {
    arbitrary: fc.constantFrom(
      "# Heading",
      "## Sub *heading*",
      "---",
      "Setext\n====",
      "    indented code\n    more",
      "<div>\nhtml *block*\n</div>",
      "1) paren item\n2) next",
      "+ plus item\n  continued",
      "[ref]: https://e.x/ref",
    ),
    weight: 1,
  },
);
const document = fc.array(fc.tuple(block, fc.constantFrom("\n\n", "\n\n", "\n", "\n\n\n")), {
  minLength: 1,
  maxLength: 5,
}).map((blocks) => blocks.map(([text, gap], i) => (i === 0 ? "" : gap) + text).join(""));

const markdown = (options: MarkdownOptions = {}) => () =>
  new Markdown("", { theme: COLOR, ...options });
/** A per-line text style like the one panto gives the model's thinking. */
const dimItalic = (text: string) => COLOR.italic(COLOR.fg("thinking", text));
const sizes = fc.array(fc.integer({ min: 1, max: 25 }), { minLength: 1, maxLength: 6 });

for (const width of [12, 30, 80]) {
  Deno.test(`markdown streaming: every delta renders as a fresh component would, width ${width}`, () => {
    fc.assert(
      fc.property(document, sizes, (text, chunks) => checkStream(text, chunks, width, markdown())),
      { numRuns: 60 },
    );
  });
}

Deno.test("markdown streaming: text styled per line (textStyle) streams as a fresh render", () => {
  const make = markdown({ textStyle: dimItalic });
  fc.assert(
    fc.property(document, sizes, (text, chunks) => checkStream(text, chunks, 40, make)),
    { numRuns: 40 },
  );
});

Deno.test("markdown streaming: a long open block settles (cut stays near the tail)", () => {
  const cases = {
    paragraph: "Line of prose with **bold** and `code` words.\n",
    code: "const value = compute(1, 2); // note\n",
    list: "- item with *some* text\n",
    quote: "> quoted prose line with words\n",
    table: "| cell | 42 | more text |\n",
  };
  for (const [kind, unit] of Object.entries(cases)) {
    const head = kind === "code"
      ? "```ts\n"
      : kind === "table"
      ? "| a | b | c |\n|---|---|---|\n"
      : "";
    const md = new Markdown(head + unit.repeat(300), { theme: COLOR });
    const before = md.render(60).length;
    md.append(unit.slice(0, 9));
    const first = md.firstLineChanged();
    assert.ok(first !== null && first >= before - 3, `${kind}: cut ${first} of ${before} lines`);
  }
});

Deno.test("markdown streaming: runs longer than the segment and chunk caps stream as fresh renders", () => {
  const comment = Array.from({ length: 55 }, (_, i) => ` * comment line ${i}`).join("\n");
  const strayTick = Array.from({ length: 55 }, (_, i) => `prose line ${i} with *em* and a`).join(
    "\n",
  );
  const texts = [
    "```ts\n/*\n" + comment + "\n */\nconst after = `template\n" + comment + "\n`;\n```\n\nEnd.",
    "Start with a stray ` tick\n" + strayTick + "\nand a closing ` tick.\n\nNext.",
  ];
  for (const text of texts) checkStream(text, [37, 11], 40, markdown());
});

Deno.test("markdown streaming property: random long one-line paragraphs stream as fresh renders", () => {
  // Mostly closed constructs, so the line is cut inside at settled rows.
  const proseWord = fc.constantFrom(
    "alpha",
    "beta",
    "gamma",
    "x",
    "snake_case",
    "end.",
    "2",
    "日本語",
    "**bold**",
    "*em*",
    "`code`",
    "[link](https://e.x/a)",
    "a < b",
  );
  const longLine = fc.array(proseWord, { minLength: 60, maxLength: 160 }).map((words) =>
    words.join(" ")
  );
  fc.assert(
    fc.property(
      longLine,
      sizes,
      fc.constantFrom(20, 45, 80),
      fc.boolean(),
      (text, chunks, width, dim) =>
        checkStream(text, chunks, width, markdown(dim ? { textStyle: dimItalic } : {})),
    ),
    { numRuns: 25 },
  );
});

Deno.test("markdown streaming: a paragraph written as one long line (cut inside it at settled rows) streams as a fresh render", () => {
  const sentence = (i: number) =>
    `Sentence ${i} has **bold ${i}**, \`code\`, _em_ and [a link](https://x.dev/${i}) in it.`;
  const long = Array.from({ length: 30 }, (_, i) => sentence(i)).join(" ");
  const stray = `A stray * star and ${long} then *closed* at last.`;
  checkStream(long, [23, 7, 41], 30, markdown());
  checkStream(stray, [37], 80, markdown());
  checkStream(long, [29], 40, markdown({ textStyle: dimItalic }));
});
