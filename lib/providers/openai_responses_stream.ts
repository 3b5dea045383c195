import type { ContentBlock, ThinkingBlock, ToolUseBlock } from "../content.ts";
import { type PartialMessage, ProviderError } from "../errors.ts";
import type { DeltaKind } from "../events.ts";
import type { StopReason } from "../message.ts";
import { emptyUsage, type Usage } from "../usage.ts";
import { assembleMessage, assistantResult, type MessageAssembler } from "./assemble_batches.ts";
import { classifyStreamError, hostOf, streamReadFailure } from "./error_classification.ts";
import { asObject, isObject, parseWireObject, type WireObject } from "./wire_object.ts";
import { encodeReasoningSignature } from "./openai_responses_reasoning.ts";
import type { AssistantResult, ProviderStreamEvent } from "./provider.ts";
import type { SseEvent } from "./sse.ts";
import { parseToolArguments } from "./tool_arguments.ts";

/**
 * Assembles an assistant message from the server-sent events of a streaming
 * OpenAI Responses reply, yielding block events as it goes: one batch per
 * batch of SSE events that completes any (events before a failure in a batch
 * are yielded before the error is thrown).
 *
 * - Each output item becomes one block, numbered in the order blocks start:
 *   a `reasoning` item a thinking block (its summary parts, or its reasoning
 *   text, joined by blank lines), a `message` item a text block (output
 *   text and refusal text), a `function_call` item a tool call. Items of
 *   other types (hosted tools this provider never asks for) are left out
 *   and told in `unrecognised`, as are unknown event types.
 * - A reasoning item's id and `encrypted_content` go into the thinking
 *   block's `signature` (see `encodeReasoningSignature`), so the next request
 *   can send the item back. A reasoning item with neither text nor encrypted
 *   content makes no block.
 * - Deltas are the text; an item's final form (`output_item.done`,
 *   `function_call_arguments.done`) only adds what the deltas lacked, so a
 *   server that sends only final forms is read too. Final arguments that
 *   differ from the streamed ones replace them. Arguments are parsed strictly:
 *   none means `{}`; text that is not a JSON object leaves `input: {}` and is
 *   kept in `invalidInput`.
 * - `response.completed` → `end_turn` (`tool_use` when the reply holds
 *   calls, `refusal` when it holds refusal text); `response.incomplete` with
 *   `max_output_tokens` → `max_tokens`, with `content_filter` → `refusal`.
 *   `response.failed` and `error` events throw, classified. Usage is the
 *   terminal response's (cached tokens leave `inputTokens`).
 * - When the event source throws an abort error, the partial message is
 *   returned with stop reason `aborted`.
 *
 * @param events Parsed SSE events in batches, e.g. from `streamSse`, or the
 * results of `SseParser.push`.
 * @param url Where the events came from; error messages name its host.
 * @returns The assembled message.
 * @throws {ProviderError} On an `error` event or `response.failed`
 * (classified), a stream that ends before `response.completed` or
 * `response.incomplete` (`network`, retryable), an event that is not JSON
 * (`stream`), or a failing source; `partial` holds what was assembled.
 *
 * @example Parse a recorded stream
 * ```ts
 * import { parseOpenAIResponsesStream } from "./openai_responses_stream.ts";
 * import { SseParser } from "./sse.ts";
 * const body = [
 *   '{"type":"response.output_item.added","output_index":0,"item":{"id":"msg_1","type":"message"}}',
 *   '{"type":"response.output_text.delta","output_index":0,"item_id":"msg_1","delta":"Hi"}',
 *   '{"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":5,"output_tokens":1}}}',
 * ].map((line) => `data: ${line}\n\n`).join("");
 * async function* source() { yield new SseParser().push(body); }
 * const stream = parseOpenAIResponsesStream(source(), "https://api.openai.com/v1/responses");
 * let step = await stream.next();
 * while (!step.done) step = await stream.next();
 * console.assert(step.value.content[0]?.type === "text" && step.value.stopReason === "end_turn");
 * ```
 */
