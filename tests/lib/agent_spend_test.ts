/**
 * What the agent stores so a session can be shown and counted again: each
 * tool result's duration, the mark of a run interrupted while its tools
 * ran, and the usage of the requests that write compactions and branch
 * summaries.
 */
import assert from "node:assert/strict";
import { Agent, Conversation, type Message, type Tool } from "@panto/lib";
import { splitUnanswered } from "../../lib/session/unanswered.ts";
import { nextState } from "../../lib/session/session_state.ts";
import { FakeLlmServer } from "../support/fake_llm_server.ts";
import { MemoryStore } from "../support/memory_store.ts";
import { drain, fakeServerConfig, textTurn, toolTurn } from "../support/agent_fixtures.ts";

/** A tool that takes `ms` to answer, or until aborted. */
function napTool(ms: number): Tool {
  return {
    decl: { name: "nap", description: "Wait", inputSchema: { type: "object", properties: {} } },
    execute: (_args, context) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve({ parts: [{ type: "text", text: "rested" }] }), ms);
        context.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(context.signal.reason);
        }, { once: true });
      }),
  };
}

async function withAgent(
  body: (server: FakeLlmServer, agent: Agent, store: MemoryStore) => Promise<void>,
  tools: Tool[] = [],
  conversation = new Conversation(),
): Promise<void> {
  const server = await FakeLlmServer.start();
  try {
    const store = new MemoryStore();
    const agent = new Agent({
      config: {
        ...fakeServerConfig(server, "anthropic-messages", "k"),
        compaction: { keepRecentTokens: 50 },
      },
      session: store.create(),
      conversation,
    });
    for (const tool of tools) agent.registerTool(tool);
    await body(server, agent, store);
  } finally {
    await server.close();
  }
}

Deno.test("a tool result is stored with how long its tool ran", async () => {
  await withAgent(async (server, agent, store) => {
    server.enqueue(toolTurn({ id: "c1", name: "nap", input: {} }));
    server.enqueue(textTurn("done"));
    await drain(agent.run("nap"));
    const tool = store.stored(agent.sessionId).map((p) => p.message).find((m) => m.role === "tool");
    const result = tool?.content[0];
    assert.ok(result?.type === "tool_result");
    assert.ok(result.durationMs !== undefined && result.durationMs >= 150, `${result.durationMs}`);
    assert.equal(tool?.stopReason, undefined, "a run not interrupted");
  }, [napTool(150)]);
});

Deno.test("results of a run interrupted while its tools ran are marked: the run ended there", async () => {
  await withAgent(async (server, agent, store) => {
    server.enqueue(toolTurn({ id: "c1", name: "nap", input: {} }));
    const abort = new AbortController();
    const stream = agent.run("nap long", { signal: abort.signal });
    for await (const event of stream) {
      if (event.type === "tool_dispatch_start") abort.abort();
    }
    const stored = store.stored(agent.sessionId).map((p) => p.message);
    const tool = stored.at(-1)!;
    assert.equal(tool.role, "tool");
    assert.equal(tool.stopReason, "aborted");
    assert.equal(nextState(undefined, tool, 0)?.status, "idle");
    // A prompt after it starts a run (no steering): unanswered, it is the dangling one.
    const prompt: Message = { role: "user", content: [{ type: "text", text: "p" }], timestamp: "" };
    assert.equal(splitUnanswered([...stored, prompt]).danglingUser, prompt);
  }, [napTool(30_000)]);
});

/** A conversation long enough to compact. */
function longConversation(): Conversation {
  const conversation = new Conversation();
  for (let i = 0; i < 6; i++) {
    conversation.addUserMessage(`question ${i} ${"word ".repeat(80)}`);
    conversation.addAssistantMessage([{ type: "text", text: `answer ${i} ${"word ".repeat(80)}` }]);
  }
  return conversation;
}

Deno.test("a compaction summary is stored with its request's usage and model", async () => {
  await withAgent(
    async (server, agent, store) => {
      // Two requests: the older messages, and the start of the last run (too large to keep).
      server.enqueue(textTurn("SUMMARY"));
      server.enqueue(textTurn("TURN SO FAR"));
      const before = agent.conversation.totalUsage().outputTokens;
      assert.ok(await agent.compact());
      const summary = store.stored(agent.sessionId).map((p) => p.message).find((m) =>
        m.content.some((b) => b.type === "compaction_summary")
      );
      assert.ok(summary?.usage && summary.usage.outputTokens > 0, JSON.stringify(summary));
      assert.equal(summary.api, "anthropic-messages");
      assert.equal(summary.model, "fake-model");
      assert.equal(
        agent.conversation.totalUsage().outputTokens,
        before + summary.usage.outputTokens,
      );
    },
    [],
    longConversation(),
  );
});

Deno.test("a branch summary's usage is stored with the prompt it goes with", async () => {
  await withAgent(async (server, agent, store) => {
    server.enqueue(textTurn("They tried things."));
    const { summary, spent } = await agent.summariseBranch(longConversation().messages);
    assert.equal(summary, "They tried things.");
    assert.ok(spent.usage.outputTokens > 0);
    assert.deepEqual([spent.api, spent.model], ["anthropic-messages", "fake-model"]);
    server.enqueue(textTurn("ok"));
    await drain(
      agent.run({ text: "go on", attachments: [{ type: "text", text: summary }], spent }),
    );
    const prompt = store.stored(agent.sessionId).map((p) => p.message).find((m) =>
      m.role === "user"
    );
    assert.deepEqual(prompt?.usage, spent.usage);
    assert.equal(prompt?.model, "fake-model");
  });
});
