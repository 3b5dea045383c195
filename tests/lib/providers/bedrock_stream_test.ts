/**
 * `parseBedrockStream` over Amazon's event stream (`AWS_EVENT_STREAM`)
 * against every recording in `tests/fixtures/providers/bedrock-converse/`
 * (binary bodies as stored, JSON-lines recordings encoded into frames):
 * fed whole and in seeded random chunks, checked against the facts its
 * MANIFEST states, and compared with the official
 * `@aws-sdk/client-bedrock-runtime` reading the same bytes from the fake
 * server. Then synthetic frames for what no recording covers.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ContentBlock } from "../../../lib/content.ts";
import type { ProviderError } from "../../../lib/errors.ts";
import type { StopReason } from "../../../lib/message.ts";
import { AWS_EVENT_STREAM } from "../../../lib/providers/aws_eventstream.ts";
import { parseBedrockStream } from "../../../lib/providers/bedrock_stream.ts";
import { classifyHttpError } from "../../../lib/providers/http.ts";
import type { SseEvent } from "../../../lib/providers/sse.ts";
import { tooDeepArguments } from "../../../lib/providers/tool_arguments.ts";
import type { Usage } from "../../../lib/usage.ts";
import {
  type BedrockWireEvent,
  eventFrame,
  eventStreamBytes,
  jsonlEvents,
} from "../../support/bedrock_frames.ts";
import { type BedrockSdkRead, readWithBedrockSdk } from "../../support/bedrock_sdk.ts";
import { withFakeServer } from "../../support/fake_llm_server.ts";
import {
  assertEventsMatchContent,
  assertSameInChunks,
  type ParserRun,
  runParser,
} from "../../support/parsed_stream.ts";

const FIXTURES = "bedrock-converse";
const FIXTURES_DIR = new URL(`../../fixtures/providers/${FIXTURES}`, import.meta.url).pathname;
const URL_FOR_ERRORS = "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse-stream";

// ---------------------------------------------------------------------------
// Facts from the fixtures' MANIFEST.md.

type BlockFact =
  | { type: "text"; text?: string; length?: number; startsWith?: string }
  | { type: "thinking"; length: number; startsWith: string; signature?: number }
  | { type: "redacted"; length: number; startsWith: string }
  | { type: "tool_use"; name: string; id: string; input: Record<string, unknown> };

interface Facts {
  blocks: BlockFact[];
  outcome: { stopReason: StopReason } | { errorKind: ProviderError["kind"] };
  usage: { in: number; out: number; cacheRead?: number; cacheWrite?: number };
}

const text = (value: string): BlockFact => ({ type: "text", text: value });
const call = (name: string, id: string, input: Record<string, unknown>): BlockFact => ({
  type: "tool_use",
  name,
  id,
  input,
});

const FACTS: Record<string, Facts> = {
  "thinking-signature-claude-sonnet4": {
    blocks: [
      {
        type: "thinking",
        length: 203,
        startsWith: 'The human has just said "Hello" to me.',
        signature: 508,
      },
      text("Hello! How are you doing today? Is there anything I can help you with?"),
    ],
    outcome: { stopReason: "end_turn" },
    usage: { in: 37, out: 74 },
  },
  "text-tool-use-nova-micro": {
    blocks: [
      {
        type: "text",
        length: 204,
        startsWith: "<thinking> To find the temperature of the capital of France",
      },
      call("get_capital", "tooluse_QjQX34XORLu0wJVplWWHGQ", { country: "France" }),
    ],
    outcome: { stopReason: "tool_use" },
    usage: { in: 489, out: 59 },
  },
  "text-strawberry-claude": {
    blocks: [
      text(
        'Let me count the "r"s in "strawberry":\n\ns-t-**r**-a-w-b-e-**r**-**r**-y\n\nThere are **3** r\'s in "strawberry."',
      ),
    ],
    outcome: { stopReason: "end_turn" },
    usage: { in: 22, out: 55 },
  },
  "reasoning-signature-claude": {
    blocks: [
      {
        type: "thinking",
        length: 116,
        startsWith: `Let me count the r's in "strawberry":`,
        signature: 388,
      },
      text('There are **3** r\'s in "strawberry":\n\n1. st**r**awbe**r****r**y'),
    ],
    outcome: { stopReason: "end_turn" },
    usage: { in: 51, out: 94 },
  },
  "redacted-reasoning-tool-use": {
    blocks: [
      { type: "redacted", length: 1184, startsWith: "cnNuX3BVUGgx" },
      call("propose", "call_61f8fcbe423a58699163c53e076f1a06", {
        groups: [{ name: "Sales", parentGroupName: "" }, {
          name: "Team1",
          parentGroupName: "Sales",
        }],
      }),
    ],
    outcome: { stopReason: "tool_use" },
    usage: { in: 67, out: 70 },
  },
  "max-tokens": {
    blocks: [text("Hello! How can I assist you today? If")],
    outcome: { stopReason: "max_tokens" },
    usage: { in: 2, out: 10 },
  },
  "thinking-tool-use-kimi-k2": {
    blocks: [
      { type: "thinking", length: 201, startsWith: " The user wants me to:" },
      call("glob_search", "functions.glob_search:0", { pattern: "**/*cursor*" }),
    ],
    outcome: { stopReason: "tool_use" },
    usage: { in: 217, out: 75 },
  },
  "parallel-tool-use": {
    blocks: [
      text("2 + 2 equals 4. Now let me check the weather for you."),
      call("weather", "weather-tool-1", { location: "San Francisco" }),
      call("weather", "weather-tool-2", { location: "London" }),
    ],
    outcome: { stopReason: "tool_use" },
    usage: { in: 500, out: 100 },
  },
  "text-then-tool-no-args": {
    blocks: [
      text("I'll update the issue list for you."),
      call("updateIssueList", "tool-use-id", {}),
    ],
    outcome: { stopReason: "tool_use" },
    usage: { in: 100, out: 25 },
  },
  "cache-write-claude-sonnet45": {
    blocks: [text("21")],
    outcome: { stopReason: "end_turn" },
    usage: { in: 2, out: 5, cacheWrite: 1322 },
  },
  "cache-read-claude-sonnet45": {
    blocks: [text("21")],
    outcome: { stopReason: "end_turn" },
    usage: { in: 2, out: 5, cacheRead: 1322 },
  },
  "throttling-exception-midstream": {
    blocks: [text('Let me count the "')],
    outcome: { errorKind: "rate_limit" },
    usage: { in: 0, out: 0 },
  },
};

