import assert from "node:assert/strict";
import { Markdown } from "../../../tui/components/markdown.ts";
import { fitColumns } from "../../../tui/components/markdown_table.ts";
import { loadLanguages } from "../../../tui/components/highlight_languages.ts";
import { assertFits, assertScreen, COLOR, PLAIN, plain, WIDTHS } from "./helpers.ts";

/** A document touching every construct, with wide characters. */
const SAMPLE = `# Release notes 🎉

Some *emphasis*, **strong text**, ~~struck~~, \`inline code\` and a [link](https://example.com/a/very/long/path?query=1).
About ~5 minutes, not ~struck~. Ampersands &amp; entities.

## 中文标题 with mixed 文字

- first item with enough words to wrap at narrow widths
- [x] a finished task
- [ ] an open task
  1. nested ordered
  2. second nested with 日本語のテキスト
     - third level

> A quote that is long enough to wrap onto a second line when narrow.
> > nested quote

| Name | Description | Count |
|:-----|:-----------:|------:|
| alpha | the first letter of the Greek alphabet | 1 |
| 👍🏽 emoji | 表格里的中文 | 22 |

---

\`\`\`ts
// A comment & more
const greeting: string = "hello <world>";
function add(a: number, b: number): number {
  return a + b;
}
\`\`\`

Final paragraph with a verylongwordthatcannotbewrappedanywherebecauseithasnospacesatallinit.
`;

function render(text: string, width: number, theme = PLAIN): string[] {
  return [...new Markdown(text, { theme }).render(width)];
}

Deno.test("markdown: every line fits at every width, styled and plain", () => {
  for (const theme of [PLAIN, COLOR]) {
    for (const width of [...WIDTHS, 1, 5, 10]) {
      assertFits(render(SAMPLE, width, theme), width, `width ${width}`);
    }
  }
});

