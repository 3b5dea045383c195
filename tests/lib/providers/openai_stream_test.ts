/**
 * `parseOpenAIStream` against every recorded OpenAI-format stream in
 * `tests/fixtures/providers/openai/`: fed whole and in seeded random chunks,
 * checked against the facts the MANIFEST states (hand-copied below) and
 * against the official `openai` SDK's own accumulation of the same bytes.
 * Where the SDK legitimately differs (it rejects the stream, or needs a
 * finish_reason the server never sent), the test says so in its name and
 * asserts the MANIFEST facts instead.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import OpenAI from "openai";
import { ProviderError } from "../../../lib/errors.ts";
import type { StopReason } from "../../../lib/message.ts";
import { parseOpenAIStream } from "../../../lib/providers/openai_stream.ts";
import { emptyUsage, type Usage } from "../../../lib/usage.ts";
import { randomChunks, seededRandom, sseEvents } from "../../support/chunked_sse.ts";
import type { ParserRun, ToolFact } from "../../support/parsed_stream.ts";
import {
  assertEventInvariants,
  runParser,
  textOf,
  thinkingOf,
  toolsOf,
} from "../../support/parsed_stream.ts";

const FIXTURES_DIR = new URL("../../fixtures/providers/openai", import.meta.url)
  .pathname;
const URL_SHOWN = "https://fixture.invalid/v1/chat/completions";

// ---------------------------------------------------------------------------
// MANIFEST facts ("exercises → final assembled message"), copied by hand.

interface Facts {
  /** Visible text (content and refusal), "" for none. */
  text: string;
  /** The reasoning: exact text, or its start and length. */
  reasoning?: string | { startsWith: string; length: number };
  tools?: ToolFact[];
  /** Our stop reason for the MANIFEST finish_reason (see the mapping in openai_stream.ts). */
  stopReason?: StopReason;
  /** Our usage for the MANIFEST numbers (cached tokens leave input; xAI reasoning joins output). */
  usage?: Usage;
  /** The stream ends in a server error carrying this message. */
  error?: { message: string; status?: number };
}

/** How the official SDK treats the fixture. */
type SdkVerdict =
  | { kind: "agrees" }
  | { kind: "needs_finish_reason" } // throws "missing finish_reason"; its snapshot still comparable
  | { kind: "rejects"; why: RegExp } // throws while accumulating: compare with MANIFEST only
  | { kind: "server_error" }; // throws the server's error, as we do

const SF = { location: "San Francisco" };

function usage(input: number, output: number, extra: Partial<Usage> = {}): Usage {
  return { ...emptyUsage(), inputTokens: input, outputTokens: output, ...extra };
}

