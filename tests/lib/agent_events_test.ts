import assert from "node:assert/strict";
import {
  Agent,
  type AgentEvent,
  type Config,
  type PersistentMessage,
  ProviderError,
  type ProviderErrorKind,
  ResultParts,
  type RunErrorKind,
  scriptedProvider,
  SessionStoreError,
  type Tool,
  type ToolContext,
  type ToolUseBlock,
} from "@panto/lib";
import { MemoryStore } from "../support/memory_store.ts";
import { drain, echoTool } from "../support/agent_fixtures.ts";

function config(extra: Partial<Config> = {}): Config {
  return {
    provider: {
      api: "scripted",
      baseUrl: "http://127.0.0.1:9",
      model: "scripted-1",
      reasoning: "off",
    },
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    ...extra,
  };
}

function call(name: string, id = "call_1", input: Record<string, unknown> = {}): ToolUseBlock {
  return { type: "tool_use", id, name, input };
}

/** Reads events until the stream ends; returns them and the error it failed with, if any. */
async function drainSettled(
  stream: AsyncIterable<AgentEvent>,
): Promise<{ events: AgentEvent[]; error: unknown }> {
  const events: AgentEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

function progressTexts(events: AgentEvent[]): string[] {
  return events.flatMap((e) =>
    e.type === "tool_progress" ? e.partial.map((p) => p.type === "text" ? p.text : p.type) : []
  );
}

Deno.test("a run starts with run_start (the user message) and each request with message_start", async () => {
  const provider = scriptedProvider([[call("echo", "call_1", { text: "hi" })], "done"]);
  const agent = new Agent({ config: config(), provider });
  agent.registerTool(echoTool);

  const events = await drain(agent.run({ text: "say hi", metadata: '{"n":1}' }));

  const first = events[0];
  assert.ok(first?.type === "run_start");
  assert.equal(first.message, agent.conversation.messages[0], "the message as added");
  assert.equal(first.message.role, "user");
  assert.equal(first.message.metadata, '{"n":1}');
  const starts = events.flatMap((e, i) => e.type === "message_start" ? [{ i, e }] : []);
  assert.deepEqual(starts.map(({ e }) => e.type === "message_start" && e.request), [1, 2]);
  for (const { i } of starts) assert.equal(events[i + 1]?.type, "block_start");
  assert.equal(events.filter((e) => e.type === "run_start").length, 1);
});

Deno.test("a retried request sends message_start again, with the same request number", async () => {
  const busy = new ProviderError("overloaded", "busy", { status: 529 });
  const provider = scriptedProvider([busy, "fine"]);
  const agent = new Agent({ config: config(), provider });

  const events = await drain(agent.run("hello"));

  assert.deepEqual(events.map((e) => e.type), [
    "run_start",
    "message_start",
    "provider_retry",
    "message_start",
    "block_start",
    "content_delta",
    "block_complete",
    "message_complete",
    "run_complete",
  ]);
  const requests = events.flatMap((e) => e.type === "message_start" ? [e.request] : []);
  assert.deepEqual(requests, [1, 1]);
  const retry = events.find((e) => e.type === "provider_retry");
  assert.ok(retry?.type === "provider_retry");
  const kind: ProviderErrorKind = retry.error.kind;
  assert.equal(kind, "overloaded");
});

Deno.test("a tool's onUpdate emits tool_progress between its start and completion; late updates are dropped", async () => {
  let late: ToolContext["onUpdate"];
  const tool: Tool = {
    decl: { name: "build", description: "Build", inputSchema: { type: "object" } },
    execute: async (_args, ctx) => {
      ctx.onUpdate?.("compiling");
      await Promise.resolve();
      ctx.onUpdate?.([{ type: "text", text: "linking" }]);
      late = ctx.onUpdate;
      return ResultParts.fromText("built");
    },
  };
  const provider = scriptedProvider([[call("build")], "ok"]);
  const agent = new Agent({ config: config(), provider });
  agent.registerTool(tool);
  const stream = agent.run("build it");
  const events: AgentEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    if (event.type === "tool_dispatch_complete") late?.("after the tool returned");
  }

  assert.deepEqual(progressTexts(events), ["compiling", "linking"]);
  const types = events.map((e) => e.type);
  assert.ok(types.indexOf("tool_dispatch_start") < types.indexOf("tool_progress"));
  assert.ok(types.lastIndexOf("tool_progress") < types.indexOf("tool_dispatch_complete"));
  const progress = events.find((e) => e.type === "tool_progress");
  assert.ok(progress?.type === "tool_progress");
  assert.equal(progress.call.id, "call_1");
  assert.equal(progress.call.name, "build");
  // Progress is for people: the model gets only the final result.
  assert.doesNotMatch(JSON.stringify(provider.requests[1]?.messages), /compiling|linking/);
});

