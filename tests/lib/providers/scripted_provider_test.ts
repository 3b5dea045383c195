import assert from "node:assert/strict";
import { Agent, type Config, scriptedProvider } from "@panto/lib";

const CONFIG: Config = {
  provider: { api: "openai-chat", baseUrl: "http://localhost:1/v1", model: "m", reasoning: "off" },
};

Deno.test("scriptedProvider: a turn's usage and stop reason reach the message", async () => {
  const agent = new Agent({
    config: CONFIG,
    provider: scriptedProvider([{
      content: "cut",
      usage: { inputTokens: 7, outputTokens: 2 },
      stopReason: "max_tokens",
    }]),
  });
  let completed;
  for await (const event of agent.run("hi")) {
    if (event.type === "run_complete") completed = event.stopReason;
  }
  const answer = agent.conversation.messages.at(-1)!;
  assert.equal(completed, "max_tokens");
  assert.equal(answer.stopReason, "max_tokens");
  assert.deepEqual(answer.usage, {
    inputTokens: 7,
    outputTokens: 2,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  });
});

Deno.test("scriptedProvider: delayMs paces the blocks, and an abort cuts the wait short", async () => {
  const text = (t: string) => ({ type: "text" as const, text: t });
  const paced = scriptedProvider([{ content: [text("a"), text("b")], delayMs: 40 }]);
  const agent = new Agent({ config: CONFIG, provider: paced });
  const times: number[] = [];
  for await (const event of agent.run("hi")) {
    if (event.type === "block_complete") times.push(performance.now());
  }
  assert.equal(times.length, 2);
  assert.ok(times[1]! - times[0]! >= 30, `blocks ${times[1]! - times[0]!} ms apart`);

  const slow = scriptedProvider([{ content: [text("a"), text("b")], delayMs: 60_000 }]);
  const stopped = new Agent({ config: CONFIG, provider: slow });
  const stream = stopped.run("hi");
  for await (const event of stream) if (event.type === "message_start") stream.cancel();
  assert.equal(stream.state, "aborted");
  assert.deepEqual(stopped.conversation.messages.at(-1)?.content, []);
});

Deno.test("scriptedProvider: waitForAbortAfter streams that many blocks, then waits for the abort", async () => {
  const provider = scriptedProvider([{
    content: [{ type: "text", text: "one" }, { type: "text", text: "two" }],
    waitForAbortAfter: 1,
  }]);
  const agent = new Agent({ config: CONFIG, provider });
  const stream = agent.run("hi");
  const texts: string[] = [];
  for await (const event of stream) {
    if (event.type === "content_delta") texts.push(event.text);
    if (event.type === "block_complete") setTimeout(() => stream.cancel(), 20);
  }
  assert.deepEqual(texts, ["one"]);
  assert.equal(agent.conversation.messages.at(-1)?.stopReason, "aborted");
});
