import assert from "node:assert/strict";
import {
  Agent,
  type AgentEvent,
  type ApiStyle,
  type Config,
  ResultParts,
  type Tool,
  type ToolHooks,
} from "@panto/lib";
import { FakeLlmServer } from "../support/fake_llm_server.ts";
import { MemoryStore } from "../support/memory_store.ts";
import { drain, fakeServerConfig, textTurn, toolTurn } from "../support/agent_fixtures.ts";

function configFor(server: FakeLlmServer, api: ApiStyle, extra: Partial<Config> = {}): Config {
  return fakeServerConfig(server, api, "sk-test-hooks", extra);
}

/** An echo tool that records the arguments of every run. */
function recordingEcho(): { tool: Tool; runs: Record<string, unknown>[] } {
  const runs: Record<string, unknown>[] = [];
  const tool: Tool = {
    decl: {
      name: "echo",
      description: "Echo the text",
      inputSchema: {
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
      },
    },
    execute: (args) => {
      runs.push(args);
      return ResultParts.fromText(`echo: ${args.text}`);
    },
  };
  return { tool, runs };
}

function completions(events: AgentEvent[]) {
  return events.flatMap((e) => e.type === "tool_dispatch_complete" ? [e] : []);
}

function firstText(parts: { type: string; text?: string }[]): string {
  const part = parts[0];
  return part?.type === "text" ? part.text ?? "" : "";
}

interface Setup {
  server: FakeLlmServer;
  store: MemoryStore;
  agent: Agent;
  runs: Record<string, unknown>[];
}

/** Runs `fn` with a fake server scripted with one echo call then a final answer. */
function hookTest(
  name: string,
  options: { hooks?: ToolHooks; api?: ApiStyle; extra?: Partial<Config> },
  fn: (setup: Setup) => Promise<void>,
): void {
  const api = options.api ?? "anthropic-messages";
  Deno.test(`Agent hooks (${api}): ${name}`, async () => {
    const server = await FakeLlmServer.start();
    try {
      server.enqueue(toolTurn({ id: "call_1", name: "echo", input: { text: "hi" } }));
      server.enqueue(textTurn("done"));
      const store = new MemoryStore();
      const agent = new Agent({
        config: configFor(server, api, options.extra ?? {}),
        session: store.create(),
        ...(options.hooks ? { hooks: options.hooks } : {}),
      });
      const { tool, runs } = recordingEcho();
      agent.registerTool(tool);
      await fn({ server, store, agent, runs });
    } finally {
      await server.close();
    }
  });
}

hookTest("an allowing hook sees the call and the tool runs unchanged", {}, async (setup) => {
  const seen: unknown[] = [];
  setup.agent.setHooks({
    beforeToolCall: ({ call, tool }) => {
      seen.push({ call, tool: tool.name });
      return { action: "allow" };
    },
  });
  const events = await drain(setup.agent.run("go"));
  assert.deepEqual(seen, [{
    call: { id: "call_1", name: "echo", input: { text: "hi" } },
    tool: "echo",
  }]);
  assert.deepEqual(setup.runs, [{ text: "hi" }]);
  const [complete] = completions(events);
  assert.equal(firstText(complete!.result), "echo: hi");
  assert.equal(complete!.isError, false);
});

for (const api of ["anthropic-messages", "openai-chat"] as const) {
  hookTest(
    "a denied call is not run and the model gets the reason",
    { api, hooks: { beforeToolCall: () => ({ action: "deny", reason: "not on Tuesdays" }) } },
    async ({ agent, runs, server }) => {
      const events = await drain(agent.run("go"));
      assert.deepEqual(runs, [], "the tool did not run");
      const [complete] = completions(events);
      assert.equal(complete!.isError, true);
      assert.equal(firstText(complete!.result), "echo was denied: not on Tuesdays");
      assert.equal(server.requests.length, 2);
      assert.match(JSON.stringify(server.requests[1]!.body), /echo was denied: not on Tuesdays/);
    },
  );
}