Deno.test("tool progress reported after an abort is dropped", async () => {
  let report: ToolContext["onUpdate"];
  const started = Promise.withResolvers<void>();
  const tool: Tool = {
    decl: { name: "wait", description: "Wait", inputSchema: { type: "object" } },
    execute: (_args, ctx) => {
      report = ctx.onUpdate;
      ctx.onUpdate?.("waiting");
      started.resolve();
      return new Promise(() => {}); // ignores its signal: the agent must not wait for it
    },
  };
  const provider = scriptedProvider([[call("wait")]]);
  const agent = new Agent({ config: config(), provider });
  agent.registerTool(tool);
  const stream = agent.run("wait");
  const events: AgentEvent[] = [];
  const reading = (async () => {
    for await (const event of stream) events.push(event);
  })();
  await started.promise;
  stream.cancel();
  report?.("still waiting");
  await reading;

  assert.deepEqual(progressTexts(events), ["waiting"]);
  assert.equal(stream.state, "aborted");
});

Deno.test("a failed run ends with run_error (kind, message, status), then the stream throws", async () => {
  const failure = new ProviderError("auth", "api.example.com answered 401: bad key", {
    status: 401,
  });
  const agent = new Agent({ config: config(), provider: scriptedProvider([failure]) });
  const stream = agent.run("hello");

  const { events, error } = await drainSettled(stream);

  assert.equal(error, failure);
  assert.equal(stream.state, "failed");
  assert.deepEqual(events.at(-1), {
    type: "run_error",
    error: { kind: "auth", message: "api.example.com answered 401: bad key", status: 401 },
  });
  assert.ok(!events.some((e) => e.type === "run_complete"));
});

Deno.test("run_error kinds beyond the provider's: tool_source, image, session, other", async (t) => {
  async function kindOf(agent: Agent, message: Parameters<Agent["run"]>[0] = "hi") {
    const { events, error } = await drainSettled(agent.run(message));
    assert.ok(error instanceof Error, "the stream throws");
    const last = events.at(-1);
    assert.ok(last?.type === "run_error");
    assert.equal(last.error.message, error.message);
    assert.equal(last.error.status, undefined);
    const kind: RunErrorKind = last.error.kind;
    return { kind, events };
  }

  await t.step("a tool source that cannot list its tools", async () => {
    const agent = new Agent({ config: config(), provider: scriptedProvider(["x"]) });
    agent.registerToolSource({
      name: "mcp",
      tools: () => Promise.reject(new Error("connection refused")),
    });
    const { kind, events } = await kindOf(agent);
    assert.equal(kind, "tool_source");
    assert.equal(events[0]?.type, "run_start", "the message was added before the sources");
  });

  await t.step("an unreadable user image: no run_start, only run_error", async () => {
    const agent = new Agent({ config: config(), provider: scriptedProvider(["x"]) });
    const image = { type: "image" as const, mediaType: "image/png", data: btoa("<html>") };
    const { kind, events } = await kindOf(agent, { text: "look", images: [image] });
    assert.equal(kind, "image");
    assert.deepEqual(events.map((e) => e.type), ["run_error"]);
  });

  await t.step("a store that cannot save", async () => {
    class FailingStore extends MemoryStore {
      override appendMessages(): Promise<void> {
        return Promise.reject(new SessionStoreError("Could not save the session: disk full"));
      }
    }
    const agent = new Agent({
      config: config(),
      provider: scriptedProvider(["x"]),
      session: new FailingStore().create(),
    });
    assert.equal((await kindOf(agent)).kind, "session");
  });

  await t.step("anything else", async () => {
    const agent = new Agent({ config: config(), provider: scriptedProvider([]) });
    assert.equal((await kindOf(agent)).kind, "other");
  });
});

Deno.test("steering messages join the conversation after a tool batch and reach the next request", async () => {
  const provider = scriptedProvider([[call("echo", "call_1", { text: "hi" })], "ok, shorter"]);
  const store = new MemoryStore();
  const agent = new Agent({ config: config(), provider, session: store.create() });
  agent.registerTool(echoTool);
  const queue = [{ text: "keep it short", metadata: '{"steer":true}' }];
  let calls = 0;
  const steering = () => {
    calls++;
    return queue.splice(0);
  };

  const events = await drain(agent.run("say hi", { steering }));

  assert.equal(calls, 1, "called after the one tool batch, not when the run ends");
  const types = events.map((e) => e.type);
  const applied = events.find((e) => e.type === "steer_applied");
  assert.ok(applied?.type === "steer_applied");
  assert.ok(types.indexOf("tool_dispatch_complete") < types.indexOf("steer_applied"));
  assert.ok(types.indexOf("steer_applied") < types.lastIndexOf("message_start"));
  assert.equal(applied.message.metadata, '{"steer":true}');

  const second = provider.requests[1]!.messages;
  assert.deepEqual(second.slice(-2).map((m) => m.role), ["tool", "user"]);
  assert.deepEqual(second.at(-1)?.content, [{ type: "text", text: "keep it short" }]);
  assert.deepEqual(agent.conversation.messages.map((m) => m.role), [
    "user",
    "assistant",
    "tool",
    "user",
    "assistant",
  ]);
  const stored: PersistentMessage[] = store.stored(agent.sessionId);
  assert.deepEqual(stored.map((p) => p.message.role), [
    "user",
    "assistant",
    "tool",
    "user",
    "assistant",
  ]);
  assert.equal(stored[3]?.message.metadata, '{"steer":true}');
});

