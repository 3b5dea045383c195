/**
 * `parseGoogleStream` against every recorded Gemini stream in
 * `tests/fixtures/providers/google-generative-ai/`: fed whole and in seeded
 * random chunks, checked against the facts its MANIFEST states, and compared
 * with the official `@google/genai` SDK reading the same bytes from the fake
 * server. Then synthetic streams for the cases no recording covers.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ContentBlock } from "../../../lib/content.ts";
import type { ProviderError } from "../../../lib/errors.ts";
import type { StopReason } from "../../../lib/message.ts";
import { isMintedCallId } from "../../../lib/providers/google_call_ids.ts";
import { parseGoogleStream } from "../../../lib/providers/google_stream.ts";
import { classifyHttpError } from "../../../lib/providers/http.ts";
import { carriedSignature } from "../../../lib/providers/google_thought_signatures.ts";
import type { SseEvent } from "../../../lib/providers/sse.ts";
import { tooDeepArguments } from "../../../lib/providers/tool_arguments.ts";
import { emptyUsage, type Usage } from "../../../lib/usage.ts";
import { sseEvents } from "../../support/chunked_sse.ts";
import { withFakeServer } from "../../support/fake_llm_server.ts";
import { chunksOf, type GenaiChunk, readWithGenai } from "../../support/genai_sdk.ts";
import { assertSameInChunks, type ParserRun, runParser } from "../../support/parsed_stream.ts";

const FIXTURES = "google-generative-ai";
const FIXTURES_DIR = new URL(`../../fixtures/providers/${FIXTURES}`, import.meta.url).pathname;
const URL_FOR_ERRORS =
  "https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent?alt=sse";

// ---------------------------------------------------------------------------
// Facts from the fixtures' MANIFEST.md.

type BlockFact =
  | { type: "text"; text?: string; startsWith?: string; endsWith?: string }
  | { type: "thinking"; length: number; startsWith: string }
  /** A signature carrier: an empty thinking block holding the part's signature. */
  | { type: "signature"; length: number }
  /** `id` undefined: Gemini gave none, so it is minted. */
  | { type: "tool_use"; name: string; input: Record<string, unknown>; id?: string };

interface Facts {
  blocks: BlockFact[];
  outcome: { stopReason: StopReason } | { errorKind: ProviderError["kind"] };
  /** Counts as the MANIFEST gives them. */
  usage: {
    prompt: number;
    candidates?: number;
    thoughts?: number;
    cached?: number;
    toolUsePrompt?: number;
  };
  unrecognised?: string[];
}

const text = (value: string): BlockFact => ({ type: "text", text: value });
const signature = (length: number): BlockFact => ({ type: "signature", length });
const call = (name: string, input: Record<string, unknown>, id?: string): BlockFact => ({
  type: "tool_use",
  name,
  input,
  ...(id === undefined ? {} : { id }),
});

