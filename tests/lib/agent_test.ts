import assert from "node:assert/strict";
import {
  Agent,
  type AgentEvent,
  type ApiStyle,
  type Config,
  ProviderError,
  ResultParts,
  type SessionState,
} from "@panto/lib";
import { nextState } from "../../lib/session/session_state.ts";
import { FakeLlmServer } from "../support/fake_llm_server.ts";
import { MemoryStore } from "../support/memory_store.ts";
import {
  drain,
  echoTool,
  fakeServerConfig,
  textTurn,
  toolTurn,
} from "../support/agent_fixtures.ts";

const APIS: ApiStyle[] = ["anthropic-messages", "openai-chat"];
const SECRET = "sk-test-SECRET-agent-0123456789";

function configFor(server: FakeLlmServer, api: ApiStyle, extra: Partial<Config> = {}): Config {
  return fakeServerConfig(server, api, SECRET, extra);
}

/** Runs `fn` once per API with a fresh fake server. */
function forEachApi(
  name: string,
  fn: (server: FakeLlmServer, api: ApiStyle) => Promise<void>,
): void {
  for (const api of APIS) {
    Deno.test(`Agent (${api}): ${name}`, async () => {
      const server = await FakeLlmServer.start();
      try {
        await fn(server, api);
      } finally {
        await server.close();
      }
    });
  }
}

forEachApi(
  "runs a tool, sends the result back and stops on the final answer",
  async (server, api) => {
    server.enqueue(toolTurn({ id: "call_1", name: "echo", input: { text: "hi" } }));
    server.enqueue(textTurn("All done."));
    const store = new MemoryStore();
    const agent = new Agent({ config: configFor(server, api), session: store.create() });
    agent.registerTool(echoTool);
    const stream = agent.run("please echo hi");
    const events = await drain(stream);

    assert.equal(stream.state, "done");
    const types = events.map((e) => e.type);
    assert.ok(types.indexOf("tool_dispatch_start") < types.indexOf("tool_dispatch_complete"));
    const complete = events.find((e) => e.type === "tool_dispatch_complete");
    assert.ok(complete?.type === "tool_dispatch_complete");
    assert.deepEqual(complete.result, [{ type: "text", text: "echo: hi" }]);
    assert.equal(complete.isError, false);
    const last = events.at(-1);
    assert.ok(last?.type === "run_complete");
    assert.equal(last.stopReason, "end_turn");
    assert.equal(last.requests, 2);

    const roles = agent.conversation.messages.map((m) => m.role);
    assert.deepEqual(roles, ["user", "assistant", "tool", "assistant"]);
    assert.equal(server.requests.length, 2);
    const second = JSON.stringify(server.requests[1]!.body);
    assert.match(second, /echo: hi/);
    assert.match(second, /call_1/);

    // Everything was persisted, in order, with wire identity and no key.
    const stored = store.stored(agent.sessionId).map((p) => p.message.role);
    assert.deepEqual(stored, ["user", "assistant", "tool", "assistant"]);
    const everything = JSON.stringify(store.appends);
    assert.ok(!everything.includes(SECRET), "the API key must never reach a store");
    assert.equal(store.stored(agent.sessionId)[1]!.wire?.model, "fake-model");
  },
);

forEachApi("buffers a new session until the first assistant message", async (server, api) => {
  server.enqueue({
    kind: "http_error",
    status: 400,
    body: JSON.stringify({ error: { message: "bad request" } }),
  });
  const store = new MemoryStore();
  const agent = new Agent({ config: configFor(server, api), session: store.create() });
  await assert.rejects(drain(agent.run("hello")), ProviderError);
  // The failed turn is kept as an error message, so the user's prompt is not lost.
  const stored = store.stored(agent.sessionId);
  assert.deepEqual(stored.map((p) => p.message.role), ["user", "assistant"]);
  assert.equal(stored[1]!.message.stopReason, "error");
  assert.match(stored[1]!.message.errorMessage ?? "", /bad request/);
});

