import assert from "node:assert/strict";
import {
  Agent,
  type AgentEvent,
  type Config,
  NullStore,
  ResultParts,
  scriptedProvider,
  type Tool,
} from "@panto/lib";

const CONFIG: Config = {
  provider: { api: "openai-chat", baseUrl: "http://localhost:1/v1", model: "m", reasoning: "off" },
};

/** Reports its progress three times (with a secret), then returns. */
const chatty: Tool = {
  decl: { name: "cat", description: "cat", inputSchema: { type: "object" } },
  execute: (_input, context) => {
    context.onUpdate?.("token=s3cr3t");
    context.onUpdate?.([{ type: "text", text: "drop me" }]);
    context.onUpdate?.("boom");
    return ResultParts.fromText("done");
  },
};

Deno.test("redactProgress rewrites, keeps or drops each progress report before it is an event", async () => {
  const agent = new Agent({
    config: CONFIG,
    provider: scriptedProvider([[{ type: "tool_use", id: "c1", name: "cat", input: {} }], "ok"]),
    hooks: {
      redactProgress: ({ partial, tool }) => {
        assert.equal(tool.name, "cat");
        const text = partial[0]?.type === "text" ? partial[0].text : "";
        if (text === "drop me") return null;
        if (text === "boom") throw new Error("cannot redact this");
        return [{ type: "text", text: text.replaceAll("s3cr3t", "***") }];
      },
    },
  });
  agent.registerTool(chatty);
  const progress: unknown[] = [];
  for await (const event of agent.run("go")) {
    if (event.type === "tool_progress") progress.push(event.partial);
  }
  assert.deepEqual(progress, [[{ type: "text", text: "token=***" }]]);
});

Deno.test("without redactProgress every progress report is an event", async () => {
  const agent = new Agent({
    config: CONFIG,
    provider: scriptedProvider([[{ type: "tool_use", id: "c1", name: "cat", input: {} }], "ok"]),
  });
  agent.registerTool(chatty);
  let reports = 0;
  for await (const event of agent.run("go")) if (event.type === "tool_progress") reports++;
  assert.equal(reports, 3);
});

Deno.test("breaking out of for await cancels the run; it has saved and the agent is idle", async () => {
  const session = new NullStore().create();
  const provider = scriptedProvider([
    {
      content: [{ type: "text", text: "partial" }, { type: "text", text: "rest" }],
      waitForAbortAfter: 1,
    },
    "next answer",
  ]);
  const agent = new Agent({ config: CONFIG, session, provider });
  const stream = agent.run("long");
  const seen: AgentEvent["type"][] = [];
  for await (const event of stream) {
    seen.push(event.type);
    if (event.type === "block_complete") break; // the provider would wait forever
  }
  assert.equal(stream.state, "aborted");
  assert.equal(agent.running, false, "the loop is left once the run has ended");
  const last = agent.conversation.messages.at(-1);
  assert.equal(last?.stopReason, "aborted");
  assert.deepEqual(last?.content, [{ type: "text", text: "partial" }]);
  // The next run starts at once.
  for await (const _ of agent.run("again"));
  assert.equal(provider.requests.length, 2);
});

Deno.test("a throw in the loop body cancels the run too", async () => {
  const agent = new Agent({
    config: CONFIG,
    provider: scriptedProvider([{ content: "x", waitForAbortAfter: 0 }]),
  });
  const stream = agent.run("long");
  await assert.rejects(async () => {
    for await (const event of stream) {
      if (event.type === "message_start") throw new Error("renderer crashed");
    }
  }, /renderer crashed/);
  assert.equal(stream.state, "aborted");
  assert.equal(agent.running, false);
});
