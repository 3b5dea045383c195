import assert from "node:assert/strict";
import type { Message, ProviderConfig } from "@panto/lib";
import { prepareContext } from "../../lib/context.ts";

const T = "2026-01-01T00:00:00.000Z";
const anthropic: ProviderConfig = {
  api: "anthropic-messages",
  baseUrl: "http://x",
  model: "claude-a",
  reasoning: "high",
};
const openai: ProviderConfig = {
  api: "openai-chat",
  baseUrl: "http://x/v1",
  model: "gpt-b",
  reasoning: "off",
};

function user(text: string): Message {
  return { role: "user", content: [{ type: "text", text }], timestamp: T };
}

const thinkingTurn: Message = {
  role: "assistant",
  api: "anthropic-messages",
  model: "claude-a",
  stopReason: "tool_use",
  timestamp: T,
  content: [
    { type: "thinking", thinking: "I should look at the file.", signature: "sig-1" },
    { type: "redacted_thinking", data: "opaque" },
    { type: "tool_use", id: "functions.read:0", name: "read", input: { path: "a" } },
  ],
};
const results: Message = {
  role: "tool",
  timestamp: T,
  content: [{
    type: "tool_result",
    toolUseId: "functions.read:0",
    toolName: "read",
    content: [{ type: "text", text: "A" }],
    isError: false,
  }],
};

Deno.test("prepareContext keeps signed thinking for the model that wrote it", () => {
  const out = prepareContext([user("go"), thinkingTurn, results], anthropic);
  const blocks = out[1]!.content;
  assert.deepEqual(blocks[0], {
    type: "thinking",
    thinking: "I should look at the file.",
    signature: "sig-1",
  });
  assert.equal(blocks[1]!.type, "redacted_thinking");
});

Deno.test("prepareContext turns another model's thinking into text and drops its redacted thinking", () => {
  const out = prepareContext([user("go"), thinkingTurn, results], openai);
  const blocks = out[1]!.content;
  assert.deepEqual(blocks[0], { type: "text", text: "I should look at the file." });
  assert.ok(!blocks.some((b) => b.type === "redacted_thinking"));
});

Deno.test("prepareContext rewrites tool-call ids consistently in calls and results", () => {
  const out = prepareContext([user("go"), thinkingTurn, results], openai);
  const call = out[1]!.content.find((b) => b.type === "tool_use");
  const result = out[2]!.content[0];
  assert.ok(call?.type === "tool_use" && result?.type === "tool_result");
  assert.match(call.id, /^[A-Za-z0-9_-]{1,40}$/);
  assert.equal(result.toolUseId, call.id);
  assert.equal(
    thinkingTurn.content[2]!.type === "tool_use" && thinkingTurn.content[2]!.id,
    "functions.read:0",
    "input is not modified",
  );
});

Deno.test("prepareContext keeps the text of aborted turns; one with none goes with its prompt", () => {
  const aborted: Message = {
    role: "assistant",
    stopReason: "aborted",
    timestamp: T,
    content: [
      { type: "text", text: "half an ans" },
      { type: "tool_use", id: "cut", name: "read", input: {} },
    ],
  };
  const failed: Message = {
    role: "assistant",
    stopReason: "error",
    errorMessage: "overloaded",
    timestamp: T,
    content: [],
  };
  const out = prepareContext([user("one"), aborted, user("two"), failed, user("three")], anthropic);
  assert.deepEqual(out.map((m) => m.role), ["user", "assistant", "user"]);
  assert.deepEqual(out[1]!.content, [{ type: "text", text: "half an ans" }], "no cut-off call");
  assert.doesNotMatch(JSON.stringify(out), /"two"/, "the prompt that got no answer");
});

Deno.test("prepareContext gives an orphaned tool call an error result", () => {
  const out = prepareContext([user("go"), thinkingTurn, user("are you there?")], anthropic);
  assert.deepEqual(out.map((m) => m.role), ["user", "assistant", "tool", "user"]);
  const result = out[2]!.content[0];
  assert.ok(result?.type === "tool_result");
  assert.equal(result.isError, true);
  assert.match(result.content[0]!.type === "text" ? result.content[0]!.text : "", /interrupted/);
});

Deno.test("prepareContext starts at the latest compaction summary", () => {
  const summary: Message = {
    role: "user",
    timestamp: T,
    content: [{ type: "compaction_summary", summary: "earlier stuff" }],
  };
  const out = prepareContext(
    [user("old"), { ...thinkingTurn }, results, summary, user("new")],
    anthropic,
  );
  assert.equal(out.length, 2);
  assert.equal(out[0]!.content[0]!.type, "compaction_summary");
});