hookTest(
  "changed arguments are what the tool and the events get",
  {
    hooks: {
      beforeToolCall: async ({ call }) => {
        await new Promise((r) => setTimeout(r, 5));
        return { action: "allow", input: { text: `${call.input.text}!` } };
      },
    },
  },
  async ({ agent, runs }) => {
    const events = await drain(agent.run("go"));
    assert.deepEqual(runs, [{ text: "hi!" }]);
    const start = events.find((e) => e.type === "tool_dispatch_start");
    assert.ok(start?.type === "tool_dispatch_start");
    assert.deepEqual(start.call.input, { text: "hi!" });
    const [complete] = completions(events);
    assert.deepEqual(complete!.call.input, { text: "hi!" });
    assert.equal(firstText(complete!.result), "echo: hi!");
    // The model's own call is kept as it made it.
    const assistant = agent.conversation.messages[1]!;
    assert.deepEqual(assistant.content[0]?.type === "tool_use" && assistant.content[0].input, {
      text: "hi",
    });
  },
);

hookTest(
  "changed arguments that fail the schema give an error result, and the tool does not run",
  { hooks: { beforeToolCall: () => ({ action: "allow", input: { text: 42 } }) } },
  async ({ agent, runs }) => {
    const [complete] = completions(await drain(agent.run("go")));
    assert.deepEqual(runs, []);
    assert.equal(complete!.isError, true);
    assert.match(
      firstText(complete!.result),
      /^Invalid arguments for echo: \/text: .*\(as changed by the beforeToolCall hook\)/,
    );
  },
);

hookTest(
  "editing the call in place changes nothing; only a returned input counts",
  {
    hooks: {
      beforeToolCall: ({ call }) => {
        call.input.text = "tampered";
      },
    },
  },
  async ({ agent, runs }) => {
    await drain(agent.run("go"));
    assert.deepEqual(runs, [{ text: "hi" }]);
  },
);

hookTest(
  "afterToolCall rewrites the result the model, the events and the session get",
  {
    hooks: {
      afterToolCall: ({ call, result }) => ({
        parts: [{ type: "text", text: `${firstText(result.parts)} [checked ${call.id}]` }],
        isError: true,
      }),
    },
  },
  async ({ agent, server, store }) => {
    const [complete] = completions(await drain(agent.run("go")));
    assert.equal(firstText(complete!.result), "echo: hi [checked call_1]");
    assert.equal(complete!.isError, true);
    assert.match(JSON.stringify(server.requests[1]!.body), /echo: hi \[checked call_1\]/);
    const stored = store.stored(agent.sessionId).map((p) => p.message);
    const toolMessage = stored.find((m) => m.role === "tool")!;
    const [result, ...more] = toolMessage.content;
    assert.ok(result?.type === "tool_result" && more.length === 0);
    const { durationMs, ...rest } = result;
    assert.equal(typeof durationMs, "number", "how long the tool ran");
    assert.deepEqual([rest], [{
      type: "tool_result",
      toolUseId: "call_1",
      toolName: "echo",
      content: [{ type: "text", text: "echo: hi [checked call_1]" }],
      isError: true,
    }]);
  },
);

hookTest(
  "afterToolCall returning nothing keeps the result",
  { hooks: { afterToolCall: () => undefined } },
  async ({ agent }) => {
    const [complete] = completions(await drain(agent.run("go")));
    assert.equal(firstText(complete!.result), "echo: hi");
    assert.equal(complete!.isError, false);
  },
);

hookTest(
  "a throwing beforeToolCall becomes an error result; the run goes on",
  {
    hooks: {
      beforeToolCall: () => {
        throw new Error("policy file unreadable");
      },
    },
  },
  async ({ agent, runs, server }) => {
    const stream = agent.run("go");
    const [complete] = completions(await drain(stream));
    assert.equal(stream.state, "done");
    assert.deepEqual(runs, []);
    assert.equal(
      firstText(complete!.result),
      "echo was not run: its beforeToolCall hook failed: policy file unreadable",
    );
    assert.equal(server.requests.length, 2);
  },
);

hookTest(
  "a throwing afterToolCall replaces the result with an error",
  {
    hooks: {
      afterToolCall: () => Promise.reject(new Error("redactor down")),
    },
  },
  async ({ agent, runs }) => {
    const stream = agent.run("go");
    const [complete] = completions(await drain(stream));
    assert.equal(stream.state, "done");
    assert.equal(runs.length, 1);
    assert.equal(complete!.isError, true);
    assert.equal(
      firstText(complete!.result),
      "echo ran, but its afterToolCall hook failed: redactor down",
    );
  },
);

