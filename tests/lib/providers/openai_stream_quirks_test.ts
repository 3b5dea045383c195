/**
 * `parseOpenAIStream` on hand-written streams for quirks no recording
 * covers: cut connections, malformed chunks, resent and renumbered tool
 * calls, interleaved reasoning, Mistral's array content, reasoning sent only
 * as `reasoning_details`, aborts and source failures.
 */
import assert from "node:assert/strict";
import { ProviderError } from "../../../lib/errors.ts";
import type { ProviderStreamEvent } from "../../../lib/providers/provider.ts";
import { parseOpenAIStream } from "../../../lib/providers/openai_stream.ts";
import { type SseEvent, SseParser } from "../../../lib/providers/sse.ts";
import { type DrainedStream, drainProviderStream } from "../../support/provider_stream.ts";

const URL_SHOWN = "https://llm.example/v1/chat/completions";

/** One `data:` line per item (objects are JSON-encoded), as a server would send them. */
function sse(...items: (object | string)[]): string {
  return items.map((item) => `data: ${typeof item === "string" ? item : JSON.stringify(item)}\n\n`)
    .join("");
}

function chunk(delta: object, finishReason: string | null = null, extra: object = {}): object {
  return { choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra };
}

/** The body's events as one batch, then an optional failure of the source. */
async function* events(body: string, failure?: unknown): AsyncGenerator<SseEvent[]> {
  const parser = new SseParser();
  yield parser.push(body);
  yield parser.end();
  if (failure !== undefined) throw failure;
}

function parse(body: string, failure?: unknown): Promise<DrainedStream> {
  return drainProviderStream(parseOpenAIStream(events(body, failure), URL_SHOWN));
}

/** The events streamed before the stream failed, and the failure. */
async function eventsUntilFailure(
  source: AsyncIterable<readonly SseEvent[]>,
): Promise<{ events: ProviderStreamEvent[]; error: unknown }> {
  const seen: ProviderStreamEvent[] = [];
  try {
    for await (const batch of parseOpenAIStream(source, URL_SHOWN)) seen.push(...batch);
  } catch (error) {
    return { events: seen, error };
  }
  return assert.fail("expected the stream to fail");
}

async function parseError(body: string, failure?: unknown): Promise<ProviderError> {
  try {
    const { result } = await parse(body, failure);
    assert.fail(`expected an error, got ${JSON.stringify(result)}`);
  } catch (error) {
    assert.ok(error instanceof ProviderError, String(error));
    return error;
  }
}

Deno.test("openai stream: EOF without [DONE] or finish_reason is a cut connection, with partial", async () => {
  const error = await parseError(sse(chunk({ content: "Hel" }), chunk({ content: "lo" })));
  assert.equal(error.kind, "network");
  assert.ok(error.retryable);
  assert.match(error.message, /ended early/);
  assert.deepEqual(error.partial?.content, [{ type: "text", text: "Hello" }]);
});

Deno.test("openai stream: EOF after a finish_reason without [DONE] is a normal end", async () => {
  const { result } = await parse(sse(chunk({ content: "Hi" }), chunk({}, "stop")));
  assert.equal(result.stopReason, "end_turn");
  assert.deepEqual(result.content, [{ type: "text", text: "Hi" }]);
});

Deno.test("openai stream: nothing after [DONE] is read", async () => {
  const { result } = await parse(
    sse(chunk({ content: "A" }), "[DONE]", chunk({ content: "B" }), "not json"),
  );
  assert.deepEqual(result.content, [{ type: "text", text: "A" }]);
});

Deno.test("openai stream: a chunk that is not JSON fails naming the line, truncated", async () => {
  const bad = `{"choices": [${"x".repeat(500)}`;
  const error = await parseError(sse(chunk({ content: "ok" }), bad, "[DONE]"));
  assert.equal(error.kind, "stream");
  assert.ok(error.message.includes('{"choices": [xxx'), error.message);
  assert.ok(error.message.length < 400, "the quote is truncated");
  assert.deepEqual(error.partial?.content, [{ type: "text", text: "ok" }]);
});

