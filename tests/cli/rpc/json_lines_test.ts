import assert from "node:assert/strict";
import { type InputLine, readJsonLines } from "../../../cli/rpc/json_lines.ts";

const encoder = new TextEncoder();

function streamOf(chunks: readonly (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  return ReadableStream.from(chunks.map((c) => typeof c === "string" ? encoder.encode(c) : c));
}

async function linesOf(
  chunks: readonly (string | Uint8Array)[],
  max?: number,
): Promise<InputLine[]> {
  return await Array.fromAsync(readJsonLines(streamOf(chunks), max));
}

Deno.test("readJsonLines: splits on LF across chunks, drops CR and blank lines, keeps a last line without LF", async () => {
  assert.deepEqual(await linesOf(['{"a":', '1}\r\n\n  \n{"b"', ":2}\n", '{"c":3}']), [
    { kind: "line", text: '{"a":1}' },
    { kind: "line", text: '{"b":2}' },
    { kind: "line", text: '{"c":3}' },
  ]);
});

Deno.test("readJsonLines: U+2028 and U+2029 do not end a line", async () => {
  const text = '{"message":"a\u2028b\u2029c"}';
  assert.deepEqual(await linesOf([text + "\n"]), [{ kind: "line", text }]);
});

Deno.test("readJsonLines: a character split between chunks is decoded whole", async () => {
  const bytes = encoder.encode('{"m":"é€"}\n');
  assert.deepEqual(await linesOf([bytes.subarray(0, 8), bytes.subarray(8)]), [
    { kind: "line", text: '{"m":"é€"}' },
  ]);
});

Deno.test("readJsonLines: a line over the limit is reported by size and reading goes on", async () => {
  const long = "x".repeat(50);
  assert.deepEqual(await linesOf(["1\n", long.slice(0, 20), long.slice(20) + "\n2\n", long], 30), [
    { kind: "line", text: "1" },
    { kind: "too_long", bytes: 50 },
    { kind: "line", text: "2" },
    { kind: "too_long", bytes: 50 },
  ]);
});

Deno.test("readJsonLines: a 20 MiB line in 64 KiB chunks is read whole, in linear time", async () => {
  const size = 20 * 1024 * 1024;
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  const chunks = Array.from({ length: size / chunk.length }, () => chunk);
  const started = performance.now();
  const lines = await linesOf([...chunks, "\n"]);
  const ms = performance.now() - started;
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.kind === "line" && lines[0]!.text.length, size);
  assert.ok(ms < 5_000, `took ${ms} ms`);
});
