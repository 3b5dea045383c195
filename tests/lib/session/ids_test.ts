import assert from "node:assert/strict";
import { newSessionId } from "../../../lib/session/ids.ts";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

Deno.test("session ids are UUIDv7: version 7, variant 10, the time in their first 48 bits", () => {
  const before = Date.now();
  const id = newSessionId();
  const after = Date.now();
  assert.match(id, UUID_V7);
  const ms = parseInt(id.replaceAll("-", "").slice(0, 12), 16);
  assert.ok(ms >= before && ms <= after + 1, `${ms} outside ${before}..${after}`);
});

Deno.test("ids made in a burst are distinct and sort in the order they were made", () => {
  const ids = Array.from({ length: 20_000 }, newSessionId);
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual([...ids].sort(), ids);
  for (const id of ids) assert.match(id, UUID_V7);
});
