/**
 * `streamOpenAIChat` end to end over real HTTP against the fake LLM server
 * on loopback: a text turn, a tool-call turn, a recorded stream in small
 * chunks, an abort mid-stream, an HTTP error and a cut connection.
 */
import assert from "node:assert/strict";
import type { ProviderConfig } from "../../../lib/config.ts";
import { ProviderError } from "../../../lib/errors.ts";
import type { Message } from "../../../lib/message.ts";
import { streamOpenAIChat } from "../../../lib/providers/openai_chat.ts";
import { parseOpenAIStream } from "../../../lib/providers/openai_stream.ts";
import { SseParser } from "../../../lib/providers/sse.ts";
import type { ToolDecl } from "../../../lib/tool.ts";
import { emptyUsage } from "../../../lib/usage.ts";
import {
  authErrorReply,
  DEFAULT_FAKE_USAGE,
  type FakeLlmServer,
  PROVIDER_FIXTURES_DIR,
  withFakeServer,
} from "../../support/fake_llm_server.ts";
import {
  abortOnceTextStreams,
  drainProviderStream as drain,
} from "../../support/provider_stream.ts";

const KEY = "sk-test-0123456789";

const READ_TOOL: ToolDecl = {
  name: "read",
  description: "Read a file",
  inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

function user(text: string): Message {
  return { role: "user", content: [{ type: "text", text }], timestamp: new Date().toISOString() };
}

function config(server: FakeLlmServer, extra: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    api: "openai-chat",
    baseUrl: server.openaiBaseUrl,
    model: "fake-gpt",
    reasoning: "off",
    apiKey: KEY,
    ...extra,
  };
}

function streamFrom(
  server: FakeLlmServer,
  signal = new AbortController().signal,
  tools: ToolDecl[] = [],
) {
  return streamOpenAIChat({
    config: config(server),
    system: "You are terse.",
    messages: [user("Say hello")],
    tools,
    signal,
    idleTimeoutMs: 5000,
  });
}