export async function* parseOpenAIResponsesStream(
  events: AsyncIterable<readonly SseEvent[]>,
  url: string,
): AsyncGenerator<ProviderStreamEvent[], AssistantResult, void> {
  return yield* assembleMessage(events, new ResponsesAssembler(url));
}

/** One output item of the response, as it streams. */
interface ItemState {
  kind: "reasoning" | "message" | "function_call" | "other";
  /** Position in the assembled content, once its block has started. */
  blockIndex: number | undefined;
  /** Thinking or text so far, or the call's argument text. */
  text: string;
  /** The reasoning part (summary or text, by index) the last delta belonged to. */
  part: string | undefined;
  /** Reasoning: the item sent back on the next request. */
  signature: string | undefined;
  /** Function call: the id its output answers, and the tool's name. */
  callId: string;
  name: string;
  /** Set once the item's final form arrived and its block completed. */
  done: boolean;
}

/** Events that carry nothing this parser needs beyond what others carry. */
const QUIET_EVENTS: ReadonlySet<string> = new Set([
  "response.created",
  "response.in_progress",
  "response.queued",
  "response.content_part.added",
  "response.content_part.done",
  "response.output_text.done",
  "response.output_text.annotation.added",
  "response.refusal.done",
  "response.reasoning_summary_part.added",
  "response.reasoning_summary_part.done",
  "response.reasoning_summary_text.done",
  "response.reasoning_text.done",
]);

const INCOMPLETE_REASONS: ReadonlyMap<string, StopReason> = new Map([
  ["max_output_tokens", "max_tokens"],
  ["content_filter", "refusal"],
]);

/** Failure codes of `response.failed` that retrying the same request cannot fix. */
const REQUEST_FAULT = /^(?:invalid_|image_|unsupported_|empty_|failed_to_download)/;

/** Incremental state of one Responses reply. */
class ResponsesAssembler implements MessageAssembler {
  readonly #url: string;
  /** Items with a block, in block order. */
  #blocks: ItemState[] = [];
  #byIndex = new Map<number, ItemState>();
  #byId = new Map<string, ItemState>();
  #last: ItemState | undefined;
  #usage: Usage = emptyUsage();
  #refused = false;
  /** The stop reason the terminal event gave. */
  #stopReason: StopReason | undefined;
  #unrecognised = new Set<string>();
  /** True once `response.completed` or `response.incomplete` arrived. */
  ended = false;

  constructor(url: string) {
    this.#url = url;
  }

