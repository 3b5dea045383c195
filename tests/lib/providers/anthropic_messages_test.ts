/**
 * `streamAnthropicMessages` end to end over HTTP against the fake LLM server
 * on loopback: the request it sends, a text turn, a tool turn and its
 * follow-up, an abort mid-stream, and failures with their partial message.
 */
import assert from "node:assert/strict";
import type { ContentBlock } from "../../../lib/content.ts";
import { ProviderError } from "../../../lib/errors.ts";
import type { Message } from "../../../lib/message.ts";
import { streamAnthropicMessages } from "../../../lib/providers/anthropic_messages.ts";
import { buildAnthropicRequest } from "../../../lib/providers/anthropic_request.ts";
import type { ProviderRequest } from "../../../lib/providers/provider.ts";
import type { ToolDecl } from "../../../lib/tool.ts";
import {
  type FakeLlmServer,
  type FakeLlmServerOptions,
  overloadedReply,
  withFakeServer,
} from "../../support/fake_llm_server.ts";
import {
  abortOnceTextStreams,
  assertAbortedPrefix,
  type DrainedStream,
  drainProviderStream,
} from "../../support/provider_stream.ts";

const PELICAN_TOOL: ToolDecl = {
  name: "pelican_name_generator",
  description: "Invents a pelican name",
  inputSchema: { type: "object", properties: {} },
};

function message(role: Message["role"], content: ContentBlock[]): Message {
  return { role, content, timestamp: new Date().toISOString() };
}

function providerRequest(
  server: FakeLlmServer,
  messages: Message[],
  signal: AbortSignal = new AbortController().signal,
): ProviderRequest {
  return {
    config: {
      api: "anthropic-messages",
      baseUrl: server.anthropicBaseUrl,
      model: "claude-haiku-4-5-20251001",
      reasoning: "off",
      apiKey: "test-key",
    },
    system: "Be brief.",
    messages,
    tools: [PELICAN_TOOL],
    signal,
    idleTimeoutMs: 5000,
  };
}

function collect(request: ProviderRequest): Promise<DrainedStream> {
  return drainProviderStream(streamAnthropicMessages(request));
}

/** Runs with a fresh server; by default bodies go out in 7-byte chunks (lines and UTF-8 split). */
function withServer(
  run: (server: FakeLlmServer) => Promise<void>,
  options: FakeLlmServerOptions = { chunkSize: 7 },
): Promise<void> {
  return withFakeServer(run, options);
}

Deno.test("streamAnthropicMessages: a text turn over HTTP sends the built request and assembles the reply", async () => {
  await withServer(async (server) => {
    server.enqueue({ kind: "fixture", path: "anthropic/text-hello.sse" });
    const request = providerRequest(server, [
      message("user", [{ type: "text", text: "Say just hello" }]),
    ]);
    const { events, result } = await collect(request);
    assert.deepEqual(result.content, [{ type: "text", text: "Hello" }]);
    assert.equal(result.stopReason, "end_turn");
    assert.equal(result.usage.inputTokens, 10);
    assert.equal(result.usage.outputTokens, 4);
    assert.deepEqual(events.map((event) => event.type).at(-1), "block_complete");

    const [received] = server.requests;
    assert.equal(received?.path, "/v1/messages");
    assert.equal(received.headers["x-api-key"], "test-key");
    assert.equal(received.headers["anthropic-version"], "2023-06-01");
    assert.deepEqual(
      received.body,
      JSON.parse(JSON.stringify(buildAnthropicRequest(request).body)),
    );
  });
});

