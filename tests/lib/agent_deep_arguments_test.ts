// A tool call whose arguments nest 20,000 deep once poisoned its session:
// every later request overflowed the stack writing its JSON and was retried
// as a network error. The depth is bounded where the arguments are parsed:
// the model gets an error result, the run goes on, the next request is
// well formed and the session loads again.
import assert from "node:assert/strict";
import {
  Agent,
  type ApiStyle,
  Conversation,
  type PersistentMessage,
  ProviderError,
  SessionStoreError,
} from "@panto/lib";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import { nestsDeeperThan, parseToolArguments } from "../../lib/providers/tool_arguments.ts";
import { FakeLlmServer } from "../support/fake_llm_server.ts";
import { drain, echoTool, fakeServerConfig, textTurn } from "../support/agent_fixtures.ts";

const DEPTH = 20_000;
const DEEP_ARGUMENTS = `{"text":${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}}`;

/** A reply calling `echo` with {@linkcode DEEP_ARGUMENTS}, as each protocol streams it. */
function deepCall(api: ApiStyle): string {
  const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
  if (api === "openai-chat") {
    const chunk = (delta: unknown, finish: string | null) =>
      data({ id: "c1", choices: [{ index: 0, delta, finish_reason: finish }] });
    const call = { index: 0, id: "call_deep", type: "function", function: { name: "echo" } };
    return chunk({
      role: "assistant",
      tool_calls: [{ ...call, function: { name: "echo", arguments: "" } }],
    }, null) +
      // The arguments in two fragments, as a server streams them.
      chunk(
        { tool_calls: [{ index: 0, function: { arguments: DEEP_ARGUMENTS.slice(0, 9000) } }] },
        null,
      ) +
      chunk(
        { tool_calls: [{ index: 0, function: { arguments: DEEP_ARGUMENTS.slice(9000) } }] },
        null,
      ) +
      chunk({}, "tool_calls") + "data: [DONE]\n\n";
  }
  const event = (type: string, value: Record<string, unknown>) =>
    `event: ${type}\n${data({ type, ...value })}`;
  return event("message_start", {
    message: {
      id: "msg_deep",
      type: "message",
      role: "assistant",
      model: "fake-model",
      content: [],
      stop_reason: null,
      usage: { input_tokens: 5, output_tokens: 1 },
    },
  }) +
    event("content_block_start", {
      index: 0,
      content_block: { type: "tool_use", id: "call_deep", name: "echo", input: {} },
    }) +
    event("content_block_delta", {
      index: 0,
      delta: { type: "input_json_delta", partial_json: DEEP_ARGUMENTS.slice(0, 9000) },
    }) +
    event("content_block_delta", {
      index: 0,
      delta: { type: "input_json_delta", partial_json: DEEP_ARGUMENTS.slice(9000) },
    }) +
    event("content_block_stop", { index: 0 }) +
    event("message_delta", { delta: { stop_reason: "tool_use" }, usage: { output_tokens: 9 } }) +
    event("message_stop", {});
}