const FACTS: Record<string, Facts> = {
  "text-signature-trailing-gemini3-pro": {
    blocks: [text('There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y'), signature(916)],
    outcome: { stopReason: "end_turn" },
    usage: { prompt: 9, candidates: 23, thoughts: 185 },
  },
  "tool-call-gemini3-pro": {
    blocks: [call("weather", { location: "San Francisco" }), signature(396)],
    outcome: { stopReason: "tool_use" },
    usage: { prompt: 29, candidates: 15, thoughts: 45 },
  },
  "text-then-tool-call-id-gemini31-pro": {
    blocks: [
      text("Let me check."),
      call("get_weather", { city: "San Francisco" }, "g1bmv6il"),
      signature(1088),
    ],
    outcome: { stopReason: "tool_use" },
    usage: { prompt: 83, candidates: 21, thoughts: 178 },
  },
  "text-after-tool-result-gemini31-pro": {
    blocks: [
      text("The weather in San Francisco is currently sunny with a temperature of 72°F."),
      signature(708),
    ],
    outcome: { stopReason: "end_turn" },
    usage: { prompt: 338, candidates: 18, thoughts: 94 },
  },
  "thinking-gemma4": {
    blocks: [
      { type: "thinking", length: 270, startsWith: '*   User input: "Reply with exactly: hello"' },
      text("hello"),
    ],
    outcome: { stopReason: "end_turn" },
    usage: { prompt: 6, candidates: 1, thoughts: 76 },
  },
  "prompt-blocked": {
    blocks: [],
    outcome: { stopReason: "refusal" },
    usage: { prompt: 9 },
  },
  "thinking-streamed-call-args-vertex": {
    blocks: [
      { type: "thinking", length: 320, startsWith: "**Processing User Requests**" },
      call("read_theme", {}),
      signature(1060),
    ],
    outcome: { stopReason: "tool_use" },
    usage: { prompt: 249, candidates: 58, thoughts: 183 },
    unrecognised: [
      "functionCall with streamed arguments (partialArgs)",
      "functionCall without a name",
    ],
  },
  "usage-only-no-finish": {
    blocks: [],
    outcome: { errorKind: "network" },
    usage: { prompt: 12, candidates: 71, thoughts: 89, cached: 4, toolUsePrompt: 65 },
  },
  "tool-call-nested-args-gemini37-flash": {
    blocks: [
      call("search", { condition: { or: [{ term: "x" }, { term: "y" }] } }, "call_345658"),
      signature(10),
    ],
    outcome: { stopReason: "tool_use" },
    usage: { prompt: 694, candidates: 26, thoughts: 205 },
  },
  "text-spaced-gemini37-flash": {
    blocks: [text("fixture ok"), signature(744)],
    outcome: { stopReason: "end_turn" },
    usage: { prompt: 7, candidates: 2, thoughts: 94 },
  },
  "tool-call-no-id-gemini25-flash": {
    blocks: [call("getWeather", { location: "Tokyo" }), signature(788)],
    outcome: { stopReason: "tool_use" },
    usage: { prompt: 83, candidates: 14, thoughts: 104 },
  },
  "text-japanese-gemini25-flash": {
    blocks: [text("今日の東京の天気は曇りで、気温は22度です。\n")],
    outcome: { stopReason: "end_turn" },
    usage: { prompt: 138, candidates: 15 },
  },
  "thinking-tool-call-gemini25-flash": {
    blocks: [
      { type: "thinking", length: 236, startsWith: "**Generating Pelican Names**" },
      call("pelican_name_generator", {}),
      signature(336),
    ],
    outcome: { stopReason: "tool_use" },
    usage: { prompt: 32, candidates: 12, thoughts: 42 },
  },
  "tool-call-args-id-gemini3-flash": {
    blocks: [call("pelican_name_generator", { type: "funny" }, "c9bjmkfz"), signature(1556)],
    outcome: { stopReason: "tool_use" },
    usage: { prompt: 28, candidates: 19, thoughts: 248 },
  },
  "tool-call-multiply-gemini3-flash": {
    blocks: [call("multiply", { y: 3, x: 5 }), signature(300)],
    outcome: { stopReason: "tool_use" },
    usage: { prompt: 60, candidates: 16, thoughts: 32 },
  },
  "text-after-signed-call-gemini3-flash": {
    blocks: [text("5 times 3 is 15.")],
    outcome: { stopReason: "end_turn" },
    usage: { prompt: 121, candidates: 9 },
  },
  "thinking-text-signature-gemini25-pro": {
    blocks: [
      { type: "thinking", length: 1460, startsWith: "**Defining the Goal**" },
      {
        type: "text",
        startsWith: "Here is a step-by-step guide to crossing the street safely:",
        endsWith: "Stay alert and stay safe",
      },
      signature(5752),
    ],
    outcome: { stopReason: "end_turn" },
    usage: { prompt: 34, candidates: 387, thoughts: 759 },
  },
  "parallel-calls-gemini3-flash": {
    blocks: [
      call("generate_topic", {}),
      signature(1428),
      call("generate_topic", {}),
      call("generate_topic", {}),
    ],
    outcome: { stopReason: "tool_use" },
    usage: { prompt: 83, candidates: 30, thoughts: 292 },
  },
  "max-tokens-gemini25-flash": {
    blocks: [text("The capital of France is")],
    outcome: { stopReason: "max_tokens" },
    usage: { prompt: 15, candidates: 5 },
  },
  "safety-finish-gemini25-flash": {
    blocks: [],
    outcome: { stopReason: "refusal" },
    usage: { prompt: 14 },
  },
};

