import assert from "node:assert/strict";
import type { AgentEvent } from "@panto/lib";
import { EventChannel } from "../../lib/stream.ts";

const delta = (text: string): AgentEvent => ({
  type: "content_delta",
  blockIndex: 0,
  kind: "text",
  text,
});

Deno.test("EventChannel: a slow consumer loses nothing and sees the order of production", async () => {
  const channel = new EventChannel(new AbortController());
  for (let i = 0; i < 5000; i++) channel.push(delta(String(i)));
  channel.close();
  const seen: string[] = [];
  for await (const event of channel) if (event.type === "content_delta") seen.push(event.text);
  assert.equal(seen.length, 5000);
  assert.deepEqual(seen.slice(0, 3), ["0", "1", "2"]);
  assert.equal(seen.at(-1), "4999");
  assert.equal(await channel.next(), null, "exhausted");
});

Deno.test("EventChannel: a failure comes after every earlier event, once", async () => {
  const channel = new EventChannel(new AbortController());
  channel.push(delta("a"));
  channel.fail(new Error("boom"));
  assert.equal((await channel.next())?.type, "content_delta");
  await assert.rejects(channel.next(), /boom/);
  assert.equal(await channel.next(), null);
  assert.equal(channel.state, "failed");
});

Deno.test("EventChannel: two readers waiting at once are both served", async () => {
  const channel = new EventChannel(new AbortController());
  const first = channel.next();
  const second = channel.next();
  channel.push(delta("x"));
  channel.push(delta("y"));
  const got = await Promise.all([first, second]);
  assert.deepEqual(got.map((e) => e?.type === "content_delta" ? e.text : ""), ["x", "y"]);
});

Deno.test("EventChannel: cancel aborts the run's signal", () => {
  const abort = new AbortController();
  new EventChannel(abort).cancel();
  assert.ok(abort.signal.aborted);
});