hookTest(
  "a malformed decision is an error result naming what was returned",
  { hooks: { beforeToolCall: () => ({ action: "block" }) as never } },
  async ({ agent, runs }) => {
    const [complete] = completions(await drain(agent.run("go")));
    assert.deepEqual(runs, []);
    assert.match(firstText(complete!.result), /hook failed: it returned \{"action":"block"\}/);
  },
);

hookTest("an abort while beforeToolCall waits ends the run as aborted", {}, async (setup) => {
  const controller = new AbortController();
  let hookSignalAborted = false;
  setup.agent.setHooks({
    beforeToolCall: ({ signal }) => {
      controller.abort();
      hookSignalAborted = signal.aborted;
      return new Promise<undefined>(() => {}); // an approval nobody answers
    },
  });
  const stream = setup.agent.run("go", { signal: controller.signal });
  const [complete] = completions(await drain(stream));
  assert.equal(stream.state, "aborted");
  assert.ok(hookSignalAborted, "the hook's signal is the run's");
  assert.deepEqual(setup.runs, []);
  assert.equal(firstText(complete!.result), "echo was not run: the run was aborted");
  assert.equal(setup.server.requests.length, 1, "no request after the abort");
});

hookTest("an abort while afterToolCall waits drops the result it never saw", {}, async (setup) => {
  const controller = new AbortController();
  setup.agent.setHooks({
    afterToolCall: () => {
      controller.abort();
      return new Promise<undefined>(() => {});
    },
  });
  const stream = setup.agent.run("go", { signal: controller.signal });
  const [complete] = completions(await drain(stream));
  assert.equal(stream.state, "aborted");
  assert.equal(setup.runs.length, 1);
  assert.equal(complete!.isError, true);
  assert.equal(firstText(complete!.result), "echo was aborted");
});

Deno.test("Agent hooks: parallel calls with async hooks keep the model's order", async () => {
  const server = await FakeLlmServer.start();
  try {
    server.enqueue(toolTurn(
      { id: "c_slow", name: "echo", input: { text: "slow" } },
      { id: "c_fast", name: "echo", input: { text: "fast" } },
    ));
    server.enqueue(textTurn("done"));
    const agent = new Agent({
      config: configFor(server, "anthropic-messages", { parallelTools: true }),
      hooks: {
        beforeToolCall: async ({ call }) => {
          await new Promise((r) => setTimeout(r, call.input.text === "slow" ? 60 : 1));
        },
        afterToolCall: ({ call, result }) => ({
          ...result,
          parts: [{ type: "text", text: `${firstText(result.parts)} (${call.id})` }],
        }),
      },
    });
    const { tool, runs } = recordingEcho();
    agent.registerTool(tool);
    await drain(agent.run("go"));
    assert.deepEqual(runs, [{ text: "fast" }, { text: "slow" }], "the hooks ran concurrently");
    const results = agent.conversation.messages[2]!.content.map((b) =>
      b.type === "tool_result" ? firstText(b.content) : ""
    );
    assert.deepEqual(results, ["echo: slow (c_slow)", "echo: fast (c_fast)"]);
  } finally {
    await server.close();
  }
});

hookTest("unregisterTool removes the tool and tools lists what is left", {}, async (setup) => {
  const { agent, runs } = setup;
  const other: Tool = {
    decl: { name: "other", description: "Other", inputSchema: { type: "object" } },
    execute: () => ResultParts.fromText("other"),
  };
  agent.registerTool(other);
  assert.deepEqual(agent.tools.map((t) => t.decl.name), ["echo", "other"]);
  assert.equal(agent.unregisterTool("echo"), true);
  assert.equal(agent.unregisterTool("echo"), false, "a second removal reports nothing to remove");
  assert.equal(agent.unregisterTool("never"), false);
  assert.deepEqual(agent.tools, [other]);
  const [complete] = completions(await drain(agent.run("go")));
  assert.deepEqual(runs, []);
  assert.match(firstText(complete!.result), /"echo" is not available\. Available tools: other/);
  const sent = setup.server.requests[0]!.body as { tools: { name: string }[] };
  assert.deepEqual(sent.tools.map((t) => t.name), ["other"], "the model is not offered it");
  agent.registerTool(recordingEcho().tool);
  assert.deepEqual(
    agent.tools.map((t) => t.decl.name),
    ["other", "echo"],
    "the name is free again",
  );
});