function expectedUsage(counts: Facts["usage"]): Usage {
  return {
    inputTokens: counts.in,
    outputTokens: counts.out,
    cacheReadTokens: counts.cacheRead ?? 0,
    cacheWriteTokens: counts.cacheWrite ?? 0,
    reasoningTokens: 0,
  };
}

// ---------------------------------------------------------------------------
// Running the parser on frames.

/** The recordings, by name: binary bodies as stored, JSON lines encoded into frames. */
function fixtureFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const { name } of Deno.readDirSync(FIXTURES_DIR)) {
    const match = /^(.*)\.(eventstream|jsonl)$/.exec(name);
    if (match) files.set(match[1]!, name);
  }
  return new Map([...files].sort(([a], [b]) => a.localeCompare(b)));
}

function fixtureBytes(file: string): Uint8Array {
  const path = join(FIXTURES_DIR, file);
  return file.endsWith(".jsonl")
    ? eventStreamBytes(jsonlEvents(Deno.readTextFileSync(path)))
    : Deno.readFileSync(path);
}

/** The decoder's batches for a body read in these chunks, as `streamFramed` yields them. */
async function* frameEvents(chunks: readonly Uint8Array[]): AsyncGenerator<SseEvent[]> {
  const decoder = await AWS_EVENT_STREAM.decoder(URL_FOR_ERRORS);
  for (const chunk of chunks) yield decoder.push(chunk);
  yield decoder.end();
}

function parseChunks(chunks: readonly Uint8Array[]): Promise<ParserRun> {
  return runParser(parseBedrockStream(frameEvents(chunks), URL_FOR_ERRORS));
}

/** Members as frames, parsed whole. */
function parseMembers(...events: BedrockWireEvent[]): Promise<ParserRun> {
  return parseChunks([eventStreamBytes(events)]);
}

const member = (type: string, payload: unknown): BedrockWireEvent => ({
  type,
  data: JSON.stringify(payload),
});
const START = member("messageStart", { role: "assistant" });
const STOP = member("messageStop", { stopReason: "end_turn" });
const textDelta = (contentBlockIndex: number, value: string) =>
  member("contentBlockDelta", { contentBlockIndex, delta: { text: value } });

