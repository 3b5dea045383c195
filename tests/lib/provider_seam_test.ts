import assert from "node:assert/strict";
import {
  Agent,
  type AgentEvent,
  type AssistantResult,
  type Config,
  type ContentBlock,
  emptyUsage,
  ProviderError,
  type ProviderStreamEvent,
  registerProvider,
  scriptedProvider,
  type StreamMessage,
  type ToolUseBlock,
} from "@panto/lib";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import { streamForApi } from "../../lib/providers/registry.ts";
import { MemoryStore } from "../support/memory_store.ts";
import { drain, echoTool } from "../support/agent_fixtures.ts";

/** A config whose api has no provider behind it: only an injected one can answer. */
function configFor(api: string, extra: Partial<Config> = {}): Config {
  return {
    provider: { api, baseUrl: "http://127.0.0.1:9", model: "scripted-1", reasoning: "off" },
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    ...extra,
  };
}

const callEcho: ToolUseBlock = {
  type: "tool_use",
  id: "call_1",
  name: "echo",
  input: { text: "hi" },
};

Deno.test("an injected provider runs a two-step tool turn offline, with events and persistence", async () => {
  const provider = scriptedProvider([[callEcho], [{ type: "text", text: "All done." }]]);
  const store = new MemoryStore();
  // No provider is registered under this name: the registry is not consulted.
  const agent = new Agent({ config: configFor("unregistered"), session: store.create(), provider });
  agent.registerTool(echoTool);
  await agent.setSystemPrompt("Be brief.");

  const events = await drain(agent.run("say hi"));

  assert.deepEqual(events.map((e) => e.type), [
    "run_start",
    "message_start",
    "block_start",
    "content_delta",
    "block_complete",
    "message_complete",
    "tool_dispatch_start",
    "tool_dispatch_complete",
    "message_start",
    "block_start",
    "content_delta",
    "block_complete",
    "message_complete",
    "run_complete",
  ]);
  const last = events.at(-1);
  assert.ok(last?.type === "run_complete");
  assert.equal(last.stopReason, "end_turn");
  assert.equal(last.requests, 2);
  // The provider got the full request: system prompt, tools, and the tool result on the second call.
  assert.equal(provider.requests[0]?.system, "Be brief.");
  assert.deepEqual(provider.requests[0]?.tools.map((t) => t.name), ["echo"]);
  assert.equal(provider.requests[0]?.config.model, "scripted-1");
  const toolMessage = provider.requests[1]?.messages.at(-1);
  assert.equal(toolMessage?.role, "tool");
  const result = toolMessage?.content[0];
  assert.ok(result?.type === "tool_result");
  assert.deepEqual(result.content, [{ type: "text", text: "echo: hi" }]);

  const stored = store.stored(agent.sessionId);
  assert.deepEqual(stored.map((p) => p.message.role), [
    "system",
    "user",
    "assistant",
    "tool",
    "assistant",
  ]);
  assert.equal(stored[4]?.wire?.apiStyle, "unregistered");
  assert.equal(stored[4]?.message.model, "scripted-1");
});

Deno.test("an injected provider also writes the compaction summary", async () => {
  const provider = scriptedProvider([
    [{ type: "text", text: "first answer" }],
    [{ type: "text", text: "second answer" }],
    [{ type: "text", text: "OLDER" }],
    [{ type: "text", text: "PREFIX" }],
  ]);
  const agent = new Agent({
    config: configFor("unregistered", { compaction: { keepRecentTokens: 1 } }),
    provider,
  });
  await drain(agent.run("one"));
  await drain(agent.run("two"));
  const compaction = await agent.compact();
  assert.equal(compaction?.summary, "OLDER\n\n## Current turn so far\nPREFIX");
  assert.equal(provider.requests.length, 4);
  assert.deepEqual(provider.requests[2]?.tools, []);
});

Deno.test("registerProvider makes a new API name usable through config, also across a session reload", async () => {
  const provider = scriptedProvider([[{ type: "text", text: "from the gateway" }]]);
  const unregister = registerProvider("seam-gateway", provider);
  const dir = await Deno.makeTempDir();
  try {
    const store = new FileSystemJSONLStore({ dir });
    const agent = new Agent({ config: configFor("seam-gateway"), session: store.create() });
    const events = await drain(agent.run("hello"));
    const complete = events.find((e) => e.type === "message_complete");
    assert.ok(complete?.type === "message_complete");
    assert.deepEqual(complete.message.content, [{ type: "text", text: "from the gateway" }]);
    // A stored record naming a registered protocol loads back and lists.
    const loaded = await store.load(agent.sessionId);
    assert.deepEqual(loaded?.messages.at(-1)?.content, complete.message.content);
    const [info] = await store.list();
    assert.equal(info?.wire?.apiStyle, "seam-gateway");
    await store.close();
  } finally {
    unregister();
    await Deno.remove(dir, { recursive: true });
  }
  const after = new Agent({ config: configFor("seam-gateway") });
  await assert.rejects(
    drain(after.run("hello")),
    (error: Error) =>
      error instanceof TypeError && error.message.includes('"seam-gateway"') &&
      error.message.includes("registerProvider"),
  );
});

