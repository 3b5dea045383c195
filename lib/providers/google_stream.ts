import type { TextBlock, ThinkingBlock, ToolUseBlock } from "../content.ts";
import { type PartialMessage, ProviderError } from "../errors.ts";
import type { DeltaKind } from "../events.ts";
import type { StopReason } from "../message.ts";
import { emptyUsage, type Usage } from "../usage.ts";
import { assembleMessage, assistantResult, type MessageAssembler } from "./assemble_batches.ts";
import { hostOf, streamReadFailure } from "./error_classification.ts";
import { asObject, isObject, parseWireObject, type WireObject } from "./wire_object.ts";
import { mintCallId } from "./google_call_ids.ts";
import { signatureCarrier } from "./google_thought_signatures.ts";
import { classifyStreamError } from "./http.ts";
import type { AssistantResult, ProviderStreamEvent } from "./provider.ts";
import type { SseEvent } from "./sse.ts";
import { parseToolArguments } from "./tool_arguments.ts";

/**
 * Assembles an assistant message from the server-sent events of the Gemini
 * API's `streamGenerateContent?alt=sse`, yielding block events as it goes:
 * one batch per batch of SSE events that completes any. Each event's data
 * is a whole `GenerateContentResponse`; only candidate 0 is read.
 *
 * - Parts become blocks in order: text, thought text (`thought: true`) as
 *   thinking, function calls as tool calls. Consecutive text parts (or
 *   thought parts) extend one block. A call's arguments arrive whole; a call
 *   without an id gets a stable one (from the response id). Arguments that
 *   are not an object, or nest too deep, leave `input: {}` and are kept in
 *   `invalidInput`.
 * - Thought signatures are kept as `google_thought_signatures.ts` describes:
 *   on the thinking block for thought parts, else in a signature carrier
 *   right after the block whose part had it.
 * - `finishReason`: `STOP` → end_turn (tool_use when the message has calls),
 *   `MAX_TOKENS` → max_tokens, the safety family (`SAFETY`, `RECITATION`,
 *   `PROHIBITED_CONTENT`, …) → refusal; a prompt blocked by
 *   `promptFeedback.blockReason` → refusal with no content. A malformed or
 *   unexpected call (`MALFORMED_FUNCTION_CALL`, …) is a retryable `server`
 *   error; `MISSING_THOUGHT_SIGNATURE` an `invalid_request`. Unknown reasons
 *   read as a normal end and are listed in `unrecognised`, as are parts of
 *   kinds panto does not read (images, code execution, streamed call
 *   arguments).
 * - Usage is the last report (`usageMetadata`), never a sum: input is
 *   `promptTokenCount` less `cachedContentTokenCount`, plus
 *   `toolUsePromptTokenCount`; output is `candidatesTokenCount` plus
 *   `thoughtsTokenCount`.
 * - The stream has no end marker: EOF after a `finishReason` (or a blocked
 *   prompt) is the end; EOF before one means the connection was cut.
 * - An `{"error": …}` chunk is thrown classified; when the event source
 *   throws an abort error, the partial message is returned with stop
 *   reason `aborted`.
 *
 * @param events Parsed SSE events in batches, e.g. from `streamSse`, or the
 * results of `SseParser.push`.
 * @param url Where the events came from; error messages name its host.
 * @returns The assembled message.
 * @throws {ProviderError} On an error chunk (classified), a finish reason
 * that means failure (see above), a stream cut before a finish reason
 * (`network`), data that is not JSON (`stream`), or a failing source;
 * `partial` holds what was assembled once streaming began.
 *
 * @example Parse a recorded stream
 * ```ts
 * import { parseGoogleStream } from "./google_stream.ts";
 * import { SseParser } from "./sse.ts";
 * const body =
 *   'data: {"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},"index":0}]}\r\n\r\n' +
 *   'data: {"candidates":[{"content":{"parts":[{"text":" there"}],"role":"model"},"finishReason":"STOP","index":0}],' +
 *   '"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":2,"totalTokenCount":6}}\r\n\r\n';
 * async function* source() { yield new SseParser().push(body); }
 * const stream = parseGoogleStream(source(), "https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent?alt=sse");
 * let step = await stream.next();
 * while (!step.done) step = await stream.next();
 * console.assert(step.value.content[0]?.type === "text" && step.value.usage.outputTokens === 2);
 * ```
 */
export async function* parseGoogleStream(
  events: AsyncIterable<readonly SseEvent[]>,
  url: string,
): AsyncGenerator<ProviderStreamEvent[], AssistantResult, void> {
  return yield* assembleMessage(events, new GeminiMessageAssembler(url));
}

