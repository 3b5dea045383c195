/**
 * `parseAnthropicStream` against every recorded Anthropic stream in
 * `tests/fixtures/providers/anthropic/`: fed whole and in seeded random
 * chunks, checked against the facts the MANIFEST states for each file, and
 * compared with the official `@anthropic-ai/sdk` parsing the same bytes.
 * Then synthetic streams for the cases no recording covers.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import Anthropic, { APIError } from "@anthropic-ai/sdk";
import { Allow, parse as parsePartialJson } from "partial-json";
import type { ContentBlock } from "../../../lib/content.ts";
import { ProviderError } from "../../../lib/errors.ts";
import type { StopReason } from "../../../lib/message.ts";
import { parseAnthropicStream } from "../../../lib/providers/anthropic_stream.ts";
import { type SseEvent, SseParser } from "../../../lib/providers/sse.ts";
import { emptyUsage, type Usage } from "../../../lib/usage.ts";
import { sseEvents } from "../../support/chunked_sse.ts";
import { assertSameInChunks, type ParserRun, runParser } from "../../support/parsed_stream.ts";

const FIXTURES_DIR = new URL("../../fixtures/providers/anthropic", import.meta.url)
  .pathname;
const URL_FOR_ERRORS = "https://api.anthropic.com/v1/messages";

// ---------------------------------------------------------------------------
// Facts from shared/fixtures/providers/MANIFEST.md ("→ final assembled message").

type BlockFact =
  | { type: "text"; text?: string; startsWith?: string; endsWith?: string }
  | {
    type: "thinking";
    thinking?: string;
    startsWith?: string;
    length?: number;
    signature?: string;
    signatureLength?: number;
  }
  | { type: "redacted_thinking"; dataLength: number }
  | {
    type: "tool_use";
    id: string;
    name: string;
    input: Record<string, unknown>;
    invalidStartsWith?: string;
    invalidEndsWith?: string;
  };

interface Facts {
  /** Expected blocks of the assembled message (or of the error's partial). */
  blocks: BlockFact[];
  /** Facts about all text blocks joined, when the MANIFEST states them that way. */
  joinedText?: { startsWith: string; endsWith: string };
  /** Stop reason, or the error kind when the stream fails. */
  outcome: { stopReason: StopReason } | { errorKind: ProviderError["kind"] };
  usage: Partial<Usage> & Pick<Usage, "inputTokens" | "outputTokens">;
  /** How the official SDK's result relates to ours (see the SDK tests below). */
  sdk: "same" | "skips-server-blocks" | "partial-input" | "throws";
}

const text = (value: string): BlockFact => ({ type: "text", text: value });

