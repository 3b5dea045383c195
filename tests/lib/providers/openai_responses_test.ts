/**
 * `streamOpenAIResponses` end to end over HTTP against the fake LLM server
 * on loopback, directly and through `Agent`: the request it sends, a
 * recorded stream in small chunks, the fake server's generated turns as the
 * official SDK reads them, a tool round trip that carries the reasoning item
 * back, images, reasoning levels, retries, context overflow, abort and the
 * idle timeout.
 */
import assert from "node:assert/strict";
import { Agent, type Config, type ProviderConfig, ProviderError, ResultParts } from "@panto/lib";
import type { Message } from "../../../lib/message.ts";
import { streamOpenAIResponses } from "../../../lib/providers/openai_responses.ts";
import { buildOpenAIResponsesRequest } from "../../../lib/providers/openai_responses_request.ts";
import { parseOpenAIResponsesStream } from "../../../lib/providers/openai_responses_stream.ts";
import { decodeReasoningSignature } from "../../../lib/providers/openai_responses_reasoning.ts";
import type { ProviderRequest } from "../../../lib/providers/provider.ts";
import { SseParser } from "../../../lib/providers/sse.ts";
import type { ToolDecl } from "../../../lib/tool.ts";
import { emptyUsage } from "../../../lib/usage.ts";
import { drain, echoTool, textTurn, toolTurn } from "../../support/agent_fixtures.ts";
import {
  authErrorReply,
  contextOverflowReply,
  DEFAULT_FAKE_USAGE,
  type FakeLlmServer,
  type FakeReply,
  PROVIDER_FIXTURES_DIR,
  rateLimitReply,
  withFakeServer,
} from "../../support/fake_llm_server.ts";
import { abortOnceTextStreams, drainProviderStream } from "../../support/provider_stream.ts";
import { assertAgreesWithSdk, runSdk } from "./responses_sdk.ts";

