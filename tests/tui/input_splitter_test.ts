import assert from "node:assert/strict";
import { pastedText, StdinBuffer } from "../../tui/input_splitter.ts";

/** Feeds `chunks` one by one and returns the sequences delivered synchronously. */
function split(chunks: readonly string[]): { sequences: string[]; pending: string } {
  const sequences: string[] = [];
  const buffer = new StdinBuffer((sequence) => sequences.push(sequence));
  for (const chunk of chunks) buffer.process(chunk);
  const pending = buffer.pending;
  buffer.dispose();
  return { sequences, pending };
}

const VECTORS: readonly [name: string, chunks: string[], expected: string[]][] = [
  ["plain text is split per character", ["abc"], ["a", "b", "c"]],
  ["graphemes stay whole", ["a👨‍👩‍👧🇯🇵b"], ["a", "👨‍👩‍👧", "🇯🇵", "b"]],
  ["control bytes are single", ["a\rb\x03"], ["a", "\r", "b", "\x03"]],
  ["batched arrows", ["\x1b[A\x1b[B\x1b[1;5C"], ["\x1b[A", "\x1b[B", "\x1b[1;5C"]],
  ["SS3 keys", ["\x1bOP\x1bOA"], ["\x1bOP", "\x1bOA"]],
  ["meta characters", ["\x1ba\x1b\x7f"], ["\x1ba", "\x1b\x7f"]],
  ["ESC ESC [A is one sequence", ["\x1b\x1b[Ax"], ["\x1b\x1b[A", "x"]],
  ["Kitty CSI u with event and alternates", ["\x1b[1089::99;5:1u\x1b[97;1:3u"], [
    "\x1b[1089::99;5:1u",
    "\x1b[97;1:3u",
  ]],
  ["modifyOtherKeys", ["\x1b[27;2;13~a"], ["\x1b[27;2;13~", "a"]],
  ["SGR mouse", ["\x1b[<0;10;5M\x1b[<0;10;5m"], ["\x1b[<0;10;5M", "\x1b[<0;10;5m"]],
  ["X10 mouse", ["\x1b[M !!q"], ["\x1b[M !!", "q"]],
  ["OSC with BEL", ["\x1b]11;rgb:ffff/ffff/ffff\x07a"], ["\x1b]11;rgb:ffff/ffff/ffff\x07", "a"]],
  ["OSC with ST", ["\x1b]11;x\x1b\\a"], ["\x1b]11;x\x1b\\", "a"]],
  ["DCS", ["\x1bP>|kitty(0.35)\x1b\\"], ["\x1bP>|kitty(0.35)\x1b\\"]],
  ["APC", ["\x1b_Gi=1;OK\x1b\\z"], ["\x1b_Gi=1;OK\x1b\\", "z"]],
  ["terminal replies", ["\x1b[?1u\x1b[?62;22c"], ["\x1b[?1u", "\x1b[?62;22c"]],
  // Sequences cut across chunks.
  ["CSI split after ESC", ["\x1b", "[A"], ["\x1b[A"]],
  ["CSI split in the parameters", ["\x1b[1;", "5A"], ["\x1b[1;5A"]],
  ["Kitty split in three", ["\x1b[99", ";5", "u"], ["\x1b[99;5u"]],
  ["SGR mouse split", ["\x1b[<35", ";20;5m"], ["\x1b[<35;20;5m"]],
  ["SS3 split", ["\x1bO", "P"], ["\x1bOP"]],
  ["meta-prefixed CSI split after ESC ESC [", ["\x1b\x1b[", "A"], ["\x1b\x1b[A"]],
  ["meta-prefixed SS3 split after ESC ESC O", ["\x1b\x1bO", "A"], ["\x1b\x1bOA"]],
  ["OSC split", ["\x1b]11;rgb:0", "/0/0\x1b", "\\"], ["\x1b]11;rgb:0/0/0\x1b\\"]],
  // Bracketed paste.
  ["paste in one chunk", ["\x1b[200~hello\x1b[201~"], ["\x1b[200~hello\x1b[201~"]],
  ["paste keeps escapes and newlines literal", ["\x1b[200~a\x1b[A\r\nb\x1b[201~"], [
    "\x1b[200~a\x1b[A\r\nb\x1b[201~",
  ]],
  ["paste with keys around it", ["x\x1b[200~p\x1b[201~y"], ["x", "\x1b[200~p\x1b[201~", "y"]],
  ["paste split everywhere", ["\x1b[20", "0~he", "llo wor", "ld\x1b[20", "1", "~!"], [
    "\x1b[200~hello world\x1b[201~",
    "!",
  ]],
  ["two pastes", ["\x1b[200~a\x1b[201~\x1b[200~b\x1b[201~"], [
    "\x1b[200~a\x1b[201~",
    "\x1b[200~b\x1b[201~",
  ]],
];

for (const [name, chunks, expected] of VECTORS) {
  Deno.test(`StdinBuffer: ${name}`, () => {
    const { sequences, pending } = split(chunks);
    assert.deepEqual(sequences, expected);
    assert.equal(pending, "");
  });
}

Deno.test("StdinBuffer: an incomplete sequence waits", () => {
  const { sequences, pending } = split(["a\x1b[1;"]);
  assert.deepEqual(sequences, ["a"]);
  assert.equal(pending, "\x1b[1;");
});

Deno.test("StdinBuffer: an unfinished paste waits without a timeout", async () => {
  const sequences: string[] = [];
  const buffer = new StdinBuffer((s) => sequences.push(s), { escapeTimeoutMs: 5 });
  buffer.process("\x1b[200~slow");
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(sequences, []);
  buffer.process(" paste\x1b[201~");
  assert.deepEqual(sequences, ["\x1b[200~slow paste\x1b[201~"]);
  buffer.dispose();
});

Deno.test("StdinBuffer: a lone ESC is delivered after the timeout", async () => {
  const sequences: string[] = [];
  const buffer = new StdinBuffer((s) => sequences.push(s), { escapeTimeoutMs: 30 });
  buffer.process("\x1b");
  assert.deepEqual(sequences, [], "not before the timeout: it may start a sequence");
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.deepEqual(sequences, ["\x1b"]);
  buffer.dispose();
});

Deno.test("StdinBuffer: ESC followed quickly by more bytes is one sequence", async () => {
  const sequences: string[] = [];
  const buffer = new StdinBuffer((s) => sequences.push(s), { escapeTimeoutMs: 30 });
  buffer.process("\x1b");
  await new Promise((resolve) => setTimeout(resolve, 5));
  buffer.process("[A");
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(sequences, ["\x1b[A"]);
  buffer.dispose();
});

Deno.test("StdinBuffer: a stalled partial sequence is flushed as is", async () => {
  const sequences: string[] = [];
  const buffer = new StdinBuffer((s) => sequences.push(s), { escapeTimeoutMs: 10 });
  buffer.process("\x1b[1;");
  await new Promise((resolve) => setTimeout(resolve, 40));
  assert.deepEqual(sequences, ["\x1b[1;"]);
  buffer.dispose();
});

Deno.test("pastedText: extracts the body of a paste only", () => {
  assert.equal(pastedText("\x1b[200~a\nb\x1b[201~"), "a\nb");
  assert.equal(pastedText("\x1b[200~\x1b[201~"), "");
  assert.equal(pastedText("a"), null);
  assert.equal(pastedText("\x1b[200~unterminated"), null);
});
