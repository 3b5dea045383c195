/**
 * `streamGoogleGenerativeAI` end to end over HTTP against the fake LLM
 * server speaking Gemini on loopback: the request it sends, the fake's
 * generated turns read by the official SDK, a tool round trip through
 * `Agent` (signatures and ids sent back), images, thinking parameters on the
 * wire, retries, error classification, abort and idle timeout.
 */
import assert from "node:assert/strict";
import { Agent, type AgentEvent, type Config, ProviderError, ResultParts } from "@panto/lib";
import type { ContentBlock } from "../../../lib/content.ts";
import type { ProviderConfig } from "../../../lib/config.ts";
import type { Message } from "../../../lib/message.ts";
import { streamGoogleGenerativeAI } from "../../../lib/providers/google_generative_ai.ts";
import {
  buildGoogleRequest,
  type GeminiRequestBody,
} from "../../../lib/providers/google_request.ts";
import type { ProviderRequest } from "../../../lib/providers/provider.ts";
import { streamForApi } from "../../../lib/providers/registry.ts";
import { echoTool } from "../../support/agent_fixtures.ts";
import { craftPng } from "../../support/crafted_png.ts";
import {
  fakeGeminiSignature,
  type FakeLlmServer,
  type FakeLlmServerOptions,
  geminiAuthErrorReply,
  geminiContextOverflowReply,
  geminiOverloadedReply,
  geminiRateLimitReply,
  withFakeServer,
} from "../../support/fake_llm_server.ts";
import { chunksOf, readWithGenai } from "../../support/genai_sdk.ts";
import {
  abortOnceTextStreams,
  assertAbortedPrefix,
  type DrainedStream,
  drainProviderStream,
} from "../../support/provider_stream.ts";

const KEY = "AIza-test-SECRET-0123456789";

function providerConfig(
  server: FakeLlmServer,
  extra: Partial<ProviderConfig> = {},
): ProviderConfig {
  return {
    api: "google-generative-ai",
    baseUrl: `${server.url}/v1beta`,
    model: "gemini-3-flash-preview",
    reasoning: "off",
    apiKey: KEY,
    ...extra,
  };
}

function providerRequest(
  server: FakeLlmServer,
  messages: Message[],
  extra: Partial<ProviderConfig> = {},
  signal: AbortSignal = new AbortController().signal,
  idleTimeoutMs = 10_000,
): ProviderRequest {
  return {
    config: providerConfig(server, extra),
    system: "Be brief.",
    messages,
    tools: [echoTool.decl],
    signal,
    idleTimeoutMs,
  };
}

const ask = (text: string): Message => ({
  role: "user",
  content: [{ type: "text", text }],
  timestamp: new Date().toISOString(),
});

function collect(request: ProviderRequest): Promise<DrainedStream> {
  // Through the registry: the built-in loads on its first request.
  return drainProviderStream(streamForApi("google-generative-ai")(request));
}

function failure(request: ProviderRequest): Promise<ProviderError> {
  return collect(request).then(
    () => assert.fail("the request should fail"),
    (error: unknown) => {
      assert.ok(error instanceof ProviderError, String(error));
      return error;
    },
  );
}

function agentConfig(server: FakeLlmServer, extra: Partial<ProviderConfig> = {}): Config {
  return {
    provider: providerConfig(server, extra),
    retry: { baseDelayMs: 5, maxDelayMs: 2000, maxRetries: 5 },
  };
}