const KEY = "sk-test-responses-0123456789";
/** A 1×1 PNG: small enough that the agent sends it unchanged. */
const PIXEL =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const READ_TOOL: ToolDecl = {
  name: "read",
  description: "Read a file",
  inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

function providerConfig(
  server: FakeLlmServer,
  extra: Partial<ProviderConfig> = {},
): ProviderConfig {
  return {
    api: "openai-responses",
    baseUrl: server.openaiBaseUrl,
    model: "fake-gpt-5",
    reasoning: "off",
    apiKey: KEY,
    ...extra,
  };
}

function agentConfig(
  server: FakeLlmServer,
  provider: Partial<ProviderConfig> = {},
  extra: Partial<Config> = {},
): Config {
  return {
    provider: providerConfig(server, provider),
    retry: { baseDelayMs: 5, maxDelayMs: 2000 },
    ...extra,
  };
}

function user(text: string): Message {
  return { role: "user", content: [{ type: "text", text }], timestamp: new Date().toISOString() };
}

function providerRequest(
  server: FakeLlmServer,
  extra: Partial<ProviderRequest> = {},
): ProviderRequest {
  return {
    config: providerConfig(server),
    system: "You are terse.",
    messages: [user("Say hello")],
    tools: [],
    signal: new AbortController().signal,
    idleTimeoutMs: 5000,
    ...extra,
  };
}

/** The `input` items of request `index` as the server got them. */
function inputOf(server: FakeLlmServer, index: number): Record<string, unknown>[] {
  const body = server.requests[index]?.body as { input: Record<string, unknown>[] } | undefined;
  assert.ok(body, `request ${index} was made`);
  return body.input;
}

function bodyOf(server: FakeLlmServer, index: number): Record<string, unknown> {
  const body = server.requests[index]?.body;
  assert.ok(typeof body === "object" && body !== null, `request ${index} was made`);
  return body as Record<string, unknown>;
}

Deno.test("openai-responses e2e: a text turn, and the request the server received", () =>
  withFakeServer(async (server) => {
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Hello there, friend" }] });
    const request = providerRequest(server, { tools: [READ_TOOL] });
    const { events, result } = await drainProviderStream(streamOpenAIResponses(request));
    assert.deepEqual(result, {
      content: [{ type: "text", text: "Hello there, friend" }],
      usage: DEFAULT_FAKE_USAGE,
      stopReason: "end_turn",
    });
    const streamed = events.flatMap((event) => event.type === "content_delta" ? [event.text] : []);
    assert.ok(streamed.length > 1, "text arrives in several deltas");

    const [received] = server.requests;
    assert.equal(received?.path, "/v1/responses");
    assert.equal(received?.protocol, "openai-responses");
    assert.equal(received?.headers.authorization, `Bearer ${KEY}`);
    assert.deepEqual(
      received?.body,
      JSON.parse(JSON.stringify(buildOpenAIResponsesRequest(request).body)),
    );
  }, { chunkSize: 7 }));

Deno.test("openai-responses e2e: a recorded stream sent in 7-byte chunks assembles as offline", () =>
  withFakeServer(async (server) => {
    const path = "openai-responses/reasoning-summary-function-call.sse";
    server.enqueue({ kind: "fixture", path, chunkSize: 7 });
    const online = await drainProviderStream(streamOpenAIResponses(providerRequest(server)));
    const bytes = await Deno.readFile(`${PROVIDER_FIXTURES_DIR}${path}`);
    async function* offlineEvents() {
      const parser = new SseParser();
      yield parser.push(bytes);
      yield parser.end();
    }
    const offline = await drainProviderStream(parseOpenAIResponsesStream(offlineEvents(), "x"));
    assert.deepEqual(online, offline);
    assert.equal(online.result.stopReason, "tool_use");
  }));

const GENERATED: [string, FakeReply][] = [
  ["reasoning in two summary parts, text and a call", {
    kind: "turn",
    blocks: [
      { type: "thinking", thinking: "**Reading**\n\nThe user wants the file." },
      { type: "text", text: "Reading it — ünïcødé 🦅." },
      { type: "tool_use", id: "call_1", name: "read", input: { path: "README.md" } },
    ],
    usage: { inputTokens: 7, cacheReadTokens: 1920, outputTokens: 11, reasoningTokens: 4 },
  }],
  [
    "parallel calls",
    toolTurn(
      { id: "call_a", name: "weather", input: { location: "San Francisco" } },
      { id: "call_b", name: "cityAttractions", input: { city: "Rome" } },
    ),
  ],
  ["a cut-off answer", {
    kind: "turn",
    blocks: [{ type: "text", text: "One, two" }],
    stopReason: "max_tokens",
  }],
  ["a filtered answer", {
    kind: "turn",
    blocks: [],
    stopReason: "refusal",
  }],
];

for (const [name, reply] of GENERATED) {
  Deno.test(`openai-responses e2e: the fake server's ${name} reads the same in the openai SDK`, () =>
    withFakeServer(async (server) => {
      server.enqueue(reply, reply);
      const ours = await drainProviderStream(streamOpenAIResponses(providerRequest(server)));
      const theirs = await runSdk(server.openaiBaseUrl);
      // Two replies, two sets of item ids: the carried items are compared by count.
      assertAgreesWithSdk(ours.result, theirs, false);
    }));
}

Deno.test("openai-responses e2e: a tool round trip through Agent carries the reasoning item back", () =>
  withFakeServer(async (server) => {
    server.enqueue(
      {
        kind: "turn",
        blocks: [
          {
            type: "thinking",
            thinking: "**Echo**\n\nThe user wants an echo.",
            signature: "gAAAA-1",
          },
          { type: "text", text: "Echoing." },
          { type: "tool_use", id: "call_1", name: "echo", input: { text: "hi" } },
        ],
      },
      textTurn("All done."),
    );
    const agent = new Agent({ config: agentConfig(server, { reasoning: "medium" }) });
    agent.registerTool(echoTool);
    const events = await drain(agent.run("please echo hi"));
    const last = events.at(-1);
    assert.ok(last?.type === "run_complete" && last.stopReason === "end_turn");

    const first = bodyOf(server, 0);
    assert.deepEqual(first.reasoning, { effort: "medium", summary: "auto" });
    assert.deepEqual(first.include, ["reasoning.encrypted_content"]);
    assert.deepEqual(inputOf(server, 1), [
      { role: "user", content: [{ type: "input_text", text: "please echo hi" }] },
      { type: "reasoning", id: "rs_fake_1_0", encrypted_content: "gAAAA-1", summary: [] },
      { role: "assistant", content: "Echoing." },
      { type: "function_call", call_id: "call_1", name: "echo", arguments: '{"text":"hi"}' },
      { type: "function_call_output", call_id: "call_1", output: "echo: hi" },
    ]);
    // The thinking block keeps the summary for people and the item for the API.
    const thinking = agent.conversation.messages[1]?.content[0];
    assert.ok(thinking?.type === "thinking");
    assert.equal(thinking.thinking, "**Echo**\n\nThe user wants an echo.");
    assert.deepEqual(decodeReasoningSignature(thinking.signature), {
      id: "rs_fake_1_0",
      encryptedContent: "gAAAA-1",
    });
  }));

Deno.test("openai-responses e2e: after switching models, earlier reasoning items stay home", () =>
  withFakeServer(async (server) => {
    server.enqueue(
      {
        kind: "turn",
        blocks: [
          { type: "thinking", thinking: "Short.", signature: "gAAAA-1" },
          { type: "text", text: "Hi." },
        ],
      },
      textTurn("Hello again."),
    );
    const agent = new Agent({ config: agentConfig(server, { reasoning: "low" }) });
    await drain(agent.run("hi"));
    agent.setConfig(agentConfig(server, { model: "another-model", reasoning: "low" }));
    await drain(agent.run("again"));
    const input = inputOf(server, 1);
    assert.ok(!input.some((item) => item.type === "reasoning"), JSON.stringify(input));
  }));

Deno.test("openai-responses e2e: images in a user message and in a tool result reach the wire", () =>
  withFakeServer(async (server) => {
    server.enqueue(toolTurn({ id: "call_1", name: "screenshot", input: {} }), textTurn("A dot."));
    const agent = new Agent({ config: agentConfig(server) });
    agent.registerTool({
      decl: {
        name: "screenshot",
        description: "Shows the screen",
        inputSchema: { type: "object" },
      },
      execute:
        () => [{ type: "text", text: "The screen:" }, ...ResultParts.image(PIXEL, "image/png")],
    });
    await drain(agent.run({
      text: "What is this?",
      images: [{ type: "image", mediaType: "image/png", data: PIXEL }],
    }));
    const image = {
      type: "input_image",
      image_url: `data:image/png;base64,${PIXEL}`,
      detail: "auto",
    };
    const input = inputOf(server, 1);
    assert.deepEqual(input[0], {
      role: "user",
      content: [{ type: "input_text", text: "What is this?" }, image],
    });
    assert.deepEqual(input.at(-1), {
      type: "function_call_output",
      call_id: "call_1",
      output: [{ type: "input_text", text: "The screen:" }, image],
    });
  }));

Deno.test("openai-responses e2e: reasoning levels and a model's own values on the wire", () =>
  withFakeServer(async (server) => {
    server.enqueue(textTurn("a"), textTurn("b"), textTurn("c"));
    const run = async (provider: Partial<ProviderConfig>) => {
      const agent = new Agent({ config: agentConfig(server, provider) });
      await drain(agent.run("think"));
    };
    await run({ reasoning: "high" });
    await run({ reasoning: "xhigh", reasoningValues: { xhigh: "max" }, maxTokens: 4096 });
    await run({ reasoning: "off" });
    assert.deepEqual(bodyOf(server, 0).reasoning, { effort: "high", summary: "auto" });
    assert.deepEqual(bodyOf(server, 1).reasoning, { effort: "max", summary: "auto" });
    assert.equal(bodyOf(server, 1).max_output_tokens, 4096);
    assert.ok(!("reasoning" in bodyOf(server, 2)) && !("include" in bodyOf(server, 2)));
  }));

Deno.test("openai-responses e2e: 429 (honouring retry-after), 500 and a cut connection are retried", () =>
  withFakeServer(async (server) => {
    server.enqueue(
      rateLimitReply(0, "openai-responses"),
      {
        kind: "http_error",
        status: 500,
        body: { error: { message: "boom", type: "server_error" } },
      },
      { kind: "cut", afterBytes: 600, source: textTurn("this answer will be cut off halfway") },
      textTurn("finally"),
    );
    const agent = new Agent({ config: agentConfig(server, {}, { retry: { baseDelayMs: 5 } }) });
    const events = await drain(agent.run("hi"));
    const retries = events.flatMap((event) => event.type === "provider_retry" ? [event] : []);
    assert.deepEqual(retries.map((event) => event.error.kind), ["rate_limit", "server", "network"]);
    assert.equal(retries[0]?.delayMs, 0, "retry-after: 0 is honoured");
    assert.deepEqual(agent.conversation.messages.at(-1)?.content, [
      { type: "text", text: "finally" },
    ]);
    assert.ok(!JSON.stringify(events).includes(KEY));
  }));

Deno.test("openai-responses e2e: a context overflow is its own kind, over HTTP and mid-stream", () =>
  withFakeServer(async (server) => {
    const midStream = 'event: error\ndata: {"type":"error","sequence_number":2,"error":{' +
      '"type":"invalid_request_error","code":"context_length_exceeded","message":"Your input ' +
      'exceeds the context window of this model. Please adjust your input and try again.",' +
      '"param":"input"}}\n\n';
    server.enqueue(contextOverflowReply("openai-responses"), { kind: "sse", body: midStream });
    for (const status of [400, undefined]) {
      const agent = new Agent({
        config: agentConfig(server, {}, { compaction: { enabled: false } }),
      });
      const error = await drain(agent.run("hi")).then(() => null, (error) => error);
      assert.ok(error instanceof ProviderError, String(error));
      assert.equal(error.kind, "context_overflow", error.message);
      assert.equal(error.status, status);
    }
  }));

Deno.test("openai-responses e2e: a 401 is an auth error that never shows the key", () =>
  withFakeServer(async (server) => {
    server.enqueue(authErrorReply("openai-responses"));
    await assert.rejects(
      drainProviderStream(streamOpenAIResponses(providerRequest(server))),
      (error) => {
        assert.ok(error instanceof ProviderError);
        assert.equal(error.kind, "auth");
        assert.ok(!error.message.includes(KEY), error.message);
        return true;
      },
    );
  }));

Deno.test("openai-responses e2e: a malformed event fails the run as a stream error", () =>
  withFakeServer(async (server) => {
    server.enqueue({ kind: "malformed" });
    const agent = new Agent({ config: agentConfig(server) });
    const stream = agent.run("hi");
    const error = await drain(stream).then(() => null, (error) => error);
    assert.ok(error instanceof ProviderError, String(error));
    assert.equal(error.kind, "stream");
    assert.equal(stream.state, "failed");
  }));

/** A reply that streams "Partial ans" and then goes silent until the client leaves. */
function stalledReply(): FakeReply {
  const sse = (type: string, fields: object) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
  const item = { id: "msg_1", type: "message", role: "assistant" };
  const sent = sse("response.output_item.added", { output_index: 0, item }) +
    sse("response.output_text.delta", { output_index: 0, item_id: "msg_1", delta: "Partial ans" });
  const body = sent +
    sse("response.output_text.delta", { output_index: 0, item_id: "msg_1", delta: "wer" });
  return {
    kind: "stall",
    afterBytes: new TextEncoder().encode(sent).length,
    source: { kind: "sse", body },
  };
}

Deno.test("openai-responses e2e: abort mid-stream returns the partial text as aborted", () =>
  withFakeServer(async (server) => {
    server.enqueue(stalledReply());
    const controller = new AbortController();
    const stream = streamOpenAIResponses(providerRequest(server, { signal: controller.signal }));
    const { end } = await abortOnceTextStreams(stream, controller);
    assert.deepEqual(end, {
      content: [{ type: "text", text: "Partial ans" }],
      usage: emptyUsage(),
      stopReason: "aborted",
    });
  }));

Deno.test("openai-responses e2e: cancelling a run keeps the partial answer as aborted", () =>
  withFakeServer(async (server) => {
    server.enqueue(stalledReply());
    const agent = new Agent({ config: agentConfig(server) });
    const stream = agent.run("count");
    for await (const event of stream) if (event.type === "content_delta") stream.cancel();
    assert.equal(stream.state, "aborted");
    const message = agent.conversation.messages.at(-1)!;
    assert.equal(message.stopReason, "aborted");
    assert.deepEqual(message.content, [{ type: "text", text: "Partial ans" }]);
  }));

Deno.test("openai-responses e2e: a silent server is an idle timeout once retries are spent", () =>
  withFakeServer(async (server) => {
    server.enqueue({ kind: "stall", afterBytes: 300, source: textTurn("never finishes") });
    const agent = new Agent({
      config: agentConfig(server, {}, { idleTimeoutMs: 200, retry: { maxRetries: 0 } }),
    });
    const error = await drain(agent.run("hi")).then(() => null, (error) => error);
    assert.ok(error instanceof ProviderError, String(error));
    assert.equal(error.kind, "timeout");
    assert.match(error.message, /sent nothing for 200 ms/);
  }));

Deno.test("openai-responses e2e: an abort ends an endless stream at once", () =>
  withFakeServer(async (server) => {
    server.enqueue({ kind: "long", deltas: Number.POSITIVE_INFINITY });
    const controller = new AbortController();
    const stream = streamOpenAIResponses(providerRequest(server, { signal: controller.signal }));
    let deltas = 0;
    let step = await stream.next();
    for (; !step.done; step = await stream.next()) {
      deltas += step.value.filter((event) => event.type === "content_delta").length;
      if (deltas >= 2_000) controller.abort();
    }
    assert.equal(step.value.stopReason, "aborted");
    const text = step.value.content[0];
    assert.ok(text?.type === "text" && text.text.startsWith("line 0\nline 1\n"), "partial text");
    assert.ok(server.longDeltasSent >= 2_000);
  }));
