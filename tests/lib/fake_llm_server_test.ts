/**
 * Self-test of the fake LLM server: every reply kind, through plain fetch
 * and our SSE parser; generated turns also through the official SDKs, so the
 * fake speaks both protocols the way their own clients expect.
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { type SseEvent, SseParser } from "../../lib/providers/sse.ts";
import {
  authErrorReply,
  contextOverflowReply,
  FAKE_PATHS,
  type FakeBlock,
  FakeLlmServer,
  type FakeProtocol,
  overloadedReply,
  PROVIDER_FIXTURES_DIR,
  rateLimitReply,
  withFakeServer,
} from "../support/fake_llm_server.ts";

const BLOCKS: readonly FakeBlock[] = [
  { type: "thinking", thinking: "The user wants the weather in Paris.", signature: "sig-123" },
  { type: "text", text: "Let me check — ünïcødé 🦅 included." },
  { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris", days: [1, 2] } },
];

function post(server: FakeLlmServer, protocol: FakeProtocol, init: RequestInit = {}) {
  return fetch(`${server.url}${FAKE_PATHS[protocol]}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "test-model", stream: true }),
    ...init,
  });
}

/** Reads a whole response body through the parser, collecting the raw reads too. */
async function readEvents(response: Response): Promise<{ events: SseEvent[]; reads: number }> {
  const parser = new SseParser();
  const events: SseEvent[] = [];
  let reads = 0;
  for await (const chunk of response.body!) {
    reads++;
    events.push(...parser.push(chunk));
  }
  events.push(...parser.end());
  return { events, reads };
}

Deno.test("fake server: base URLs follow each SDK's convention", async () => {
  await withFakeServer((server) => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(server.anthropicBaseUrl, server.url);
    assert.equal(server.openaiBaseUrl, `${server.url}/v1`);
    return Promise.resolve();
  });
});

Deno.test("fake server: records method, path, headers and JSON body", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({ kind: "sse", body: "data: [DONE]\n\n" });
    const response = await post(server, "openai", {
      headers: { "content-type": "application/json", "x-test": "yes" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    await response.body?.cancel();
    const [request] = server.requests;
    assert.equal(request?.method, "POST");
    assert.equal(request?.path, "/v1/chat/completions");
    assert.equal(request?.protocol, "openai");
    assert.equal(request?.headers["x-test"], "yes");
    assert.deepEqual(request?.body, { model: "m", messages: [{ role: "user", content: "hi" }] });
  });
});

Deno.test("fake server: an empty queue answers 500 naming the route", async () => {
  await withFakeServer(async (server) => {
    const response = await post(server, "anthropic");
    assert.equal(response.status, 500);
    const body = await response.json();
    assert.equal(body.error.message, "fake server: no scripted reply for POST /v1/messages");
  });
});

Deno.test("fake server: an unknown route answers 404", async () => {
  await withFakeServer(async (server) => {
    const response = await fetch(`${server.url}/v1/nope`, { method: "POST", body: "{}" });
    assert.equal(response.status, 404);
    assert.match((await response.json()).error.message, /no route for POST \/v1\/nope/);
  });
});

Deno.test("fake server: fixture replies replay the recorded bytes exactly", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({ kind: "fixture", path: "anthropic/text-hello.sse" });
    const response = await post(server, "anthropic");
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    const expected = await Deno.readFile(`${PROVIDER_FIXTURES_DIR}anthropic/text-hello.sse`);
    assert.deepEqual(new Uint8Array(await response.arrayBuffer()), expected);
  });
});

Deno.test("fake server: chunkSize splits bodies into many reads, same bytes", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({ kind: "fixture", path: "openai/text-usage.sse" });
    const expected = await Deno.readFile(`${PROVIDER_FIXTURES_DIR}openai/text-usage.sse`);
    const response = await post(server, "openai");
    const { events, reads } = await readEvents(response);
    assert.ok(reads > 5, `expected many reads with chunkSize 7, got ${reads}`);
    const whole = new SseParser();
    assert.deepEqual(events, [...whole.push(expected), ...whole.end()]);
  }, { chunkSize: 7 });
});

Deno.test("fake server: sse replies send the raw text", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({ kind: "sse", body: ": comment\n\ndata: one\n\nevent: x\ndata: two\n\n" });
    const { events } = await readEvents(await post(server, "openai"));
    assert.deepEqual(events.map((e) => [e.type, e.data]), [["message", "one"], ["x", "two"]]);
  });
});