async function drain(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const bodyOf = (server: FakeLlmServer, index: number) =>
  server.requests[index]?.body as GeminiRequestBody;

/** By default bodies go out in 7-byte chunks: lines, CRLFs and UTF-8 split anywhere. */
function withServer(
  run: (server: FakeLlmServer) => Promise<void>,
  options: FakeLlmServerOptions = { chunkSize: 7 },
): Promise<void> {
  return withFakeServer(run, options);
}

Deno.test("google provider: a recorded stream over HTTP; the request is the built one, the key in its header", async () => {
  await withServer(async (server) => {
    server.enqueue({
      kind: "fixture",
      path: "google-generative-ai/text-signature-trailing-gemini3-pro.sse",
    });
    const request = providerRequest(server, [ask("How many r in strawberry?")], {
      model: "gemini-3-pro-preview",
    });
    const { result } = await collect(request);
    assert.equal(result.stopReason, "end_turn");
    assert.deepEqual(result.content[0], {
      type: "text",
      text: 'There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y',
    });
    assert.equal(result.usage.outputTokens, 208);
    const [received] = server.requests;
    assert.equal(received?.path, "/v1beta/models/gemini-3-pro-preview:streamGenerateContent");
    assert.equal(received.headers["x-goog-api-key"], KEY);
    assert.deepEqual(received.body, JSON.parse(JSON.stringify(buildGoogleRequest(request).body)));
  });
});

Deno.test("google provider: the fake's generated turns read the same through @google/genai", async () => {
  await withServer(async (server) => {
    const blocks = [
      { type: "thinking" as const, thinking: "The user wants Paris.", signature: "VEhJTks=" },
      { type: "text" as const, text: "Checking — ünïcødé 🦅." },
      { type: "tool_use" as const, id: "call_1", name: "get_weather", input: { city: "Paris" } },
    ];
    server.enqueue({ kind: "turn", blocks }, { kind: "turn", blocks });
    const [read] = await readWithGenai(server.url, ["gemini-3-flash-preview"], KEY);
    const chunks = chunksOf(read);
    const parts = chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? []);
    assert.equal(parts.filter((p) => p.thought).map((p) => p.text).join(""), blocks[0]!.thinking);
    assert.equal(
      parts.filter((p) => !p.thought).map((p) => p.text ?? "").join(""),
      blocks[1]!.text,
    );
    assert.deepEqual(parts.flatMap((p) => p.functionCall ? [p.functionCall] : []), [
      { name: "get_weather", args: { city: "Paris" }, id: "call_1" },
    ]);
    assert.equal(chunks.at(-1)?.candidates?.[0]?.finishReason, "STOP");
    const { result } = await collect(providerRequest(server, [ask("weather?")]));
    assert.deepEqual(result.content, [
      { type: "thinking", thinking: "The user wants Paris.", signature: "VEhJTks=" },
      { type: "text", text: "Checking — ünïcødé 🦅." },
      { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } },
      { type: "thinking", thinking: "", signature: fakeGeminiSignature("fake_2") },
    ]);
    assert.equal(result.stopReason, "tool_use");
  });
});

Deno.test("google provider: a tool round trip through Agent sends back the call, its signature and id, and the result", async () => {
  await withServer(async (server) => {
    server.enqueue(
      {
        kind: "turn",
        blocks: [
          { type: "thinking", thinking: "Echo it.", signature: "UExBTg==" },
          { type: "tool_use", id: "call_a", name: "echo", input: { text: "hi" } },
          { type: "tool_use", id: "call_b", name: "echo", input: { text: "there" } },
        ],
        usage: { reasoningTokens: 5 },
      },
      { kind: "turn", blocks: [{ type: "text", text: "Done." }] },
      { kind: "turn", blocks: [{ type: "text", text: "Yes." }] },
    );
    const agent = new Agent({ config: agentConfig(server, { reasoning: "high" }) });
    agent.registerTool(echoTool);
    const events = await drain(agent.run("please echo hi and there"));
    assert.equal(events.at(-1)?.type, "run_complete");
    assert.deepEqual(agent.conversation.messages.at(-1)?.content, [
      { type: "text", text: "Done." },
      { type: "thinking", thinking: "", signature: fakeGeminiSignature("fake_2") },
    ]);

    const second = bodyOf(server, 1);
    assert.deepEqual(second.generationConfig?.thinkingConfig, {
      includeThoughts: true,
      thinkingLevel: "HIGH",
    });
    assert.deepEqual(second.contents.map((content) => content.role), ["user", "model", "user"]);
    assert.deepEqual(second.contents[1]?.parts, [
      { text: "Echo it.", thought: true, thoughtSignature: "UExBTg==" },
      {
        functionCall: { name: "echo", args: { text: "hi" }, id: "call_a" },
        thoughtSignature: fakeGeminiSignature("fake_1"),
      },
      { functionCall: { name: "echo", args: { text: "there" }, id: "call_b" } },
    ]);
    assert.deepEqual(second.contents[2]?.parts, [
      { functionResponse: { name: "echo", response: { output: "echo: hi" }, id: "call_a" } },
      { functionResponse: { name: "echo", response: { output: "echo: there" }, id: "call_b" } },
    ]);

    // The next run's request sends the text answer's signature back on its text.
    await drain(agent.run("again?"));
    assert.deepEqual(bodyOf(server, 2).contents[3], {
      role: "model",
      parts: [{ text: "Done.", thoughtSignature: fakeGeminiSignature("fake_2") }],
    });
    assert.ok(!JSON.stringify(server.requests.map((r) => r.body)).includes(KEY));
  });
});