// ---------------------------------------------------------------------------
// Checks.

function assertFacts(name: string, run: ParserRun, facts: Facts): void {
  assert.equal(run.content.length, facts.blocks.length, `${name}: block count`);
  facts.blocks.forEach((fact, index) =>
    assertBlock(`${name} block ${index}`, run.content[index], fact)
  );
  if ("stopReason" in facts.outcome) {
    assert.equal(run.error, undefined, `${name}: unexpected error ${run.error?.message}`);
    assert.equal(run.result?.stopReason, facts.outcome.stopReason, `${name}: stop reason`);
    assert.equal(run.result?.unrecognised, undefined, `${name}: unrecognised`);
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
      if (fact.length !== undefined) assert.equal(block.text.length, fact.length, label);
      if (fact.startsWith) assert.ok(block.text.startsWith(fact.startsWith), `${label}: start`);
      break;
    case "thinking":
      assert.ok(block?.type === "thinking", `${label}: thinking`);
      assert.equal(block.thinking.length, fact.length, `${label}: length`);
      assert.ok(block.thinking.startsWith(fact.startsWith), `${label}: start`);
      assert.equal(block.signature?.length, fact.signature, `${label}: signature`);
      break;
    case "redacted":
      assert.ok(block?.type === "redacted_thinking", `${label}: redacted`);
      assert.equal(block.data.length, fact.length, `${label}: length`);
      assert.ok(block.data.startsWith(fact.startsWith), `${label}: start`);
      break;
    case "tool_use":
      assert.deepEqual(block, {
        type: "tool_use",
        id: fact.id,
        name: fact.name,
        input: fact.input,
      });
      break;
  }
}

// ---------------------------------------------------------------------------
// The official SDK on the same bytes.

/** What a stream says, accumulated the same way from the SDK's members and from our message. */
interface Summary {
  text: string;
  thinking: string;
  signatures: string[];
  redacted: string[];
  calls: { id: string; name: string; input: unknown }[];
  stopReason: string;
  usage: Usage;
  /** The exception's message, when the stream failed with one. */
  error?: string;
}

/** Bedrock's stop reasons as panto names them (those the fixtures hold). */
const SDK_STOP_REASONS: Record<string, string> = {
  end_turn: "end_turn",
  tool_use: "tool_use",
  max_tokens: "max_tokens",
};

let sdkReads: Promise<Map<string, BedrockSdkRead>> | undefined;

/** Every fixture replayed from one fake server to `ConverseStreamCommand` in one SDK process, read once. */
function sdkRead(name: string): Promise<BedrockSdkRead | undefined> {
  sdkReads ??= readAllFixturesWithSdk();
  return sdkReads.then((reads) => reads.get(name));
}

async function readAllFixturesWithSdk(): Promise<Map<string, BedrockSdkRead>> {
  const files = fixtureFiles();
  const reads = new Map<string, BedrockSdkRead>();
  await withFakeServer(async (server) => {
    for (const file of files.values()) {
      server.enqueue({ kind: "fixture", path: `${FIXTURES}/${file}` });
    }
    const results = await readWithBedrockSdk({
      endpoint: server.url,
      region: "us-east-1",
      credentials: { accessKeyId: "AKIDFAKEFAKEFAKE", secretAccessKey: "fake-secret-for-tests" },
    }, [...files.keys()].map(() => "fixture.replay-v1:0"));
    [...files.keys()].forEach((name, index) => reads.set(name, results[index]!));
    for (const request of server.requests) {
      assert.equal(request.path, "/model/fixture.replay-v1%3A0/converse-stream");
    }
    assert.equal(server.requests.length, files.size);
  });
  return reads;
}

function emptySummary(): Summary {
  return {
    text: "",
    thinking: "",
    signatures: [],
    redacted: [],
    calls: [],
    stopReason: "",
    usage: expectedUsage({ in: 0, out: 0 }),
  };
}