/** panto's accounting of Gemini's counts (see `Usage`): cached tokens leave input, thoughts join output. */
function expectedUsage(counts: Facts["usage"]): Usage {
  const cached = counts.cached ?? 0;
  const thoughts = counts.thoughts ?? 0;
  return {
    inputTokens: counts.prompt - cached + (counts.toolUsePrompt ?? 0),
    outputTokens: (counts.candidates ?? 0) + thoughts,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
    reasoningTokens: thoughts,
  };
}

// ---------------------------------------------------------------------------
// Running the parser.

type Run = ParserRun;

function fixtureNames(): string[] {
  return [...Deno.readDirSync(FIXTURES_DIR)]
    .filter((entry) => entry.name.endsWith(".sse"))
    .map((entry) => entry.name.slice(0, -".sse".length))
    .sort();
}

function readFixture(name: string): Uint8Array<ArrayBuffer> {
  return Deno.readFileSync(join(FIXTURES_DIR, `${name}.sse`));
}

function run(source: AsyncIterable<readonly SseEvent[]>): Promise<Run> {
  return runParser(parseGoogleStream(source, URL_FOR_ERRORS));
}

const parseText = (body: string) => run(sseEvents([body]));

// ---------------------------------------------------------------------------
// Checks.

function assertFacts(name: string, run: Run, facts: Facts): void {
  assert.equal(run.content.length, facts.blocks.length, `${name}: block count`);
  facts.blocks.forEach((fact, index) =>
    assertBlock(`${name} block ${index}`, run.content[index], fact)
  );
  if ("stopReason" in facts.outcome) {
    assert.equal(run.error, undefined, `${name}: unexpected error ${run.error?.message}`);
    assert.equal(run.result?.stopReason, facts.outcome.stopReason, `${name}: stop reason`);
    assert.deepEqual(run.result?.unrecognised, facts.unrecognised, `${name}: unrecognised`);
  } else {
    assert.equal(run.error?.kind, facts.outcome.errorKind, `${name}: error kind`);
  }
  assert.deepEqual(run.usage, expectedUsage(facts.usage), `${name}: usage`);
}

function assertBlock(label: string, block: ContentBlock | undefined, fact: BlockFact): void {
  switch (fact.type) {
    case "text":
      assert.ok(block?.type === "text", `${label}: text`);
      if (fact.text !== undefined) assert.equal(block.text, fact.text, label);
      if (fact.startsWith) assert.ok(block.text.startsWith(fact.startsWith), `${label}: start`);
      if (fact.endsWith) assert.ok(block.text.endsWith(fact.endsWith), `${label}: end`);
      break;
    case "thinking":
      assert.ok(block?.type === "thinking" && block.thinking !== "", `${label}: thinking`);
      assert.equal(block.thinking.length, fact.length, `${label}: length`);
      assert.ok(block.thinking.startsWith(fact.startsWith), `${label}: start`);
      break;
    case "signature":
      assert.ok(block !== undefined, label);
      assert.equal(carriedSignature(block)?.length, fact.length, `${label}: carrier`);
      break;
    case "tool_use":
      assert.ok(block?.type === "tool_use", `${label}: tool_use`);
      assert.equal(block.name, fact.name, label);
      assert.deepEqual(block.input, fact.input, label);
      assert.equal(block.invalidInput, undefined, label);
      if (fact.id === undefined) assert.ok(isMintedCallId(block.id), `${label}: minted id`);
      else assert.equal(block.id, fact.id, label);
      break;
  }
}

/** The events tell the same story as the message: dense starts, deltas that add up, one completion each. */
function assertEventsMatchContent(name: string, run: Run): void {
  const streamed = new Map<number, { text: string; done?: ContentBlock }>();
  for (const event of run.events) {
    if (event.type === "block_start") {
      assert.equal(event.blockIndex, streamed.size, `${name}: block indices are dense`);
      streamed.set(event.blockIndex, { text: "" });
      continue;
    }
    const entry = streamed.get(event.blockIndex);
    assert.ok(entry, `${name}: event for unknown block ${event.blockIndex}`);
    assert.equal(entry.done, undefined, `${name}: event after block ${event.blockIndex} completed`);
    if (event.type === "content_delta") entry.text += event.text;
    else entry.done = event.block;
  }
  assert.deepEqual([...streamed.values()].map((entry) => entry.done), run.content, name);
  [...streamed.values()].forEach((entry, index) => {
    const block = run.content[index];
    if (block?.type === "text") assert.equal(entry.text, block.text, `${name}: text deltas`);
    if (block?.type === "thinking") assert.equal(entry.text, block.thinking, `${name}: thinking`);
    if (block?.type === "tool_use") {
      assert.deepEqual(JSON.parse(entry.text || "{}"), block.input, `${name}: tool input`);
    }
  });
}

