/**
 * `parseOpenAIResponsesStream` against every recorded Responses stream in
 * `tests/fixtures/providers/openai-responses/`: fed whole and in seeded
 * random chunks, checked against the facts the MANIFEST states (copied by
 * hand below) and against the official `openai` SDK's own accumulation of
 * the same bytes (`client.responses.stream(…).finalResponse()`). Then the
 * shapes no recording holds (parallel calls, cached tokens, several summary
 * parts, servers that send only final forms, flat error events), each also
 * replayed through the SDK where it accepts them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import OpenAI from "openai";
import { ProviderError, type ProviderErrorKind } from "../../../lib/errors.ts";
import type { StopReason } from "../../../lib/message.ts";
import { parseOpenAIResponsesStream } from "../../../lib/providers/openai_responses_stream.ts";
import {
  decodeReasoningSignature,
  encodeReasoningSignature,
} from "../../../lib/providers/openai_responses_reasoning.ts";
import { emptyUsage, type Usage } from "../../../lib/usage.ts";
import { randomChunks, seededRandom, sseEvents } from "../../support/chunked_sse.ts";
import { assertAgreesWithSdk, runSdk, type SdkRun } from "./responses_sdk.ts";
import {
  assertEventInvariants,
  type ParserRun,
  runParser,
  textOf,
  thinkingOf,
  type ToolFact,
  toolsOf,
} from "../../support/parsed_stream.ts";

const FIXTURES_DIR = new URL("../../fixtures/providers/openai-responses", import.meta.url)
  .pathname;
const URL_SHOWN = "https://fixture.invalid/v1/responses";

// ---------------------------------------------------------------------------
// MANIFEST facts ("exercises → final assembled message"), copied by hand.

interface Facts {
  text: string;
  reasoning?: { startsWith: string; length: number; itemId: string };
  tools?: ToolFact[];
  stopReason?: StopReason;
  usage: Usage;
  error?: { kind: ProviderErrorKind; message: string };
}

function usage(input: number, output: number, extra: Partial<Usage> = {}): Usage {
  return { ...emptyUsage(), inputTokens: input, outputTokens: output, ...extra };
}

const FIXTURES: Record<string, Facts> = {
  "text-pong": { text: "pong", stopReason: "end_turn", usage: usage(11, 5) },
  "function-call-multiply": {
    text: "",
    tools: [{ id: "call_sVidsfFJ6zlzRpelrPkTPlpd", name: "multiply", input: { a: 1231, b: 2331 } }],
    stopReason: "tool_use",
    usage: usage(58, 23),
  },
  "function-call-weather": {
    text: "",
    tools: [{
      id: "call_2FQdm3Br7Qb35YUBSkDR7kue",
      name: "get_weather",
      input: { city: "Beijing" },
    }],
    stopReason: "tool_use",
    usage: usage(45, 25),
  },
  "reasoning-summary-function-call": {
    text: "",
    reasoning: {
      startsWith: "**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7",
      length: 163,
      itemId: "rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9",
    },
    tools: [{
      id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn",
      name: "calculator",
      input: { a: 12, b: 7, op: "add" },
    }],
    stopReason: "tool_use",
    usage: usage(134, 28),
  },
  "incomplete-max-output-tokens": {
    text: "pong",
    stopReason: "max_tokens",
    usage: usage(11, 16, { reasoningTokens: 11 }),
  },
  "error-insufficient-quota": {
    text: "",
    usage: emptyUsage(),
    error: { kind: "invalid_request", message: "You exceeded your current quota" },
  },
  "failed-rate-limit": {
    text: "",
    usage: emptyUsage(),
    // "Request too large … tokens per min": this request alone is over the limit.
    error: { kind: "invalid_request", message: "Request too large for gpt-4o-mini" },
  },
};

// ---------------------------------------------------------------------------
// Running our parser.

type Run = ParserRun;

function readFixture(name: string): Uint8Array {
  return Deno.readFileSync(join(FIXTURES_DIR, `${name}.sse`));
}

function parseChunks(chunks: readonly (Uint8Array | string)[]): Promise<Run> {
  return runParser(parseOpenAIResponsesStream(sseEvents(chunks), URL_SHOWN));
}

/** Ours and the SDK's readings of the same bytes agree (see `assertAgreesWithSdk`). */
function assertRunAgrees(ours: Run, theirs: SdkRun): void {
  assert.equal(ours.error, undefined, `our error: ${ours.error}`);
  assertAgreesWithSdk(ours.result!, theirs);
}