Deno.test("steering is not consulted when the run ends at the request limit or on abort", async (t) => {
  await t.step("request limit", async () => {
    const provider = scriptedProvider([[call("echo", "call_1", { text: "hi" })]]);
    const agent = new Agent({ config: config({ maxTurns: 1 }), provider });
    agent.registerTool(echoTool);
    let calls = 0;
    const events = await drain(agent.run("go", { steering: () => (calls++, [{ text: "more" }]) }));
    assert.equal(calls, 0);
    const last = events.at(-1);
    assert.ok(last?.type === "run_complete" && last.turnLimitReached);
  });

  await t.step("abort during the tool batch", async () => {
    const controller = new AbortController();
    const tool: Tool = {
      decl: { name: "stop", description: "Stop", inputSchema: { type: "object" } },
      execute: () => {
        controller.abort();
        return ResultParts.fromText("stopped");
      },
    };
    const agent = new Agent({ config: config(), provider: scriptedProvider([[call("stop")]]) });
    agent.registerTool(tool);
    let calls = 0;
    const stream = agent.run("go", {
      signal: controller.signal,
      steering: () => (calls++, [{ text: "more" }]),
    });
    await drain(stream);
    assert.equal(calls, 0);
    assert.equal(stream.state, "aborted");
  });
});

Deno.test("a steering callback that throws fails the run with kind other", async () => {
  const provider = scriptedProvider([[call("echo", "call_1", { text: "hi" })], "unused"]);
  const agent = new Agent({ config: config(), provider });
  agent.registerTool(echoTool);
  const { events, error } = await drainSettled(
    agent.run("go", {
      steering: () => {
        throw new Error("queue broke");
      },
    }),
  );
  assert.match(String(error), /queue broke/);
  assert.deepEqual(events.at(-1), {
    type: "run_error",
    error: { kind: "other", message: "queue broke" },
  });
  assert.equal(provider.requests.length, 1);
});

Deno.test("ToolDecl.name: the documented limits are the validated ones", async () => {
  const tool = (name: string): Tool => ({
    decl: { name, description: "x", inputSchema: { type: "object" } },
    execute: () => ResultParts.fromText(`ran ${name}`),
  });
  const agent = new Agent({ config: config(), provider: scriptedProvider([]) });
  agent.registerTool(tool("a".repeat(128)));
  assert.throws(() => agent.registerTool(tool("b".repeat(129))), /1-128 characters/);
  assert.throws(() => agent.registerTool(tool("has space")), /without spaces/);
  assert.throws(() => agent.registerTool(tool("")), /1-128 characters/);

  // 1–64 characters of [A-Za-z0-9_-] go out unchanged; others are encoded and decoded back.
  const provider = scriptedProvider([[call("mcp_read")], "ok"]);
  const wire = new Agent({ config: config(), provider });
  wire.registerTool(tool("c".repeat(64)));
  wire.registerTool(tool("d".repeat(65)));
  wire.registerTool(tool("mcp.read"));
  const events = await drain(wire.run("read"));
  const sent = provider.requests[0]!.tools.map((d) => d.name);
  assert.equal(sent[0], "c".repeat(64));
  assert.match(sent[1]!, /^[A-Za-z0-9_-]{1,64}$/);
  assert.equal(sent[2], "mcp_read");
  const done = events.find((e) => e.type === "tool_dispatch_complete");
  assert.ok(done?.type === "tool_dispatch_complete");
  assert.equal(done.call.name, "mcp.read");
  assert.deepEqual(done.result, [{ type: "text", text: "ran mcp.read" }]);
});

Deno.test("event error kinds are closed unions, not strings", () => {
  const kinds: Record<RunErrorKind, true> = {
    auth: true,
    rate_limit: true,
    overloaded: true,
    server: true,
    context_overflow: true,
    invalid_request: true,
    network: true,
    permission: true,
    timeout: true,
    stream: true,
    session: true,
    image: true,
    tool_source: true,
    other: true,
  };
  // @ts-expect-error an unknown kind does not type-check
  const bogus: ProviderErrorKind = "bogus";
  assert.equal(Object.keys(kinds).length, 14);
  assert.equal(bogus, "bogus");
});
