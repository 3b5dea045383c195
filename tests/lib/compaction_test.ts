import assert from "node:assert/strict";
import { Agent, type AgentEvent, type Config, Conversation, type Message } from "@panto/lib";
import { DEFAULT_COMPACTION_PROMPT, estimateTokens, planCompaction } from "../../lib/compaction.ts";
import { contextMessages } from "../../lib/conversation.ts";
import {
  contextOverflowReply,
  FakeLlmServer,
  type FakeReply,
  withFakeServer,
} from "../support/fake_llm_server.ts";
import { MemoryStore } from "../support/memory_store.ts";

const T = "2026-01-01T00:00:00.000Z";
const words = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");

function configFor(server: FakeLlmServer, extra: Partial<Config> = {}): Config {
  return {
    provider: {
      api: "anthropic-messages",
      baseUrl: server.anthropicBaseUrl,
      model: "m",
      reasoning: "off",
      apiKey: "k",
    },
    retry: { maxRetries: 0 },
    ...extra,
  };
}

/** user/assistant pairs with ~`size` tokens each. */
function history(turns: number, size: number): Conversation {
  const conversation = new Conversation();
  for (let i = 0; i < turns; i++) {
    conversation.addUserMessage(`question ${i}: ${words(size, "q")}`);
    conversation.addAssistantMessage([{ type: "text", text: `answer ${i}: ${words(size, "a")}` }]);
  }
  return conversation;
}

function toolTurn(id: string, size: number): Message[] {
  return [
    {
      role: "assistant",
      timestamp: T,
      stopReason: "tool_use",
      content: [{ type: "tool_use", id, name: "read", input: { path: id } }],
    },
    {
      role: "tool",
      timestamp: T,
      content: [{
        type: "tool_result",
        toolUseId: id,
        toolName: "read",
        content: [{ type: "text", text: words(size, id) }],
        isError: false,
      }],
    },
  ];
}

Deno.test("planCompaction never starts the kept part with a tool result", () => {
  const messages: Message[] = [
    { role: "user", timestamp: T, content: [{ type: "text", text: words(500, "u") }] },
    ...toolTurn("c1", 500),
    ...toolTurn("c2", 500),
    { role: "assistant", timestamp: T, content: [{ type: "text", text: "done" }] },
  ];
  for (let budget = 10; budget < 3000; budget += 50) {
    const plan = planCompaction(messages, budget);
    assert.ok(plan);
    assert.notEqual(plan.keep[0]?.role, "tool", `budget ${budget}`);
    assert.equal(
      plan.summarise.length + plan.turnPrefix.length + plan.keep.length,
      messages.length,
    );
  }
});

Deno.test("planCompaction splits a turn too large to keep whole", () => {
  const messages: Message[] = [
    { role: "user", timestamp: T, content: [{ type: "text", text: "old question" }] },
    { role: "assistant", timestamp: T, content: [{ type: "text", text: "old answer" }] },
    { role: "user", timestamp: T, content: [{ type: "text", text: "big task" }] },
    ...toolTurn("c1", 2000),
    ...toolTurn("c2", 2000),
    ...toolTurn("c3", 100),
  ];
  const plan = planCompaction(messages, 500);
  assert.ok(plan);
  assert.equal(plan.summarise.length, 2, "the older turns are summarised");
  assert.equal(
    plan.turnPrefix[0]!.content[0]!.type === "text" && plan.turnPrefix[0]!.content[0]!.text,
    "big task",
  );
  assert.equal(plan.keep[0]!.role, "assistant");
  assert.ok(plan.keep.reduce((n, m) => n + estimateTokens(m), 0) <= 500);
});

Deno.test("Agent.compact summarises old messages, keeps recent ones, persists, and survives a resume", async () => {
  const server = await FakeLlmServer.start();
  try {
    server.enqueue({
      kind: "turn",
      blocks: [{ type: "text", text: "SUMMARY: the user asked ten questions." }],
    });
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "after compaction" }] });
    const store = new MemoryStore();
    const conversation = history(10, 200);
    const agent = new Agent({
      config: configFor(server, { compaction: { keepRecentTokens: 500 } }),
      session: store.create(),
      conversation,
    });
    const result = await agent.compact({ instructions: "keep the question numbers" });
    assert.ok(result);
    assert.equal(result.summary, "SUMMARY: the user asked ten questions.");
    assert.ok(result.tokensAfter < result.tokensBefore);

    const request = server.requests[0]!.body as {
      system: unknown;
      messages: { content: unknown }[];
      tools?: unknown;
    };
    assert.match(
      JSON.stringify(request.system),
      new RegExp(DEFAULT_COMPACTION_PROMPT.slice(0, 40)),
    );
    const sent = JSON.stringify(request.messages);
    assert.match(sent, /question 0:/, "the oldest messages are summarised");
    assert.match(sent, /Additional instructions: keep the question numbers/);
    assert.ok(
      !request.tools || (request.tools as unknown[]).length === 0,
      "no tools offered to the summariser",
    );

    const context = contextMessages(agent.conversation.messages);
    assert.equal(context[0]!.content[0]!.type, "compaction_summary");
    assert.equal(context.length - 1, result.keptMessages);
    assert.ok(result.keptMessages >= 1);
    assert.ok(!JSON.stringify(context).includes("question 0:"), "old messages left the context");

    // Resume from the store: the next request carries the summary and the kept messages only.
    const resumed = new Agent({
      config: configFor(server),
      session: (await store.resolve(agent.sessionId))!,
      conversation: (await store.load(agent.sessionId))!,
    });
    const events: AgentEvent[] = [];
    for await (const event of resumed.run("and now?")) events.push(event);
    const next = JSON.stringify(server.requests[1]!.body);
    assert.match(next, /SUMMARY: the user asked ten questions\./);
    assert.match(next, /question 9:/);
    assert.ok(!next.includes("question 0:"));
  } finally {
    await server.close();
  }
});