// ---------------------------------------------------------------------------
// The recorded streams.

const fixtureNames = [...Deno.readDirSync(FIXTURES_DIR)]
  .filter((entry) => entry.name.endsWith(".sse"))
  .map((entry) => entry.name.slice(0, -".sse".length))
  .sort();

Deno.test("openai-responses fixtures: every recorded stream has MANIFEST facts in this test", () => {
  assert.ok(fixtureNames.length >= 7, `expected the recorded fixtures in ${FIXTURES_DIR}`);
  assert.deepEqual(fixtureNames, Object.keys(FIXTURES).sort());
});

for (const name of fixtureNames) {
  const facts = FIXTURES[name];
  if (!facts) continue; // reported by the test above

  Deno.test(`openai-responses fixture ${name}: assembles the MANIFEST message`, async () => {
    const run = await parseChunks([readFixture(name)]);
    assertEventInvariants(run);
    if (run.error) assert.ok(run.error.partial, "the error carries the partial message");
    const message = run;
    assert.equal(textOf(message.content), facts.text);
    const thinking = message.content.filter((block) => block.type === "thinking");
    if (facts.reasoning) {
      const [block] = thinking;
      assert.ok(block?.type === "thinking" && thinking.length === 1);
      assert.ok(block.thinking.startsWith(facts.reasoning.startsWith), block.thinking);
      assert.equal(block.thinking.length, facts.reasoning.length);
      const item = decodeReasoningSignature(block.signature);
      assert.equal(item?.id, facts.reasoning.itemId);
      assert.match(item?.encryptedContent ?? "", /^gAAAAA/);
    } else assert.deepEqual(thinking, []);
    assert.deepEqual(toolsOf(message.content), facts.tools ?? []);
    assert.deepEqual(message.usage, facts.usage);
    if (facts.error) {
      assert.ok(run.error instanceof ProviderError, `expected an error, got ${run.result}`);
      assert.equal(run.error.kind, facts.error.kind, run.error.message);
      assert.ok(run.error.message.includes(facts.error.message), run.error.message);
      assert.ok(run.error.message.startsWith("fixture.invalid sent an error mid-stream"));
      assert.equal(run.error.retryable, false);
    } else {
      assert.equal(run.error, undefined, `unexpected error: ${run.error}`);
      assert.equal(run.result?.stopReason, facts.stopReason);
      assert.equal(run.result?.unrecognised, undefined, "every event and item is known");
    }
  });

  Deno.test(`openai-responses fixture ${name}: same events and message in random chunks`, async () => {
    const bytes = readFixture(name);
    const whole = await parseChunks([bytes]);
    for (const seed of [1, 2, 3, 42]) {
      const split = await parseChunks(randomChunks(bytes, seededRandom(seed), 23));
      assert.deepEqual(split.events, whole.events, `seed ${seed}: events`);
      assert.deepEqual(split.result, whole.result, `seed ${seed}: result`);
      if (whole.error instanceof ProviderError) {
        assert.ok(split.error instanceof ProviderError, `seed ${seed}: error`);
        assert.equal(split.error.message, whole.error.message);
        assert.deepEqual(split.error.partial, whole.error.partial);
      }
    }
  });
}

for (
  const name of [
    "text-pong",
    "function-call-multiply",
    "function-call-weather",
    "reasoning-summary-function-call",
    "incomplete-max-output-tokens",
  ]
) {
  Deno.test(`openai-responses fixture ${name}: agrees with the openai SDK`, async () => {
    const bytes = readFixture(name);
    const [ours, theirs] = await Promise.all([parseChunks([bytes]), runSdk(bytes)]);
    assertRunAgrees(ours, theirs);
  });
}

Deno.test("openai-responses fixture error-insufficient-quota: the openai SDK throws the same server error", async () => {
  const bytes = readFixture("error-insufficient-quota");
  const [ours, theirs] = await Promise.all([parseChunks([bytes]), runSdk(bytes)]);
  assert.ok(theirs.error instanceof OpenAI.APIError, `SDK: ${theirs.error}`);
  assert.ok(ours.error instanceof ProviderError);
  assert.ok(ours.error.message.includes(theirs.error.message), ours.error.message);
});

Deno.test("openai-responses fixture failed-rate-limit: the openai SDK ends with status failed and the error we throw", async () => {
  const bytes = readFixture("failed-rate-limit");
  const [ours, theirs] = await Promise.all([parseChunks([bytes]), runSdk(bytes)]);
  assert.equal(theirs.final?.status, "failed");
  const sdkError = theirs.final?.error;
  assert.ok(sdkError && ours.error instanceof ProviderError);
  assert.ok(ours.error.message.includes(sdkError.message), ours.error.message);
  assert.ok(ours.error.message.includes(sdkError.code), ours.error.message);
});

