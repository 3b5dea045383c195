import type { ContentBlock, ToolUseBlock } from "../content.ts";
import { type PartialMessage, ProviderError } from "../errors.ts";
import type { DeltaKind } from "../events.ts";
import type { StopReason } from "../message.ts";
import { emptyUsage, type Usage } from "../usage.ts";
import { assembleMessage, type MessageAssembler } from "./assemble_batches.ts";
import { classifyStreamError } from "./http.ts";
import { streamReadFailure } from "./error_classification.ts";
import { asObject, isObject, parseWireObject, type WireObject } from "./wire_object.ts";
import type { AssistantResult, ProviderStreamEvent } from "./provider.ts";
import type { SseEvent } from "./sse.ts";
import { parseToolArguments } from "./tool_arguments.ts";

/**
 * Assembles an assistant message from the server-sent events of a streaming
 * Chat Completions response (OpenAI and the compatible servers), yielding
 * block events as it goes: one batch per batch of SSE events that completes
 * any (events before a failure in a batch are yielded before the error is
 * thrown). Only choice 0 is read.
 *
 * - Blocks are numbered in the order they start: reasoning
 *   (`reasoning_content`, `reasoning` or `reasoning_text`, the first that is
 *   non-empty; else the text and summaries of `reasoning_details`, which
 *   OpenRouter sends as a copy of `reasoning`), text (`content`, and
 *   `refusal` text), then tool calls. A `content` array (Mistral's reasoning
 *   models) is read in order: `text` chunks are text, `thinking` chunks
 *   reasoning. Text or reasoning that resumes after another block starts a
 *   new block.
 * - Tool-call fragments are keyed by `index`; without one (Mistral) by `id`;
 *   with neither they extend the last call. An empty `id` never overwrites a
 *   real one (Alibaba). A fragment that resends a complete call whose
 *   arguments are already complete JSON replaces them instead of appending
 *   (OpenRouter/Novita resend the whole call). Arguments are parsed strictly
 *   at the end: none means `{}`; text that is not a JSON object leaves
 *   `input: {}` and is kept in `invalidInput`.
 * - `finish_reason`: `stop` → end_turn, `tool_calls`/`function_call` →
 *   tool_use, `length` → max_tokens, `content_filter` → refusal. Calls made
 *   under any other or no reason → tool_use (some servers say `stop`, some say
 *   nothing); streamed refusal text under `stop` → refusal.
 * - Usage is the last non-null report (top-level `usage`, Groq's
 *   `x_groq.usage`, or Moonshot's `choices[0].usage`), never a sum.
 * - The stream ends at `data: [DONE]`. Without `[DONE]`, EOF after a
 *   `finish_reason` is a normal end (servers that never send `[DONE]`); EOF
 *   with neither means the connection was cut.
 * - When the event source throws an abort error, the partial message is
 *   returned with stop reason `aborted`.
 *
 * @param events Parsed SSE events in batches, e.g. from `streamSse`, or the
 * results of `SseParser.push`.
 * @param url Where the events came from, for error messages.
 * @returns The assembled message.
 * @throws {ProviderError} On an error payload (`{"error":…}` data, or an
 * `event: error`; classified), `finish_reason: "error"` (`server`), a stream
 * cut before `[DONE]` or a finish reason (`network`), a chunk that is not
 * JSON (`stream`), or a failing source; `partial` holds what was assembled.
 *
 * @example Parse a recorded stream
 * ```ts
 * import { parseOpenAIStream } from "./openai_stream.ts";
 * import { SseParser } from "./sse.ts";
 * const body = 'data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n' +
 *   'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
 * async function* source() { yield new SseParser().push(body); }
 * const stream = parseOpenAIStream(source(), "https://api.openai.com/v1/chat/completions");
 * let step = await stream.next();
 * while (!step.done) step = await stream.next();
 * console.assert(step.value.content[0]?.type === "text" && step.value.stopReason === "end_turn");
 * ```
 */
export async function* parseOpenAIStream(
  events: AsyncIterable<readonly SseEvent[]>,
  url: string,
): AsyncGenerator<ProviderStreamEvent[], AssistantResult, void> {
  return yield* assembleMessage(events, new ChatCompletionAssembler(url));
}

/** A tool call being assembled from fragments. */
interface ToolCallState {
  id: string;
  name: string;
  args: string;
  /** Set once the block has started (a name is known). */
  blockIndex: number | undefined;
}

/** A block of the assembled message. */
type AssembledBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; text: string }
  | { type: "tool_use"; call: ToolCallState };

