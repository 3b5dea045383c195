/**
 * compactForeground: fewer bytes, the same cells. Checked on a real terminal
 * emulator (xterm.js headless): the compacted line draws exactly the
 * characters, colours and attributes of the original.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { compactForeground } from "../../tui/sgr_compact.ts";
import { VirtualTerminal } from "../support/virtual_terminal.ts";

const WIDTH = 60;

/**
 * Every cell of row 0 after writing `line` and then "!" (the state a line
 * leaves behind shows on what follows). A space's foreground is invisible
 * unless it is underlined or inverse: ignored then.
 */
async function cells(line: string) {
  const terminal = new VirtualTerminal(WIDTH, 2);
  try {
    terminal.write(`${line}!`);
    await terminal.flush();
    return Array.from({ length: WIDTH }, (_, x) => {
      const cell = terminal.cell(x, 0);
      const shows = cell.chars.trim() !== "" || cell.underline || cell.inverse;
      return shows ? cell : { ...cell, fg: "invisible" };
    });
  } finally {
    terminal.dispose();
  }
}

const fg = (code: string, text: string) => `\x1b[${code}m${text}\x1b[39m`;

Deno.test("compactForeground: a highlighted line loses its resets and the colours of spaces", async () => {
  const line = fg("38;5;176", "export") + fg("38;5;250", " ") + fg("38;5;176", "function") +
    fg("38;5;250", " ") + fg("38;5;75", "step") + fg("38;5;250", "(") + "\x1b[0m";
  const compact = compactForeground(line);
  // The spaces between tokens keep the colour before them: it does not show.
  assert.equal(
    compact,
    "\x1b[38;5;176mexport function \x1b[38;5;75mstep\x1b[38;5;250m(\x1b[0m",
  );
  assert.deepEqual(await cells(compact), await cells(line));
});

Deno.test("compactForeground: the same colour twice in a row is sent once", () => {
  assert.equal(compactForeground(fg("31", "a") + fg("31", "b")), "\x1b[31mab\x1b[39m");
});

Deno.test("compactForeground: a reset before plain text or other styles is kept", () => {
  assert.equal(compactForeground(`${fg("31", "a")}b`), `${fg("31", "a")}b`);
  assert.equal(compactForeground(`${fg("31", "a")}\x1b[1mb`), `${fg("31", "a")}\x1b[1mb`);
});

Deno.test("compactForeground: spaces that show their colour keep it", () => {
  const underlined = `\x1b[4m${fg("31", "a")}${fg("32", " ")}b`;
  assert.equal(compactForeground(underlined), underlined.replace("\x1b[39m\x1b[32m", "\x1b[32m"));
});

Deno.test("compactForeground: any mix of styles draws the same cells", async () => {
  const piece = fc.oneof(
    fc.constantFrom("\x1b[39m", "\x1b[0m", "\x1b[m", "\x1b[1m", "\x1b[22m", "\x1b[7m"),
    fc.constantFrom("\x1b[31m", "\x1b[38;5;250m", "\x1b[38;2;1;2;3m", "\x1b[94m"),
    fc.constantFrom("\x1b[48;5;31m", "\x1b[49m", "\x1b[1;38;5;9m", "\x1b[4m"),
    fc.constantFrom("ab", " ", "  ", "x", "", "Q1 ", "\x1b]8;;https://x\x1b\\l\x1b]8;;\x1b\\"),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(piece, { maxLength: 24 }), async (pieces) => {
      const line = pieces.join("");
      const compact = compactForeground(line);
      assert.ok(compact.length <= line.length);
      assert.deepEqual(await cells(compact), await cells(line), JSON.stringify(line));
    }),
    { numRuns: 150 },
  );
});
