/**
 * The guard in front of the ACP SDK's line reader: lines within the limit
 * pass whole, however they were chunked; a longer one is dropped and
 * described by its top-level `id` and `method`, wherever they are.
 */
import assert from "node:assert/strict";
import { MessageSizeGuard, type OversizedMessage } from "../../../cli/acp/message_size_guard.ts";

const encoder = new TextEncoder();

/** Feeds `text` in chunks of `chunkSize` bytes; returns what passed and what was dropped. */
async function guard(
  text: string,
  maxBytes: number,
  chunkSize = 7,
  replacement?: string,
): Promise<{ out: string[]; dropped: OversizedMessage[] }> {
  const bytes = encoder.encode(text);
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += chunkSize) chunks.push(bytes.slice(at, at + chunkSize));
  const dropped: OversizedMessage[] = [];
  const stream = ReadableStream.from(chunks).pipeThrough(
    new MessageSizeGuard(maxBytes, (message) => {
      dropped.push(message);
      return replacement === undefined ? undefined : encoder.encode(replacement);
    }),
  );
  const out: string[] = [];
  const decoder = new TextDecoder();
  for await (const chunk of stream) out.push(decoder.decode(chunk));
  return { out, dropped };
}

const long = "x".repeat(200);

Deno.test("MessageSizeGuard: lines within the limit pass whole, one chunk each", async () => {
  const text = '{"id":1}\n{"id":2,"method":"a"}\n\n{"last":true}';
  const { out, dropped } = await guard(text, 64, 3);
  assert.deepEqual(out, ['{"id":1}\n', '{"id":2,"method":"a"}\n', "\n", '{"last":true}']);
  assert.deepEqual(dropped, []);
});

Deno.test("MessageSizeGuard: a request over the limit is dropped and described; the next line passes", async () => {
  const request = `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"text":"${long}"}}`;
  const { out, dropped } = await guard(`${request}\n{"id":8}\n`, 100);
  assert.deepEqual(out, ['{"id":8}\n']);
  assert.deepEqual(dropped, [{
    bytes: encoder.encode(request).length,
    id: 7,
    method: "session/prompt",
    response: false,
  }]);
});

Deno.test("MessageSizeGuard: the top-level id is found after params, past nested ids and escaped quotes", async () => {
  const request = `{"params":{"id":"nested","text":"say \\"id\\": 3, ${long}"},` +
    `"method":"session/prompt","id":"top-1"}`;
  const { dropped } = await guard(request + "\n", 100, 5);
  assert.equal(dropped[0]?.id, "top-1");
  assert.equal(dropped[0]?.method, "session/prompt");
});

Deno.test("MessageSizeGuard: a response is told apart, and its replacement passes on", async () => {
  const response = `{"jsonrpc":"2.0","id":3,"result":{"content":"${long}"}}`;
  const { out, dropped } = await guard(`${response}\n`, 100, 11, '{"replaced":3}\n');
  assert.deepEqual(out, ['{"replaced":3}\n']);
  assert.equal(dropped[0]?.response, true);
  assert.equal(dropped[0]?.id, 3);
  assert.equal(dropped[0]?.method, undefined);
});

Deno.test("MessageSizeGuard: a notification, or no JSON object at all, has no id", async () => {
  const notification = `{"method":"session/cancel","params":{"junk":"${long}"}}`;
  const { dropped } = await guard(`${notification}\n[${long}]\n${long}`, 100);
  assert.deepEqual(dropped.map((d) => [d.id, d.method, d.response]), [
    [undefined, "session/cancel", false],
    [undefined, undefined, false],
    [undefined, undefined, false],
  ]);
  assert.equal(dropped[2]?.bytes, 200, "an unterminated last line too");
});

Deno.test("MessageSizeGuard: an id that is not a string or a number is no id", async () => {
  for (const id of ["null", "{}", "true", `"${"i".repeat(2000)}"`]) {
    const { dropped } = await guard(`{"id":${id},"method":"m","params":"${long}"}\n`, 100);
    assert.equal(dropped[0]?.id, undefined, id.slice(0, 10));
    assert.equal(dropped[0]?.method, "m");
  }
});
