/**
 * A prompt that got no answer (interrupted, failed, abandoned) never goes
 * out again: `withoutUnanswered`, as `prepareContext` and compaction use it.
 */
import assert from "node:assert/strict";
import { type Message, messageText } from "@panto/lib";
import { planCompaction } from "../../lib/compaction.ts";
import { prepareContext, withoutUnanswered } from "../../lib/context.ts";

const T = "2026-01-01T00:00:00.000Z";

function user(text: string): Message {
  return { role: "user", content: [{ type: "text", text }], timestamp: T };
}

function answer(text: string, stopReason: Message["stopReason"] = "end_turn"): Message {
  return { role: "assistant", content: [{ type: "text", text }], timestamp: T, stopReason };
}

const cancelled: Message = { role: "assistant", content: [], timestamp: T, stopReason: "aborted" };
const failed: Message = {
  role: "assistant",
  content: [],
  timestamp: T,
  stopReason: "error",
  errorMessage: "overloaded",
};
const call: Message = {
  role: "assistant",
  content: [{ type: "tool_use", id: "c1", name: "ls", input: {} }],
  timestamp: T,
  stopReason: "tool_use",
};
const result: Message = {
  role: "tool",
  content: [{
    type: "tool_result",
    toolUseId: "c1",
    toolName: "ls",
    content: [{ type: "text", text: "a.ts" }],
    isError: false,
  }],
  timestamp: T,
};

function texts(messages: readonly Message[]): string[] {
  return messages.map((m) => m.role === "tool" ? "(results)" : messageText(m));
}

Deno.test("withoutUnanswered: a prompt cancelled or failed before any answer is left out", () => {
  for (const interrupted of [cancelled, failed]) {
    const sent = withoutUnanswered([
      user("hi"),
      answer("hello"),
      user("hang DELETE EVERYTHING"),
      interrupted,
      user("what is 2+2"),
    ]);
    assert.deepEqual(texts(sent), ["hi", "hello", "what is 2+2"]);
  }
});

Deno.test("withoutUnanswered: a partial answer keeps its prompt", () => {
  const partial = answer("Once upon", "aborted");
  const sent = withoutUnanswered([user("an essay"), partial, user("shorter")]);
  assert.deepEqual(texts(sent), ["an essay", "Once upon", "shorter"]);
});

Deno.test("withoutUnanswered: a prompt followed by another with no answer between is left out", () => {
  const sent = withoutUnanswered([user("lost in a crash"), user("again")]);
  assert.deepEqual(texts(sent), ["again"]);
});

Deno.test("withoutUnanswered: steering after tool results stays; unanswered steering goes", () => {
  const steered = [user("list"), call, result, user("top level only"), user("and sizes")];
  assert.deepEqual(texts(withoutUnanswered(steered)), texts(steered));
  const cut = withoutUnanswered([user("list"), call, result, user("steer"), cancelled, user("b")]);
  assert.deepEqual(texts(cut), ["list", "", "(results)", "b"]);
});

Deno.test("withoutUnanswered: a compaction summary stays, and the prompt being answered", () => {
  const summary: Message = {
    role: "user",
    content: [{ type: "compaction_summary", summary: "earlier" }],
    timestamp: T,
  };
  const sent = withoutUnanswered([summary, user("kept copy"), cancelled, user("now")]);
  assert.equal(sent[0], summary);
  assert.deepEqual(texts(sent.slice(1)), ["now"]);
  assert.deepEqual(texts(withoutUnanswered([answer("a"), user("last")])), ["a", "last"]);
});

Deno.test("prepareContext and compaction never carry the interrupted prompt", () => {
  const messages = [
    user("hi"),
    answer("hello"),
    user("hang DELETE EVERYTHING"),
    cancelled,
    user("what is 2+2"),
  ];
  const target = {
    api: "openai-chat",
    baseUrl: "http://x/v1",
    model: "m",
    reasoning: "off",
  } as const;
  assert.doesNotMatch(JSON.stringify(prepareContext(messages, target)), /DELETE/);
  const plan = planCompaction([...messages, answer("4")], 1);
  assert.ok(plan);
  assert.doesNotMatch(JSON.stringify(plan), /DELETE/);
});