const STOP_REASONS: ReadonlyMap<string, StopReason> = new Map([
  ["stop", "end_turn"],
  ["end", "end_turn"],
  ["tool_calls", "tool_use"],
  ["function_call", "tool_use"],
  ["length", "max_tokens"],
  ["content_filter", "refusal"],
]);

/** Incremental state of one Chat Completions response. */
class ChatCompletionAssembler implements MessageAssembler {
  readonly #url: string;
  #blocks: AssembledBlock[] = [];
  /** The text or thinking block that the next delta of its kind extends. */
  #openStream: number | undefined;
  #calls: ToolCallState[] = [];
  #callsByKey = new Map<string, ToolCallState>();
  #usage: Usage = emptyUsage();
  #refused = false;
  /** The last non-empty `finish_reason`. */
  #finishReason: string | undefined;
  /** True once `[DONE]` arrived. */
  ended = false;

  constructor(url: string) {
    this.#url = url;
  }

  /** Applies one SSE event; appends the block events it causes to `out`. */
  handle(event: SseEvent, out: ProviderStreamEvent[]): void {
    if (event.type === "error") {
      throw classifyStreamError(parseLenient(event.data), this.#url);
    }
    const data = event.data.trim();
    if (data === "[DONE]") {
      this.ended = true;
      return;
    }
    if (data === "") return;
    const chunk = parseWireObject(data, this.#url, "a chunk");
    const choice = firstChoice(chunk.choices);
    const usage = reportedUsage(chunk, choice);
    if (usage !== undefined) this.#usage = toUsage(usage);
    if (isObject(chunk.error) || chunk.object === "error") {
      throw classifyStreamError(chunk, this.#url);
    }
    if (isObject(choice.delta)) this.#delta(choice.delta, out);
    if (typeof choice.finish_reason === "string" && choice.finish_reason !== "") {
      this.#finishReason = choice.finish_reason;
    }
    if (this.#finishReason === "error") {
      throw new ProviderError(
        "server",
        `${this.#url} ended the response with finish_reason "error"`,
      );
    }
  }

  /** EOF without `[DONE]` and without a finish reason: the connection was cut. */
  cutShort(): ProviderError | undefined {
    if (this.ended || this.#finishReason !== undefined) return undefined;
    return new ProviderError(
      "network",
      `the stream from ${this.#url} ended early: no "data: [DONE]" and no finish_reason`,
    );
  }

  /** Completes every block still open (text, thinking, tool calls). */
  closeAll(out: ProviderStreamEvent[]): void {
    this.#closeStream(out);
    for (const call of this.#calls) {
      if (call.blockIndex === undefined) this.#startCall(call, out);
    }
    for (const block of this.#blocks) {
      if (block.type !== "tool_use") continue;
      const { call } = block;
      out.push({ type: "block_complete", blockIndex: call.blockIndex!, block: toolUse(call) });
    }
  }

  /** The assembled message (tool inputs parsed strictly). */
  result(stopReason?: StopReason): AssistantResult {
    return {
      // An aborted message may hold a half-streamed call: keep what is readable.
      content: this.#content(stopReason === "aborted"),
      usage: this.#usage,
      stopReason: stopReason ?? this.#stopReason(),
      // An unknown finish reason is read as a normal end, and told.
      ...(this.#finishReason !== undefined && !STOP_REASONS.has(this.#finishReason)
        ? { unrecognised: [`finish_reason ${JSON.stringify(this.#finishReason)}`] }
        : {}),
    };
  }

  /** Attaches what was assembled so far to a failure. */
  withPartial(error: unknown): ProviderError {
    return streamReadFailure(error, this.#url, () => this.#partial());
  }

  /** Loads the partial-JSON parser when a tool call may need it. */
  async preparePartial(): Promise<void> {
    if (this.#calls.length > 0) partialJson ??= await import("partial-json");
  }

  #partial(): PartialMessage {
    return { content: this.#content(true), usage: this.#usage };
  }

  #content(lenient: boolean): ContentBlock[] {
    return this.#blocks.map((block): ContentBlock => {
      switch (block.type) {
        case "text":
          return { type: "text", text: block.text };
        case "thinking":
          return { type: "thinking", thinking: block.text };
        case "tool_use":
          return toolUse(block.call, lenient);
      }
    });
  }

  #stopReason(): StopReason {
    const mapped = STOP_REASONS.get(this.#finishReason ?? "") ?? "end_turn";
    if (this.#calls.length > 0 && mapped === "end_turn") return "tool_use";
    if (this.#refused && mapped === "end_turn") return "refusal";
    return mapped;
  }

  #delta(delta: WireObject, out: ProviderStreamEvent[]): void {
    const reasoning = reasoningOf(delta);
    if (reasoning !== undefined) this.#streamText("thinking", reasoning, out);
    if (typeof delta.content === "string") this.#streamText("text", delta.content, out);
    if (Array.isArray(delta.content)) {
      for (const part of delta.content) this.#contentPart(asObject(part), out);
    }
    if (typeof delta.refusal === "string" && delta.refusal !== "") {
      this.#refused = true;
      this.#streamText("text", delta.refusal, out);
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const fragment of delta.tool_calls) this.#toolFragment(asObject(fragment), out);
    }
  }

  /**
   * One typed chunk of an array `content` (Mistral's reasoning models):
   * `{type:"text",text}`, or `{type:"thinking",thinking:[{type:"text",text}…]}`.
   */
  #contentPart(part: WireObject, out: ProviderStreamEvent[]): void {
    if (part.type === "text" && typeof part.text === "string") {
      this.#streamText("text", part.text, out);
    } else if (part.type === "thinking" && Array.isArray(part.thinking)) {
      for (const inner of part.thinking) {
        const { type, text } = asObject(inner);
        if (type === "text" && typeof text === "string") this.#streamText("thinking", text, out);
      }
    }
  }

  /** Appends text or reasoning to the open block of that kind, or starts one. */
  #streamText(kind: "text" | "thinking", text: string, out: ProviderStreamEvent[]): void {
    if (text === "") return;
    const open = this.#openStream === undefined ? undefined : this.#blocks[this.#openStream];
    if (open?.type === kind) {
      open.text += text;
      out.push(delta(this.#openStream!, kind, text));
      return;
    }
    this.#closeStream(out);
    const blockIndex = this.#blocks.length;
    this.#blocks.push({ type: kind, text });
    this.#openStream = blockIndex;
    out.push({ type: "block_start", blockIndex, kind }, delta(blockIndex, kind, text));
  }

  #closeStream(out: ProviderStreamEvent[]): void {
    if (this.#openStream === undefined) return;
    const blockIndex = this.#openStream;
    this.#openStream = undefined;
    const open = this.#blocks[blockIndex];
    if (open === undefined || open.type === "tool_use") return;
    const block: ContentBlock = open.type === "thinking"
      ? { type: "thinking", thinking: open.text }
      : { type: "text", text: open.text };
    out.push({ type: "block_complete", blockIndex, block });
  }

  #toolFragment(fragment: WireObject, out: ProviderStreamEvent[]): void {
    const call = this.#callFor(fragment);
    const fn = asObject(fragment.function);
    if (typeof fragment.id === "string" && fragment.id !== "" && call.id === "") {
      call.id = fragment.id;
    }
    if (typeof fn.name === "string" && fn.name !== "" && call.name === "") call.name = fn.name;
    if (call.blockIndex === undefined && call.name !== "") this.#startCall(call, out);
    const args = typeof fn.arguments === "string" ? fn.arguments : "";
    if (args === "") return;
    if (isResend(call.args, args)) {
      call.args = args; // the block_complete event carries the replacement
      return;
    }
    call.args += args;
    if (call.blockIndex !== undefined) out.push(delta(call.blockIndex, "tool_input", args));
  }

  /** Finds the call a fragment belongs to, or starts tracking a new one. */
  #callFor(fragment: WireObject): ToolCallState {
    const id = typeof fragment.id === "string" ? fragment.id : "";
    if (typeof fragment.index === "number") {
      const key = `index:${fragment.index}`;
      const known = this.#callsByKey.get(key);
      // A new id under a used index is a new call (servers that number every call 0).
      if (known !== undefined && (id === "" || known.id === "" || id === known.id)) return known;
      return this.#newCall(key);
    }
    if (id !== "") {
      return this.#calls.find((call) => call.id === id) ?? this.#newCall(`id:${id}`);
    }
    return this.#calls.at(-1) ?? this.#newCall("anonymous");
  }

  #newCall(key: string): ToolCallState {
    const call: ToolCallState = { id: "", name: "", args: "", blockIndex: undefined };
    this.#calls.push(call);
    this.#callsByKey.set(key, call);
    return call;
  }