Deno.test("google provider: images from the user and from a tool travel as inlineData (in the response for Gemini 3)", async () => {
  const png = await craftPng({ width: 4, height: 4 });
  for (const model of ["gemini-3-flash-preview", "gemini-2.5-flash"]) {
    await withServer(async (server) => {
      server.enqueue(
        { kind: "turn", blocks: [{ type: "tool_use", id: "c1", name: "shot", input: {} }] },
        { kind: "turn", blocks: [{ type: "text", text: "A black square." }] },
      );
      const agent = new Agent({ config: agentConfig(server, { model }) });
      agent.registerTool({
        decl: { name: "shot", description: "Screenshot", inputSchema: { type: "object" } },
        execute: () => ResultParts.image(png, "image/png"),
      });
      await drain(agent.run({
        text: "Compare",
        images: [{ type: "image", mediaType: "image/png", data: png.toBase64() }],
      }));
      const [first, second] = [bodyOf(server, 0), bodyOf(server, 1)];
      assert.equal(first.contents[0]?.parts[1]?.inlineData?.mimeType, "image/png", model);
      const results = second.contents[2]?.parts ?? [];
      const response = results[0]?.functionResponse;
      assert.deepEqual(response?.response, { output: "(see attached image)" }, model);
      if (model.startsWith("gemini-3")) {
        assert.equal(response?.parts?.[0]?.inlineData.mimeType, "image/png");
        assert.equal(results.length, 1);
      } else {
        assert.equal(response?.parts, undefined);
        assert.deepEqual(results[1], { text: "Attached image(s) from tool result:" });
        assert.equal(results[2]?.inlineData?.mimeType, "image/png");
      }
    });
  }
});

Deno.test("google provider: thinking levels and catalog values on the wire", async () => {
  await withServer(async (server) => {
    const cases: [Partial<ProviderConfig>, object | undefined][] = [
      [{ model: "gemini-2.5-flash", reasoning: "off" }, { thinkingBudget: 0 }],
      [{ model: "gemini-2.5-pro", reasoning: "low" }, {
        includeThoughts: true,
        thinkingBudget: 2048,
      }],
      [{ model: "gemini-3-pro-preview", reasoning: "medium" }, {
        includeThoughts: true,
        thinkingLevel: "HIGH",
      }],
      [
        {
          model: "gemini-3-flash-preview",
          reasoning: "minimal",
          reasoningValues: { minimal: "minimal" },
        },
        { includeThoughts: true, thinkingLevel: "MINIMAL" },
      ],
      [
        { model: "gemini-2.5-flash", reasoning: "high", reasoningValues: { high: "16000" } },
        { includeThoughts: true, thinkingBudget: 16000 },
      ],
      [{ model: "gemini-2.0-flash", reasoning: "high" }, undefined],
    ];
    for (const [extra, expected] of cases) {
      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "ok" }] });
      await collect(providerRequest(server, [ask("think")], { ...extra, maxTokens: 1000 }));
      const body = bodyOf(server, server.requests.length - 1);
      assert.equal(body.generationConfig?.maxOutputTokens, 1000);
      assert.deepEqual(body.generationConfig?.thinkingConfig, expected, JSON.stringify(extra));
    }
  });
});

Deno.test("google provider: Agent retries 429 (RetryInfo's delay), 503, 500 and a cut connection", async () => {
  await withServer(async (server) => {
    server.enqueue(
      geminiRateLimitReply("0.02s"),
      geminiOverloadedReply(),
      {
        kind: "http_error",
        status: 500,
        body: { error: { code: 500, message: "Internal error encountered.", status: "INTERNAL" } },
      },
      {
        kind: "cut",
        afterBytes: 200,
        source: { kind: "turn", blocks: [{ type: "text", text: "this answer is cut off" }] },
      },
      { kind: "turn", blocks: [{ type: "text", text: "finally" }] },
    );
    const agent = new Agent({ config: agentConfig(server) });
    const events = await drain(agent.run("hi"));
    const retries = events.filter((event) => event.type === "provider_retry");
    assert.deepEqual(retries.map((r) => r.type === "provider_retry" && r.error.kind), [
      "rate_limit",
      "overloaded",
      "server",
      "network",
    ]);
    const first = retries[0];
    assert.ok(first?.type === "provider_retry");
    assert.equal(first.delayMs, 20, "Gemini's RetryInfo delay is honoured");
    assert.equal(first.error.status, 429);
    assert.equal(agent.conversation.messages.at(-1)?.content[0]?.type, "text");
    assert.ok(!JSON.stringify(events).includes(KEY));
  }, {});
});