/** The SDK's members, accumulated as its documentation shows: deltas by block, the last usage. */
function fromSdk(read: BedrockSdkRead): Summary {
  const summary = emptySummary();
  const calls = new Map<number, { id: string; name: string; json: string }>();
  for (const event of read.events) {
    const start = event.contentBlockStart as
      | { contentBlockIndex: number; start?: { toolUse?: { toolUseId: string; name: string } } }
      | undefined;
    const toolUse = start?.start?.toolUse;
    if (start && toolUse) {
      calls.set(start.contentBlockIndex, { id: toolUse.toolUseId, name: toolUse.name, json: "" });
    }
    const delta = event.contentBlockDelta as
      | { contentBlockIndex: number; delta: Record<string, Record<string, string> | string> }
      | undefined;
    if (delta) addSdkDelta(summary, calls.get(delta.contentBlockIndex), delta.delta);
    const stop = event.messageStop as { stopReason: string } | undefined;
    if (stop) summary.stopReason = SDK_STOP_REASONS[stop.stopReason] ?? stop.stopReason;
    const usage = (event.metadata as { usage?: Record<string, number> } | undefined)?.usage;
    if (usage) summary.usage = sdkUsage(usage);
  }
  summary.calls = [...calls.values()].map(({ id, name, json }) => ({
    id,
    name,
    input: json === "" ? {} : JSON.parse(json),
  }));
  if (read.error) {
    summary.stopReason = "";
    summary.error = read.error.message;
  }
  return summary;
}

function addSdkDelta(
  summary: Summary,
  call: { json: string } | undefined,
  delta: Record<string, Record<string, string> | string>,
): void {
  if (typeof delta.text === "string") summary.text += delta.text;
  const reasoning = delta.reasoningContent;
  if (typeof reasoning === "object") {
    summary.thinking += reasoning.text ?? "";
    if (reasoning.signature) summary.signatures.push(reasoning.signature);
    if (reasoning.redactedContent) summary.redacted.push(reasoning.redactedContent);
  }
  const toolUse = delta.toolUse;
  if (typeof toolUse === "object" && call) call.json += toolUse.input ?? "";
}

function sdkUsage(usage: Record<string, number>): Usage {
  return expectedUsage({
    in: usage.inputTokens ?? 0,
    out: usage.outputTokens ?? 0,
    cacheRead: usage.cacheReadInputTokens ?? 0,
    cacheWrite: usage.cacheWriteInputTokens ?? 0,
  });
}

function fromOurs(run: ParserRun): Summary {
  const summary = emptySummary();
  summary.stopReason = run.result?.stopReason ?? "";
  summary.usage = run.usage;
  for (const block of run.content) {
    if (block.type === "text") summary.text += block.text;
    if (block.type === "thinking") {
      summary.thinking += block.thinking;
      if (block.signature) summary.signatures.push(block.signature);
    }
    if (block.type === "redacted_thinking") summary.redacted.push(block.data);
    if (block.type === "tool_use") {
      summary.calls.push({ id: block.id, name: block.name, input: block.input });
    }
  }
  if (run.error) summary.error = run.error.message;
  return summary;
}

// ---------------------------------------------------------------------------
// Fixture tests.

Deno.test("bedrock fixtures: every recording has MANIFEST facts here", () => {
  const names = [...fixtureFiles().keys()];
  assert.ok(names.length >= 12, `found only ${names.length} fixtures in ${FIXTURES_DIR}`);
  assert.deepEqual(names, Object.keys(FACTS).sort());
});

for (const [name, file] of fixtureFiles()) {
  const facts = FACTS[name];
  Deno.test({
    name: `bedrock fixture ${name}: MANIFEST facts, whole and in random chunks`,
    ignore: facts === undefined, // reported by the coverage test above
    async fn() {
      const bytes = fixtureBytes(file);
      const whole = await parseChunks([bytes]);
      assertFacts(name, whole, facts!);
      assertEventsMatchContent(name, whole);
      await assertSameInChunks(name, bytes, whole, parseChunks);
    },
  });
  Deno.test({
    name:
      `bedrock fixture ${name}: same text, reasoning, calls, stop reason and usage as the AWS SDK`,
    ignore: facts === undefined,
    async fn() {
      const ours = fromOurs(await parseChunks([fixtureBytes(file)]));
      const read = await sdkRead(name);
      assert.ok(read, `the SDK read no ${name}`);
      const sdk = fromSdk(read);
      // Ours names the host and the exception before the service's words.
      if (ours.error && sdk.error) assert.ok(ours.error.endsWith(`: ${sdk.error}`), ours.error);
      assert.deepEqual({ ...ours, error: undefined }, { ...sdk, error: undefined });
    },
  });
}