const FIXTURES: Record<string, { facts: Facts; sdk: SdkVerdict }> = {
  "text-usage": {
    facts: {
      text: "The result of \\( 1231 \\times 2331 \\) is \\( 2,869,461 \\).",
      stopReason: "end_turn",
      usage: usage(87, 26),
    },
    sdk: { kind: "agrees" },
  },
  "tool-call-single": {
    facts: {
      text: "",
      tools: [{
        id: "call_1EYWDzueHEp8OsB8jJSEp7WB",
        name: "multiply",
        input: { a: 1231, b: 2331 },
      }],
      stopReason: "tool_use",
      usage: usage(54, 20),
    },
    sdk: { kind: "agrees" },
  },
  "parallel-tool-calls": {
    facts: {
      text: "",
      tools: [
        {
          id: "call_JMW1whyEaYG438VE1OIflxA2",
          name: "GetWeatherArgs",
          input: { city: "Edinburgh", country: "GB", units: "c" },
        },
        {
          id: "call_DNYTawLBoN8fj3KN6qU9N1Ou",
          name: "get_stock_price",
          input: { ticker: "AAPL", exchange: "NASDAQ" },
        },
      ],
      stopReason: "tool_use",
      usage: usage(149, 60),
    },
    sdk: { kind: "agrees" },
  },
  "length-stop": {
    facts: { text: '{"', stopReason: "max_tokens", usage: usage(79, 1) },
    sdk: { kind: "agrees" },
  },
  "refusal": {
    facts: {
      text: "I'm sorry, I can't assist with that request.",
      stopReason: "refusal",
      usage: usage(79, 11),
    },
    sdk: { kind: "agrees" },
  },
  "text-obfuscation": {
    facts: {
      text: "The capital of the UK is London.",
      stopReason: "end_turn",
      usage: usage(78, 9),
    },
    sdk: { kind: "agrees" },
  },
  "deepseek-reasoning-text": {
    facts: {
      text: 'The word "strawberry" contains three "r"s.',
      reasoning: { startsWith: 'We need to count the number of the letter "r"', length: 606 },
      stopReason: "end_turn",
      usage: usage(18, 219, { reasoningTokens: 205 }),
    },
    sdk: { kind: "agrees" },
  },
  "deepseek-reasoning-tool-call": {
    facts: {
      text: "",
      reasoning: { startsWith: "", length: 191 },
      tools: [{ id: "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", name: "weather", input: SF }],
      stopReason: "tool_use",
      usage: usage(19, 83, { cacheReadTokens: 320, reasoningTokens: 39 }),
    },
    sdk: { kind: "agrees" },
  },
  "groq-tool-call": {
    facts: {
      text: "",
      tools: [{ id: "tk85n1k4m", name: "weather", input: {} }],
      stopReason: "tool_use",
      usage: usage(210, 15),
    },
    sdk: { kind: "agrees" },
  },
  "groq-error-event-no-done": {
    facts: {
      text: "",
      reasoning: { startsWith: "We", length: 412 },
      usage: emptyUsage(),
      error: { message: "Tool call validation failed: ", status: 400 },
    },
    sdk: { kind: "server_error" },
  },
  "xai-tool-call": {
    facts: {
      text: "",
      reasoning: "First, the user is",
      tools: [{ id: "call_55117580", name: "weather", input: SF }],
      stopReason: "tool_use",
      // prompt 291 of which 290 cached; completion 26 + reasoning 196 (total 513).
      usage: usage(1, 222, { cacheReadTokens: 290, reasoningTokens: 196 }),
    },
    sdk: { kind: "agrees" },
  },
  "alibaba-tool-call": {
    facts: {
      text: "",
      tools: [{ id: "call_eee11723464a4b9eb8cee71d", name: "weather", input: SF }],
      stopReason: "tool_use",
      usage: usage(295, 22),
    },
    sdk: { kind: "agrees" },
  },
  "openrouter-kimi-tool-repeated": {
    facts: {
      text: "",
      tools: [{ id: "0", name: "llm_version", input: {} }],
      stopReason: "tool_use", // no finish_reason at all: calls were made
      usage: usage(57, 17),
    },
    sdk: { kind: "needs_finish_reason" },
  },
  "openrouter-kimi-tool-split": {
    facts: {
      text: "",
      tools: [{ id: "llm_version:0", name: "llm_version", input: {} }],
      stopReason: "tool_use",
      usage: usage(56, 12),
    },
    sdk: { kind: "agrees" },
  },
  "openrouter-comments-error-chunk": {
    facts: {
      text: "",
      reasoning: "We need to respond to a greeting. The user",
      usage: usage(43, 10, { reasoningTokens: 11 }),
      error: { message: "Token limit reached", status: 400 },
    },
    sdk: { kind: "server_error" },
  },
  "openrouter-claude-reasoning": {
    facts: {
      text: "2 + 2 = 4",
      reasoning: "This is a simple arithmetic question. 2+2 equals 4.",
      stopReason: "end_turn",
      usage: usage(43, 36, { reasoningTokens: 13 }),
    },
    sdk: { kind: "agrees" },
  },
  "azure-prompt-filter": {
    facts: {
      text: "Capital of Denmark.",
      stopReason: "end_turn",
      usage: usage(15, 78, { reasoningTokens: 64 }),
    },
    sdk: { kind: "agrees" },
  },
  "mistral-tool-call-no-index": {
    facts: {
      text: "",
      tools: [{ id: "gSIMJiOkT", name: "weather", input: SF }],
      stopReason: "tool_use",
      usage: usage(124, 22),
    },
    sdk: { kind: "rejects", why: /invalid tool call index: undefined/ },
  },
  "anthropic-compat-tool-index-1": {
    facts: {
      text: "Reading it.",
      tools: [{ id: "toolu_sanitized", name: "read_file", input: { path: "a.txt" } }],
      stopReason: "tool_use",
      usage: emptyUsage(),
    },
    // The SDK stores calls at `index` in an array and trips over the hole at 0.
    sdk: { kind: "rejects", why: /reading 'id'/ },
  },
  "snowflake-no-finish-reason": {
    facts: { text: "4", stopReason: "end_turn", usage: usage(22, 5) },
    sdk: { kind: "needs_finish_reason" },
  },
};

// ---------------------------------------------------------------------------
// Running our parser.

type Run = ParserRun;

function readFixture(name: string): Uint8Array {
  return Deno.readFileSync(join(FIXTURES_DIR, `${name}.sse`));
}