  /** Applies one SSE event; appends the block events it causes to `out`. */
  handle(event: SseEvent, out: ProviderStreamEvent[]): void {
    const data = event.data.trim();
    // Some gateways append the Chat Completions end marker.
    if (data === "" || data === "[DONE]") return;
    const payload = parseWireObject(data, this.#url, "an event");
    const type = typeof payload.type === "string" ? payload.type : event.type;
    switch (type) {
      case "response.output_text.delta":
      case "response.refusal.delta": // first: nearly every event is a delta
        this.#textDelta(payload, type === "response.refusal.delta", out);
        break;
      case "response.reasoning_summary_text.delta":
        this.#thinkingDelta(payload, `summary ${payload.summary_index}`, out);
        break;
      case "response.reasoning_text.delta":
        this.#thinkingDelta(payload, `text ${payload.content_index}`, out);
        break;
      case "response.function_call_arguments.delta":
        this.#argumentsDelta(payload, out);
        break;
      case "response.function_call_arguments.done": {
        const item = this.#itemOf(payload);
        if (item?.kind === "function_call") this.#settle(item, stringOf(payload.arguments), out);
        break;
      }
      case "response.output_item.added":
        this.#itemAdded(payload, out);
        break;
      case "response.output_item.done":
        this.#itemDone(payload, out);
        break;
      case "response.completed":
        this.#finish(payload, "completed");
        break;
      case "response.incomplete":
        this.#finish(payload, "incomplete");
        break;
      case "response.failed":
        throw this.#failure(asObject(payload.response));
      case "error":
        throw classifyStreamError(errorPayload(payload), this.#url);
      default:
        this.#other(type, payload);
    }
  }

  /** A stream that ended before a terminal event was cut. */
  cutShort(): ProviderError | undefined {
    if (this.ended) return undefined;
    return new ProviderError(
      "network",
      `the stream from ${hostOf(this.#url)} ended before response.completed`,
    );
  }

  /** Completes every block still open (items whose final form never came). */
  closeAll(out: ProviderStreamEvent[]): void {
    for (const item of this.#blocks) {
      if (!item.done) this.#complete(item, out);
    }
  }

  /** The assembled message. */
  result(stopReason?: StopReason): AssistantResult {
    const reason = stopReason ?? this.#finalStopReason();
    return assistantResult(this.#partial(), reason, this.#unrecognised);
  }

  /** Attaches what was assembled so far to a failure. */
  withPartial(error: unknown): ProviderError {
    return streamReadFailure(error, this.#url, () => this.#partial());
  }

  #partial(): PartialMessage {
    return { content: this.#content(), usage: this.#usage };
  }

  #content(): ContentBlock[] {
    return this.#blocks.map(blockOf);
  }

  #finalStopReason(): StopReason {
    const reason = this.#stopReason ?? "end_turn";
    if (reason !== "end_turn") return reason;
    if (this.#blocks.some((item) => item.kind === "function_call")) return "tool_use";
    return this.#refused ? "refusal" : "end_turn";
  }

  /**
   * The item an event is about: by `output_index`, else `item_id`; the
   * latest item only for an event that names none (a sparse server). An
   * event naming an item never announced is about none: its final form, if
   * it comes, still brings the text.
   */
  #itemOf(payload: WireObject): ItemState | undefined {
    const { output_index: index, item_id: id } = payload;
    if (typeof index === "number" && this.#byIndex.has(index)) return this.#byIndex.get(index);
    if (typeof id === "string" && this.#byId.has(id)) return this.#byId.get(id);
    return index === undefined && id === undefined ? this.#last : undefined;
  }

  #itemAdded(payload: WireObject, out: ProviderStreamEvent[]): void {
    const wire = asObject(payload.item);
    const item = this.#track(payload, wire);
    if (item.kind === "function_call") {
      this.#start(item, out);
      this.#append(item, stringOf(wire.arguments), out);
    }
  }

  /** Starts tracking an item, recording an unknown type. */
  #track(payload: WireObject, wire: WireObject): ItemState {
    const kind = wire.type === "reasoning" || wire.type === "message" ||
        wire.type === "function_call"
      ? wire.type
      : "other";
    if (kind === "other") this.#unrecognised.add(`item type ${JSON.stringify(wire.type)}`);
    const item: ItemState = {
      kind,
      blockIndex: undefined,
      text: "",
      part: undefined,
      signature: undefined,
      callId: stringOf(wire.call_id),
      name: stringOf(wire.name),
      done: false,
    };
    if (typeof payload.output_index === "number") this.#byIndex.set(payload.output_index, item);
    if (typeof wire.id === "string") this.#byId.set(wire.id, item);
    this.#last = item;
    return item;
  }

  #textDelta(payload: WireObject, refusal: boolean, out: ProviderStreamEvent[]): void {
    const item = this.#itemOf(payload);
    if (item?.kind !== "message") return;
    const delta = stringOf(payload.delta);
    if (refusal && delta !== "") this.#refused = true;
    this.#append(item, delta, out);
  }

  /** Reasoning text; a new part (summary or text) starts after a blank line. */
  #thinkingDelta(payload: WireObject, part: string, out: ProviderStreamEvent[]): void {
    const item = this.#itemOf(payload);
    if (item?.kind !== "reasoning") return;
    const delta = stringOf(payload.delta);
    if (delta === "") return;
    const separator = item.part !== undefined && item.part !== part && item.text !== "";
    item.part = part;
    this.#append(item, separator ? `\n\n${delta}` : delta, out);
  }