Deno.test("openai stream: vLLM's flat error object is a classified error", async () => {
  const flat = {
    object: "error",
    message: "This model's maximum context length is 16384 tokens. However, you requested 19591",
    type: "BadRequestError",
    param: null,
    code: 400,
  };
  const error = await parseError(sse(flat));
  assert.equal(error.kind, "context_overflow");
});

Deno.test("openai stream: finish_reason error without an error object is a server error", async () => {
  const error = await parseError(sse(chunk({ content: "par" }), chunk({}, "error"), "[DONE]"));
  assert.equal(error.kind, "server");
  assert.deepEqual(error.partial?.content, [{ type: "text", text: "par" }]);
});

Deno.test("openai stream: a call resent whole is not duplicated nor concatenated", async () => {
  const call = {
    index: 0,
    id: "c1",
    type: "function",
    function: { name: "f", arguments: '{"a":1}' },
  };
  const { result } = await parse(
    sse(
      chunk({ tool_calls: [call] }),
      chunk({ tool_calls: [call] }),
      chunk({}, "tool_calls"),
      "[DONE]",
    ),
  );
  assert.deepEqual(result.content, [{ type: "tool_use", id: "c1", name: "f", input: { a: 1 } }]);
});

Deno.test("openai stream: a new id under a used index is a second call", async () => {
  const first = { index: 0, id: "a", function: { name: "f", arguments: "{}" } };
  const second = { index: 0, id: "b", function: { name: "g", arguments: '{"x":' } };
  const rest = { index: 0, function: { arguments: "2}" } };
  const { result } = await parse(
    sse(
      chunk({ tool_calls: [first] }),
      chunk({ tool_calls: [second] }),
      chunk({ tool_calls: [rest] }),
      "[DONE]",
    ),
  );
  assert.deepEqual(result.content, [
    { type: "tool_use", id: "a", name: "f", input: {} },
    { type: "tool_use", id: "b", name: "g", input: { x: 2 } },
  ]);
  assert.equal(result.stopReason, "tool_use", "calls without a finish_reason");
});

Deno.test("openai stream: fragments with neither index nor id extend the last call", async () => {
  const { result } = await parse(
    sse(
      chunk({ tool_calls: [{ id: "k", function: { name: "f", arguments: '{"p":' } }] }),
      chunk({ tool_calls: [{ function: { arguments: '"v"}' } }] }),
      chunk({}, "tool_calls"),
      "[DONE]",
    ),
  );
  assert.deepEqual(result.content, [{ type: "tool_use", id: "k", name: "f", input: { p: "v" } }]);
});

Deno.test("openai stream: a call without an id gets a generated one", async () => {
  const { events, result } = await parse(
    sse(chunk({ tool_calls: [{ index: 0, function: { name: "f", arguments: "{}" } }] }), "[DONE]"),
  );
  const block = result.content[0];
  assert.ok(block?.type === "tool_use");
  assert.match(block.id, /^call_[0-9a-f]{24}$/);
  assert.deepEqual(events[0], {
    type: "block_start",
    blockIndex: 0,
    kind: "tool_use",
    toolUse: { id: block.id, name: "f" },
  });
});

Deno.test("openai stream: arguments cut by the token limit keep the raw text", async () => {
  const raw = '{"path": "a.txt", "text": "unfini';
  const { result } = await parse(
    sse(
      chunk({ tool_calls: [{ index: 0, id: "w", function: { name: "write", arguments: raw } }] }),
      chunk({}, "length"),
      "[DONE]",
    ),
  );
  assert.equal(result.stopReason, "max_tokens");
  assert.deepEqual(result.content, [
    { type: "tool_use", id: "w", name: "write", input: {}, invalidInput: raw },
  ]);
});

Deno.test("openai stream: arguments that are JSON but not an object are invalid input", async () => {
  const { result } = await parse(
    sse(
      chunk({ tool_calls: [{ index: 0, id: "w", function: { name: "f", arguments: "[1]" } }] }),
      "[DONE]",
    ),
  );
  assert.deepEqual(result.content, [{
    type: "tool_use",
    id: "w",
    name: "f",
    input: {},
    invalidInput: "[1]",
  }]);
});