Deno.test("bedrock fixture error-400-invalid-model: a 400 ValidationException is an invalid request", () => {
  const body = Deno.readTextFileSync(join(FIXTURES_DIR, "error-400-invalid-model.json"));
  const headers = new Headers({ "x-amzn-errortype": "ValidationException:http://internal" });
  const error = classifyHttpError(400, body, headers, URL_FOR_ERRORS);
  assert.equal(error.kind, "invalid_request");
  assert.equal(
    error.message,
    "bedrock-runtime.us-east-1.amazonaws.com answered 400 ValidationException: " +
      "The provided model identifier is invalid.",
  );
});

// ---------------------------------------------------------------------------
// Synthetic frames.

Deno.test("bedrock stream: each exception member the API names is classified, the partial kept", async () => {
  const cases: [string, string, ProviderError["kind"]][] = [
    ["throttlingException", "Too many requests, please wait before trying again.", "rate_limit"],
    ["serviceUnavailableException", "Bedrock is unable to process your request.", "overloaded"],
    ["modelStreamErrorException", "The model produced invalid output.", "server"],
    ["internalServerException", "An internal server error occurred.", "server"],
    ["validationException", "Input is too long for requested model.", "context_overflow"],
    ["validationException", "A conversation must start with a user message.", "invalid_request"],
    ["futureNewException", "Something new.", "server"],
  ];
  for (const [type, message, kind] of cases) {
    const failed = await parseMembers(START, textDelta(0, "Half"), member(type, { message }));
    assert.equal(failed.error?.kind, kind, `${type}: ${message}`);
    assert.match(failed.error.message, new RegExp(`mid-stream ${type}: ${message}`));
    assert.deepEqual(failed.content, [{ type: "text", text: "Half" }], type);
  }
});

Deno.test("bedrock stream: EOF before messageStop is a retryable network error with the partial", async () => {
  const failed = await parseMembers(START, textDelta(0, "cut"));
  assert.equal(failed.error?.kind, "network");
  assert.ok(failed.error.retryable);
  assert.match(failed.error.message, /ended before messageStop/);
  assert.deepEqual(failed.content, [{ type: "text", text: "cut" }]);
});

Deno.test("bedrock stream: usage after messageStop is read; the stream is read to its end", async () => {
  const { result } = await parseMembers(
    START,
    textDelta(0, "ok"),
    STOP,
    member("metadata", { usage: { inputTokens: 5, outputTokens: 1, cacheReadInputTokens: 2 } }),
  );
  assert.deepEqual(result?.usage, {
    inputTokens: 5,
    outputTokens: 1,
    cacheReadTokens: 2,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  });
});