/** The blocks a Gemini message is assembled from. */
type StreamedBlock = TextBlock | ThinkingBlock | ToolUseBlock;

/** The text or thinking block that the next part of its kind extends. */
interface OpenBlock {
  /** Position in the assembled content. */
  blockIndex: number;
  /** The block, updated in place. */
  block: TextBlock | ThinkingBlock;
  /** A text block's signature, written to a carrier after it when it closes. */
  signature?: string;
}

const STOP_REASONS: ReadonlyMap<string, StopReason> = new Map([
  ["STOP", "end_turn"],
  ["MAX_TOKENS", "max_tokens"],
  // The per-request limit was reached; panto does not resume with the continuation token.
  ["CONTINUATION", "max_tokens"],
  ["SAFETY", "refusal"],
  ["RECITATION", "refusal"],
  ["LANGUAGE", "refusal"],
  ["BLOCKLIST", "refusal"],
  ["PROHIBITED_CONTENT", "refusal"],
  ["SPII", "refusal"],
  ["IMAGE_SAFETY", "refusal"],
  ["IMAGE_PROHIBITED_CONTENT", "refusal"],
  ["IMAGE_RECITATION", "refusal"],
  ["MODEL_ARMOR", "refusal"],
  ["ESCALATION", "refusal"],
  ["PUP_LIMITED_DISABLED", "refusal"],
  ["OTHER", "end_turn"],
  ["FINISH_REASON_UNSPECIFIED", "end_turn"],
  ["TOO_MANY_TOOL_CALLS", "end_turn"],
  ["IMAGE_OTHER", "end_turn"],
  ["NO_IMAGE", "end_turn"],
]);

/** Finish reasons that mean the model's output is unusable, but another try may do. */
const RETRYABLE_FINISHES: ReadonlySet<string> = new Set([
  "MALFORMED_FUNCTION_CALL",
  "UNEXPECTED_TOOL_CALL",
  "MALFORMED_RESPONSE",
]);

/** Part fields that describe a part rather than being one. */
const PART_METADATA: ReadonlySet<string> = new Set([
  "thought",
  "thoughtSignature",
  "partMetadata",
  "videoMetadata",
  "mediaResolution",
]);

const USAGE_COUNTS = [
  "promptTokenCount",
  "candidatesTokenCount",
  "thoughtsTokenCount",
  "cachedContentTokenCount",
  "toolUsePromptTokenCount",
  "totalTokenCount",
] as const;

/** Incremental state of one Gemini response. */
class GeminiMessageAssembler implements MessageAssembler {
  readonly #url: string;
  #content: StreamedBlock[] = [];
  #open: OpenBlock | undefined;
  #usage: Usage = emptyUsage();
  #finishReason: string | undefined;
  #blockReason: string | undefined;
  #responseId = "";
  #callIds = new Set<string>();
  #unrecognised = new Set<string>();
  /** Whether any event arrived: from then on failures carry the partial message. */
  #began = false;
  /** Gemini has no end marker: the stream ends at EOF. */
  readonly ended = false;

  constructor(url: string) {
    this.#url = url;
  }