const FACTS: Record<string, Facts> = {
  "text-hello": {
    blocks: [text("Hello")],
    outcome: { stopReason: "end_turn" },
    usage: { inputTokens: 10, outputTokens: 4 },
    sdk: "same",
  },
  "thinking-text": {
    blocks: [
      {
        type: "thinking",
        startsWith: "The user wants two names",
        length: 289,
        signatureLength: 656,
      },
      text(
        '1. **Pouch** - references their iconic bill pouch\n2. **Pelé** - playful take on "pelican"',
      ),
    ],
    outcome: { stopReason: "end_turn" },
    usage: { inputTokens: 46, outputTokens: 133 },
    sdk: "same",
  },
  "thinking-summarized-tool-use": {
    blocks: [
      { type: "thinking", length: 180, signatureLength: 524 },
      { type: "tool_use", id: "toolu_01825dXWLSoJwCst1qTsiWdb", name: "fixed_version", input: {} },
    ],
    outcome: { stopReason: "tool_use" },
    usage: { inputTokens: 598, outputTokens: 92, reasoningTokens: 53 },
    sdk: "same",
  },
  "thinking-after-tool-result": {
    blocks: [{
      type: "text",
      startsWith: "The version is **0.32a0**.\n\nHere's a joke about it: ",
      endsWith: "plenty of room to grow!)",
    }],
    outcome: { stopReason: "end_turn" },
    usage: { inputTokens: 707, outputTokens: 89, reasoningTokens: 0 },
    sdk: "same",
  },
  "redacted-thinking": {
    blocks: [
      { type: "redacted_thinking", dataLength: 744 },
      { type: "redacted_thinking", dataLength: 296 },
      {
        type: "text",
        startsWith: "I notice that you've sent what appears to be some kind of test string",
      },
    ],
    outcome: { stopReason: "end_turn" },
    usage: { inputTokens: 92, outputTokens: 189 },
    sdk: "same",
  },
  "adaptive-thinking": {
    blocks: [
      text("\n\n"),
      {
        type: "thinking",
        thinking: "Brief answer with two pet pelican names.",
        signatureLength: 284,
      },
      text("1. **Captain Scoop**\n2. **Gullet**"),
    ],
    outcome: { stopReason: "end_turn" },
    usage: { inputTokens: 34, outputTokens: 44 },
    sdk: "same",
  },
  "tool-use-single": {
    blocks: [{
      type: "tool_use",
      id: "toolu_019Zvehfe1XQWweT1pm7okyt",
      name: "weather",
      input: { location: "San Francisco" },
    }],
    outcome: { stopReason: "tool_use" },
    usage: { inputTokens: 843, outputTokens: 28 },
    sdk: "same",
  },
  "text-then-tool-use": {
    blocks: [
      text("I'll check the current weather in Paris for you."),
      {
        type: "tool_use",
        id: "toolu_01NRLabsLyVHZPKxbKvkfSMn",
        name: "get_weather",
        input: { location: "Paris" },
      },
    ],
    outcome: { stopReason: "tool_use" },
    usage: { inputTokens: 377, outputTokens: 65 },
    sdk: "same",
  },
  "tool-use-parallel-no-args": {
    blocks: [
      {
        type: "tool_use",
        id: "toolu_01LtHJmixrs9NcWQkK8hu8hj",
        name: "pelican_name_generator",
        input: {},
      },
      {
        type: "tool_use",
        id: "toolu_01N8a4jWyf116qKTMqKKmjyt",
        name: "pelican_name_generator",
        input: {},
      },
    ],
    outcome: { stopReason: "tool_use" },
    usage: { inputTokens: 542, outputTokens: 62 },
    sdk: "same",
  },
  "text-after-tool-results": {
    blocks: [{
      type: "text",
      startsWith: "Here are two great names for your pet pelican:\n\n1. **Charles** ",
      endsWith: "feathered friend! 🦅",
    }],
    outcome: { stopReason: "end_turn" },
    usage: { inputTokens: 678, outputTokens: 82 },
    sdk: "same",
  },
  "tool-use-no-args": {
    blocks: [{
      type: "tool_use",
      id: "toolu_01CzN6riCPqw4pVSuTd9Dwn7",
      name: "pelican_name_generator",
      input: {},
    }],
    outcome: { stopReason: "tool_use" },
    usage: { inputTokens: 543, outputTokens: 40 },
    sdk: "same",
  },
  "text-then-tool-no-args": {
    blocks: [
      text("I'll update the issue list for you."),
      {
        type: "tool_use",
        id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP",
        name: "updateIssueList",
        input: {},
      },
    ],
    outcome: { stopReason: "tool_use" },
    usage: { inputTokens: 565, outputTokens: 48 },
    sdk: "same",
  },
  "max-tokens-mid-tool": {
    blocks: [
      {
        type: "text",
        startsWith: "I'll create a comprehensive tax guide",
        endsWith: "Let me do that for you now.",
      },
      {
        type: "tool_use",
        id: "toolu_01EKqbqmZrGRXy18eN7m9kvY",
        name: "make_file",
        input: {},
        invalidStartsWith:
          '{"filename": "taxes.txt", "lines_of_text": [\n"# COMPREHENSIVE TAX GUIDE',
        invalidEndsWith: '\n"Filing taxes',
      },
    ],
    outcome: { stopReason: "max_tokens" },
    usage: { inputTokens: 450, outputTokens: 124 },
    sdk: "partial-input",
  },
  "refusal-no-content": {
    blocks: [],
    outcome: { stopReason: "refusal" },
    usage: { inputTokens: 18, outputTokens: 5 },
    sdk: "same",
  },
  "stop-sequence-prefill": {
    blocks: [
      text(
        '\ndef pelican():\n    return "A large waterbird with a long bill and a throat pouch for catching fish."\n',
      ),
    ],
    outcome: { stopReason: "stop_sequence" },
    usage: { inputTokens: 16, outputTokens: 28 },
    sdk: "same",
  },
  "web-search-server-tool": {
    // server_tool_use and web_search_tool_result are skipped; the 10 text blocks stay.
    blocks: Array.from({ length: 10 }, (): BlockFact => ({ type: "text" })),
    joinedText: {
      startsWith:
        "Based on the search results, here's the current weather in San Francisco:\n\nToday (November 15, 2025)",
      endsWith: "this weekend.",
    },
    outcome: { stopReason: "end_turn" },
    usage: { inputTokens: 10423, outputTokens: 341 },
    sdk: "skips-server-blocks",
  },
  "third-party-delta-input-tokens": {
    blocks: [text("pong")],
    outcome: { stopReason: "end_turn" },
    usage: { inputTokens: 61, outputTokens: 2 },
    sdk: "same",
  },
  "duplicate-message-start": {
    blocks: [text("Hello, World!")],
    outcome: { stopReason: "end_turn" },
    usage: { inputTokens: 17, outputTokens: 227 },
    sdk: "throws",
  },
  "spliced-message-start": {
    blocks: [
      { type: "thinking", thinking: "Let me call the tool.", signature: "sig-second" },
      { type: "tool_use", id: "toolu_second", name: "test-tool", input: { value: "Sparkle Day" } },
    ],
    outcome: { stopReason: "tool_use" },
    usage: { inputTokens: 17, outputTokens: 65 },
    sdk: "throws",
  },
  "error-overloaded-midstream": {
    blocks: [text("- Captain")],
    outcome: { errorKind: "overloaded" },
    usage: { inputTokens: 17, outputTokens: 1 },
    sdk: "throws",
  },
};

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