// ---------------------------------------------------------------------------
// The official SDK on the same bytes.

/** What a stream says, accumulated the same way from the SDK's chunks and from our message. */
interface Summary {
  text: string;
  thinking: string;
  /** Complete calls; `id` only when Gemini gave one. */
  calls: { name: string; args: unknown; id?: string }[];
  /** Every thought signature, in stream order. */
  signatures: string[];
  stopReason: StopReason;
  usage: Usage;
}

let sdkReads: Promise<Map<string, GenaiChunk[]>> | undefined;

/**
 * Every fixture replayed from one fake server to `generateContentStream`
 * (one SDK process for all of them), read once and shared by the tests.
 */
function sdkChunks(name: string): Promise<GenaiChunk[]> {
  sdkReads ??= readAllFixturesWithSdk();
  return sdkReads.then((reads) => reads.get(name) ?? []);
}

async function readAllFixturesWithSdk(): Promise<Map<string, GenaiChunk[]>> {
  const names = fixtureNames();
  const reads = new Map<string, GenaiChunk[]>();
  await withFakeServer(async (server) => {
    for (const name of names) {
      server.enqueue({ kind: "fixture", path: `${FIXTURES}/${name}.sse` });
    }
    const results = await readWithGenai(server.url, names.map(() => "fixture-replay"));
    names.forEach((name, index) => reads.set(name, chunksOf(results[index])));
    for (const request of server.requests) {
      assert.equal(request.path, "/v1beta/models/fixture-replay:streamGenerateContent");
    }
    assert.equal(server.requests.length, names.length);
  });
  return reads;
}

/** The SDK's chunks, accumulated: non-thought text, thoughts, whole calls, last finish and usage. */
function fromSdk(chunks: readonly GenaiChunk[]): Summary {
  const summary: Summary = {
    text: "",
    thinking: "",
    calls: [],
    signatures: [],
    stopReason: "end_turn",
    usage: emptyUsage(),
  };
  let finishReason: string | undefined;
  let blocked = false;
  for (const chunk of chunks) {
    for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
      if (part.thoughtSignature) summary.signatures.push(part.thoughtSignature);
      const fn = part.functionCall;
      if (fn !== undefined) {
        // Streamed calls (Vertex) arrive as fragments; the SDK passes them on unassembled.
        if (fn.name && !fn.willContinue && fn.partialArgs === undefined) {
          summary.calls.push({
            name: fn.name,
            args: fn.args ?? {},
            ...(fn.id ? { id: fn.id } : {}),
          });
        }
      } else if (typeof part.text === "string") {
        if (part.thought) summary.thinking += part.text;
        else summary.text += part.text;
      }
    }
    finishReason = chunk.candidates?.[0]?.finishReason ?? finishReason;
    if (chunk.promptFeedback?.blockReason) blocked = true;
    const usage = chunk.usageMetadata;
    if (usage?.promptTokenCount !== undefined) {
      summary.usage = expectedUsage({
        prompt: usage.promptTokenCount,
        candidates: usage.candidatesTokenCount ?? 0,
        thoughts: usage.thoughtsTokenCount ?? 0,
        cached: usage.cachedContentTokenCount ?? 0,
        toolUsePrompt: usage.toolUsePromptTokenCount ?? 0,
      });
    }
  }
  const stop: Record<string, StopReason> = {
    STOP: summary.calls.length > 0 ? "tool_use" : "end_turn",
    MAX_TOKENS: "max_tokens",
    SAFETY: "refusal",
  };
  summary.stopReason = blocked ? "refusal" : stop[finishReason ?? "STOP"] ?? "end_turn";
  return summary;
}