Deno.test("markdown: renders the constructs", () => {
  const text = render(SAMPLE, 80).join("\n");
  assert.match(text, /^# Release notes 🎉$/m);
  assert.match(
    text,
    /Some emphasis, strong text, struck, inline code and a link\s\(https:\/\/example\.com/,
  );
  assert.match(text, /About ~5 minutes, not ~struck~\. Ampersands & entities\./);
  assert.match(text, /^• first item/m);
  assert.match(text, /^• \[x\] a finished task$/m);
  assert.match(text, /^ {6}1\. nested ordered$/m);
  assert.match(text, /^ {9}▪ third level$/m);
  assert.match(text, /^│ A quote/m);
  assert.match(text, /^│ │ nested quote$/m);
  assert.match(text, /^┌─+┬─+┬─+┐$/m);
  assert.match(text, /^│ alpha +│ the first letter of the Greek alphabet │ +1 │$/m);
  assert.match(text, /^─{80}$/m);
  assert.match(text, /^```ts$/m);
  assert.match(text, /^ {2}const greeting: string = "hello <world>";$/m);
  assert.match(text, /^ {4}return a \+ b;$/m);
});

Deno.test("markdown: styles map to SGR and code is highlighted", async () => {
  // A language is imported on first use: loaded here so that the first drawing is coloured.
  await loadLanguages(["ts"]);
  const lines = render("**bold** *it* `code`\n\n```ts\nconst x = 1;\n```", 40, COLOR);
  assert.ok(lines[0]?.includes("\x1b[1mbold\x1b[22m"), String(lines[0]));
  assert.ok(lines[0]?.includes("\x1b[3mit\x1b[23m"), String(lines[0]));
  const keyword = lines.find((line) => plain(line).includes("const"));
  assert.ok(
    keyword?.includes("\x1b[38;5;176mconst"),
    `keyword coloured: ${JSON.stringify(keyword)}`,
  );
  assert.ok(keyword?.includes("\x1b[38;5;215m1"), `number coloured: ${JSON.stringify(keyword)}`);
});

Deno.test("markdown: NO_COLOR theme emits no escape at all", () => {
  for (const line of render(SAMPLE, 80)) assert.ok(!line.includes("\x1b"), JSON.stringify(line));
});

Deno.test("markdown: hyperlinks option wraps link text in OSC 8", () => {
  const md = new Markdown("see [docs](https://x.dev)", { theme: PLAIN, hyperlinks: true });
  const [line = ""] = md.render(80);
  assert.equal(line, "see \x1b]8;;https://x.dev\x07docs\x1b]8;;\x07 (https://x.dev)");
});

Deno.test("markdown: a styled span wrapped across lines is closed and reopened", () => {
  const lines = render("**one two three four five six**", 10, COLOR);
  assert.ok(lines.length > 1);
  for (const line of lines) {
    assert.ok(line.startsWith("\x1b[1m"), `reopens bold: ${JSON.stringify(line)}`);
    assert.ok(
      line.endsWith("\x1b[0m") || line.endsWith("\x1b[22m"),
      `closes: ${JSON.stringify(line)}`,
    );
  }
});

Deno.test("markdown: a table wider than the screen shrinks and wraps its cells", () => {
  const table = "| key | value |\n|---|---|\n| a | " + "word ".repeat(40) + "|\n| b | short |";
  for (const width of [20, 40, 80]) {
    const lines = render(table, width);
    assertFits(lines, width, `table at ${width}`);
    assert.ok(lines[0]?.startsWith("┌"), String(lines[0]));
    const rowLines = lines.filter((line) => line.startsWith("│ a") || line.startsWith("│  "));
    assert.ok(rowLines.length > 1, `cells wrap at ${width}`);
  }
});

Deno.test("markdown: a table too narrow for columns degrades to header: value lines", () => {
  const table = "| one | two | three | four |\n|---|---|---|---|\n| 1 | 2 | 3 | 4 |";
  const lines = render(table, 12);
  assertFits(lines, 12);
  assert.deepEqual(lines, ["one: 1", "two: 2", "three: 3", "four: 4"]);
});

Deno.test("markdown: fitColumns keeps natural widths that fit and caps the widest first", () => {
  assert.deepEqual(fitColumns([3, 5], 10), [3, 5]);
  assert.deepEqual(fitColumns([3, 50, 40], 30), [3, 14, 13]);
  const widths = fitColumns([10, 10, 10], 20);
  assert.equal(widths.reduce((a, b) => a + b), 20);
});

Deno.test("markdown: streaming by small deltas equals a fresh render of the same text", () => {
  for (const width of [20, 80]) {
    const md = new Markdown("", { theme: COLOR });
    for (let i = 0; i < SAMPLE.length; i += 7) {
      md.append(SAMPLE.slice(i, i + 7));
      const streamed = md.render(width);
      assert.deepEqual(streamed, render(md.text, width, COLOR), `after ${i + 7} chars at ${width}`);
      assertFits(streamed, width);
    }
  }
});

Deno.test("markdown: firstLineChanged is honest and stays near the tail while streaming", () => {
  const md = new Markdown("", { theme: PLAIN });
  let previous: readonly string[] = [];
  let nearTail = 0;
  let deltas = 0;
  for (let i = 0; i < SAMPLE.length; i += 5) {
    md.append(SAMPLE.slice(i, i + 5));
    const first = md.firstLineChanged();
    const lines = [...md.render(60)];
    if (first === null) assert.deepEqual(lines, previous, "null only when nothing changed");
    for (let line = 0; line < Math.min(first ?? lines.length, previous.length); line++) {
      assert.equal(
        lines[line],
        previous[line],
        `line ${line} changed below the reported cut ${first}`,
      );
    }
    if (first !== null && first < previous.length && first < lines.length) {
      assert.notEqual(
        lines[first],
        previous[first],
        `line ${first} is reported but did not change`,
      );
    }
    if ((first ?? lines.length) >= previous.length - 12) nearTail++;
    deltas++;
    assert.equal(md.firstLineChanged(), null, "clean right after a render");
    previous = lines;
  }
  assert.ok(nearTail / deltas > 0.9, `cut near the tail for ${nearTail}/${deltas} deltas`);
});

Deno.test("markdown: an open code fence renders as code until it closes", () => {
  const md = new Markdown("Intro\n\n```python\ndef f():\n    return 1", { theme: PLAIN });
  assert.deepEqual(md.render(40), [
    "Intro",
    "",
    "```python",
    "  def f():",
    "      return 1",
    "```",
  ]);
  md.append("\n```\n\nAfter **bold");
  assert.deepEqual(md.render(40).slice(-2), ["", "After **bold"]);
  md.append("**");
  assert.deepEqual(md.render(40).slice(-1), ["After bold"]);
});

Deno.test("markdown: setText with a shared prefix only re-renders from the change", () => {
  const md = new Markdown("# A\n\npara one\n\npara two", { theme: PLAIN });
  md.render(40);
  md.setText("# A\n\npara one\n\npara 2");
  assert.equal(md.firstLineChanged(), 4, "the first line that differs: the changed paragraph's");
  assert.deepEqual(md.render(40), ["# A", "", "para one", "", "para 2"]);
  md.setText("# B");
  assert.equal(md.firstLineChanged(), 0);
  assert.deepEqual(md.render(40), ["# B"]);
});

Deno.test("markdown: editing a middle block equals a fresh render (moved blocks reused)", () => {
  const md = new Markdown(SAMPLE, { theme: COLOR });
  md.render(60);
  const edited = SAMPLE.replace("## 中文标题", "## Heading\n\nnew paragraph\n\n## 中文标题");
  md.setText(edited);
  assert.deepEqual(md.render(60), render(edited, 60, COLOR));
  md.setText(SAMPLE);
  assert.deepEqual(md.render(60), render(SAMPLE, 60, COLOR));
});

Deno.test("markdown: a width change re-renders everything; invalidate forces it too", () => {
  const md = new Markdown("word ".repeat(20), { theme: PLAIN });
  const wide = [...md.render(80)];
  const narrow = [...md.render(20)];
  assert.ok(narrow.length > wide.length);
  md.invalidate();
  assert.equal(md.firstLineChanged(), 0);
});

Deno.test("markdown: reference links resolve across cached blocks", () => {
  const md = new Markdown("[site]: https://a.dev\n\n", { theme: PLAIN });
  md.render(80);
  md.append("See [the site][site].");
  assert.deepEqual(md.render(80), ["See the site (https://a.dev)."]);
});

Deno.test("markdown: screen shows each line on its own row at every width", async () => {
  for (const width of WIDTHS) {
    await assertScreen(render(SAMPLE, width, COLOR), width);
  }
});