/** Drains the assembler, flattening its batches (which must never be empty). */
async function run(source: AsyncIterable<readonly SseEvent[]>): Promise<Run> {
  const parsed = await runParser(parseAnthropicStream(source, URL_FOR_ERRORS));
  if (parsed.error) {
    assert.ok(parsed.error.partial, "a failure after message_start carries the partial message");
  }
  return parsed;
}

// ---------------------------------------------------------------------------
// Checks.

function assertFacts(name: string, run: Run, facts: Facts): void {
  assert.equal(run.content.length, facts.blocks.length, `${name}: block count`);
  facts.blocks.forEach((fact, index) =>
    assertBlock(`${name} block ${index}`, run.content[index], fact)
  );
  if (facts.joinedText) {
    const joined = run.content.map((block) => block.type === "text" ? block.text : "").join("");
    assert.ok(joined.startsWith(facts.joinedText.startsWith), `${name}: joined text start`);
    assert.ok(joined.endsWith(facts.joinedText.endsWith), `${name}: joined text end`);
  }
  if ("stopReason" in facts.outcome) {
    assert.equal(run.error, undefined, `${name}: unexpected error ${run.error?.message}`);
    assert.equal(run.result?.stopReason, facts.outcome.stopReason);
  } else {
    assert.equal(run.error?.kind, facts.outcome.errorKind, `${name}: error kind`);
  }
  for (const [field, value] of Object.entries(facts.usage)) {
    assert.equal(run.usage[field as keyof Usage], value, `${name}: usage.${field}`);
  }
}

