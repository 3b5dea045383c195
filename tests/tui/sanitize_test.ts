import assert from "node:assert/strict";
import fc from "fast-check";
import {
  escapeTerminalText,
  sanitizeTerminalText,
  TerminalTextSanitizer,
} from "../../tui/sanitize.ts";
import { singleLine } from "../../tui/components/select_list.ts";

/** Anything a terminal would act on, besides `\n` and `\t`. */
// deno-lint-ignore no-control-regex
const UNSAFE_CHAR = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

/** Pieces hostile text is made of: whole sequences, their fragments, controls and plain text. */
const piece = fc.oneof(
  fc.constantFrom(
    "\x1b]0;pwned\x07",
    "\x1b]52;c;aGVsbG8=\x1b\\",
    "\x1b[2J",
    "\x1b[31m",
    "\x1b[?1049h",
    "\x9b2J",
    "\x9d0;t\x9c",
    "\x1bP1$qm\x1b\\",
    "\x1b_apc\x07",
    "\x1b(B",
    "\x1b",
    "\x1b[",
    "\x1b]",
    "\x9b",
    "\x9d",
    "\x07",
    "\r",
    "\r\n",
    "\n",
    "\t",
    "\\",
    "[",
    "]",
    "0;",
    "m",
  ),
  fc.string({ unit: "binary", maxLength: 6 }),
  fc.string({ maxLength: 8 }),
);
const hostile = fc.array(piece, { maxLength: 20 }).map((parts) => parts.join(""));

/** Text without controls (any code point but C0, DEL and C1, plus newlines and tabs). */
const safe = fc.string({ unit: "binary", maxLength: 40 }).map((s) =>
  s.replace(/[^\n\t]/g, (c) => UNSAFE_CHAR.test(c) ? "x" : c)
);

Deno.test("sanitizeTerminalText: the output holds no control but newline and tab", () => {
  fc.assert(fc.property(hostile, (text) => !UNSAFE_CHAR.test(sanitizeTerminalText(text))), {
    numRuns: 2000,
  });
});

Deno.test("sanitizeTerminalText: text without controls is unchanged", () => {
  fc.assert(fc.property(safe, (text) => sanitizeTerminalText(text) === text), { numRuns: 1000 });
});

Deno.test("sanitizeTerminalText: removes whole sequences and keeps the readable text", () => {
  const cases: [string, string][] = [
    ["\x1b]0;title\x07after", "after"],
    ["\x1b]52;c;aGVsbG8=\x1b\\after", "after"],
    ["\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\", "link"],
    ["before\x1b[2Jafter", "beforeafter"],
    ["\x1b[1;31mred\x1b[0m", "red"],
    ["\x9b2Jx\x9d0;title\x9cy", "xy"],
    ["\x1bP1$qm\x1b\\dcs\x1b_apc\x07\x1bXsos\x1b\\\x1b^pm\x1b\\", "dcs"],
    ["\x1b]0;cut short\x1b[2Jrest", "rest"],
    ["\x1b]0;left open", "0;left open"],
    ["a\x00b\x08c\x7fd\x85e", "abcde"],
    ["tab\tand\nnewline", "tab\tand\nnewline"],
    ["crlf\r\nline", "crlf\nline"],
    ["10%\r20%\r30%", "10%\n20%\n30%"],
    ["\x1b(Bcharset\x1b=", "charset"],
  ];
  for (const [input, expected] of cases) {
    assert.equal(sanitizeTerminalText(input), expected, JSON.stringify(input));
  }
});

Deno.test("sanitizeTerminalText: linear on text full of open sequences", () => {
  const text = "\x1b]".repeat(20_000) + "x".repeat(100_000) + "\x9d".repeat(20_000);
  // An open OSC swallows the rest; a rescan per sequence took minutes here, a hang to this
  // test (the time itself is not asserted: a busy machine would fail any bound).
  assert.equal(sanitizeTerminalText(text), "");
});

Deno.test("TerminalTextSanitizer: any split of the text shows what the whole would", () => {
  const splits = fc.array(fc.nat({ max: 400 }), { maxLength: 8 });
  fc.assert(
    fc.property(hostile, splits, (text, cuts) => {
      const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
      const sanitizer = new TerminalTextSanitizer();
      let shown = "";
      let from = 0;
      for (const cut of [...at, text.length]) {
        shown += sanitizer.push(text.slice(from, cut));
        from = cut;
      }
      shown += sanitizer.flush();
      assert.equal(shown, sanitizeTerminalText(text), JSON.stringify({ text, at }));
    }),
    { numRuns: 2000 },
  );
});

Deno.test("TerminalTextSanitizer: holds a split sequence back, not the text after a long open one", () => {
  const sanitizer = new TerminalTextSanitizer();
  assert.equal(sanitizer.push("hi \x1b"), "hi ");
  assert.equal(sanitizer.push("]0;tit"), "");
  assert.equal(sanitizer.push("le\x07there\r"), "there");
  assert.equal(sanitizer.push("\nnext"), "\nnext");
  const open = new TerminalTextSanitizer();
  const shown = open.push("\x1b]0;" + "x".repeat(2000));
  assert.equal(shown, "0;" + "x".repeat(2000), "an open string past the limit shows");
});

Deno.test("escapeTerminalText: controls become visible escapes; newlines and tabs stay", () => {
  assert.equal(
    escapeTerminalText("bad\x1b]0;t\x07 \x9b2J\r\x7f\n\tok"),
    "bad\\x1b]0;t\\x07 \\x9b2J\\x0d\\x7f\n\tok",
  );
  fc.assert(fc.property(hostile, (text) => !UNSAFE_CHAR.test(escapeTerminalText(text))));
});

Deno.test("singleLine: a list item shows no control sequence and stays on one row", () => {
  assert.equal(singleLine("evil\x1b]0;title\x07\x9b2Jname\r\nnext"), "evilname next");
});