function fromOurs(run: Run): Summary {
  const summary: Summary = {
    text: "",
    thinking: "",
    calls: [],
    signatures: [],
    stopReason: run.result?.stopReason ?? "error",
    usage: run.usage,
  };
  for (const block of run.content) {
    if (block.type === "text") summary.text += block.text;
    if (block.type === "thinking") {
      summary.thinking += block.thinking;
      if (block.signature) summary.signatures.push(block.signature);
    }
    if (block.type === "tool_use") {
      summary.calls.push({
        name: block.name,
        args: block.input,
        ...(isMintedCallId(block.id) ? {} : { id: block.id }),
      });
    }
  }
  return summary;
}

// ---------------------------------------------------------------------------
// Fixture tests.

Deno.test("gemini fixtures: every recorded .sse file has MANIFEST facts here", () => {
  const names = fixtureNames();
  assert.ok(names.length >= 20, `found only ${names.length} fixtures in ${FIXTURES_DIR}`);
  assert.deepEqual(names, Object.keys(FACTS).sort());
});

for (const name of fixtureNames()) {
  const facts = FACTS[name];
  Deno.test({
    name: `gemini fixture ${name}: MANIFEST facts, whole and in random chunks`,
    ignore: facts === undefined, // reported by the coverage test above
    async fn() {
      const bytes = readFixture(name);
      const whole = await run(sseEvents([bytes]));
      assertFacts(name, whole, facts!);
      assertEventsMatchContent(name, whole);
      await assertSameInChunks(name, bytes, whole, (chunks) => run(sseEvents(chunks)));
    },
  });
  Deno.test({
    name:
      `gemini fixture ${name}: same text, thoughts, calls, signatures and usage as @google/genai`,
    ignore: facts === undefined,
    async fn() {
      const ours = fromOurs(await run(sseEvents([readFixture(name)])));
      const sdk = fromSdk(await sdkChunks(name));
      if ("errorKind" in facts!.outcome) sdk.stopReason = "error"; // the SDK does not fail a cut stream
      assert.deepEqual(ours, sdk);
    },
  });
}

Deno.test("gemini fixture error-429-retry-info: a rate limit with the RetryInfo delay, not a quota failure", () => {
  const body = Deno.readTextFileSync(join(FIXTURES_DIR, "error-429-retry-info.json"));
  const error = classifyHttpError(429, body, new Headers(), URL_FOR_ERRORS);
  assert.equal(error.kind, "rate_limit");
  assert.equal(error.retryAfterMs, 34_400);
  assert.match(error.message, /answered 429 RESOURCE_EXHAUSTED: You exceeded your current quota/);
});

Deno.test("gemini fixture error-400-api-key-invalid: a bad key is an auth error although the status is 400", () => {
  const body = Deno.readTextFileSync(join(FIXTURES_DIR, "error-400-api-key-invalid.json"));
  const error = classifyHttpError(400, body, new Headers(), URL_FOR_ERRORS);
  assert.equal(error.kind, "auth");
  assert.match(error.message, /API key not valid.*check the API key configured/);
});

// ---------------------------------------------------------------------------
// Synthetic streams.

function chunk(parts: unknown[], extra: Record<string, unknown> = {}): string {
  return `data: ${
    JSON.stringify({ candidates: [{ content: { parts, role: "model" }, index: 0, ...extra }] })
  }\r\n\r\n`;
}

const STOP = chunk([{ text: "" }], { finishReason: "STOP" });

Deno.test("gemini stream: an error chunk mid-stream is classified and keeps the partial text", async () => {
  const failed = await parseText(
    chunk([{ text: "Half an ans" }]) +
      'data: {"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}\r\n\r\n',
  );
  assert.equal(failed.error?.kind, "overloaded");
  assert.ok(failed.error?.retryable);
  assert.match(failed.error.message, /UNAVAILABLE: The model is overloaded/);
  assert.deepEqual(failed.content, [{ type: "text", text: "Half an ans" }]);
});