Deno.test("fake server: generated Anthropic turn parses with the official SDK", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({
      kind: "turn",
      blocks: BLOCKS,
      usage: { inputTokens: 5, cacheReadTokens: 3, cacheWriteTokens: 2, outputTokens: 7 },
      chunkSize: 5,
    });
    const client = new Anthropic({ baseURL: server.anthropicBaseUrl, apiKey: "x", maxRetries: 0 });
    const message = await client.messages
      .stream({
        model: "claude-test",
        max_tokens: 100,
        messages: [{ role: "user", content: "hi" }],
      })
      .finalMessage();
    assert.equal(message.model, "claude-test");
    assert.equal(message.stop_reason, "tool_use");
    assert.deepEqual(message.content, [
      { type: "thinking", thinking: "The user wants the weather in Paris.", signature: "sig-123" },
      { type: "text", text: "Let me check — ünïcødé 🦅 included." },
      {
        type: "tool_use",
        id: "toolu_01",
        name: "get_weather",
        input: { city: "Paris", days: [1, 2] },
      },
    ]);
    assert.equal(message.usage.input_tokens, 5);
    assert.equal(message.usage.cache_read_input_tokens, 3);
    assert.equal(message.usage.cache_creation_input_tokens, 2);
    assert.equal(message.usage.output_tokens, 7);
  });
});

Deno.test("fake server: generated Anthropic turn splits text into several deltas", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "one two three four" }] });
    const { events } = await readEvents(await post(server, "anthropic"));
    const deltas = events.filter((e) => e.type === "content_block_delta");
    assert.ok(deltas.length >= 3, `expected several text deltas, got ${deltas.length}`);
    assert.equal(events.at(-1)?.type, "message_stop");
    const stop = JSON.parse(events.find((e) => e.type === "message_delta")!.data);
    assert.equal(stop.delta.stop_reason, "end_turn");
  });
});

Deno.test("fake server: generated OpenAI turn parses with the official SDK", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({
      kind: "turn",
      blocks: BLOCKS,
      usage: { inputTokens: 5, cacheReadTokens: 3, outputTokens: 7, reasoningTokens: 4 },
      chunkSize: 5,
    });
    const client = new OpenAI({ baseURL: server.openaiBaseUrl, apiKey: "x", maxRetries: 0 });
    const completion = await client.chat.completions
      .stream({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] })
      .finalChatCompletion();
    const choice = completion.choices[0]!;
    assert.equal(completion.model, "gpt-test");
    assert.equal(choice.finish_reason, "tool_calls");
    assert.equal(choice.message.content, "Let me check — ünïcødé 🦅 included.");
    assert.deepEqual(choice.message.tool_calls, [{
      id: "toolu_01",
      type: "function",
      function: { name: "get_weather", arguments: '{"city":"Paris","days":[1,2]}' },
    }]);
    assert.equal(completion.usage?.prompt_tokens, 8);
    assert.equal(completion.usage?.prompt_tokens_details?.cached_tokens, 3);
    assert.equal(completion.usage?.completion_tokens, 7);
    assert.equal(completion.usage?.completion_tokens_details?.reasoning_tokens, 4);
  });
});

Deno.test("fake server: generated OpenAI turn streams reasoning_content and ends with [DONE]", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({ kind: "turn", blocks: BLOCKS, stopReason: "max_tokens" });
    const { events } = await readEvents(await post(server, "openai"));
    assert.equal(events.at(-1)?.data, "[DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    const reasoning = chunks
      .map((c) => c.choices[0]?.delta?.reasoning_content ?? "")
      .join("");
    assert.equal(reasoning, "The user wants the weather in Paris.");
    const finish = chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean);
    assert.deepEqual(finish, ["length"]);
    const argumentFragments = chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
    assert.ok(argumentFragments.length >= 3, "arguments arrive in several fragments");
  });
});

Deno.test("fake server: error helpers send each protocol's real shapes", async () => {
  await withFakeServer(async (server) => {
    server.enqueue(
      contextOverflowReply("anthropic"),
      contextOverflowReply("openai"),
      overloadedReply(),
      overloadedReply("openai"),
      rateLimitReply(3),
      authErrorReply("openai"),
      { kind: "http_error", status: 502, body: "<html>Bad gateway</html>" },
    );
    const overflowA = await post(server, "anthropic");
    assert.equal(overflowA.status, 400);
    assert.match((await overflowA.json()).error.message, /^prompt is too long: \d+ tokens > \d+/);
    const overflowO = await post(server, "openai");
    assert.equal((await overflowO.json()).error.code, "context_length_exceeded");
    const overloaded = await post(server, "anthropic");
    assert.equal(overloaded.status, 529);
    assert.equal((await overloaded.json()).error.type, "overloaded_error");
    const overloadedO = await post(server, "openai");
    assert.equal(overloadedO.status, 503);
    await overloadedO.body?.cancel();
    const limited = await post(server, "anthropic");
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get("retry-after"), "3");
    await limited.body?.cancel();
    const auth = await post(server, "openai");
    assert.equal(auth.status, 401);
    assert.equal((await auth.json()).error.code, "invalid_api_key");
    const html = await post(server, "openai");
    assert.equal(html.status, 502);
    assert.equal(await html.text(), "<html>Bad gateway</html>");
  });
});