  #startCall(call: ToolCallState, out: ProviderStreamEvent[]): void {
    this.#closeStream(out);
    if (call.id === "") call.id = `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
    const blockIndex = this.#blocks.length;
    call.blockIndex = blockIndex;
    this.#blocks.push({ type: "tool_use", call });
    out.push({
      type: "block_start",
      blockIndex,
      kind: "tool_use",
      toolUse: { id: call.id, name: call.name },
    });
    if (call.args !== "") out.push(delta(blockIndex, "tool_input", call.args));
  }
}

/**
 * A fragment that is itself a whole JSON object, arriving when the arguments
 * already form one, is the server resending the call, not more text.
 * Checked cheaply first: both must look like `{…}`.
 */
function isResend(current: string, fragment: string): boolean {
  const looksWhole = (text: string) => {
    const trimmed = text.trim();
    return trimmed.startsWith("{") && trimmed.endsWith("}");
  };
  // The fragment is tested first: testing the accumulated arguments flattens
  // a long string, which per fragment would make assembly quadratic.
  return looksWhole(fragment) && looksWhole(current) && isObject(parseOrUndefined(fragment)) &&
    isObject(parseOrUndefined(current));
}

/**
 * A finished tool call. Strict: arguments that are not a JSON object give
 * `input: {}` and `invalidInput`. Lenient (partial messages after a
 * failure): the readable prefix of cut-off arguments is kept as `input`.
 */
function toolUse(call: ToolCallState, lenient = false): ToolUseBlock {
  const block: ToolUseBlock = { type: "tool_use", id: call.id, name: call.name, input: {} };
  if (call.args.trim() === "") return block;
  const parsed = parseToolArguments(call.args);
  if (parsed) {
    block.input = parsed;
    return block;
  }
  if (lenient) block.input = parseToolArguments(call.args, parsePartial) ?? {};
  block.invalidInput = call.args;
  return block;
}

/**
 * Maps Chat Completions usage to ours: cached tokens leave `inputTokens`,
 * reasoning is part of `outputTokens`. xAI counts reasoning outside
 * `completion_tokens` (total = prompt + completion + reasoning); then the
 * reasoning is added back so `outputTokens` means the same everywhere.
 */
function toUsage(wire: WireObject): Usage {
  const count = (value: unknown) => (typeof value === "number" ? value : 0);
  const promptDetails = asObject(wire.prompt_tokens_details);
  const prompt = count(wire.prompt_tokens);
  const completion = count(wire.completion_tokens);
  // DeepSeek reports cache hits in its own field as well.
  const cacheRead = count(promptDetails.cached_tokens ?? wire.prompt_cache_hit_tokens);
  const cacheWrite = count(promptDetails.cache_write_tokens);
  const reasoning = count(asObject(wire.completion_tokens_details).reasoning_tokens);
  const reasoningExcluded = reasoning > 0 &&
    count(wire.total_tokens) === prompt + completion + reasoning;
  return {
    inputTokens: Math.max(0, prompt - cacheRead - cacheWrite),
    outputTokens: completion + (reasoningExcluded ? reasoning : 0),
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: reasoning,
  };
}

function firstChoice(choices: unknown): WireObject {
  if (!Array.isArray(choices)) return {};
  for (const item of choices) {
    const choice = asObject(item);
    if ((choice.index ?? 0) === 0) return choice;
  }
  return {};
}

/** The chunk's usage report, wherever the server put it. */
function reportedUsage(chunk: WireObject, choice: WireObject): WireObject | undefined {
  if (isObject(chunk.usage)) return chunk.usage;
  const groq = asObject(chunk.x_groq).usage;
  if (isObject(groq)) return groq;
  return isObject(choice.usage) ? choice.usage : undefined;
}

/**
 * The delta's reasoning text, under whichever name the server uses. OpenRouter
 * repeats `reasoning` in `reasoning_details`, so those are read only when no
 * plain field carries text (Snowflake sends nothing else).
 */
function reasoningOf(delta: WireObject): string | undefined {
  for (const value of [delta.reasoning_content, delta.reasoning, delta.reasoning_text]) {
    if (typeof value === "string" && value !== "") return value;
  }
  if (!Array.isArray(delta.reasoning_details)) return undefined;
  const text = delta.reasoning_details.map(detailText).join("");
  return text === "" ? undefined : text;
}

/**
 * The readable text of one `reasoning_details` entry. `reasoning.encrypted`
 * data is dropped: Chat Completions requests have no place to send it back,
 * so a redacted block would be kept for nothing.
 */
function detailText(detail: unknown): string {
  const { type, text, summary } = asObject(detail);
  if (type === "reasoning.text" && typeof text === "string") return text;
  if (type === "reasoning.summary" && typeof summary === "string") return summary;
  return "";
}

function delta(blockIndex: number, kind: DeltaKind, text: string): ProviderStreamEvent {
  return { type: "content_delta", blockIndex, kind, text };
}

/** An error event's data: JSON when it parses, else the raw text. */
function parseLenient(data: string): unknown {
  return parseOrUndefined(data) ?? data;
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * partial-json, loaded only for a message cut off in a tool call: it is
 * CommonJS, which would bring Node's module loader into every start.
 */
let partialJson: typeof import("partial-json") | undefined;

function parsePartial(text: string): unknown {
  return partialJson?.parse(text);
}
