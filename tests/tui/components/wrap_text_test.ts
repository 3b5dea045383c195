import assert from "node:assert/strict";
import fc from "fast-check";
import { breakText, wrapText } from "../../../tui/components/wrap_text.ts";
import { visibleWidth } from "../../../tui/text_width.ts";
import { assertScreen, plain } from "./helpers.ts";

Deno.test("wrapText: breaks at spaces, splits long words, keeps hard newlines", () => {
  assert.deepEqual(wrapText("hello brave new world", 11), ["hello brave", "new world"]);
  assert.deepEqual(wrapText("abcdefghij", 4), ["abcd", "efgh", "ij"]);
  assert.deepEqual(wrapText("a\n\nb", 10), ["a", "", "b"]);
  assert.deepEqual(wrapText("  indented text", 10), ["  indented", "text"]);
  assert.deepEqual(wrapText("你好世界", 5), ["你好", "世界"]);
  assert.deepEqual(wrapText("tab\there", 20), ["tab   here"]);
  assert.deepEqual(
    wrapText("\x1b]8;;http://x/a\tb\x07go\tthere\x1b]8;;\x07", 20),
    ["\x1b]8;;http://x/a\tb\x07go   there\x1b]8;;\x07"],
    "a tab inside an escape sequence is kept",
  );
});

Deno.test("wrapText: styles active at a break are closed and reopened", () => {
  const lines = wrapText("\x1b[1mbold words here\x1b[22m after", 6);
  assert.deepEqual(lines, [
    "\x1b[1mbold\x1b[22m",
    "\x1b[1mwords\x1b[22m",
    "\x1b[1mhere\x1b[22m",
    "after",
  ]);
  const linked = wrapText("\x1b]8;;http://x\x07one two\x1b]8;;\x07", 4);
  assert.deepEqual(linked, [
    "\x1b]8;;http://x\x07one\x1b]8;;\x07",
    "\x1b]8;;http://x\x07two\x1b]8;;\x07",
  ]);
});

Deno.test("wrapText: a break switches off only the styles it closes, never a full reset", () => {
  const lines = wrapText("\x1b[4;38;5;39munder \x1b[48;5;236mband\x1b[49m end", 5);
  assert.deepEqual(lines, [
    "\x1b[4;38;5;39munder\x1b[24m\x1b[39m",
    "\x1b[4;38;5;39m\x1b[48;5;236mband\x1b[49m\x1b[24m\x1b[39m",
    "\x1b[4;38;5;39mend\x1b[24m\x1b[39m",
  ]);
  // A background the caller wraps around a line therefore reaches its padding.
  const outer = (line: string) => `\x1b[48;5;236m${line}     \x1b[49m`;
  assert.ok(lines.every((line) => !outer(line).includes("\x1b[0m")));
});

Deno.test("breakText keeps every space (for code)", () => {
  assert.deepEqual(breakText("a  b  c", 3), ["a  ", "b  ", "c"]);
});

const piece = fc.oneof(
  fc.constantFrom(
    "word",
    "a",
    "longerwordthanmost",
    " ",
    "  ",
    "你好",
    "👍🏽",
    "e\u0301",
    "\n",
    "👨‍👩‍👧",
  ),
  fc.constantFrom("\x1b[1m", "\x1b[22m", "\x1b[38;5;39m", "\x1b[39m", "\x1b[0m"),
);

Deno.test("wrapText property: every line fits and no visible character is lost", () => {
  fc.assert(
    fc.property(
      fc.array(piece, { maxLength: 40 }),
      fc.integer({ min: 1, max: 30 }),
      (pieces, width) => {
        const text = pieces.join("");
        const lines = wrapText(text, width);
        for (const line of lines) assert.ok(visibleWidth(line) <= width, JSON.stringify(line));
        const squash = (s: string) => plain(s).replace(/[\s]/g, "");
        const wide = [...plain(text)].some((c) => visibleWidth(c) > width);
        if (!wide) assert.equal(squash(lines.join("")), squash(text));
      },
    ),
    { numRuns: 300 },
  );
});

/** An escape the wrapper carries but no style tracks (erase to end of line). */
const INERT = "\x1b[K";

Deno.test("wrapText property: ASCII words wrap as they do character by character", () => {
  // An inert escape between every two characters makes each plain piece one
  // character long, so the wrapper takes them one grapheme at a time.
  const asciiPiece = fc.constantFrom("a", "bc", "defghij", "klmnopqrstuvwxyz0123", " ", "  ", ".");
  fc.assert(
    fc.property(
      fc.array(asciiPiece, { maxLength: 30 }),
      fc.integer({ min: 1, max: 12 }),
      fc.constantFrom("", "\x1b[1m"),
      (pieces, width, style) => {
        const text = style + pieces.join("");
        const oneByOne = style + [...pieces.join("")].join(INERT);
        const strip = (lines: string[]) => lines.map((line) => line.replaceAll(INERT, ""));
        assert.deepEqual(wrapText(text, width), strip(wrapText(oneByOne, width)));
        assert.deepEqual(breakText(text, width), strip(breakText(oneByOne, width)));
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("wrapText: the emulator agrees with the computed widths", async () => {
  const text = "Mixed 中文 and emoji 👍🏽 👨‍👩‍👧 with \x1b[1mbold\x1b[22m runs ".repeat(6);
  for (const width of [20, 40, 80]) await assertScreen(wrapText(text, width), width);
});
