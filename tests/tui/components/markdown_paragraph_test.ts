/**
 * An open paragraph written as one long line keeps only its last few rows
 * open: the settled offset follows the stream, so a delta's cost does not
 * grow with the paragraph (what streams is checked against fresh renders in
 * markdown_stream_test.ts).
 */
import assert from "node:assert/strict";
import type { Token } from "marked";
import { lexBlocks } from "../../../tui/components/markdown_lex.ts";
import { LONG_SEGMENT_CHARS, OpenParagraph } from "../../../tui/components/markdown_paragraph.ts";
import type { BlockContext } from "../../../tui/components/markdown_open_block.ts";
import { COLOR } from "./helpers.ts";

const WIDTH = 60;

const CONTEXT: BlockContext = {
  width: WIDTH,
  style: { theme: COLOR, text: (value) => value, hyperlinks: false, links: {} },
  nested: () => {
    throw new Error("a paragraph nests no document");
  },
};

/** The longest open tail while `text` streams in 20-character deltas. */
function longestOpenTail(text: string): number {
  let open: OpenParagraph | null = null;
  let source = "";
  let longest = 0;
  for (let at = 0; at < text.length; at += 20) {
    source += text.slice(at, at + 20);
    open ??= OpenParagraph.from(lexBlocks(source, {})[0] as Token, 0, CONTEXT);
    assert.ok(open, `not a paragraph: ${JSON.stringify(source.slice(0, 40))}`);
    assert.ok(open.update(source.slice(open.settledOffset)), `the paragraph closed at ${at}`);
    longest = Math.max(longest, source.length - open.settledOffset);
  }
  return longest;
}

const BOUND = LONG_SEGMENT_CHARS + 6 * WIDTH;

Deno.test("open paragraph: plain prose on one line keeps a bounded tail open", () => {
  const prose = Array.from(
    { length: 300 },
    (_, i) => `Q${i} says that step ${i} keeps the cache warm and the cut near the tail.`,
  ).join(" ");
  const longest = longestOpenTail(prose);
  assert.ok(longest <= BOUND, `open tail reached ${longest} characters of ${prose.length}`);
});

Deno.test("open paragraph: prose with inline styles on one line keeps a bounded tail open", () => {
  const styled = Array.from(
    { length: 150 },
    (_, i) =>
      `Sentence ${i} has **bold ${i}**, \`code\`, _em_ and [a link](https://x.dev/${i}) in it.`,
  ).join(" ");
  const longest = longestOpenTail(styled);
  assert.ok(longest <= BOUND, `open tail reached ${longest} characters of ${styled.length}`);
});
