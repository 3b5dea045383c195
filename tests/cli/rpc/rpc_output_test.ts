import assert from "node:assert/strict";
import { RpcOutput } from "../../../cli/rpc/rpc_output.ts";

Deno.test("RpcOutput: one JSON line per record, U+2028 and U+2029 escaped", () => {
  const written: string[] = [];
  const output = new RpcOutput((text) => written.push(text), () => assert.fail("not closed"));
  output.send({ type: "content_delta", text: "a\u2028b\u2029c\nd" });
  assert.deepEqual(written, ['{"type":"content_delta","text":"a\\u2028b\\u2029c\\nd"}\n']);
  assert.deepEqual(JSON.parse(written[0]!), { type: "content_delta", text: "a\u2028b\u2029c\nd" });
});

Deno.test("RpcOutput: a broken pipe closes it once; later records are dropped", () => {
  let writes = 0;
  let closes = 0;
  const output = new RpcOutput(() => {
    writes++;
    throw new Deno.errors.BrokenPipe("gone");
  }, () => closes++);
  output.send({ type: "a" });
  output.send({ type: "b" });
  assert.deepEqual([writes, closes, output.closed], [1, 1, true]);
});

Deno.test("RpcOutput: other write errors are not swallowed", () => {
  const output = new RpcOutput(() => {
    throw new Deno.errors.PermissionDenied("no");
  }, () => {});
  assert.throws(() => output.send({ type: "a" }), Deno.errors.PermissionDenied);
  assert.equal(output.closed, false);
});