Deno.test("google provider: context overflow, a bad key and a malformed chunk are classified", async () => {
  await withServer(async (server) => {
    server.enqueue(geminiContextOverflowReply(), geminiAuthErrorReply(), { kind: "malformed" });
    const overflow = await failure(providerRequest(server, [ask("huge")]));
    assert.equal(overflow.kind, "context_overflow");
    assert.match(overflow.message, /input token count \(1196265\) exceeds the maximum/);
    const auth = await failure(providerRequest(server, [ask("hi")]));
    assert.equal(auth.kind, "auth");
    assert.equal(auth.status, 400);
    assert.ok(!auth.message.includes(KEY));
    const malformed = await failure(providerRequest(server, [ask("hi")]));
    assert.equal(malformed.kind, "stream");
    assert.deepEqual(malformed.partial?.content, [{ type: "text", text: "Hell" }]);
  });
});

Deno.test("google provider: aborting mid-stream returns the partial text with stop reason aborted", async () => {
  await withServer(async (server) => {
    const fullText = "one two three four five six seven eight nine ten";
    server.enqueue({
      kind: "slow",
      delayMs: 40,
      source: { kind: "turn", blocks: [{ type: "text", text: fullText }] },
    });
    const controller = new AbortController();
    const stream = streamGoogleGenerativeAI(
      providerRequest(server, [ask("count")], {}, controller.signal),
    );
    const { streamed, end } = await abortOnceTextStreams(stream, controller);
    assertAbortedPrefix(end, streamed, fullText);
    assert.equal(end.usage.inputTokens, 10, "the prompt count sent with each chunk is kept");
  }, {}); // one SSE event per chunk, 40 ms apart
});

Deno.test("google provider: a server that goes silent fails with a timeout once the idle time passes", async () => {
  await withServer(async (server) => {
    server.enqueue({
      kind: "stall",
      afterBytes: 150,
      source: { kind: "turn", blocks: [{ type: "text", text: "never finishes" }] },
    });
    const error = await failure(providerRequest(server, [ask("hi")], {}, undefined, 200));
    assert.equal(error.kind, "timeout");
    assert.match(error.message, /sent nothing for 200 ms/);
  });
});

Deno.test("google provider: a conversation from another provider is sent as plain Gemini turns", async () => {
  await withServer(async (server) => {
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "ok" }] });
    const claude: ContentBlock[] = [
      { type: "thinking", thinking: "Listing.", signature: "anthropic-sig" },
      { type: "tool_use", id: "toolu_1", name: "echo", input: { text: "x" } },
    ];
    await collect(providerRequest(server, [
      ask("echo x"),
      { role: "assistant", content: claude, timestamp: "", api: "anthropic-messages", model: "c" },
      {
        role: "tool",
        content: [{
          type: "tool_result",
          toolUseId: "toolu_1",
          toolName: "echo",
          content: [{ type: "text", text: "echo: x" }],
          isError: false,
        }],
        timestamp: "",
      },
    ]));
    assert.deepEqual(bodyOf(server, 0).contents[1]?.parts, [
      { text: "Listing." },
      {
        functionCall: { name: "echo", args: { text: "x" } },
        thoughtSignature: "skip_thought_signature_validator",
      },
    ]);
  });
});

Deno.test("google provider: a long generated reply streams whole, and an endless one stops at the abort", async () => {
  await withServer(async (server) => {
    server.enqueue({ kind: "long", deltas: 500 }, { kind: "long", deltas: Infinity });
    const { result } = await collect(providerRequest(server, [ask("count")]));
    const text = result.content[0];
    assert.ok(text?.type === "text");
    assert.equal(text.text.split("\n").length - 1, 500);
    assert.ok(text.text.startsWith("line 0\nline 1\n") && text.text.endsWith("line 499\n"));

    const controller = new AbortController();
    const stream = streamGoogleGenerativeAI(
      providerRequest(server, [ask("count forever")], {}, controller.signal),
    );
    let lines = 0;
    let step = await stream.next();
    for (; !step.done; step = await stream.next()) {
      for (const event of step.value) {
        if (event.type === "content_delta") lines += event.text.split("\n").length - 1;
      }
      if (lines >= 2000) controller.abort();
    }
    assert.equal(step.value.stopReason, "aborted");
    assert.ok(lines >= 2000);
  }, {});
});