function assertBlock(label: string, block: ContentBlock | undefined, fact: BlockFact): void {
  assert.equal(block?.type, fact.type, `${label}: type`);
  switch (fact.type) {
    case "text": {
      assert.ok(block?.type === "text");
      if (fact.text !== undefined) assert.equal(block.text, fact.text, label);
      if (fact.startsWith) assert.ok(block.text.startsWith(fact.startsWith), `${label}: start`);
      if (fact.endsWith) assert.ok(block.text.endsWith(fact.endsWith), `${label}: end`);
      break;
    }
    case "thinking": {
      assert.ok(block?.type === "thinking");
      if (fact.thinking !== undefined) assert.equal(block.thinking, fact.thinking, label);
      if (fact.startsWith) assert.ok(block.thinking.startsWith(fact.startsWith), label);
      if (fact.length !== undefined) assert.equal([...block.thinking].length, fact.length, label);
      if (fact.signature !== undefined) assert.equal(block.signature, fact.signature, label);
      if (fact.signatureLength !== undefined) {
        assert.equal(block.signature?.length, fact.signatureLength, `${label}: signature`);
      }
      break;
    }
    case "redacted_thinking":
      assert.ok(block?.type === "redacted_thinking");
      assert.equal(block.data.length, fact.dataLength, label);
      break;
    case "tool_use": {
      assert.ok(block?.type === "tool_use");
      assert.equal(block.id, fact.id, label);
      assert.equal(block.name, fact.name, label);
      assert.deepEqual(block.input, fact.input, label);
      if (fact.invalidStartsWith === undefined) {
        assert.equal(block.invalidInput, undefined, `${label}: input must be valid`);
      } else {
        assert.ok(block.invalidInput?.startsWith(fact.invalidStartsWith), `${label}: raw start`);
        assert.ok(block.invalidInput?.endsWith(fact.invalidEndsWith ?? ""), `${label}: raw end`);
      }
      break;
    }
  }
}

/**
 * The block events must tell the same story as the final message: deltas
 * concatenate to each block's text, every start gets one completion, and the
 * completed blocks are the message's blocks. A `block_start` for an index
 * seen before (a restarted generation) replaces that block.
 */
function assertEventsMatchContent(name: string, run: Run): void {
  const streamed = new Map<number, { kind: string; text: string; done?: ContentBlock }>();
  for (const event of run.events) {
    if (event.type === "block_start") {
      if (event.blockIndex === 0) streamed.clear(); // a new generation starts at 0
      assert.equal(event.blockIndex, streamed.size, `${name}: block indices are dense`);
      streamed.set(event.blockIndex, { kind: event.kind, text: "" });
      continue;
    }
    const entry = streamed.get(event.blockIndex);
    assert.ok(entry, `${name}: event for unknown block ${event.blockIndex}`);
    assert.equal(entry.done, undefined, `${name}: event after block ${event.blockIndex} completed`);
    if (event.type === "content_delta") entry.text += event.text;
    else entry.done = event.block;
  }
  const completed = [...streamed.values()].map((entry) => entry.done);
  if (run.error === undefined) assert.deepEqual(completed, run.content, `${name}: completions`);
  [...streamed.values()].forEach((entry, index) => {
    const block = run.content[index];
    if (block?.type === "text") assert.equal(entry.text, block.text, `${name}: text deltas`);
    if (block?.type === "thinking") assert.equal(entry.text, block.thinking, `${name}: thinking`);
    if (block?.type === "tool_use") {
      if (block.invalidInput !== undefined) assert.equal(entry.text, block.invalidInput);
      else assert.deepEqual(JSON.parse(entry.text || "{}"), block.input, `${name}: tool input`);
    }
  });
}

// ---------------------------------------------------------------------------
// The official SDK on the same bytes.

interface Comparable {
  content: ContentBlock[];
  usage: Usage;
  stopReason: string | null;
}

async function sdkMessage(bytes: Uint8Array<ArrayBuffer>): Promise<Anthropic.Message> {
  const client = new Anthropic({
    apiKey: "test",
    maxRetries: 0,
    fetch: () =>
      Promise.resolve(new Response(bytes, { headers: { "content-type": "text/event-stream" } })),
  });
  return await client.messages.stream({
    model: "fixture-replay",
    max_tokens: 1024,
    messages: [{ role: "user", content: "replay" }],
  }).finalMessage();
}