Deno.test("bedrock stream: a payload that is not JSON is a stream error quoting it", async () => {
  const failed = await parseMembers(START, textDelta(0, "ok"), {
    type: "contentBlockDelta",
    data: '{"contentBlockIndex":0,"delta":',
  });
  assert.equal(failed.error?.kind, "stream");
  assert.match(failed.error.message, /"contentBlockDelta" event that is not JSON: \{"content/);
  assert.deepEqual(failed.content, [{ type: "text", text: "ok" }]);
});

Deno.test("bedrock stream: a frame that fails its checksum fails the stream after the events before it", async () => {
  const frames = [START, textDelta(0, "Hel"), textDelta(0, "lo")].map(eventFrame);
  frames[2]![frames[2]!.length - 1]! ^= 0xff;
  const failed = await parseChunks([new Uint8Array([...frames[0]!, ...frames[1]!, ...frames[2]!])]);
  assert.equal(failed.error?.kind, "stream");
  assert.match(failed.error.message, /malformed event-stream frame: The message checksum/);
  assert.deepEqual(failed.content, [{ type: "text", text: "Hel" }]);
});

Deno.test("bedrock stream: a body cut mid-frame, and an impossible frame length, fail clearly", async () => {
  const frame = eventFrame(textDelta(0, "never whole"));
  const cut = await parseChunks([eventFrame(START), frame.subarray(0, 20)]);
  assert.equal(cut.error?.kind, "network");
  assert.match(cut.error.message, /ended in the middle of an event-stream frame/);
  const huge = await parseChunks([new Uint8Array([0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0])]);
  assert.equal(huge.error?.kind, "stream");
  assert.match(huge.error.message, /a frame announces 2147483647 bytes/);
});

Deno.test("bedrock stream: arguments that are not JSON (cut by max_tokens) or nest too deep are kept raw with input {}", async () => {
  const start = (contentBlockIndex: number, toolUseId: string) =>
    member("contentBlockStart", {
      contentBlockIndex,
      start: { toolUse: { toolUseId, name: "write" } },
    });
  const input = (contentBlockIndex: number, value: string) =>
    member("contentBlockDelta", { contentBlockIndex, delta: { toolUse: { input: value } } });
  const deep = `{"a":${"[".repeat(150)}${"]".repeat(150)}}`;
  const { content, result } = await parseMembers(
    START,
    start(0, "t1"),
    input(0, deep),
    member("contentBlockStop", { contentBlockIndex: 0 }),
    start(1, "t2"),
    input(1, '{"path": "a.txt", "text": "half'),
    member("messageStop", { stopReason: "max_tokens" }),
  );
  const [first, second] = content;
  assert.ok(first?.type === "tool_use" && second?.type === "tool_use");
  assert.deepEqual(first.input, {});
  assert.match(tooDeepArguments(first) ?? "", /nested deeper than 100 levels/);
  assert.deepEqual(second, {
    type: "tool_use",
    id: "t2",
    name: "write",
    input: {},
    invalidInput: '{"path": "a.txt", "text": "half',
  });
  assert.equal(result?.stopReason, "max_tokens");
});

Deno.test("bedrock stream: stop reasons map to panto's; an unknown one reads as a normal end and is told", async () => {
  const cases: [string, StopReason][] = [
    ["stop_sequence", "stop_sequence"],
    ["guardrail_intervened", "refusal"],
    ["content_filtered", "refusal"],
    ["model_context_window_exceeded", "max_tokens"],
    ["a_reason_from_2030", "end_turn"],
  ];
  for (const [stopReason, expected] of cases) {
    const { result } = await parseMembers(
      START,
      textDelta(0, "x"),
      member("messageStop", { stopReason }),
    );
    assert.equal(result?.stopReason, expected, stopReason);
    assert.deepEqual(
      result?.unrecognised,
      stopReason === "a_reason_from_2030" ? ['stop reason "a_reason_from_2030"'] : undefined,
    );
  }
});

Deno.test("bedrock stream: unknown members, block starts and deltas are skipped and named", async () => {
  const { content, result } = await parseMembers(
    START,
    member("contentBlockStart", { contentBlockIndex: 0, start: { image: { format: "png" } } }),
    member("contentBlockDelta", {
      contentBlockIndex: 0,
      delta: { citation: { title: "document-1" } },
    }),
    textDelta(1, "cited"),
    member("contentBlockDelta", { contentBlockIndex: 2, delta: { toolUse: { input: "{}" } } }),
    member("somethingNew", { x: 1 }),
    STOP,
  );
  assert.deepEqual(content, [{ type: "text", text: "cited" }]);
  assert.deepEqual(result?.unrecognised, [
    'contentBlockStart "image"',
    'delta "citation"',
    "toolUse delta without a contentBlockStart",
    'event "somethingNew"',
  ]);
});

Deno.test("bedrock stream: encrypted reasoning split over deltas is joined as bytes", async () => {
  const redacted = (piece: string) =>
    member("contentBlockDelta", {
      contentBlockIndex: 0,
      delta: { reasoningContent: { redactedContent: piece } },
    });
  const { content } = await parseMembers(START, redacted("AAE="), redacted("AgM="), STOP);
  assert.deepEqual(content, [{ type: "redacted_thinking", data: "AAECAw==" }]);
});

Deno.test("bedrock stream: an abort from the source returns the partial message as aborted", async () => {
  async function* source(): AsyncGenerator<SseEvent[]> {
    yield [{ type: "contentBlockDelta", data: textDelta(0, "so far").data, id: "" }];
    throw new DOMException("stopped", "AbortError");
  }
  const { result } = await runParser(parseBedrockStream(source(), URL_FOR_ERRORS));
  assert.equal(result?.stopReason, "aborted");
  assert.deepEqual(result?.content, [{ type: "text", text: "so far" }]);
});