Deno.test("registerProvider replaces a built-in, and its undo restores the built-in", async () => {
  const provider = scriptedProvider([[{ type: "text", text: "replaced" }]]);
  const builtin = streamForApi("openai-chat");
  const unregister = registerProvider("openai-chat", provider);
  try {
    const agent = new Agent({ config: configFor("openai-chat") });
    await drain(agent.run("hello"));
    assert.deepEqual(agent.conversation.messages.at(-1)?.content, [
      { type: "text", text: "replaced" },
    ]);
  } finally {
    unregister();
  }
  assert.equal(streamForApi("openai-chat"), builtin);
  assert.throws(() => registerProvider(" ", provider), /empty API name/);
});

Deno.test("a custom provider's retryable ProviderError is retried like a built-in's", async () => {
  const provider = scriptedProvider([
    new ProviderError("rate_limit", "slow down", { status: 429 }),
    [{ type: "text", text: "ok now" }],
  ]);
  const agent = new Agent({ config: configFor("unregistered"), provider });
  const events = await drain(agent.run("hello"));
  const retry = events.find((e) => e.type === "provider_retry");
  assert.ok(retry?.type === "provider_retry");
  assert.equal(retry.error.kind, "rate_limit");
  assert.equal(retry.error.status, 429);
  assert.equal(provider.requests.length, 2);
  assert.equal(events.at(-1)?.type, "run_complete");
});

Deno.test("a custom provider's fatal ProviderError fails the run and keeps its partial text", async () => {
  const failure = new ProviderError("auth", "bad key", {
    status: 401,
    partial: { content: [{ type: "text", text: "half an ans" }], usage: emptyUsage() },
  });
  const provider = scriptedProvider([failure]);
  const store = new MemoryStore();
  const agent = new Agent({ config: configFor("unregistered"), session: store.create(), provider });
  await assert.rejects(drain(agent.run("hello")), (error) => error === failure);
  const assistant = store.stored(agent.sessionId).at(-1)?.message;
  assert.equal(assistant?.stopReason, "error");
  assert.equal(assistant?.errorMessage, "bad key");
  assert.deepEqual(assistant?.content, [{ type: "text", text: "half an ans" }]);
});

/** Streams "partial" then waits for the abort, ending as the contract says: returning or throwing. */
function abortable(onAbort: "return" | "throw"): StreamMessage {
  return async function* (request): AsyncGenerator<ProviderStreamEvent[], AssistantResult, void> {
    const block: ContentBlock = { type: "text", text: "partial" };
    yield [
      { type: "block_start", blockIndex: 0, kind: "text" },
      { type: "content_delta", blockIndex: 0, kind: "text", text: "partial" },
    ];
    await new Promise((resolve) => request.signal.addEventListener("abort", resolve));
    if (onAbort === "throw") throw new DOMException("stopped", "AbortError");
    return { content: [block], usage: emptyUsage(), stopReason: "aborted" };
  };
}

for (const onAbort of ["return", "throw"] as const) {
  Deno.test(`aborting a run stops a custom provider that ends by ${onAbort}ing`, async () => {
    const store = new MemoryStore();
    const agent = new Agent({
      config: configFor("unregistered"),
      session: store.create(),
      provider: abortable(onAbort),
    });
    const controller = new AbortController();
    const events: AgentEvent[] = [];
    for await (const event of agent.run("hello", { signal: controller.signal })) {
      events.push(event);
      if (event.type === "content_delta") controller.abort();
    }
    const last = events.at(-1);
    assert.ok(last?.type === "run_complete");
    assert.equal(last.stopReason, "aborted");
    const assistant = store.stored(agent.sessionId).at(-1)?.message;
    assert.equal(assistant?.stopReason, "aborted");
    // Returning keeps the partial answer; a bare abort error carries none.
    const kept = onAbort === "return" ? [{ type: "text", text: "partial" }] : [];
    assert.deepEqual(assistant?.content, kept);
  });
}

Deno.test("scriptedProvider streams the tool arguments and fails clearly when the script runs out", async () => {
  const provider = scriptedProvider([[callEcho]]);
  const agent = new Agent({ config: configFor("unregistered"), provider });
  agent.registerTool(echoTool);
  const events: AgentEvent[] = [];
  await assert.rejects(
    (async () => {
      for await (const event of agent.run("hi")) events.push(event);
    })(),
    /request 2 has no reply \(the script has 1\): add one/,
  );
  const delta = events.find((e) => e.type === "content_delta");
  assert.ok(delta?.type === "content_delta");
  assert.equal(delta.kind, "tool_input");
  assert.deepEqual(JSON.parse(delta.text), { text: "hi" });
  assert.equal(events.filter((e) => e.type === "tool_dispatch_complete").length, 1);
});