Deno.test("openai stream: reasoning, text, reasoning again and a call are four blocks in order", async () => {
  const { events, result } = await parse(
    sse(
      chunk({ reasoning_content: "think", content: null }),
      chunk({ content: "say" }),
      chunk({ reasoning: "more" }),
      chunk({ tool_calls: [{ index: 0, id: "t", function: { name: "f", arguments: "{}" } }] }),
      chunk({}, "tool_calls"),
      "[DONE]",
    ),
  );
  assert.deepEqual(result.content, [
    { type: "thinking", thinking: "think" },
    { type: "text", text: "say" },
    { type: "thinking", thinking: "more" },
    { type: "tool_use", id: "t", name: "f", input: {} },
  ]);
  const order = events.map((event) => `${event.type}:${event.blockIndex}`);
  assert.deepEqual(order, [
    "block_start:0",
    "content_delta:0",
    "block_complete:0",
    "block_start:1",
    "content_delta:1",
    "block_complete:1",
    "block_start:2",
    "content_delta:2",
    "block_complete:2",
    "block_start:3",
    "content_delta:3",
    "block_complete:3",
  ]);
});

Deno.test("openai stream: reasoning_content and reasoning carrying the same text count once", async () => {
  const { result } = await parse(
    sse(chunk({ reasoning_content: "same", reasoning: "same" }), chunk({}, "stop"), "[DONE]"),
  );
  assert.deepEqual(result.content, [{ type: "thinking", thinking: "same" }]);
});

Deno.test("openai stream: Mistral's array content streams thinking chunks as reasoning, text chunks as text", async () => {
  const thinking = (text: string) => ({ type: "thinking", thinking: [{ type: "text", text }] });
  const { events, result } = await parse(
    sse(
      chunk({ role: "assistant", content: "" }),
      chunk({ content: [thinking("Let me")] }),
      chunk({ content: [thinking(" count.")] }),
      chunk({ content: [thinking(" Done."), { type: "text", text: "Four" }] }),
      chunk({ content: [{ type: "text", text: "." }] }),
      chunk({ content: "" }, "stop"),
      "[DONE]",
    ),
  );
  assert.deepEqual(result.content, [
    { type: "thinking", thinking: "Let me count. Done." },
    { type: "text", text: "Four." },
  ]);
  assert.deepEqual(events.map((event) => `${event.type}:${event.blockIndex}`), [
    "block_start:0",
    "content_delta:0",
    "content_delta:0",
    "content_delta:0",
    "block_complete:0",
    "block_start:1",
    "content_delta:1",
    "content_delta:1",
    "block_complete:1",
  ]);
});

Deno.test("openai stream: reasoning sent only as reasoning_details is thinking; encrypted data is dropped", async () => {
  const { result } = await parse(
    sse(
      chunk({ reasoning_details: [{ type: "reasoning.text", text: "Add", index: 0 }] }),
      chunk({
        reasoning_details: [
          { type: "reasoning.text", text: " them.", index: 0 },
          { type: "reasoning.encrypted", data: "opaque==", index: 1 },
          { type: "reasoning.summary", summary: " Sum is 4.", index: 2 },
        ],
      }),
      chunk({ content: "4" }, "stop"),
      "[DONE]",
    ),
  );
  assert.deepEqual(result.content, [
    { type: "thinking", thinking: "Add them. Sum is 4." },
    { type: "text", text: "4" },
  ]);
});

Deno.test("openai stream: finish_reason stop with calls is tool_use; content_filter is refusal", async () => {
  const call = { index: 0, id: "c", function: { name: "f", arguments: "{}" } };
  const withCalls = await parse(sse(chunk({ tool_calls: [call] }), chunk({}, "stop"), "[DONE]"));
  assert.equal(withCalls.result.stopReason, "tool_use");
  const filtered = await parse(sse(chunk({ content: "x" }), chunk({}, "content_filter"), "[DONE]"));
  assert.equal(filtered.result.stopReason, "refusal");
});