Deno.test("gemini stream: a chunk that is not JSON is a stream error quoting it", async () => {
  const failed = await parseText(chunk([{ text: "ok" }]) + 'data: {"candidates":[{\r\n\r\n');
  assert.equal(failed.error?.kind, "stream");
  assert.match(failed.error.message, /not JSON: \{"candidates":\[\{/);
  assert.deepEqual(failed.content, [{ type: "text", text: "ok" }]);
});

Deno.test("gemini stream: EOF before a finish reason is a retryable network error with the partial", async () => {
  const failed = await parseText(chunk([{ text: "cut" }]));
  assert.equal(failed.error?.kind, "network");
  assert.match(failed.error.message, /ended before a finishReason/);
  assert.deepEqual(failed.content, [{ type: "text", text: "cut" }]);
});

Deno.test("gemini stream: a signature mid-text goes to a carrier after the text; a second one starts a new block", async () => {
  const { content } = await parseText(
    chunk([{ text: "one", thoughtSignature: "c2lnMQ==" }]) + chunk([{ text: " two" }]) +
      chunk([{ text: "three", thoughtSignature: "c2lnMg==" }]) + STOP,
  );
  assert.deepEqual(content, [
    { type: "text", text: "one two" },
    { type: "thinking", thinking: "", signature: "c2lnMQ==" },
    { type: "text", text: "three" },
    { type: "thinking", thinking: "", signature: "c2lnMg==" },
  ]);
});

Deno.test("gemini stream: signed thought parts keep their signatures, one block per signature", async () => {
  const { content } = await parseText(
    chunk([{ text: "a", thought: true }, { text: "b", thought: true, thoughtSignature: "UzE=" }]) +
      chunk([{ text: "c", thought: true, thoughtSignature: "UzI=" }, { text: "answer" }]) + STOP,
  );
  assert.deepEqual(content, [
    { type: "thinking", thinking: "ab", signature: "UzE=" },
    { type: "thinking", thinking: "c", signature: "UzI=" },
    { type: "text", text: "answer" },
  ]);
});

Deno.test("gemini stream: a part that is only a signature becomes a carrier", async () => {
  const { content } = await parseText(
    chunk([{ functionCall: { name: "ls", args: {} } }]) + chunk([{ thoughtSignature: "U0lH" }]) +
      STOP,
  );
  assert.equal(content[0]?.type, "tool_use");
  assert.deepEqual(content[1], { type: "thinking", thinking: "", signature: "U0lH" });
});

Deno.test("gemini stream: arguments that are not an object, or nest too deep, are kept raw with input {}", async () => {
  const deep = JSON.parse(`{"a":${"[".repeat(150)}${"]".repeat(150)}}`);
  const { content, result } = await parseText(
    chunk([{ functionCall: { name: "echo", args: "just text" } }]) +
      chunk([{ functionCall: { name: "echo", args: deep } }]) + STOP,
  );
  const [first, second] = content;
  assert.ok(first?.type === "tool_use" && second?.type === "tool_use");
  assert.deepEqual(first.input, {});
  assert.equal(first.invalidInput, '"just text"');
  assert.deepEqual(second.input, {});
  assert.match(tooDeepArguments(second) ?? "", /nested deeper than 100 levels/);
  assert.equal(result?.stopReason, "tool_use");
});

Deno.test("gemini stream: ids are Gemini's when given and new; a repeated id or none gets a stable minted one", async () => {
  const body = `data: ${
    JSON.stringify({
      responseId: "resp-1",
      candidates: [{
        index: 0,
        content: {
          parts: [
            { functionCall: { name: "a", args: {}, id: "same" } },
            { functionCall: { name: "b", args: {}, id: "same" } },
            { functionCall: { name: "c", args: {} } },
          ],
        },
        finishReason: "STOP",
      }],
    })
  }\r\n\r\n`;
  const first = await parseText(body);
  const ids = first.content.map((block) => block.type === "tool_use" ? block.id : "");
  assert.deepEqual(ids, ["same", "gcall_resp-1_1", "gcall_resp-1_2"]);
  assert.deepEqual((await parseText(body)).content, first.content, "replaying gives the same ids");
});

Deno.test("gemini stream: finish reasons map to stop reasons; unknown ones read as a normal end and are told", async () => {
  const cases: [string, boolean, StopReason][] = [
    ["STOP", false, "end_turn"],
    ["STOP", true, "tool_use"],
    ["MAX_TOKENS", true, "max_tokens"],
    ["CONTINUATION", false, "max_tokens"],
    ["RECITATION", false, "refusal"],
    ["PROHIBITED_CONTENT", false, "refusal"],
    ["OTHER", false, "end_turn"],
    ["A_REASON_FROM_2030", true, "tool_use"],
  ];
  for (const [reason, withCall, expected] of cases) {
    const parts = withCall ? [{ functionCall: { name: "ls", args: {} } }] : [{ text: "x" }];
    const { result } = await parseText(chunk(parts, { finishReason: reason }));
    assert.equal(result?.stopReason, expected, reason);
    assert.deepEqual(
      result?.unrecognised,
      reason === "A_REASON_FROM_2030" ? ['finishReason "A_REASON_FROM_2030"'] : undefined,
      reason,
    );
  }
});

Deno.test("gemini stream: a malformed call is a retryable server error naming Gemini's message", async () => {
  const failed = await parseText(chunk([], {
    finishReason: "MALFORMED_FUNCTION_CALL",
    finishMessage: "Malformed function call: print(default_api.ls(path=))",
  }));
  assert.equal(failed.error?.kind, "server");
  assert.ok(failed.error?.retryable);
  assert.match(failed.error.message, /MALFORMED_FUNCTION_CALL: Malformed function call: print/);
});

Deno.test("gemini stream: MISSING_THOUGHT_SIGNATURE is an invalid request that says what to do", async () => {
  const failed = await parseText(chunk([], { finishReason: "MISSING_THOUGHT_SIGNATURE" }));
  assert.equal(failed.error?.kind, "invalid_request");
  assert.match(failed.error?.message ?? "", /lost the thought signature.*new session/);
});

Deno.test("gemini stream: parts panto does not read are skipped and named in unrecognised", async () => {
  const { content, result } = await parseText(
    chunk([
      { inlineData: { mimeType: "image/png", data: "AA==" }, thoughtSignature: "U0k=" },
      { executableCode: { language: "PYTHON", code: "print(1)" } },
      { text: "done" },
    ]) + STOP,
  );
  assert.deepEqual(content, [{ type: "text", text: "done" }]);
  assert.deepEqual(result?.unrecognised, ['part "inlineData"', 'part "executableCode"']);
});

Deno.test("gemini stream: usage is the last report with counts; count-free interim reports are skipped", async () => {
  const withUsage = (usageMetadata: unknown, extra = "") =>
    `data: ${
      JSON.stringify({
        candidates: [{
          index: 0,
          content: { parts: [{ text: extra }] },
          ...(extra === "" ? { finishReason: "STOP" } : {}),
        }],
        usageMetadata,
      })
    }\r\n\r\n`;
  const { usage } = await parseText(
    withUsage({ promptTokenCount: 100, cachedContentTokenCount: 60 }, "a") +
      withUsage({ trafficType: "ON_DEMAND" }, "b") +
      withUsage({ promptTokenCount: 100, candidatesTokenCount: 7, cachedContentTokenCount: 60 }),
  );
  assert.deepEqual(usage, {
    inputTokens: 40,
    outputTokens: 7,
    cacheReadTokens: 60,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  });
});

Deno.test("gemini stream: only candidate 0 is read", async () => {
  const body = `data: ${
    JSON.stringify({
      candidates: [
        { index: 1, content: { parts: [{ text: "other" }] }, finishReason: "STOP" },
        { index: 0, content: { parts: [{ text: "first" }] }, finishReason: "STOP" },
      ],
    })
  }\r\n\r\n`;
  assert.deepEqual((await parseText(body)).content, [{ type: "text", text: "first" }]);
});

Deno.test("gemini stream: an abort from the source returns the partial message as aborted", async () => {
  async function* source(): AsyncGenerator<SseEvent[]> {
    const data = JSON.stringify({
      candidates: [{ index: 0, content: { parts: [{ text: "so far" }] } }],
    });
    yield [{ type: "message", data, id: "" }];
    throw new DOMException("stopped", "AbortError");
  }
  const { result } = await run(source());
  assert.equal(result?.stopReason, "aborted");
  assert.deepEqual(result?.content, [{ type: "text", text: "so far" }]);
});