  /** Applies one SSE event (a `GenerateContentResponse`); appends the block events it causes. */
  handle(event: SseEvent, out: ProviderStreamEvent[]): void {
    this.#began = true;
    const chunk = parseWireObject(event.data, this.#url, "a chunk");
    if (isObject(chunk.error)) throw classifyStreamError(chunk, this.#url);
    if (this.#responseId === "" && typeof chunk.responseId === "string") {
      this.#responseId = chunk.responseId;
    }
    const candidate = firstCandidate(chunk.candidates);
    if (candidate !== undefined) {
      const parts = asObject(candidate.content).parts;
      if (Array.isArray(parts)) {
        for (const part of parts) this.#part(asObject(part), event.data, out);
      }
      if (typeof candidate.finishReason === "string") {
        this.#finish(candidate.finishReason, candidate.finishMessage);
      }
    }
    const blockReason = asObject(chunk.promptFeedback).blockReason;
    if (typeof blockReason === "string") this.#blockReason = blockReason;
    if (isObject(chunk.usageMetadata)) this.#report(chunk.usageMetadata);
  }

  /** EOF before a finish reason (or a blocked prompt): the connection was cut. */
  cutShort(): ProviderError | undefined {
    if (this.#finishReason !== undefined || this.#blockReason !== undefined) return undefined;
    return new ProviderError(
      "network",
      `the stream from ${hostOf(this.#url)} ended before a finishReason`,
    );
  }

  /** Completes the open text or thinking block (calls complete as they arrive). */
  closeAll(out: ProviderStreamEvent[]): void {
    this.#close(out);
  }

  /** The assembled message. */
  result(stopReason?: StopReason): AssistantResult {
    // The blocks close first: the stop reason looks at them.
    const assembled = this.#partial();
    return assistantResult(assembled, stopReason ?? this.#stopReason(), this.#unrecognised);
  }

  /** Attaches what was assembled so far to a failure, once streaming had begun. */
  withPartial(error: unknown): ProviderError {
    return streamReadFailure(error, this.#url, this.#began ? () => this.#partial() : undefined);
  }

  #partial(): PartialMessage {
    this.#close([]);
    return { content: this.#content, usage: this.#usage };
  }

  #stopReason(): StopReason {
    if (this.#blockReason !== undefined && this.#finishReason === undefined) return "refusal";
    const reason = this.#finishReason ?? "STOP";
    const mapped = STOP_REASONS.get(reason);
    if (mapped === undefined) this.#unrecognised.add(`finishReason ${JSON.stringify(reason)}`);
    const hasCalls = this.#content.some((block) => block.type === "tool_use");
    return mapped === undefined || mapped === "end_turn"
      ? (hasCalls ? "tool_use" : "end_turn")
      : mapped;
  }

  #part(part: WireObject, data: string, out: ProviderStreamEvent[]): void {
    const signature = typeof part.thoughtSignature === "string" && part.thoughtSignature !== ""
      ? part.thoughtSignature
      : undefined;
    if (isObject(part.functionCall)) {
      this.#functionCall(part.functionCall, signature, data, out);
    } else if (part.thought === true) {
      this.#thought(typeof part.text === "string" ? part.text : "", signature, out);
    } else if (typeof part.text === "string") {
      this.#text(part.text, signature, out);
    } else {
      const kind = Object.keys(part).find((key) => !PART_METADATA.has(key));
      if (kind !== undefined) this.#unrecognised.add(`part ${JSON.stringify(kind)}`);
      else if (signature !== undefined) this.#text("", signature, out); // a bare signature
    }
  }

  #thought(text: string, signature: string | undefined, out: ProviderStreamEvent[]): void {
    if (text === "" && signature === undefined) return;
    let open = this.#open;
    // A second signature starts a new block: each goes back on its own part.
    if (
      open?.block.type !== "thinking" ||
      (signature !== undefined && open.block.signature !== undefined)
    ) {
      this.#close(out);
      open = this.#start({ type: "thinking", thinking: "" }, out);
    }
    const block = open.block as ThinkingBlock;
    if (text !== "") {
      block.thinking += text;
      out.push(delta(open.blockIndex, "thinking", text));
    }
    if (signature !== undefined) block.signature = signature;
  }

  #text(text: string, signature: string | undefined, out: ProviderStreamEvent[]): void {
    const open = this.#open;
    // A second signature starts a new block: each goes back on its own part.
    const continues = open?.block.type === "text" &&
      !(signature !== undefined && open.signature !== undefined);
    if (continues) {
      this.#extendText(open, text, signature, out);
    } else if (text !== "") {
      this.#close(out);
      this.#extendText(this.#start({ type: "text", text: "" }, out), text, signature, out);
    } else if (signature !== undefined) {
      // An empty signed part with no text to sign; unsigned, it says nothing
      // (Gemini ends many answers with one).
      this.#close(out);
      this.#carrier(signature, out);
    }
  }

  #extendText(
    open: OpenBlock,
    text: string,
    signature: string | undefined,
    out: ProviderStreamEvent[],
  ): void {
    if (text !== "") {
      (open.block as TextBlock).text += text;
      out.push(delta(open.blockIndex, "text", text));
    }
    if (signature !== undefined) open.signature = signature;
  }

  #functionCall(
    call: WireObject,
    signature: string | undefined,
    data: string,
    out: ProviderStreamEvent[],
  ): void {
    // Streamed arguments (`partialArgs`, Vertex's streamFunctionCallArguments) are
    // never asked for; a call assembled from their first fragment would run wrong.
    if (call.willContinue === true || call.partialArgs !== undefined) {
      this.#unrecognised.add("functionCall with streamed arguments (partialArgs)");
      return;
    }
    if (typeof call.name !== "string" || call.name === "") {
      this.#unrecognised.add("functionCall without a name");
      return;
    }
    this.#close(out);
    const block: ToolUseBlock = {
      type: "tool_use",
      id: this.#callId(call.id),
      name: call.name,
      input: {},
    };
    setArguments(block, call.args, data);
    const blockIndex = this.#content.length;
    this.#content.push(block);
    out.push({
      type: "block_start",
      blockIndex,
      kind: "tool_use",
      toolUse: { id: block.id, name: block.name },
    });
    const argumentsText = block.invalidInput ??
      (Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : "");
    if (argumentsText !== "") out.push(delta(blockIndex, "tool_input", argumentsText));
    out.push({ type: "block_complete", blockIndex, block });
    if (signature !== undefined) this.#carrier(signature, out);
  }