Deno.test("openai stream: the last usage wins, never a sum (cumulative servers)", async () => {
  const report = (prompt: number, completion: number) => ({
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  });
  const { result } = await parse(
    sse(
      chunk({ content: "a" }, null, { usage: report(10, 1) }),
      chunk({ content: "b" }, null, { usage: report(10, 2) }),
      chunk({}, "stop", { usage: null }),
      "[DONE]",
    ),
  );
  assert.equal(result.usage.inputTokens, 10);
  assert.equal(result.usage.outputTokens, 2);
});

Deno.test("openai stream: usage inside the choice (Moonshot) is read", async () => {
  const body = sse(
    {
      choices: [{
        index: 0,
        delta: {},
        finish_reason: "stop",
        usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
      }],
    },
    "[DONE]",
  );
  const { result } = await parse(body);
  assert.equal(result.usage.inputTokens, 5);
  assert.equal(result.usage.outputTokens, 3);
});

Deno.test("openai stream: an abort from the source returns the partial message as aborted", async () => {
  const body = sse(
    chunk({ content: "partial " }),
    chunk({
      tool_calls: [{ index: 0, id: "c", function: { name: "f", arguments: '{"path": "a.t' } }],
    }),
  );
  const { result } = await parse(body, new DOMException("stopped", "AbortError"));
  assert.equal(result.stopReason, "aborted");
  // The half-streamed call keeps what is readable, and says it is incomplete.
  assert.deepEqual(result.content, [
    { type: "text", text: "partial " },
    { type: "tool_use", id: "c", name: "f", input: { path: "a.t" }, invalidInput: '{"path": "a.t' },
  ]);
});

Deno.test("openai stream: a source failure gets the partial attached", async () => {
  const cut = new ProviderError("network", "connection reset");
  const error = await parseError(sse(chunk({ content: "so far" })), cut);
  assert.equal(error, cut);
  assert.deepEqual(error.partial?.content, [{ type: "text", text: "so far" }]);
  const unknown = await parseError(sse(chunk({ content: "x" })), new TypeError("boom"));
  assert.equal(unknown.kind, "network");
  assert.match(unknown.message, /boom/);
  assert.deepEqual(unknown.partial?.content, [{ type: "text", text: "x" }]);
});

Deno.test("openai stream: empty deltas, comments and empty choices open no block", async () => {
  const body = ": keep-alive\n\n" +
    sse(
      { choices: [], prompt_filter_results: [] },
      chunk({ role: "assistant", content: "", refusal: null, reasoning: null }),
      chunk({ content: "", tool_calls: null }),
      chunk({}, "stop"),
      "[DONE]",
    );
  const { events, result } = await parse(body);
  assert.deepEqual(events, []);
  assert.deepEqual(result.content, []);
  assert.equal(result.stopReason, "end_turn");
});

Deno.test("openai stream: a failure mid-batch yields the earlier events first, as one event per batch would", async () => {
  const body = sse(chunk({ content: "Hel" }), chunk({ content: "lo" }, "error"), "[DONE]");
  async function* oneByOne(): AsyncGenerator<SseEvent[]> {
    for (const event of new SseParser().push(body)) yield [event];
  }
  const whole = await eventsUntilFailure(events(body));
  const single = await eventsUntilFailure(oneByOne());
  // The failing chunk's own delta is not streamed, but it is in the partial message.
  assert.deepEqual(whole.events, [
    { type: "block_start", blockIndex: 0, kind: "text" },
    { type: "content_delta", blockIndex: 0, kind: "text", text: "Hel" },
  ]);
  assert.deepEqual(whole.events, single.events);
  assert.ok(whole.error instanceof ProviderError && single.error instanceof ProviderError);
  assert.equal(whole.error.kind, "server");
  assert.equal(whole.error.message, single.error.message);
  assert.deepEqual(whole.error.partial?.content, [{ type: "text", text: "Hello" }]);
  assert.deepEqual(whole.error.partial, single.error.partial);
});