Deno.test("fake server: cut sends the first bytes, then the client's read throws", async () => {
  await withFakeServer(async (server) => {
    const path = "anthropic/text-hello.sse";
    server.enqueue({ kind: "cut", afterBytes: 300, source: { kind: "fixture", path } });
    const response = await post(server, "anthropic");
    const received: number[] = [];
    await assert.rejects(async () => {
      for await (const chunk of response.body!) received.push(...chunk);
    });
    const expected = await Deno.readFile(`${PROVIDER_FIXTURES_DIR}${path}`);
    assert.equal(received.length, 300);
    assert.deepEqual(received, [...expected.subarray(0, received.length)]);
  });
});

Deno.test("fake server: malformed puts a non-JSON data line mid-stream", async (t) => {
  for (const protocol of ["anthropic", "openai"] as const) {
    await t.step(protocol, async () => {
      await withFakeServer(async (server) => {
        server.enqueue({ kind: "malformed" });
        const { events } = await readEvents(await post(server, protocol));
        const invalid = events.map((e, i) => ({ e, i })).filter(({ e }) => {
          if (e.data === "[DONE]") return false;
          try {
            JSON.parse(e.data);
            return false;
          } catch {
            return true;
          }
        });
        assert.equal(invalid.length, 1);
        assert.ok(invalid[0]!.i > 1 && invalid[0]!.i < events.length - 2, "in the middle");
      });
    });
  }
});

Deno.test("fake server: stall sends the first bytes, then nothing until the client leaves", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({ kind: "stall", afterBytes: 100, source: { kind: "turn", blocks: BLOCKS } });
    const response = await post(server, "anthropic");
    const reader = response.body!.getReader();
    const first = await reader.read();
    assert.equal(first.value?.length, 100);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const silence = new Promise<"silent">((resolve) => {
      timer = setTimeout(() => resolve("silent"), 200);
    });
    const next = await Promise.race([reader.read().then(() => "data" as const), silence]);
    clearTimeout(timer);
    assert.equal(next, "silent");
    await reader.cancel();
  });
});

Deno.test("fake server: close() ends a stall the client is still waiting on", async () => {
  const server = await FakeLlmServer.start();
  server.enqueue({ kind: "stall", afterBytes: 0, source: { kind: "sse", body: "data: x\n\n" } });
  const response = await post(server, "openai");
  const reader = response.body!.getReader();
  const pending = reader.read();
  await server.close();
  const result = await pending.catch(() => ({ done: true }));
  assert.equal(result.done, true);
  await reader.cancel().catch(() => {});
});

Deno.test("fake server: slow sends one event per chunk with delays", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({
      kind: "slow",
      delayMs: 40,
      source: { kind: "sse", body: "data: 1\n\ndata: 2\n\ndata: 3\n\n" },
    });
    const response = await post(server, "openai");
    const times: number[] = [];
    const parser = new SseParser();
    const start = performance.now();
    const data: string[] = [];
    for await (const chunk of response.body!) {
      for (const event of parser.push(chunk)) {
        data.push(event.data);
        times.push(performance.now() - start);
      }
    }
    assert.deepEqual(data, ["1", "2", "3"]);
    assert.ok(times[2]! - times[0]! >= 70, `events spread over ${times[2]! - times[0]!} ms`);
  });
});

Deno.test("fake server: a client abort during a slow stream frees the response", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({ kind: "slow", delayMs: 50, source: { kind: "turn", blocks: BLOCKS } });
    const controller = new AbortController();
    const response = await post(server, "anthropic", { signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await assert.rejects(reader.read());
  });
});

Deno.test("fake server: headerDelayMs holds the response headers back", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({ kind: "sse", body: "data: late\n\n", headerDelayMs: 150 });
    const start = performance.now();
    const response = await post(server, "openai");
    assert.ok(performance.now() - start >= 140);
    assert.equal((await readEvents(response)).events[0]?.data, "late");
  });
});