/** The SDK message in our shape; server-tool blocks have no counterpart in ours. */
function fromSdk(message: Anthropic.Message): Comparable {
  const content = message.content.flatMap((block): ContentBlock[] => {
    switch (block.type) {
      case "text":
        return [{ type: "text", text: block.text }];
      case "thinking":
        return [{
          type: "thinking",
          thinking: block.thinking,
          ...(block.signature ? { signature: block.signature } : {}),
        }];
      case "redacted_thinking":
        return [{ type: "redacted_thinking", data: block.data }];
      case "tool_use":
        return [{
          type: "tool_use",
          id: block.id,
          name: block.name,
          input: block.input as Record<string, unknown>,
        }];
      default:
        return [];
    }
  });
  const usage = message.usage;
  return {
    content,
    stopReason: message.stop_reason,
    usage: {
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      cacheReadTokens: usage.cache_read_input_tokens ?? 0,
      cacheWriteTokens: usage.cache_creation_input_tokens ?? 0,
      reasoningTokens: usage.output_tokens_details?.thinking_tokens ?? 0,
    },
  };
}

function ours(run: Run): Comparable {
  return { content: run.content, usage: run.usage, stopReason: run.result?.stopReason ?? null };
}

/** The SSE events of a fixture as raw text blocks, to cut a stream into pieces. */
function rawEvents(name: string): string[] {
  return new TextDecoder().decode(readFixture(name)).split(/(?<=\n\n)/);
}

const encode = (value: string) => new TextEncoder().encode(value);

// ---------------------------------------------------------------------------
// Fixture tests.

Deno.test("anthropic fixtures: every recorded .sse file has MANIFEST facts here", () => {
  const names = fixtureNames();
  assert.ok(names.length >= 20, `found only ${names.length} fixtures in ${FIXTURES_DIR}`);
  assert.deepEqual(names, Object.keys(FACTS).sort());
});

for (const name of fixtureNames()) {
  const facts = FACTS[name];
  Deno.test({
    name: `anthropic fixture ${name}: MANIFEST facts, whole and in random chunks`,
    ignore: facts === undefined, // reported by the coverage test above
    async fn() {
      const bytes = readFixture(name);
      const whole = await run(sseEvents([bytes]));
      assertFacts(name, whole, facts!);
      assertEventsMatchContent(name, whole);
      await assertSameInChunks(name, bytes, whole, (chunks) => run(sseEvents(chunks)));
    },
  });
  if (facts?.sdk === "same") {
    Deno.test(`anthropic fixture ${name}: same message as the official SDK`, async () => {
      const bytes = readFixture(name);
      assert.deepEqual(ours(await run(sseEvents([bytes]))), fromSdk(await sdkMessage(bytes)));
    });
  }
}

Deno.test("anthropic fixture web-search-server-tool: same text as the SDK, which also keeps the server-tool blocks we skip", async () => {
  const bytes = readFixture("web-search-server-tool");
  const sdk = await sdkMessage(bytes);
  assert.deepEqual(
    sdk.content.slice(0, 2).map((block) => block.type),
    ["server_tool_use", "web_search_tool_result"],
  );
  assert.deepEqual(ours(await run(sseEvents([bytes]))), fromSdk(sdk));
});

Deno.test("anthropic fixture max-tokens-mid-tool: SDK partially parses the cut arguments; we keep them raw with input {}", async () => {
  const bytes = readFixture("max-tokens-mid-tool");
  const mine = ours(await run(sseEvents([bytes])));
  const sdk = fromSdk(await sdkMessage(bytes));
  const tool = mine.content[1];
  assert.ok(tool?.type === "tool_use" && tool.invalidInput !== undefined);
  // The SDK's lenient parse drops the unfinished string; so does partial-json without STR.
  const lenient = parsePartialJson(tool.invalidInput, Allow.ALL & ~Allow.STR);
  assert.deepEqual(sdk.content[1], {
    type: "tool_use",
    id: tool.id,
    name: tool.name,
    input: lenient,
  });
  assert.deepEqual({ ...mine, content: mine.content.slice(0, 1) }, {
    ...sdk,
    content: sdk.content.slice(0, 1),
  });
});