Deno.test("a run compacts automatically near the context window", async () => {
  const server = await FakeLlmServer.start();
  try {
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "auto summary" }] });
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "answer" }] });
    const config = configFor(server, { compaction: { keepRecentTokens: 300, reserveTokens: 100 } });
    config.provider.contextWindow = 2000;
    const agent = new Agent({ config, conversation: history(10, 200) });
    const events: AgentEvent[] = [];
    for await (const event of agent.run("next question")) events.push(event);
    const compaction = events.find((e) => e.type === "compaction");
    assert.ok(compaction?.type === "compaction");
    assert.equal(compaction.reason, "threshold");
    assert.equal(server.requests.length, 2);
    assert.match(JSON.stringify(server.requests[1]!.body), /auto summary/);
    assert.match(JSON.stringify(server.requests[1]!.body), /next question/);
  } finally {
    await server.close();
  }
});

/** An agent over a 12-message history whose next request the fake server answers with `replies`. */
function overflowingAgent(server: FakeLlmServer, ...replies: FakeReply[]): Agent {
  server.enqueue(contextOverflowReply("anthropic"), ...replies);
  return new Agent({
    config: configFor(server, { compaction: { keepRecentTokens: 300 } }),
    conversation: history(6, 200),
  });
}

Deno.test("a context overflow error triggers compaction and one retry", async () => {
  await withFakeServer(async (server) => {
    const agent = overflowingAgent(
      server,
      { kind: "turn", blocks: [{ type: "text", text: "overflow summary" }] },
      { kind: "turn", blocks: [{ type: "text", text: "answer after retry" }] },
    );
    const events: AgentEvent[] = [];
    for await (const event of agent.run("go on")) events.push(event);
    const compaction = events.find((e) => e.type === "compaction");
    assert.ok(compaction?.type === "compaction" && compaction.reason === "overflow");
    const final = agent.conversation.messages.at(-1)!;
    assert.deepEqual(final.content, [{ type: "text", text: "answer after retry" }]);
    assert.equal(server.requests.length, 3);
  });
});

Deno.test("a second overflow after compaction fails with the overflow error", async () => {
  await withFakeServer(async (server) => {
    const agent = overflowingAgent(
      server,
      { kind: "turn", blocks: [{ type: "text", text: "summary" }] },
      contextOverflowReply("anthropic"),
    );
    const error = await (async () => {
      for await (const _ of agent.run("go on")) { /* drain */ }
    })().then(() => null, (e) => e);
    assert.equal(error?.kind, "context_overflow");
    assert.equal(server.requests.length, 3, "compaction happens once, then the error surfaces");
  });
});

Deno.test("aborting during an automatic compaction ends the run as aborted", async () => {
  const server = await FakeLlmServer.start();
  try {
    server.enqueue({
      kind: "turn",
      blocks: [{ type: "text", text: "a summary that never arrives" }],
      headerDelayMs: 120_000,
    });
    const config = configFor(server, { compaction: { keepRecentTokens: 300, reserveTokens: 100 } });
    config.provider.contextWindow = 2000;
    const store = new MemoryStore();
    const session = store.create();
    const agent = new Agent({ config, session, conversation: history(10, 200) });
    const stream = agent.run("next question");
    const events: AgentEvent[] = [];
    const started = Date.now();
    setTimeout(() => stream.cancel(), 50);
    for await (const event of stream) events.push(event);
    // Generous for a busy machine, and long before the summary's headers would come.
    assert.ok(Date.now() - started < 60_000, "the abort stops the summarising request");
    assert.equal(stream.state, "aborted");
    const last = events.at(-1);
    assert.ok(last?.type === "run_complete" && last.stopReason === "aborted");
    assert.equal(server.requests.length, 1, "no model request follows the aborted compaction");
    assert.ok(!events.some((e) => e.type === "compaction"));
    const stored = store.stored(session.id).map((p) => p.message);
    assert.deepEqual(stored.map((m) => m.role), ["user", "assistant"]);
    assert.equal(stored[1]!.stopReason, "aborted");
  } finally {
    await server.close();
  }
});