forEachApi(
  "runs parallel tools concurrently and returns results in the model's order",
  async (server, api) => {
    server.enqueue(toolTurn(
      { id: "call_slow", name: "wait", input: { ms: 80 } },
      { id: "call_fast", name: "wait", input: { ms: 1 } },
    ));
    server.enqueue(textTurn("ok"));
    const finished: string[] = [];
    const agent = new Agent({ config: configFor(server, api, { parallelTools: true }) });
    agent.registerTool({
      decl: {
        name: "wait",
        description: "Wait",
        inputSchema: { type: "object", properties: { ms: { type: "number" } } },
      },
      execute: async (args, ctx) => {
        await new Promise((r) => setTimeout(r, Number(args.ms)));
        finished.push(ctx.callId);
        return ResultParts.fromText(`waited ${args.ms}`);
      },
    });
    await drain(agent.run("go"));
    assert.deepEqual(
      finished,
      ["call_fast", "call_slow"],
      "the fast call finishes first when run in parallel",
    );
    const toolMessage = agent.conversation.messages[2]!;
    const ids = toolMessage.content.map((b) => b.type === "tool_result" ? b.toolUseId : "");
    assert.deepEqual(ids, ["call_slow", "call_fast"], "results keep the model's order");
  },
);

forEachApi(
  "turns a throwing tool, bad arguments and an unknown tool into error results",
  async (server, api) => {
    server.enqueue(toolTurn(
      { id: "c1", name: "boom", input: {} },
      { id: "c2", name: "echo", input: { text: 42 } },
      { id: "c3", name: "nope", input: {} },
    ));
    server.enqueue(textTurn("recovered"));
    let echoRuns = 0;
    const agent = new Agent({ config: configFor(server, api) });
    agent.registerTool({
      decl: { name: "boom", description: "Fails", inputSchema: { type: "object" } },
      execute: () => {
        throw new Error("disk on fire");
      },
    });
    agent.registerTool({
      ...echoTool,
      execute: (args, ctx) => (echoRuns++, echoTool.execute(args, ctx)),
    });
    const events = await drain(agent.run("try things"));
    const results = events.filter((e) => e.type === "tool_dispatch_complete");
    assert.equal(results.length, 3);
    assert.ok(results.every((r) => r.type === "tool_dispatch_complete" && r.isError));
    const texts = results.map((r) =>
      r.type === "tool_dispatch_complete" && r.result[0]?.type === "text" ? r.result[0].text : ""
    );
    assert.match(texts[0]!, /boom failed: disk on fire/);
    assert.match(texts[1]!, /Invalid arguments for echo: \/text/);
    assert.match(texts[2]!, /"nope" is not available\. Available tools: boom, echo/);
    assert.equal(echoRuns, 0, "a tool is never run with arguments that fail its schema");
    assert.match(JSON.stringify(server.requests[1]!.body), /disk on fire/);
  },
);

forEachApi("stops at the turn limit", async (server, api) => {
  for (let i = 0; i < 3; i++) {
    server.enqueue(toolTurn({ id: `c${i}`, name: "echo", input: { text: "x" } }));
  }
  const agent = new Agent({ config: configFor(server, api, { maxTurns: 2 }) });
  agent.registerTool(echoTool);
  const events = await drain(agent.run("loop forever"));
  const last = events.at(-1);
  assert.ok(last?.type === "run_complete");
  assert.equal(last.turnLimitReached, true);
  assert.equal(server.requests.length, 2);
  // The results say the run ended there: the turn is over, the session idle, not held.
  const messages = agent.conversation.messages;
  assert.equal(messages.at(-1)?.stopReason, "max_turns");
  const state = messages.reduce<SessionState | undefined>(
    (s, m, i) => nextState(s, m, i),
    undefined,
  );
  assert.deepEqual(state, { status: "idle" });
});

forEachApi(
  "retries 429 (honouring retry-after), 500, 529 and a cut connection",
  async (server, api) => {
    server.enqueue({
      kind: "http_error",
      status: 429,
      headers: { "retry-after": "0" },
      body: "{}",
    });
    server.enqueue({ kind: "http_error", status: 500, body: "{}" });
    server.enqueue({
      kind: "http_error",
      status: 529,
      body: JSON.stringify({
        type: "error",
        error: { type: "overloaded_error", message: "Overloaded" },
      }),
    });
    server.enqueue({
      kind: "cut",
      afterBytes: 700,
      source: textTurn("this answer will be cut off halfway through"),
    });
    server.enqueue(textTurn("finally"));
    const agent = new Agent({
      config: configFor(server, api, {
        retry: { baseDelayMs: 5, maxDelayMs: 1000, maxRetries: 5 },
      }),
    });
    const events = await drain(agent.run("hi"));
    const retries = events.filter((e) => e.type === "provider_retry");
    assert.deepEqual(retries.map((r) => r.type === "provider_retry" && r.error.kind), [
      "rate_limit",
      "server",
      "overloaded",
      "network",
    ]);
    const first = retries[0];
    assert.ok(first?.type === "provider_retry");
    assert.equal(first.delayMs, 0, "retry-after: 0 is honoured");
    const cut = retries[3];
    assert.ok(
      cut?.type === "provider_retry" && cut.discardedPartial,
      "the cut attempt had streamed blocks",
    );
    const final = agent.conversation.messages.at(-1)!;
    assert.deepEqual(final.content, [{ type: "text", text: "finally" }]);
    assert.ok(!JSON.stringify(events).includes(SECRET));
  },
);