Deno.test("anthropic fixture duplicate-message-start: the SDK throws on the repeated message_start; without it the SDK agrees with us", async () => {
  const bytes = readFixture("duplicate-message-start");
  await assert.rejects(sdkMessage(bytes), /Unexpected event order/);
  const events = rawEvents("duplicate-message-start");
  assert.equal(events[0], events[1], "the fixture repeats its first event");
  const deduplicated = encode(events.slice(1).join(""));
  assert.deepEqual(ours(await run(sseEvents([bytes]))), fromSdk(await sdkMessage(deduplicated)));
});

Deno.test("anthropic fixture spliced-message-start: the SDK throws on the second message_start; we reset and match the SDK on the second generation alone", async () => {
  const bytes = readFixture("spliced-message-start");
  await assert.rejects(sdkMessage(bytes), /Unexpected event order/);
  const events = rawEvents("spliced-message-start");
  const restart = events.findLastIndex((event) => event.startsWith("event: message_start"));
  assert.ok(restart > 0);
  const second = encode(events.slice(restart).join(""));
  assert.deepEqual(ours(await run(sseEvents([bytes]))), fromSdk(await sdkMessage(second)));
});

Deno.test("anthropic fixture error-overloaded-midstream: the SDK and we both fail with overloaded_error; ours keeps the partial text", async () => {
  const bytes = readFixture("error-overloaded-midstream");
  const sdkError = await sdkMessage(bytes).then(() => undefined, (error: unknown) => error);
  assert.ok(sdkError instanceof APIError, `SDK: ${sdkError}`);
  assert.equal((sdkError.error as { error?: { type?: string } }).error?.type, "overloaded_error");
  const mine = await run(sseEvents([bytes]));
  assert.ok(mine.error?.retryable);
  assert.match(mine.error.message, /overloaded_error: Overloaded/);
  assert.deepEqual(mine.content, [{ type: "text", text: "- Captain" }]);
});

// ---------------------------------------------------------------------------
// Synthetic streams.

function sse(type: string, data: unknown): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

const START = sse("message_start", {
  type: "message_start",
  message: {
    id: "msg_1",
    usage: { input_tokens: 5, output_tokens: 1, cache_read_input_tokens: 3 },
  },
});
const TEXT_BLOCK = sse("content_block_start", {
  type: "content_block_start",
  index: 0,
  content_block: { type: "text", text: "" },
}) + sse("content_block_delta", {
  type: "content_block_delta",
  index: 0,
  delta: { type: "text_delta", text: "partial" },
});
const STOP = sse("message_delta", {
  type: "message_delta",
  delta: { stop_reason: "end_turn" },
  usage: { output_tokens: 9 },
}) + sse("message_stop", { type: "message_stop" });

function toolBlock(index: number, startInput: unknown, json: string[]): string {
  return sse("content_block_start", {
    type: "content_block_start",
    index,
    content_block: { type: "tool_use", id: `toolu_${index}`, name: "echo", input: startInput },
  }) +
    json.map((partial) =>
      sse("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: partial },
      })
    ).join("") +
    sse("content_block_stop", { type: "content_block_stop", index });
}

Deno.test("anthropic stream: ending before message_stop is a retryable network error with the partial text", async () => {
  const result = await run(sseEvents([START + TEXT_BLOCK]));
  assert.equal(result.error?.kind, "network");
  assert.ok(result.error.retryable);
  assert.match(result.error.message, /ended before message_stop/);
  assert.deepEqual(result.content, [{ type: "text", text: "partial" }]);
  assert.deepEqual(result.usage, {
    ...emptyUsage(),
    inputTokens: 5,
    outputTokens: 1,
    cacheReadTokens: 3,
  });
});