  #argumentsDelta(payload: WireObject, out: ProviderStreamEvent[]): void {
    const item = this.#itemOf(payload);
    if (item?.kind === "function_call") this.#append(item, stringOf(payload.delta), out);
  }

  /** Adds streamed text to an item's block, starting the block at its first text. */
  #append(item: ItemState, text: string, out: ProviderStreamEvent[]): void {
    if (text === "" || item.done) return;
    this.#start(item, out);
    item.text += text;
    out.push(delta(item.blockIndex!, deltaKind(item), text));
  }

  #start(item: ItemState, out: ProviderStreamEvent[]): void {
    if (item.blockIndex !== undefined) return;
    item.blockIndex = this.#blocks.length;
    this.#blocks.push(item);
    if (item.kind === "function_call") {
      // Some servers leave the call id out; the result must still name one.
      if (item.callId === "") item.callId = `call_${crypto.randomUUID().replaceAll("-", "")}`;
      out.push({
        type: "block_start",
        blockIndex: item.blockIndex,
        kind: "tool_use",
        toolUse: { id: item.callId, name: item.name },
      });
    } else {
      const kind = item.kind === "reasoning" ? "thinking" : "text";
      out.push({ type: "block_start", blockIndex: item.blockIndex, kind });
    }
  }

  /**
   * Reconciles an item with its final text: what extends the streamed text
   * is streamed too; final arguments that differ replace the streamed ones
   * (the block_complete event carries them), while differing text keeps what
   * was already shown.
   */
  #settle(item: ItemState, final: string, out: ProviderStreamEvent[]): void {
    if (final === "" || final === item.text || item.done) return;
    if (final.startsWith(item.text)) this.#append(item, final.slice(item.text.length), out);
    else if (item.kind === "function_call") item.text = final;
  }

  #itemDone(payload: WireObject, out: ProviderStreamEvent[]): void {
    const wire = asObject(payload.item);
    // A server that sends only final forms has no `added` event for the item.
    const item = this.#known(payload, wire) ?? this.#track(payload, wire);
    switch (item.kind) {
      case "reasoning":
        this.#settle(item, reasoningText(wire), out);
        if (typeof wire.id === "string" && typeof wire.encrypted_content === "string") {
          item.signature = encodeReasoningSignature({
            id: wire.id,
            encryptedContent: wire.encrypted_content,
          });
          this.#start(item, out);
        }
        break;
      case "message":
        this.#settle(item, messageText(wire), out);
        break;
      case "function_call":
        if (item.callId === "") item.callId = stringOf(wire.call_id);
        if (item.name === "") item.name = stringOf(wire.name);
        this.#start(item, out);
        this.#settle(item, stringOf(wire.arguments), out);
        break;
      case "other":
        return;
    }
    if (item.blockIndex !== undefined && !item.done) this.#complete(item, out);
    item.done = true;
  }

  /** The item an `output_item.done` is about, if it was announced. */
  #known(payload: WireObject, wire: WireObject): ItemState | undefined {
    if (typeof payload.output_index === "number") {
      const item = this.#byIndex.get(payload.output_index);
      if (item !== undefined) return item;
    }
    return typeof wire.id === "string" ? this.#byId.get(wire.id) : undefined;
  }

  #complete(item: ItemState, out: ProviderStreamEvent[]): void {
    item.done = true;
    out.push({ type: "block_complete", blockIndex: item.blockIndex!, block: blockOf(item) });
  }

  #finish(payload: WireObject, status: "completed" | "incomplete"): void {
    const response = asObject(payload.response);
    this.#takeUsage(response);
    this.ended = true;
    if (status === "completed") return;
    const reason = stringOf(asObject(response.incomplete_details).reason);
    const known = INCOMPLETE_REASONS.get(reason);
    // An unknown reason still means the output was cut short.
    if (known === undefined) this.#unrecognised.add(`incomplete reason ${JSON.stringify(reason)}`);
    this.#stopReason = known ?? "max_tokens";
  }

  /** The error a `response.failed` stands for (its usage is kept for the partial message). */
  #failure(response: WireObject): ProviderError {
    this.#takeUsage(response);
    const error = response.error;
    if (!isObject(error)) {
      return new ProviderError(
        "server",
        `${hostOf(this.#url)} ended the response with status "failed" and no error`,
      );
    }
    // A fault in the request (a bad image, an invalid prompt) fails again when retried.
    const typed = REQUEST_FAULT.test(stringOf(error.code))
      ? { type: "invalid_request_error", ...error }
      : error;
    return classifyStreamError({ error: typed }, this.#url);
  }

  #takeUsage(response: WireObject): void {
    if (isObject(response.usage)) this.#usage = toUsage(response.usage);
  }

  /** An event this parser does not handle: quiet, about an unknown item, or told. */
  #other(type: string, payload: WireObject): void {
    if (QUIET_EVENTS.has(type)) return;
    const about = "output_index" in payload || "item_id" in payload;
    if (about && this.#itemOf(payload)?.kind === "other") return; // told by its item type
    this.#unrecognised.add(`event type ${JSON.stringify(type)}`);
  }
}