// ---------------------------------------------------------------------------
// Shapes no recording holds, built as the API sends them.

let sequence = 0;
function sse(type: string, fields: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${
    JSON.stringify({ type, ...fields, sequence_number: sequence++ })
  }\n\n`;
}

function created(): string {
  return sse("response.created", {
    response: { id: "resp_x", object: "response", status: "in_progress", model: "m", output: [] },
  });
}

function completed(output: unknown[], usageWire: unknown, status = "completed"): string {
  const type = status === "completed" ? "response.completed" : `response.${status}`;
  return sse(type, {
    response: { id: "resp_x", object: "response", status, model: "m", output, usage: usageWire },
  });
}

const USAGE_CACHED = {
  input_tokens: 2006,
  input_tokens_details: { cached_tokens: 1920 },
  output_tokens: 300,
  output_tokens_details: { reasoning_tokens: 256 },
  total_tokens: 2306,
};

function call(index: number, callId: string, name: string, args: string[]): {
  events: string;
  item: Record<string, unknown>;
} {
  const id = `fc_${index}`;
  const item = { id, type: "function_call", call_id: callId, name };
  let events = sse("response.output_item.added", {
    output_index: index,
    item: { ...item, status: "in_progress", arguments: "" },
  });
  for (const delta of args) {
    events += sse("response.function_call_arguments.delta", {
      output_index: index,
      item_id: id,
      delta,
    });
  }
  const done = { ...item, status: "completed", arguments: args.join("") };
  events += sse("response.function_call_arguments.done", {
    output_index: index,
    item_id: id,
    arguments: done.arguments,
  });
  events += sse("response.output_item.done", { output_index: index, item: done });
  return { events, item: done };
}

function reasoning(index: number, parts: string[], encrypted: string): {
  events: string;
  item: Record<string, unknown>;
} {
  const id = `rs_${index}`;
  let events = sse("response.output_item.added", {
    output_index: index,
    item: { id, type: "reasoning", summary: [], encrypted_content: "in-progress" },
  });
  parts.forEach((text, summaryIndex) => {
    const at = { output_index: index, item_id: id, summary_index: summaryIndex };
    events += sse("response.reasoning_summary_part.added", {
      ...at,
      part: { type: "summary_text", text: "" },
    });
    for (const delta of [text.slice(0, 5), text.slice(5)]) {
      events += sse("response.reasoning_summary_text.delta", { ...at, delta });
    }
    events += sse("response.reasoning_summary_part.done", {
      ...at,
      part: { type: "summary_text", text },
    });
  });
  const item = {
    id,
    type: "reasoning",
    summary: parts.map((text) => ({ type: "summary_text", text })),
    encrypted_content: encrypted,
  };
  events += sse("response.output_item.done", { output_index: index, item });
  return { events, item };
}

Deno.test("openai-responses: parallel calls after a multi-part summary, with cached tokens, agree with the SDK", async () => {
  const thought = reasoning(
    0,
    ["**Two lookups**", "Weather first, then the attractions."],
    "enc_A",
  );
  const first = call(1, "call_weather", "weather", ['{"location":', '"San Francisco"}']);
  const second = call(2, "call_sights", "cityAttractions", ['{"city"', ':"Rome"}']);
  const body = created() + thought.events + first.events + second.events +
    completed([thought.item, first.item, second.item], USAGE_CACHED);
  const bytes = new TextEncoder().encode(body);
  const [ours, theirs] = await Promise.all([parseChunks([bytes]), runSdk(bytes)]);
  assertEventInvariants(ours);
  assertRunAgrees(ours, theirs);
  assert.deepEqual(ours.result?.content.map((block) => block.type), [
    "thinking",
    "tool_use",
    "tool_use",
  ]);
  assert.equal(
    thinkingOf(ours.result!.content),
    "**Two lookups**\n\nWeather first, then the attractions.",
  );
  assert.deepEqual(ours.result?.usage, {
    inputTokens: 86,
    outputTokens: 300,
    cacheReadTokens: 1920,
    cacheWriteTokens: 0,
    reasoningTokens: 256,
  });
  const split = await parseChunks(randomChunks(bytes, seededRandom(7), 11));
  assert.deepEqual(split.events, ours.events);
});

Deno.test("openai-responses: a server that sends only final forms is read from them", async () => {
  const message = {
    id: "msg_1",
    type: "message",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: "Hello ", annotations: [] }, {
      type: "output_text",
      text: "there",
      annotations: [],
    }],
  };
  const fn = {
    id: "fc_2",
    type: "function_call",
    call_id: "call_1",
    name: "read",
    arguments: '{"path":"a"}',
    status: "completed",
  };
  const body = sse("response.output_item.done", { output_index: 0, item: message }) +
    sse("response.output_item.done", { output_index: 1, item: fn }) +
    completed([message, fn], null);
  const run = await parseChunks([body]);
  assertEventInvariants(run);
  assert.deepEqual(run.result, {
    content: [
      { type: "text", text: "Hello there" },
      { type: "tool_use", id: "call_1", name: "read", input: { path: "a" } },
    ],
    usage: emptyUsage(),
    stopReason: "tool_use",
  });
});

Deno.test("openai-responses: final arguments that differ from the streamed ones replace them", async () => {
  const id = "fc_0";
  const body = sse("response.output_item.added", {
    output_index: 0,
    item: { id, type: "function_call", call_id: "call_1", name: "read", arguments: "" },
  }) +
    sse("response.function_call_arguments.delta", { output_index: 0, item_id: id, delta: '{"pa' }) +
    sse("response.function_call_arguments.done", {
      output_index: 0,
      item_id: id,
      arguments: '{"path":"b"}',
    }) +
    completed([], null);
  const run = await parseChunks([body]);
  assert.deepEqual(run.result?.content, [{
    type: "tool_use",
    id: "call_1",
    name: "read",
    input: { path: "b" },
  }]);
});

Deno.test("openai-responses: refusal text and a content filter", async () => {
  const item = { id: "msg_1", type: "message", role: "assistant" };
  const refusal = sse("response.output_item.added", { output_index: 0, item }) +
    sse("response.refusal.delta", { output_index: 0, item_id: "msg_1", delta: "I can't help." });
  const refused = await parseChunks([refusal + completed([], null)]);
  assert.equal(refused.result?.stopReason, "refusal");
  assert.equal(textOf(refused.result!.content), "I can't help.");
  const filtered = await parseChunks([
    completed([], null, "incomplete").replace(
      '"status":"incomplete"',
      '"status":"incomplete","incomplete_details":{"reason":"content_filter"}',
    ),
  ]);
  assert.equal(filtered.result?.stopReason, "refusal");
});

Deno.test("openai-responses: unknown items, events and incomplete reasons are told, not fatal", async () => {
  const search = { id: "ws_1", type: "web_search_call", status: "completed" };
  const body = sse("response.output_item.added", { output_index: 0, item: search }) +
    sse("response.web_search_call.searching", { output_index: 0, item_id: "ws_1" }) +
    sse("response.output_item.done", { output_index: 0, item: search }) +
    sse("response.brand_new_event", {}) +
    completed([], null, "incomplete").replace(
      '"status":"incomplete"',
      '"status":"incomplete","incomplete_details":{"reason":"budget_exhausted"}',
    );
  const run = await parseChunks([body]);
  assert.deepEqual(run.result, {
    content: [],
    usage: emptyUsage(),
    stopReason: "max_tokens",
    unrecognised: [
      'item type "web_search_call"',
      'event type "response.brand_new_event"',
      'incomplete reason "budget_exhausted"',
    ],
  });
});

Deno.test("openai-responses: a reasoning item with no text and no encrypted content makes no block", async () => {
  const item = { id: "rs_1", type: "reasoning", summary: [] };
  const body = sse("response.output_item.added", { output_index: 0, item }) +
    sse("response.output_item.done", { output_index: 0, item }) + completed([item], null);
  const run = await parseChunks([body]);
  assert.deepEqual(run.events, []);
  assert.deepEqual(run.result?.content, []);
  // With encrypted content (a summary the model chose not to write), the block carries it.
  const carried = { ...item, encrypted_content: "enc" };
  const withContent = await parseChunks([
    sse("response.output_item.done", { output_index: 0, item: carried }) + completed([], null),
  ]);
  assert.deepEqual(withContent.result?.content, [{
    type: "thinking",
    thinking: "",
    signature: encodeReasoningSignature({ id: "rs_1", encryptedContent: "enc" }),
  }]);
});

Deno.test("openai-responses: error events are classified, nested or flat", async () => {
  const cases: [Record<string, unknown>, ProviderErrorKind][] = [
    [{
      error: {
        type: "invalid_request_error",
        code: "context_length_exceeded",
        message: "Your input exceeds the context window of this model.",
        param: "input",
      },
    }, "context_overflow"],
    [{ code: "rate_limit_exceeded", message: "Rate limit reached", param: null }, "rate_limit"],
    [{ code: "server_error", message: "The server had an error", param: null }, "server"],
  ];
  for (const [fields, kind] of cases) {
    const run = await parseChunks([sse("error", fields)]);
    assert.ok(run.error instanceof ProviderError, String(run.error));
    assert.equal(run.error.kind, kind, run.error.message);
    assert.match(run.error.message, /^fixture\.invalid sent an error mid-stream/);
  }
});

Deno.test("openai-responses: response.failed is classified by its code, with the partial message", async () => {
  const item = { id: "msg_1", type: "message", role: "assistant" };
  const prefix = sse("response.output_item.added", { output_index: 0, item }) +
    sse("response.output_text.delta", { output_index: 0, item_id: "msg_1", delta: "Half" });
  const failed = (error: unknown) =>
    sse("response.failed", {
      response: { id: "r", status: "failed", error, usage: USAGE_CACHED },
    });
  const cases: [unknown, ProviderErrorKind][] = [
    [{ code: "server_error", message: "Something went wrong" }, "server"],
    [{ code: "invalid_image", message: "The image could not be read" }, "invalid_request"],
    [{ code: "rate_limit_exceeded", message: "Slow down" }, "rate_limit"],
    [null, "server"],
  ];
  for (const [error, kind] of cases) {
    const run = await parseChunks([prefix + failed(error)]);
    assert.ok(run.error instanceof ProviderError, String(run.error));
    assert.equal(run.error.kind, kind, run.error.message);
    assert.deepEqual(run.error.partial?.content, [{ type: "text", text: "Half" }]);
    assert.equal(run.error.partial?.usage.cacheReadTokens, 1920);
  }
});

Deno.test("openai-responses: a stream cut before its terminal event is a retryable network error", async () => {
  const item = { id: "msg_1", type: "message", role: "assistant" };
  const body = sse("response.output_item.added", { output_index: 0, item }) +
    sse("response.output_text.delta", { output_index: 0, item_id: "msg_1", delta: "Half a" });
  const run = await parseChunks([body]);
  assert.ok(run.error instanceof ProviderError);
  assert.equal(run.error.kind, "network");
  assert.ok(run.error.retryable);
  assert.match(run.error.message, /ended before response\.completed/);
  assert.deepEqual(run.error.partial?.content, [{ type: "text", text: "Half a" }]);
});

Deno.test("openai-responses: an event that is not JSON is a stream error quoting it", async () => {
  const run = await parseChunks(['data: {"type":"response.output_text.delta","delta":\n\n']);
  assert.ok(run.error instanceof ProviderError);
  assert.equal(run.error.kind, "stream");
  assert.match(run.error.message, /sent an event that is not JSON: \{"type"/);
});

Deno.test("openai-responses: a [DONE] marker and events after the terminal one are ignored", async () => {
  const item = { id: "msg_1", type: "message", role: "assistant" };
  const body = sse("response.output_item.added", { output_index: 0, item }) +
    sse("response.output_text.delta", { output_index: 0, item_id: "msg_1", delta: "ok" }) +
    "data: [DONE]\n\n" + completed([], null) +
    sse("response.output_text.delta", { output_index: 0, item_id: "msg_1", delta: "late" });
  const run = await parseChunks([body]);
  assert.equal(textOf(run.result!.content), "ok");
  assert.equal(run.result?.stopReason, "end_turn");
});

Deno.test("openai-responses: an abort from the source returns the partial message as aborted", async () => {
  const item = { id: "fc_1", type: "function_call", call_id: "call_1", name: "write" };
  const body = sse("response.output_item.added", { output_index: 0, item }) +
    sse("response.function_call_arguments.delta", {
      output_index: 0,
      item_id: "fc_1",
      delta: '{"text":"cut',
    });
  async function* source() {
    yield* sseEvents([body]);
    throw new DOMException("stop", "AbortError");
  }
  const stream = parseOpenAIResponsesStream(source(), URL_SHOWN);
  let step = await stream.next();
  while (!step.done) step = await stream.next();
  assert.equal(step.value.stopReason, "aborted");
  assert.deepEqual(step.value.content, [{
    type: "tool_use",
    id: "call_1",
    name: "write",
    input: {},
    invalidInput: '{"text":"cut',
  }]);
});