Deno.test("anthropic stream: an abort error from the source returns the partial message as aborted", async () => {
  async function* aborted(): AsyncGenerator<SseEvent[]> {
    yield* sseEvents([START + TEXT_BLOCK]);
    throw new DOMException("The request was aborted", "AbortError");
  }
  const result = await run(aborted());
  assert.equal(result.result?.stopReason, "aborted");
  assert.deepEqual(result.content, [{ type: "text", text: "partial" }]);
  assert.equal(result.usage.inputTokens, 5);
});

Deno.test("anthropic stream: a source failure becomes a network error carrying the partial and its cause", async () => {
  const cause = new TypeError("connection reset");
  async function* broken(): AsyncGenerator<SseEvent[]> {
    yield* sseEvents([START + TEXT_BLOCK]);
    throw cause;
  }
  const result = await run(broken());
  assert.equal(result.error?.kind, "network");
  assert.equal(result.error.cause, cause);
  assert.match(result.error.message, /connection reset/);
  assert.deepEqual(result.content, [{ type: "text", text: "partial" }]);
});

Deno.test("anthropic stream: an HTTP error before any event is rethrown unchanged, without a partial", async () => {
  const httpError = new ProviderError("auth", "api.anthropic.com answered 401", { status: 401 });
  // deno-lint-ignore require-yield
  async function* refused(): AsyncGenerator<SseEvent[]> {
    throw httpError;
  }
  const stream = parseAnthropicStream(refused(), URL_FOR_ERRORS);
  await assert.rejects(
    stream.next(),
    (error) => error === httpError && httpError.partial === undefined,
  );
});