function parseChunks(chunks: readonly Uint8Array[]): Promise<Run> {
  return runParser(parseOpenAIStream(sseEvents(chunks), URL_SHOWN));
}

// ---------------------------------------------------------------------------
// Running the official SDK on the same bytes.

interface SdkRun {
  final?: OpenAI.Chat.Completions.ChatCompletion;
  error?: unknown;
  /** The SDK's accumulated snapshot after the last chunk it accepted. */
  snapshot?: SdkSnapshot;
  /** Reasoning concatenated from the chunks the SDK decoded (its accumulator keeps only the last piece). */
  reasoning: string;
}

interface SdkMessage {
  content?: string | null;
  refusal?: string | null;
  tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[];
}

interface SdkSnapshot {
  choices: { message: SdkMessage; finish_reason: string | null }[];
  usage?: OpenAI.CompletionUsage | null;
}

async function runSdk(bytes: Uint8Array): Promise<SdkRun> {
  const client = new OpenAI({
    apiKey: "test",
    baseURL: "http://fixture.invalid/v1",
    maxRetries: 0,
    fetch: () =>
      Promise.resolve(
        new Response(bytes.slice(), { headers: { "content-type": "text/event-stream" } }),
      ),
  });
  const run: SdkRun = { reasoning: "" };
  const stream = client.chat.completions.stream({
    model: "fixture",
    messages: [{ role: "user", content: "replay" }],
  });
  stream.on("chunk", (chunk, snapshot) => {
    run.snapshot = snapshot as unknown as SdkSnapshot;
    const delta = chunk.choices[0]?.delta as Record<string, unknown> | undefined;
    const piece = delta?.reasoning_content ?? delta?.reasoning;
    if (typeof piece === "string") run.reasoning += piece;
  });
  try {
    run.final = await stream.finalChatCompletion();
  } catch (error) {
    run.error = error;
  }
  return run;
}

/** What the SDK assembled, in our terms. */
function sdkView(message: SdkMessage): { text: string; tools: ToolFact[] } {
  const tools = (message.tool_calls ?? []).map((call) => {
    const args = call.function?.arguments ?? "";
    return {
      id: call.id ?? "",
      name: call.function?.name ?? "",
      input: args.trim() === "" ? {} : JSON.parse(args),
    };
  });
  return { text: (message.content ?? "") + (message.refusal ?? ""), tools };
}

/** Our usage seen through the SDK's raw numbers. */
function assertUsageMatchesSdk(ours: Usage, sdk: OpenAI.CompletionUsage): void {
  const cached = sdk.prompt_tokens_details?.cached_tokens ?? 0;
  const reasoning = sdk.completion_tokens_details?.reasoning_tokens ?? 0;
  assert.equal(ours.inputTokens + ours.cacheReadTokens, sdk.prompt_tokens, "prompt tokens");
  assert.equal(ours.cacheReadTokens, cached, "cached tokens");
  assert.equal(ours.reasoningTokens, reasoning, "reasoning tokens");
  const totalWithoutReasoning = sdk.prompt_tokens + sdk.completion_tokens;
  const reasoningOutside = reasoning > 0 && sdk.total_tokens === totalWithoutReasoning + reasoning;
  assert.equal(
    ours.outputTokens,
    sdk.completion_tokens + (reasoningOutside ? reasoning : 0),
    "output tokens (reasoning included)",
  );
}

/** The stop reason we promise for an SDK finish_reason. */
function expectedStop(
  finish: string,
  message: { text: string; tools: ToolFact[] },
  refusal: boolean,
) {
  const table: Record<string, StopReason> = {
    stop: "end_turn",
    tool_calls: "tool_use",
    length: "max_tokens",
    content_filter: "refusal",
  };
  const mapped = table[finish] ?? "end_turn";
  if (mapped !== "end_turn") return mapped;
  if (message.tools.length > 0) return "tool_use";
  return refusal ? "refusal" : "end_turn";
}

// ---------------------------------------------------------------------------
// Invariants of the event stream.

// ---------------------------------------------------------------------------
// The tests.

const fixtureNames = [...Deno.readDirSync(FIXTURES_DIR)]
  .filter((entry) => entry.name.endsWith(".sse"))
  .map((entry) => entry.name.slice(0, -".sse".length))
  .sort();

Deno.test("openai fixtures: every recorded stream has MANIFEST facts in this test", () => {
  assert.ok(fixtureNames.length >= 20, `expected the recorded fixtures in ${FIXTURES_DIR}`);
  assert.deepEqual(fixtureNames, Object.keys(FIXTURES).sort());
});