  /** Gemini's id when it gave a new one, else a minted one. */
  #callId(given: unknown): string {
    const id = typeof given === "string" && given !== "" && !this.#callIds.has(given)
      ? given
      : mintCallId(this.#responseId, this.#callIds.size);
    this.#callIds.add(id);
    return id;
  }

  #start(block: TextBlock | ThinkingBlock, out: ProviderStreamEvent[]): OpenBlock {
    const blockIndex = this.#content.length;
    this.#content.push(block);
    out.push({ type: "block_start", blockIndex, kind: block.type });
    this.#open = { blockIndex, block };
    return this.#open;
  }

  /** Completes the open block, and writes a text block's signature to a carrier after it. */
  #close(out: ProviderStreamEvent[]): void {
    const open = this.#open;
    if (open === undefined) return;
    this.#open = undefined;
    out.push({ type: "block_complete", blockIndex: open.blockIndex, block: open.block });
    if (open.signature !== undefined) this.#carrier(open.signature, out);
  }

  #carrier(signature: string, out: ProviderStreamEvent[]): void {
    const block = signatureCarrier(signature);
    const blockIndex = this.#content.length;
    this.#content.push(block);
    out.push(
      { type: "block_start", blockIndex, kind: "thinking" },
      { type: "block_complete", blockIndex, block },
    );
  }

  #finish(reason: string, message: unknown): void {
    this.#finishReason = reason;
    const said = typeof message === "string" && message !== "" ? `: ${message}` : "";
    const ended = `${hostOf(this.#url)} ended the response with finishReason ${reason}${said}`;
    if (RETRYABLE_FINISHES.has(reason)) {
      throw new ProviderError(
        "server",
        `${ended} (the model's output was unusable; retrying may help)`,
      );
    }
    if (reason === "MISSING_THOUGHT_SIGNATURE") {
      throw new ProviderError(
        "invalid_request",
        `${ended} (a function call in the conversation lost the thought signature Gemini gave ` +
          `it: continue in a new session, or with another model)`,
      );
    }
  }

  /** The last usage report wins; a report without counts (Vertex's interim `trafficType`) is skipped. */
  #report(metadata: WireObject): void {
    if (!USAGE_COUNTS.some((field) => typeof metadata[field] === "number")) return;
    // Zero counts are left out of the JSON (proto3), so a missing count is 0.
    const count = (field: typeof USAGE_COUNTS[number]) => {
      const value = metadata[field];
      return typeof value === "number" ? value : 0;
    };
    const cached = count("cachedContentTokenCount");
    const thoughts = count("thoughtsTokenCount");
    this.#usage = {
      inputTokens: Math.max(0, count("promptTokenCount") - cached) +
        count("toolUsePromptTokenCount"),
      outputTokens: count("candidatesTokenCount") + thoughts,
      cacheReadTokens: cached,
      cacheWriteTokens: 0,
      reasoningTokens: thoughts,
    };
  }
}

/**
 * Sets a call's arguments. They arrive parsed; those that are not an object
 * or nest too deep for later requests (see `tool_arguments.ts`) leave
 * `input: {}` and their text in `invalidInput`.
 */
function setArguments(block: ToolUseBlock, args: unknown, data: string): void {
  if (args === undefined || args === null) return; // a call without arguments
  let text: string;
  try {
    text = JSON.stringify(args);
  } catch {
    text = data; // too deep to write back: the chunk itself shows the depth
  }
  const parsed = isObject(args) ? parseToolArguments(text) : undefined;
  if (parsed !== undefined) block.input = parsed;
  else block.invalidInput = text;
}

function firstCandidate(candidates: unknown): WireObject | undefined {
  if (!Array.isArray(candidates)) return undefined;
  let first: WireObject | undefined;
  for (const item of candidates) {
    const candidate = asObject(item);
    if ((candidate.index ?? 0) === 0) return candidate;
    first ??= candidate;
  }
  return first;
}

function delta(blockIndex: number, kind: DeltaKind, text: string): ProviderStreamEvent {
  return { type: "content_delta", blockIndex, kind, text };
}
