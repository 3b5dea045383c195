/**
 * The plain-text shortcut of the markdown lexer gives exactly marked's
 * tokens: random text over an alphabet heavy in markdown syntax, lexed by
 * panto's lexer and by marked's own, inline and as blocks.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { getDefaults, Lexer } from "marked";
import { lexBlocks, lexInline } from "../../../tui/components/markdown_lex.ts";

const piece = fc.constantFrom(
  "a",
  "Zq",
  " ",
  "  ",
  "9.",
  "(x)",
  "é",
  "日本",
  ",",
  ":",
  "|",
  "#",
  "-",
  "=",
  "'",
  '"',
  "$",
  "%",
  "/",
  "*",
  "_",
  "~~",
  "`",
  "[",
  "]",
  "!",
  "<",
  ">",
  "\\",
  "&#38;",
  "&",
  "@",
  "x@y.z",
  "\n",
  "\t",
  "www.",
  "http",
  "HTTPS://e.x",
  "ftp",
  "mailto:",
  "xmpp",
);
const text = fc.array(piece, { maxLength: 30 }).map((pieces) => pieces.join(""));

/** marked's own inline tokens (panto's lexer differs only on tildes, left out of these texts). */
function markedInline(source: string) {
  return new Lexer({ ...getDefaults() }).inlineTokens(source);
}

Deno.test("markdown lexer: plain text lexes to marked's single text token", () => {
  assert.deepEqual(lexInline("one plain line, 2 (of them).", {}), [
    {
      type: "text",
      raw: "one plain line, 2 (of them).",
      text: "one plain line, 2 (of them).",
      escaped: false,
    },
  ]);
});

Deno.test("markdown lexer: inline tokens equal marked's for random text without tildes", () => {
  fc.assert(
    fc.property(text.filter((t) => !t.includes("~")), (source) => {
      assert.deepEqual(lexInline(source, {}), markedInline(source));
    }),
    { numRuns: 2000 },
  );
});

Deno.test("markdown lexer: block tokens equal marked's for random text without tildes", () => {
  fc.assert(
    fc.property(text.filter((t) => !t.includes("~")), (source) => {
      assert.deepEqual(lexBlocks(source, {}), new Lexer({ ...getDefaults() }).lex(source));
    }),
    { numRuns: 1000 },
  );
});