for (const name of fixtureNames) {
  const spec = FIXTURES[name];
  if (!spec) continue; // reported by the test above
  const { facts, sdk } = spec;

  Deno.test(`openai fixture ${name}: assembles the MANIFEST message`, async () => {
    const run = await parseChunks([readFixture(name)]);
    assertEventInvariants(run);
    if (run.error) assert.ok(run.error.partial, "the error carries the partial message");
    const message = run;
    assert.equal(textOf(message.content), facts.text);
    const reasoning = thinkingOf(message.content);
    if (typeof facts.reasoning === "string") assert.equal(reasoning, facts.reasoning);
    else if (facts.reasoning) {
      assert.ok(reasoning.startsWith(facts.reasoning.startsWith), reasoning.slice(0, 80));
      assert.equal(reasoning.length, facts.reasoning.length);
    } else assert.equal(reasoning, "");
    assert.deepEqual(toolsOf(message.content), facts.tools ?? []);
    for (const block of message.content) {
      if (block.type === "tool_use") assert.equal(block.invalidInput, undefined);
    }
    if (facts.usage) assert.deepEqual(message.usage, facts.usage);
    if (facts.error) {
      assert.ok(
        run.error instanceof ProviderError,
        `expected an error, got ${run.result?.stopReason}`,
      );
      assert.ok(run.error.message.includes(facts.error.message), run.error.message);
      assert.equal(run.error.status, facts.error.status);
      assert.equal(run.error.retryable, false, "a 400 from the server is not retried");
    } else {
      assert.equal(run.error, undefined, `unexpected error: ${run.error}`);
      assert.equal(run.result?.stopReason, facts.stopReason);
    }
  });

  Deno.test(`openai fixture ${name}: same events and message in random chunks`, async () => {
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

  const sdkTitle = {
    agrees: "agrees with the openai SDK",
    needs_finish_reason:
      "the openai SDK throws for the missing finish_reason; its snapshot agrees with ours",
    rejects: "the openai SDK rejects this stream; we follow the MANIFEST",
    server_error: "the openai SDK throws the same server error",
  }[sdk.kind];

  Deno.test(`openai fixture ${name}: ${sdkTitle}`, async () => {
    const bytes = readFixture(name);
    const [ours, theirs] = await Promise.all([parseChunks([bytes]), runSdk(bytes)]);
    if (ours.error) assert.ok(ours.error.partial, "the error carries the partial message");
    const message = ours;
    const view = { text: textOf(message.content), tools: toolsOf(message.content) };
    if (thinkingOf(message.content) !== "" || theirs.reasoning !== "") {
      assert.equal(
        thinkingOf(message.content),
        theirs.reasoning,
        "reasoning from SDK-decoded chunks",
      );
    }
    switch (sdk.kind) {
      case "agrees": {
        assert.equal(theirs.error, undefined, `SDK error: ${theirs.error}`);
        const choice = theirs.final!.choices[0]!;
        const sdkMessage = sdkView(choice.message);
        assert.deepEqual(view, sdkMessage);
        assert.equal(
          ours.result?.stopReason,
          expectedStop(choice.finish_reason, sdkMessage, Boolean(choice.message.refusal)),
        );
        if (theirs.final!.usage) assertUsageMatchesSdk(message.usage, theirs.final!.usage);
        else assert.deepEqual(message.usage, emptyUsage());
        break;
      }
      case "needs_finish_reason": {
        assert.match(String(theirs.error), /missing finish_reason/);
        const snapshot = theirs.snapshot!.choices[0]!;
        assert.equal(snapshot.finish_reason, null);
        assert.deepEqual(view, sdkView(snapshot.message));
        // The SDK only copies chunk fields when the chunk has an id; Snowflake's are "".
        const sdkUsage = theirs.snapshot!.usage;
        if (sdkUsage) assertUsageMatchesSdk(message.usage, sdkUsage);
        else assert.deepEqual(message.usage, facts.usage);
        break;
      }
      case "rejects":
        assert.match(String(theirs.error), sdk.why);
        assert.deepEqual(view, { text: facts.text, tools: facts.tools ?? [] });
        break;
      case "server_error": {
        assert.ok(theirs.error instanceof OpenAI.APIError, `SDK: ${theirs.error}`);
        assert.ok(ours.error instanceof ProviderError);
        assert.ok(
          ours.error.message.includes(theirs.error.message.slice(0, 120)),
          `ours: ${ours.error.message}\nSDK: ${theirs.error.message}`,
        );
        break;
      }
    }
  });
}