Deno.test("openai chat e2e: a text turn, and the request the server received", () =>
  withFakeServer(async (server) => {
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Hello there, friend" }] });
    const { events, result } = await drain(streamFrom(server));
    assert.deepEqual(result, {
      content: [{ type: "text", text: "Hello there, friend" }],
      usage: DEFAULT_FAKE_USAGE,
      stopReason: "end_turn",
    });
    const streamed = events.flatMap((event) => event.type === "content_delta" ? [event.text] : []);
    assert.ok(streamed.length > 1, "text arrives in several deltas");
    assert.equal(streamed.join(""), "Hello there, friend");

    const [received] = server.requests;
    assert.equal(received?.path, "/v1/chat/completions");
    assert.equal(received?.headers.authorization, `Bearer ${KEY}`);
    assert.equal(received?.headers["content-type"], "application/json");
    assert.deepEqual(received?.body, {
      model: "fake-gpt",
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "Say hello" },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
  }));

Deno.test("openai chat e2e: a reasoning + text + tool-call turn", () =>
  withFakeServer(async (server) => {
    server.enqueue({
      kind: "turn",
      blocks: [
        { type: "thinking", thinking: "The user wants the file." },
        { type: "text", text: "Reading it." },
        { type: "tool_use", id: "call_1", name: "read", input: { path: "README.md" } },
      ],
      usage: { inputTokens: 7, cacheReadTokens: 3, outputTokens: 11, reasoningTokens: 4 },
    });
    const { events, result } = await drain(streamFrom(server, undefined, [READ_TOOL]));
    assert.deepEqual(result, {
      content: [
        { type: "thinking", thinking: "The user wants the file." },
        { type: "text", text: "Reading it." },
        { type: "tool_use", id: "call_1", name: "read", input: { path: "README.md" } },
      ],
      usage: {
        ...DEFAULT_FAKE_USAGE,
        inputTokens: 7,
        cacheReadTokens: 3,
        outputTokens: 11,
        reasoningTokens: 4,
      },
      stopReason: "tool_use",
    });
    assert.deepEqual(
      events.find((event) => event.type === "block_start" && event.kind === "tool_use"),
      {
        type: "block_start",
        blockIndex: 2,
        kind: "tool_use",
        toolUse: { id: "call_1", name: "read" },
      },
    );
    const tools = (server.requests[0]?.body as { tools: unknown }).tools;
    assert.deepEqual(tools, [{
      type: "function",
      function: { name: "read", description: "Read a file", parameters: READ_TOOL.inputSchema },
    }]);
  }));

Deno.test("openai chat e2e: a recorded stream sent in 7-byte chunks assembles as offline", () =>
  withFakeServer(async (server) => {
    const path = "openai/deepseek-reasoning-tool-call.sse";
    server.enqueue({ kind: "fixture", path, chunkSize: 7 });
    const online = await drain(streamFrom(server));
    const bytes = await Deno.readFile(`${PROVIDER_FIXTURES_DIR}${path}`);
    async function* offlineEvents() {
      const parser = new SseParser();
      yield parser.push(bytes);
      yield parser.end();
    }
    const offline = await drain(parseOpenAIStream(offlineEvents(), "offline"));
    assert.deepEqual(online, offline);
  }));

Deno.test("openai chat e2e: abort mid-stream returns the partial text as aborted", () =>
  withFakeServer(async (server) => {
    const chunk = (delta: object) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
    const sent = chunk({ role: "assistant", content: "" }) + chunk({ content: "Partial ans" });
    const body = sent + chunk({ content: "wer never sent" }) + "data: [DONE]\n\n";
    server.enqueue({
      kind: "stall",
      afterBytes: new TextEncoder().encode(sent).length,
      source: { kind: "sse", body },
    });
    const controller = new AbortController();
    const stream = streamFrom(server, controller.signal);
    const { end } = await abortOnceTextStreams(stream, controller);
    assert.deepEqual(end, {
      content: [{ type: "text", text: "Partial ans" }],
      usage: emptyUsage(), // no usage was reported before the abort
      stopReason: "aborted",
    });
  }));

Deno.test("openai chat e2e: a signal aborted before sending returns an empty aborted message", () =>
  withFakeServer(async (server) => {
    const controller = new AbortController();
    controller.abort();
    const { events, result } = await drain(streamFrom(server, controller.signal));
    assert.deepEqual(events, []);
    assert.deepEqual(result.content, []);
    assert.equal(result.stopReason, "aborted");
    assert.equal(server.requests.length, 0);
  }));

Deno.test("openai chat e2e: a 401 is an auth error that never shows the key", () =>
  withFakeServer(async (server) => {
    server.enqueue(authErrorReply("openai"));
    await assert.rejects(drain(streamFrom(server)), (error) => {
      assert.ok(error instanceof ProviderError);
      assert.equal(error.kind, "auth");
      assert.equal(error.status, 401);
      assert.ok(!error.message.includes(KEY), error.message);
      return true;
    });
  }));

Deno.test("openai chat e2e: a connection cut mid-stream is a retryable error with the partial", () =>
  withFakeServer(async (server) => {
    const chunk = (delta: object) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
    const sent = chunk({ content: "Half a" });
    server.enqueue({
      kind: "cut",
      afterBytes: new TextEncoder().encode(sent).length,
      source: { kind: "sse", body: sent + chunk({ content: " sentence" }) + "data: [DONE]\n\n" },
    });
    await assert.rejects(drain(streamFrom(server)), (error) => {
      assert.ok(error instanceof ProviderError, String(error));
      assert.ok(error.retryable, `${error.kind}: ${error.message}`);
      assert.deepEqual(error.partial?.content, [{ type: "text", text: "Half a" }]);
      return true;
    });
  }));