for (const api of ["anthropic-messages", "openai-chat"] as const) {
  Deno.test(`Agent (${api}): tool arguments nested 20,000 deep get an error result; the session stays usable`, async () => {
    const server = await FakeLlmServer.start();
    const dir = await Deno.makeTempDir({ prefix: "panto-deep-" });
    const store = new FileSystemJSONLStore({ dir });
    try {
      server.enqueue({ kind: "sse", body: deepCall(api) });
      server.enqueue(textTurn("Sorry, flatter then."));
      server.enqueue(textTurn("Still here."));
      const session = store.create();
      const agent = new Agent({ config: fakeServerConfig(server, api, "k"), session });
      agent.registerTool(echoTool);
      const events = await drain(agent.run("call echo"));

      assert.ok(!events.some((event) => event.type === "provider_retry"), "nothing is retried");
      const done = events.find((event) => event.type === "tool_dispatch_complete");
      assert.ok(done?.type === "tool_dispatch_complete");
      assert.equal(done.isError, true);
      assert.match(
        JSON.stringify(done.result),
        /arguments for echo are nested deeper than 100 levels .*Send the call again/,
      );
      assert.equal(events.at(-1)?.type, "run_complete");

      // The next request is well formed: the call goes back with no arguments, then its error.
      assert.equal(server.requests.length, 2);
      const sent = JSON.stringify(server.requests[1]!.body);
      assert.ok(sent.length < 10_000, `the deep value is not sent again (${sent.length} bytes)`);
      assert.match(sent, /nested deeper than 100 levels/);
      const call = agent.conversation.messages[1]?.content[0];
      assert.ok(call?.type === "tool_use");
      assert.deepEqual(call.input, {});
      assert.equal(call.invalidInput, DEEP_ARGUMENTS, "what the model sent is kept, as text");

      // The session loads again, and a resumed agent goes on.
      const reader = new FileSystemJSONLStore({ dir });
      try {
        const resumed = await reader.resolve(session.id);
        const conversation = await resumed!.load();
        assert.equal(conversation.messages.length, 4);
        const again = new Agent({
          config: fakeServerConfig(server, api, "k"),
          session: resumed!,
          conversation,
        });
        again.registerTool(echoTool);
        const more = await drain(again.run("and now?"));
        assert.equal(more.at(-1)?.type, "run_complete");
        assert.equal(server.requests.length, 3);
      } finally {
        await reader.close();
      }
    } finally {
      await store.close();
      await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("a conversation holding a value too deep to send fails at once, as an invalid request", async () => {
  const server = await FakeLlmServer.start();
  try {
    let deep: unknown = "bottom";
    for (let i = 0; i < DEPTH; i++) deep = [deep];
    const conversation = new Conversation([
      {
        role: "user",
        content: [{ type: "text", text: "go" }],
        timestamp: "2026-01-01T00:00:00.000Z",
      },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "c1", name: "echo", input: { text: deep } }],
        timestamp: "2026-01-01T00:00:01.000Z",
        stopReason: "tool_use",
      },
      {
        role: "tool",
        content: [{
          type: "tool_result",
          toolUseId: "c1",
          toolName: "echo",
          content: [{ type: "text", text: "ok" }],
          isError: false,
        }],
        timestamp: "2026-01-01T00:00:02.000Z",
      },
    ]);
    const agent = new Agent({
      config: fakeServerConfig(server, "anthropic-messages", "k"),
      conversation,
    });
    const events: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const event of agent.continue()) events.push(event.type);
      })(),
      (error) =>
        error instanceof ProviderError && error.kind === "invalid_request" && !error.retryable &&
        /could not be written as JSON .*nested too deeply/.test(error.message),
    );
    assert.ok(!events.includes("provider_retry"), "not retried as a network error");
    assert.equal(server.requests.length, 0, "nothing was sent");
  } finally {
    await server.close();
  }
});

Deno.test("a store refuses a message nested deeper than it can read back, and writes nothing of its batch", async () => {
  const dir = await Deno.makeTempDir({ prefix: "panto-deep-store-" });
  const store = new FileSystemJSONLStore({ dir });
  try {
    const session = store.create();
    const entry = (message: PersistentMessage["message"]): PersistentMessage => ({
      message,
      conversation: [],
      toolsAvailable: [],
    });
    await session.append([
      entry({
        role: "user",
        content: [{ type: "text", text: "hi" }],
        timestamp: "2026-01-01T00:00:00.000Z",
      }),
      entry({
        role: "assistant",
        content: [{ type: "text", text: "yo" }],
        timestamp: "2026-01-01T00:00:01.000Z",
      }),
    ]);
    let deep: unknown = 1;
    for (let i = 0; i < 5000; i++) deep = { deeper: deep };
    await assert.rejects(
      session.append([
        entry({
          role: "user",
          content: [{ type: "text", text: "again" }],
          timestamp: "2026-01-01T00:00:02.000Z",
        }),
        entry({
          role: "assistant",
          content: [{ type: "tool_use", id: "c", name: "echo", input: { deep } }],
          timestamp: "2026-01-01T00:00:03.000Z",
        }),
      ]),
      (error) =>
        error instanceof SessionStoreError && error.message.includes(dir) &&
        /assistant message of 2026-01-01T00:00:03.000Z nests objects and arrays deeper than 1000/
          .test(error.message),
    );
    assert.equal(
      (await store.load(session.id))?.messages.length,
      2,
      "nothing of the batch was written",
    );
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("nesting is measured on the text, brackets in strings aside", () => {
  assert.equal(nestsDeeperThan(`{"a":"${"[".repeat(500)}"}`, 100), false);
  assert.equal(nestsDeeperThan(`{"a":"\\"${"[".repeat(500)}"}`, 100), false, "an escaped quote");
  assert.equal(nestsDeeperThan(`${"[".repeat(101)}`, 100), true, "cut off, still counted");
  assert.deepEqual(
    parseToolArguments(`{"a":${"[".repeat(99)}${"]".repeat(99)}}`)?.a !== undefined,
    true,
  );
  assert.equal(parseToolArguments(`{"a":${"[".repeat(100)}${"]".repeat(100)}}`), undefined);
});
