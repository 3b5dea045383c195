/**
 * bodyReader: a fetch body read into one reused buffer (Deno gives each
 * chunk read the default way a fresh 64 KiB one), every byte in order;
 * plain streams read as they are.
 */
import assert from "node:assert/strict";
import { bodyReader } from "../../../lib/providers/body_reader.ts";

const encoder = new TextEncoder();

/** A loopback server streaming `pieces`, each written after a short pause (one chunk each). */
function serve(pieces: string[]) {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    let next = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await new Promise((resolve) => setTimeout(resolve, 2));
        if (next === pieces.length) return controller.close();
        controller.enqueue(encoder.encode(pieces[next++]!));
      },
    });
    return new Response(body);
  });
}

Deno.test("bodyReader: a fetch body's chunks come in one reused buffer, every byte in order", async () => {
  const pieces = Array.from({ length: 40 }, (_, i) => `data: {"n":${i}}\n\n`);
  await using server = serve(pieces);
  const response = await fetch(`http://127.0.0.1:${server.addr.port}/`);
  const reader = bodyReader(response.body!);
  const decoder = new TextDecoder();
  let text = "";
  let chunks = 0;
  let previous: ArrayBuffer | undefined;
  for (;;) {
    const chunk = await reader.read();
    // The last chunk's buffer went back to the stream for this read (detached here), where
    // a default read leaves each chunk its own buffer.
    if (previous !== undefined) assert.equal(previous.byteLength, 0, "the buffer was handed back");
    if (chunk.done) break;
    chunks++;
    assert.equal(chunk.value.buffer.byteLength, 64 * 1024);
    previous = chunk.value.buffer as ArrayBuffer;
    text += decoder.decode(chunk.value, { stream: true });
  }
  assert.equal(text, pieces.join(""));
  assert.ok(chunks > 1, `the body came in ${chunks} chunk(s)`);
});

Deno.test("bodyReader: a plain stream (not a byte stream) is read as it comes", async () => {
  const body = ReadableStream.from([encoder.encode("ab"), encoder.encode("c")]);
  const reader = bodyReader(body);
  const read: string[] = [];
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    read.push(new TextDecoder().decode(chunk.value));
  }
  assert.deepEqual(read, ["ab", "c"]);
});

Deno.test("bodyReader: cancel releases the body", async () => {
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    type: "bytes",
    pull(controller) {
      controller.enqueue(encoder.encode("x"));
    },
    cancel() {
      cancelled = true;
    },
  });
  const reader = bodyReader(body);
  assert.equal((await reader.read()).done, false);
  await reader.cancel();
  assert.ok(cancelled);
});