Deno.test("anthropic stream: malformed JSON in an event is a stream error naming the event", async () => {
  const result = await run(sseEvents([START + "event: content_block_start\ndata: {oops\n\n"]));
  assert.equal(result.error?.kind, "stream");
  assert.match(result.error.message, /sent a "content_block_start" event that is not JSON: \{oops/);
});

Deno.test("anthropic stream: a failure mid-batch yields the earlier events first, as one event per batch would", async () => {
  const body = START + TEXT_BLOCK + "event: content_block_delta\ndata: {oops\n\n" + STOP;
  async function* oneByOne(): AsyncGenerator<SseEvent[]> {
    for (const event of new SseParser().push(body)) yield [event];
  }
  const whole = await run(sseEvents([body]));
  const single = await run(oneByOne());
  assert.deepEqual(whole.events.map((event) => event.type), ["block_start", "content_delta"]);
  assert.deepEqual(whole.events, single.events);
  assert.equal(whole.error?.kind, "stream");
  assert.equal(whole.error.message, single.error?.message);
  assert.deepEqual(whole.content, [{ type: "text", text: "partial" }]);
  assert.deepEqual(whole.content, single.content);
});

Deno.test("anthropic stream: tool input from content_block_start is used when no delta arrives, deltas win otherwise", async () => {
  const body = START +
    toolBlock(0, { path: "a.txt" }, []) +
    toolBlock(1, { path: "ignored" }, ['{"path":', '"b.txt"}']) +
    toolBlock(2, {}, ["[1,2]"]) +
    STOP;
  const result = await run(sseEvents([body]));
  const inputs = result.content.map((block) => block.type === "tool_use" ? block : undefined);
  assert.deepEqual(inputs[0]?.input, { path: "a.txt" });
  assert.deepEqual(inputs[1]?.input, { path: "b.txt" });
  // Arguments must be an object: an array is kept raw, like cut-off JSON.
  assert.deepEqual(inputs[2]?.input, {});
  assert.equal(inputs[2]?.invalidInput, "[1,2]");
});

Deno.test("anthropic stream: a repeated message_start with the same id keeps the blocks; a new id starts over", async () => {
  const restart = START.replace("msg_1", "msg_2").replace('"input_tokens":5', '"input_tokens":8');
  const duplicate = await run(sseEvents([START + TEXT_BLOCK + START + STOP]));
  assert.deepEqual(duplicate.content, [{ type: "text", text: "partial" }]);
  assert.equal(duplicate.usage.inputTokens, 5);
  const restarted = await run(sseEvents([START + TEXT_BLOCK + restart + STOP]));
  assert.deepEqual(restarted.content, []);
  assert.equal(restarted.usage.inputTokens, 8);
});

Deno.test("anthropic stream: content and stop reason already in message_start are kept, as the SDK keeps them", async () => {
  const body = sse("message_start", {
    type: "message_start",
    message: {
      id: "msg_whole",
      type: "message",
      role: "assistant",
      model: "compatible",
      content: [
        { type: "thinking", thinking: "Easy.", signature: "sig" },
        { type: "text", text: "Hello" },
        { type: "tool_use", id: "toolu_0", name: "echo", input: { say: "hi" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 4, output_tokens: 7 },
    },
  }) + sse("content_block_delta", {
    type: "content_block_delta",
    index: 1,
    delta: { type: "text_delta", text: ", world" },
  }) + sse("message_stop", { type: "message_stop" });
  const result = await run(sseEvents([body]));
  assert.deepEqual(result.content, [
    { type: "thinking", thinking: "Easy.", signature: "sig" },
    { type: "text", text: "Hello, world" },
    { type: "tool_use", id: "toolu_0", name: "echo", input: { say: "hi" } },
  ]);
  assert.equal(result.result?.stopReason, "tool_use");
  const texts = result.events.flatMap((event) =>
    event.type === "content_delta" ? [`${event.blockIndex}:${event.text}`] : []
  );
  assert.deepEqual(texts, ["0:Easy.", "1:Hello", "1:, world"]);
  assert.deepEqual(ours(result), fromSdk(await sdkMessage(encode(body))));
});

Deno.test("anthropic stream: events without `event:` lines are dispatched by their payload type", async () => {
  const body = (START + TEXT_BLOCK + STOP).replaceAll(/^event: .*\n/gm, "");
  const result = await run(sseEvents([body]));
  assert.equal(result.result?.stopReason, "end_turn");
  assert.deepEqual(result.content, [{ type: "text", text: "partial" }]);
});

Deno.test("anthropic stream: stop reasons map to ours; unknown ones read as end_turn", async () => {
  const cases: [string, StopReason][] = [
    ["pause_turn", "pause_turn"],
    ["refusal", "refusal"],
    ["model_context_window_exceeded", "max_tokens"],
    ["something_new", "end_turn"],
  ];
  for (const [wire, expected] of cases) {
    const body = START + STOP.replace("end_turn", wire);
    assert.equal((await run(sseEvents([body]))).result?.stopReason, expected, wire);
  }
});

Deno.test("anthropic stream: usage fields are overwritten by later reports, never summed", async () => {
  const delta = (usage: unknown) =>
    sse("message_delta", { type: "message_delta", delta: {}, usage });
  const body = START +
    delta({ output_tokens: 4, cache_creation_input_tokens: 7 }) +
    delta({ output_tokens: 6, output_tokens_details: { thinking_tokens: 2 } }) +
    STOP.replace('"output_tokens":9', '"output_tokens":11');
  const result = await run(sseEvents([body]));
  assert.deepEqual(result.usage, {
    inputTokens: 5,
    outputTokens: 11,
    cacheReadTokens: 3,
    cacheWriteTokens: 7,
    reasoningTokens: 2,
  });
});

Deno.test("anthropic stream: reading stops at message_stop and the source is released", async () => {
  let released = false;
  async function* source(): AsyncGenerator<SseEvent[]> {
    try {
      yield* sseEvents([START + TEXT_BLOCK + STOP]);
      throw new Error("read past message_stop");
    } finally {
      released = true;
    }
  }
  const result = await run(source());
  assert.equal(result.result?.stopReason, "end_turn");
  assert.ok(released);
});