forEachApi("fails after a non-retryable error and on a malformed chunk", async (server, api) => {
  server.enqueue({ kind: "malformed" });
  const agent = new Agent({ config: configFor(server, api) });
  const stream = agent.run("hi");
  const error = await drain(stream).then(() => null, (e) => e);
  assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${error}`);
  assert.equal(stream.state, "failed");
  assert.ok(!String(error.stack).includes(SECRET));
});

forEachApi("gives up after an idle timeout when retries are exhausted", async (server, api) => {
  server.enqueue({ kind: "stall", afterBytes: 50, source: textTurn("never finishes") });
  const agent = new Agent({
    config: configFor(server, api, { idleTimeoutMs: 200, retry: { maxRetries: 0 } }),
  });
  // The stream never finishes: a timeout error at all shows the idle timeout ended it.
  const error = await drain(agent.run("hi")).then(() => null, (e) => e);
  assert.ok(error instanceof ProviderError);
  assert.equal(error.kind, "timeout");
});

forEachApi("reports a context overflow as its own kind", async (server, api) => {
  const overflow = api === "anthropic-messages"
    ? {
      type: "error",
      error: {
        type: "invalid_request_error",
        message: "prompt is too long: 208421 tokens > 200000 maximum",
      },
    }
    : {
      error: {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
        type: "invalid_request_error",
        code: "context_length_exceeded",
      },
    };
  server.enqueue({ kind: "http_error", status: 400, body: JSON.stringify(overflow) });
  const agent = new Agent({ config: configFor(server, api, { compaction: { enabled: false } }) });
  const error = await drain(agent.run("hi")).then(() => null, (e) => e);
  assert.ok(error instanceof ProviderError);
  assert.equal(error.kind, "context_overflow");
});

forEachApi(
  "aborting while streaming keeps and persists the partial answer",
  async (server, api) => {
    server.enqueue({
      kind: "slow",
      delayMs: 40,
      source: textTurn("one two three four five six seven eight nine ten"),
    });
    const store = new MemoryStore();
    const agent = new Agent({ config: configFor(server, api), session: store.create() });
    const stream = agent.run("count");
    const events: AgentEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === "content_delta") stream.cancel();
    }
    assert.equal(stream.state, "aborted");
    const message = agent.conversation.messages.at(-1)!;
    assert.equal(message.stopReason, "aborted");
    const text = message.content[0];
    assert.ok(text?.type === "text" && text.text.length > 0, "partial text is kept");
    assert.ok(!text.text.includes("ten"));
    const stored = store.stored(agent.sessionId);
    assert.equal(stored.at(-1)?.message.stopReason, "aborted");
    const last = events.at(-1);
    assert.ok(last?.type === "run_complete" && last.stopReason === "aborted");
  },
);

forEachApi("aborting during a tool stops it and records an error result", async (server, api) => {
  server.enqueue(
    toolTurn({ id: "c1", name: "sleep", input: {} }, { id: "c2", name: "sleep", input: {} }),
  );
  const controller = new AbortController();
  let started = 0;
  const agent = new Agent({ config: configFor(server, api) });
  agent.registerTool({
    decl: { name: "sleep", description: "Sleeps until aborted", inputSchema: { type: "object" } },
    execute: (_args, { signal }) =>
      new Promise((_resolve, reject) => {
        started++;
        controller.abort();
        signal.addEventListener("abort", () => reject(new Error("interrupted")), { once: true });
      }),
  });
  const stream = agent.run("sleep", { signal: controller.signal });
  await drain(stream);
  assert.equal(stream.state, "aborted");
  assert.equal(started, 1, "the second call is not started after the abort");
  const tool = agent.conversation.messages.at(-1)!;
  assert.equal(tool.stopReason, "aborted", "the turn is closed: its results say it was aborted");
  const results = tool.content;
  assert.equal(results.length, 2, "every call gets a result so the conversation stays valid");
  assert.ok(results.every((b) => b.type === "tool_result" && b.isError));
  assert.equal(server.requests.length, 1, "no request is sent after the abort");
});

forEachApi("a tool that stops soon after an abort keeps its own result", async (server, api) => {
  server.enqueue(toolTurn({ id: "c1", name: "count", input: {} }));
  const controller = new AbortController();
  const agent = new Agent({ config: configFor(server, api) });
  agent.registerTool({
    decl: { name: "count", description: "Counts until aborted", inputSchema: { type: "object" } },
    execute: (_args, { signal }) =>
      new Promise((resolve) => {
        signal.addEventListener("abort", () => {
          setTimeout(
            () => resolve({ parts: [{ type: "text", text: "1 2 3" }], isError: true }),
            50,
          );
        }, { once: true });
        controller.abort();
      }),
  });
  const stream = agent.run("count", { signal: controller.signal });
  await drain(stream);
  assert.equal(stream.state, "aborted");
  const result = agent.conversation.messages.at(-1)!.content[0];
  assert.ok(result?.type === "tool_result");
  assert.deepEqual(result.content, [{ type: "text", text: "1 2 3" }]);
});

Deno.test("Agent: a tool source that fails to list is retried with the sources after it", async () => {
  const server = await FakeLlmServer.start();
  try {
    server.enqueue(toolTurn({ id: "c1", name: "late", input: { text: "x" } }));
    server.enqueue(textTurn("second"));
    let down = true;
    const agent = new Agent({ config: configFor(server, "openai-chat") });
    agent.registerToolSource({
      name: "flaky",
      tools: () => {
        if (down) throw new Error("server not up yet");
        return [];
      },
    });
    agent.registerToolSource({
      name: "later",
      tools: () => [{ ...echoTool, decl: { ...echoTool.decl, name: "late" } }],
    });
    await assert.rejects(drain(agent.run("one")), /Tool source "flaky" failed to list its tools/);
    assert.equal(server.requests.length, 0, "the run stops before asking the model");
    down = false;
    const events = await drain(agent.run("two"));
    const result = events.find((e) => e.type === "tool_dispatch_complete");
    assert.ok(result?.type === "tool_dispatch_complete");
    assert.equal(result.isError, false, "the source registered after the failing one is loaded");
    assert.match(JSON.stringify(server.requests[0]!.body), /"late"/);
  } finally {
    await server.close();
  }
});

Deno.test("Agent: a tool whose schema cannot be applied gives an error result, not a failed run", async () => {
  const server = await FakeLlmServer.start();
  try {
    server.enqueue(toolTurn({ id: "c1", name: "broken", input: { a: 1 } }));
    server.enqueue(textTurn("noted"));
    let runs = 0;
    const agent = new Agent({ config: configFor(server, "openai-chat") });
    agent.registerTool({
      decl: {
        name: "broken",
        description: "Refers to a definition it lacks",
        inputSchema: { type: "object", properties: { a: { $ref: "#/$defs/missing" } } },
      },
      execute: () => (runs++, ResultParts.fromText("ran")),
    });
    const stream = agent.run("call it");
    const events = await drain(stream);
    assert.equal(stream.state, "done");
    const result = events.find((e) => e.type === "tool_dispatch_complete");
    assert.ok(result?.type === "tool_dispatch_complete" && result.isError);
    assert.match(JSON.stringify(result.result), /broken was not run: its input schema/);
    assert.equal(runs, 0);
  } finally {
    await server.close();
  }
});

Deno.test("Agent: the configuration cannot change during a run or a compaction", async () => {
  const server = await FakeLlmServer.start();
  try {
    server.enqueue({ ...textTurn("slow answer"), headerDelayMs: 100 });
    const config = configFor(server, "openai-chat");
    const agent = new Agent({ config });
    const stream = agent.run("hi");
    assert.throws(() => agent.setConfig(config), /while a run is in progress/);
    await drain(stream);
    agent.setConfig(config);

    server.enqueue({ ...textTurn("summary"), headerDelayMs: 100 });
    agent.conversation.addUserMessage("more");
    agent.conversation.addAssistantMessage([{ type: "text", text: "sure" }]);
    const compaction = agent.compact();
    assert.throws(() => agent.run("now"), /while a compaction is in progress/);
    await assert.rejects(agent.setSystemPrompt("x"), /while a compaction is in progress/);
    assert.ok(await compaction);
    server.enqueue(textTurn("idle again"));
    await drain(agent.run("now"));
  } finally {
    await server.close();
  }
});