function deltaKind(item: ItemState): DeltaKind {
  if (item.kind === "function_call") return "tool_input";
  return item.kind === "reasoning" ? "thinking" : "text";
}

/** An item's block as it stands. */
function blockOf(item: ItemState): ContentBlock {
  switch (item.kind) {
    case "reasoning": {
      const block: ThinkingBlock = { type: "thinking", thinking: item.text };
      if (item.signature !== undefined) block.signature = item.signature;
      return block;
    }
    case "function_call":
      return toolUse(item);
    default:
      return { type: "text", text: item.text };
  }
}

/** A call's block; arguments that are not a JSON object are kept aside in `invalidInput`. */
function toolUse(item: ItemState): ToolUseBlock {
  const block: ToolUseBlock = { type: "tool_use", id: item.callId, name: item.name, input: {} };
  if (item.text.trim() === "") return block;
  const parsed = parseToolArguments(item.text);
  if (parsed) block.input = parsed;
  else block.invalidInput = item.text;
  return block;
}

/**
 * A reasoning item's final text: its summary, else its reasoning text, the
 * parts joined by a blank line.
 */
function reasoningText(wire: WireObject): string {
  const parts = (key: string) =>
    (Array.isArray(wire[key]) ? wire[key] : []).map((part) => stringOf(asObject(part).text));
  const summary = parts("summary");
  return (summary.length > 0 ? summary : parts("content")).join("\n\n");
}

/** A message item's final text: its output text and refusal parts. */
function messageText(wire: WireObject): string {
  if (!Array.isArray(wire.content)) return "";
  return wire.content.map((part) => {
    const { type, text, refusal } = asObject(part);
    return type === "refusal" ? stringOf(refusal) : stringOf(text);
  }).join("");
}

/**
 * Maps Responses usage to ours: `input_tokens` counts cached tokens, which
 * leave `inputTokens`; `output_tokens` already includes reasoning.
 */
function toUsage(wire: WireObject): Usage {
  const count = (value: unknown) => (typeof value === "number" ? value : 0);
  const inputDetails = asObject(wire.input_tokens_details);
  const cacheRead = count(inputDetails.cached_tokens);
  const cacheWrite = count(inputDetails.cache_write_tokens);
  return {
    inputTokens: Math.max(0, count(wire.input_tokens) - cacheRead - cacheWrite),
    outputTokens: count(wire.output_tokens),
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: count(asObject(wire.output_tokens_details).reasoning_tokens),
  };
}

/**
 * An `error` event in the shape the classifier reads: OpenAI nests the
 * error (`{"type":"error","error":{…}}`), the published schema has it flat
 * (`{"type":"error","code","message","param"}`).
 */
function errorPayload(payload: WireObject): WireObject {
  if (isObject(payload.error)) return { error: payload.error };
  const { type: _type, sequence_number: _sequence, ...error } = payload;
  return { error };
}

function delta(blockIndex: number, kind: DeltaKind, text: string): ProviderStreamEvent {
  return { type: "content_delta", blockIndex, kind, text };
}

function stringOf(value: unknown): string {
  return typeof value === "string" ? value : "";
}
