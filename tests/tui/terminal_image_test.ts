import assert from "node:assert/strict";
import {
  encodeIterm2Image,
  encodeKittyImage,
  imageRemoval,
  imageRow,
  KITTY_CHUNK_SIZE,
  parseImageRow,
  wrapForTmux,
} from "../../tui/terminal_image.ts";

/** Base64-looking text of `length` characters. */
function base64Of(length: number): string {
  return "QUJD".repeat(Math.ceil(length / 4)).slice(0, length);
}

/** The sequences of a Kitty transmission: keys and payload of each. */
function kittyChunks(sequence: string): { keys: string; payload: string }[] {
  // deno-lint-ignore no-control-regex
  return [...sequence.matchAll(/\x1b_G([^;]*);([^\x1b]*)\x1b\\/g)].map((m) => ({
    keys: m[1]!,
    payload: m[2]!,
  }));
}

Deno.test("Kitty: a payload of at most 4096 bytes is one sequence without m=", () => {
  const data = base64Of(KITTY_CHUNK_SIZE);
  const sequence = encodeKittyImage(data, { id: 9, columns: 30, rows: 10 });
  const chunks = kittyChunks(sequence);
  assert.equal(chunks.length, 1);
  assert.equal(chunks[0]!.keys, "a=T,f=100,q=2,C=1,i=9,c=30,r=10");
  assert.equal(chunks[0]!.payload, data);
});

Deno.test("Kitty: longer payloads go in 4096-byte chunks, m=1 on all but the last", () => {
  for (const length of [KITTY_CHUNK_SIZE + 1, 2 * KITTY_CHUNK_SIZE, 3 * KITTY_CHUNK_SIZE + 12]) {
    const data = base64Of(length);
    const chunks = kittyChunks(encodeKittyImage(data, { id: 4, columns: 8, rows: 3 }));
    assert.equal(chunks.length, Math.ceil(length / KITTY_CHUNK_SIZE), `${length} bytes`);
    assert.equal(chunks.map((c) => c.payload).join(""), data);
    assert.ok(chunks.every((c) => c.payload.length <= KITTY_CHUNK_SIZE));
    assert.ok(chunks.slice(0, -1).every((c) => c.payload.length === KITTY_CHUNK_SIZE));
    assert.equal(chunks[0]!.keys, "a=T,f=100,q=2,C=1,i=4,c=8,r=3,m=1");
    assert.deepEqual(chunks.slice(1, -1).map((c) => c.keys), chunks.slice(1, -1).map(() => "m=1"));
    assert.equal(chunks.at(-1)!.keys, "m=0");
  }
});

Deno.test("iTerm2: OSC 1337 File= with inline, size, box and base64 name, BEL-terminated", () => {
  const data = btoa("0123456789"); // 10 bytes, "==" padded
  const sequence = encodeIterm2Image(data, { columns: 40, rows: 12, name: "shot ü.png" });
  const name = btoa(String.fromCharCode(...new TextEncoder().encode("shot ü.png")));
  assert.equal(
    sequence,
    `\x1b]1337;File=inline=1;size=10;width=40;height=12;doNotMoveCursor=1;name=${name}:${data}\x07`,
  );
  assert.equal(
    encodeIterm2Image(btoa("01234"), { columns: 1, rows: 1 }),
    `\x1b]1337;File=inline=1;size=5;width=1;height=1;doNotMoveCursor=1:${btoa("01234")}\x07`,
  );
});

Deno.test("tmux passthrough: each sequence wrapped, every ESC doubled", () => {
  const data = base64Of(KITTY_CHUNK_SIZE + 4);
  const kitty = encodeKittyImage(data, { id: 2, columns: 4, rows: 2 });
  const wrapped = wrapForTmux(kitty);
  const parts = wrapped.split("\x1b\\\x1bPtmux;");
  assert.equal(parts.length, 2);
  assert.ok(wrapped.startsWith("\x1bPtmux;\x1b\x1b_Ga=T"));
  assert.ok(wrapped.endsWith("\x1b\x1b\\\x1b\\"));
  // Unwrapping gives the sequences back.
  const unwrapped = wrapped.replaceAll("\x1bPtmux;", "").replaceAll("\x1b\x1b", "\x1b")
    .replaceAll("\x1b\\\x1b\\", "\x1b\\");
  assert.equal(unwrapped, kitty);
  const iterm = encodeIterm2Image("AAAA", { columns: 1, rows: 1 });
  assert.equal(wrapForTmux(iterm), `\x1bPtmux;${iterm.replaceAll("\x1b", "\x1b\x1b")}\x1b\\`);
});

Deno.test("image rows: made and parsed for every protocol, with and without tmux", () => {
  const kitty = encodeKittyImage(base64Of(9000), { id: 77, columns: 20, rows: 6 });
  const iterm = encodeIterm2Image("AAAA", { columns: 20, rows: 6, name: "a" });
  const cases = [
    { sequences: kitty, protocol: "kitty", kittyId: 77 },
    { sequences: iterm, protocol: "iterm2", kittyId: null },
  ] as const;
  for (const { sequences, protocol, kittyId } of cases) {
    for (const tmux of [false, true]) {
      const body = tmux ? wrapForTmux(sequences) : sequences;
      const row = imageRow(body, { rows: 6, indent: 2 });
      assert.equal(row, `  \x1b7\x1b[5A${body}\x1b8`);
      assert.deepEqual(parseImageRow(row), { above: 5, kittyId, tmux }, `${protocol} tmux ${tmux}`);
    }
  }
  assert.deepEqual(parseImageRow(imageRow(iterm, { rows: 1 })), {
    above: 0,
    kittyId: null,
    tmux: false,
  });
});

Deno.test("image rows: a line with anything else in it is not one", () => {
  const row = imageRow(encodeKittyImage("AAAA", { id: 3, columns: 2, rows: 2 }), { rows: 2 });
  for (
    const line of [
      "x" + row,
      row + "x",
      row.replace("\x1b[1A", "\x1b[1A\x1b[2J"),
      row.replace("AAAA", "AA\x07AA"),
      "\x1b]1337;File=inline=1:AAAA\x1b[31m\x07",
      "\x1b[31mred\x1b[0m",
      "",
    ]
  ) {
    assert.equal(parseImageRow(line), null, JSON.stringify(line.slice(0, 40)));
  }
});

Deno.test("image removal: Kitty deletes by id (wrapped in tmux); iTerm2 needs none", () => {
  assert.equal(imageRemoval({ above: 2, kittyId: 5, tmux: false }), "\x1b_Ga=d,d=I,i=5,q=2\x1b\\");
  assert.equal(
    imageRemoval({ above: 2, kittyId: 5, tmux: true }),
    "\x1bPtmux;\x1b\x1b_Ga=d,d=I,i=5,q=2\x1b\x1b\\\x1b\\",
  );
  assert.equal(imageRemoval({ above: 2, kittyId: null, tmux: true }), "");
});