Deno.test("streamAnthropicMessages: a tool turn streams the calls, and the follow-up request carries their results", async () => {
  await withServer(async (server) => {
    server.enqueue(
      { kind: "fixture", path: "anthropic/tool-use-parallel-no-args.sse" },
      { kind: "fixture", path: "anthropic/text-after-tool-results.sse" },
    );
    const conversation = [message("user", [{ type: "text", text: "Two names for a pet pelican" }])];
    const first = await collect(providerRequest(server, conversation));
    assert.equal(first.result.stopReason, "tool_use");
    const starts = first.events.filter((event) => event.type === "block_start");
    assert.deepEqual(starts.map((event) => event.toolUse?.id), [
      "toolu_01LtHJmixrs9NcWQkK8hu8hj",
      "toolu_01N8a4jWyf116qKTMqKKmjyt",
    ]);

    const names = ["Charles", "Sammy"];
    conversation.push(
      message("assistant", first.result.content),
      message(
        "tool",
        first.result.content.map((block, index): ContentBlock => {
          assert.ok(block.type === "tool_use");
          return {
            type: "tool_result",
            toolUseId: block.id,
            toolName: block.name,
            content: [{ type: "text", text: names[index] ?? "" }],
            isError: false,
          };
        }),
      ),
    );
    const second = await collect(providerRequest(server, conversation));
    assert.equal(second.result.stopReason, "end_turn");
    const reply = second.result.content[0];
    assert.ok(reply?.type === "text" && reply.text.includes("**Charles**"));

    const body = server.requests[1]?.body as { messages: { role: string; content: unknown[] }[] };
    assert.deepEqual(body.messages.map((turn) => turn.role), ["user", "assistant", "user"]);
    assert.deepEqual(body.messages[2]?.content, [
      { type: "tool_result", tool_use_id: "toolu_01LtHJmixrs9NcWQkK8hu8hj", content: "Charles" },
      {
        type: "tool_result",
        tool_use_id: "toolu_01N8a4jWyf116qKTMqKKmjyt",
        content: "Sammy",
        cache_control: { type: "ephemeral" },
      },
    ]);
  });
});

Deno.test("streamAnthropicMessages: aborting mid-stream returns the partial text with stop reason aborted", async () => {
  await withServer(async (server) => {
    const fullText = "one two three four five six seven eight nine ten";
    server.enqueue({
      kind: "slow",
      delayMs: 40,
      source: { kind: "turn", blocks: [{ type: "text", text: fullText }] },
    });
    const controller = new AbortController();
    const stream = streamAnthropicMessages(
      providerRequest(
        server,
        [message("user", [{ type: "text", text: "count" }])],
        controller.signal,
      ),
    );
    const { streamed, end } = await abortOnceTextStreams(stream, controller);
    assertAbortedPrefix(end, streamed, fullText);
    assert.equal(end.usage.inputTokens, 10, "usage from message_start is kept");
  }, {}); // one SSE event per chunk, 40 ms apart
});

Deno.test("streamAnthropicMessages: after an abort, a failure still buffered in the stream reads as aborted, not as an error", async () => {
  await withServer(async (server) => {
    // Sent whole, so the `event: error` is already parsed when the abort fires.
    server.enqueue({ kind: "fixture", path: "anthropic/error-overloaded-midstream.sse" });
    const controller = new AbortController();
    const stream = streamAnthropicMessages(
      providerRequest(server, [message("user", [{ type: "text", text: "hi" }])], controller.signal),
    );
    let step = await stream.next();
    for (; !step.done; step = await stream.next()) {
      if (step.value.some((event) => event.type === "content_delta")) controller.abort();
    }
    assert.equal(step.value.stopReason, "aborted");
    const partial = step.value.content[0];
    assert.ok(partial?.type === "text" && "- Captain".startsWith(partial.text));
  }, {});
});

Deno.test("streamAnthropicMessages: a connection cut mid-stream is a retryable error with the partial message", async () => {
  await withServer(async (server) => {
    const fixture = "anthropic/text-then-tool-use.sse";
    const bytes = await Deno.readFile(
      new URL(`../../fixtures/providers/${fixture}`, import.meta.url),
    );
    const cutAt = new TextDecoder().decode(bytes).indexOf(
      'event: content_block_start\ndata: {"type":"content_block_start","index":1',
    );
    assert.ok(cutAt > 0);
    server.enqueue({ kind: "cut", afterBytes: cutAt, source: { kind: "fixture", path: fixture } });
    const error = await collect(
      providerRequest(server, [message("user", [{ type: "text", text: "Paris?" }])]),
    )
      .then(() => undefined, (error: unknown) => error);
    assert.ok(error instanceof ProviderError, String(error));
    assert.equal(error.kind, "network");
    assert.ok(error.retryable);
    assert.deepEqual(error.partial?.content, [
      { type: "text", text: "I'll check the current weather in Paris for you." },
    ]);
  });
});

Deno.test("streamAnthropicMessages: an HTTP overload is thrown classified, without a partial", async () => {
  await withServer(async (server) => {
    server.enqueue(overloadedReply("anthropic"));
    const error = await collect(
      providerRequest(server, [message("user", [{ type: "text", text: "hi" }])]),
    )
      .then(() => undefined, (error: unknown) => error);
    assert.ok(error instanceof ProviderError, String(error));
    assert.equal(error.kind, "overloaded");
    assert.equal(error.status, 529);
    assert.equal(error.partial, undefined);
  });
});
