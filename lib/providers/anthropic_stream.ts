import type { RedactedThinkingBlock, TextBlock, ThinkingBlock, ToolUseBlock } from "../content.ts";
import { type PartialMessage, ProviderError } from "../errors.ts";
import type { BlockStartEvent, DeltaKind } from "../events.ts";
import type { StopReason } from "../message.ts";
import { emptyUsage, type Usage } from "../usage.ts";
import { hostOf, streamReadFailure } from "./error_classification.ts";
import { asObject, isObject, parseWireObject, type WireObject } from "./wire_object.ts";
import { assembleMessage, assistantResult, type MessageAssembler } from "./assemble_batches.ts";
import { classifyStreamError } from "./http.ts";
import type { AssistantResult, ProviderStreamEvent } from "./provider.ts";
import type { SseEvent } from "./sse.ts";
import { parseToolArguments } from "./tool_arguments.ts";

/**
 * Assembles an assistant message from the server-sent events of Anthropic's
 * streaming Messages API, yielding block events as it goes: one batch per
 * batch of SSE events that completes any (events before a failure in a batch
 * are yielded before the error is thrown).
 *
 * - `blockIndex` counts blocks of the assembled message, which holds text,
 *   thinking, redacted thinking and tool calls. Server-tool blocks
 *   (`server_tool_use`, `web_search_tool_result`, …) and unknown block or
 *   delta types are skipped, as are `ping` and unknown events.
 * - Tool arguments are parsed strictly when their block stops; `""` means
 *   `{}`; text that is not a JSON object (cut by `max_tokens`) leaves
 *   `input: {}` and is kept in `invalidInput`. A server that sends the whole
 *   input in `content_block_start` and no deltas is honoured.
 * - Usage is the last value the server reported for each field, never a sum.
 * - Content blocks and a stop reason already in `message_start` (compatible
 *   servers that send a whole answer at once) are kept, as the official SDK
 *   keeps them; the blocks stay open until their `content_block_stop` or
 *   `message_stop`.
 * - A second `message_start` with the same id is a duplicate and ignored; one
 *   with another id means a gateway restarted the generation: everything is
 *   reset and block indices start again at 0. A `block_start` for a server
 *   index that is still open completes that block and starts a new one.
 * - Blocks still open at `message_stop` are finalised.
 * - When the event source throws an abort error, the partial message is
 *   returned with stop reason `aborted`.
 *
 * @param events Parsed SSE events in batches, e.g. from `streamSse`, or the
 * results of `SseParser.push`.
 * @param url Where the events came from; error messages name its host.
 * @returns The assembled message.
 * @throws {ProviderError} On an `error` event (classified), a stream that ends
 * before `message_stop` (`network`, retryable), malformed JSON (`stream`), or
 * a failing source; `partial` holds what was assembled once streaming began.
 *
 * @example Parse a recorded stream
 * ```ts
 * import { parseAnthropicStream } from "./anthropic_stream.ts";
 * import { SseParser } from "./sse.ts";
 * const body = [
 *   'event: message_start\ndata: {"type":"message_start","message":{"id":"m","usage":{"input_tokens":3,"output_tokens":1}}}\n\n',
 *   'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
 *   'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n',
 *   'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
 *   'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}\n\n',
 *   'event: message_stop\ndata: {"type":"message_stop"}\n\n',
 * ].join("");
 * async function* source() { yield new SseParser().push(body); }
 * const stream = parseAnthropicStream(source(), "https://api.anthropic.com/v1/messages");
 * let step = await stream.next();
 * while (!step.done) step = await stream.next();
 * console.assert(step.value.content[0]?.type === "text" && step.value.usage.outputTokens === 2);
 * ```
 */
export async function* parseAnthropicStream(
  events: AsyncIterable<readonly SseEvent[]>,
  url: string,
): AsyncGenerator<ProviderStreamEvent[], AssistantResult, void> {
  return yield* assembleMessage(events, new AnthropicMessageAssembler(url));
}

/** The blocks an assistant message is assembled from. */
type StreamedBlock = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock;

/** A block being streamed, keyed by the server's block index. */
interface OpenBlock {
  /** Position in the assembled content. */
  blockIndex: number;
  /** The block, updated in place. */
  block: StreamedBlock;
  /** Raw argument text of a tool call. */
  json: string;
  /** Arguments given in `content_block_start` (used when no delta arrives). */
  startInput: unknown;
}

const STOP_REASONS: ReadonlyMap<string, StopReason> = new Map([
  ["end_turn", "end_turn"],
  ["tool_use", "tool_use"],
  ["max_tokens", "max_tokens"],
  ["stop_sequence", "stop_sequence"],
  ["refusal", "refusal"],
  ["pause_turn", "pause_turn"],
  // The output was cut because the context window filled: same remedy as max_tokens.
  ["model_context_window_exceeded", "max_tokens"],
]);

/** Incremental state of one assistant message. */
class AnthropicMessageAssembler implements MessageAssembler {
  readonly #url: string;
  #messageId: string | undefined;
  /** Whether any event arrived: from then on failures carry the partial message. */
  #began = false;
  #content: StreamedBlock[] = [];
  #open = new Map<number, OpenBlock>();
  #usage: Usage = emptyUsage();
  #stopReason: StopReason | undefined;
  /** Block types (not server tools') and stop reasons this parser does not know. */
  #unrecognised = new Set<string>();
  /** True once `message_stop` arrived. */
  ended = false;

  constructor(url: string) {
    this.#url = url;
  }

  /** Applies one SSE event; appends the block events it completes to `out`. */
  handle(event: SseEvent, out: ProviderStreamEvent[]): void {
    this.#began = true;
    const payload = parseWireObject(event.data, this.#url, `a "${event.type}" event`);
    // Servers that omit `event:` lines still name the type in the payload.
    const name = event.type === "message" ? String(payload.type) : event.type;
    switch (name) {
      case "content_block_delta": // first: nearly every event is one
        this.#blockDelta(Number(payload.index), asObject(payload.delta), out);
        break;
      case "message_start":
        this.#messageStart(asObject(payload.message), out);
        break;
      case "content_block_start":
        this.#blockStart(Number(payload.index), asObject(payload.content_block), out);
        break;
      case "content_block_stop":
        this.#closeBlock(Number(payload.index), out);
        break;
      case "message_delta":
        this.#messageDelta(asObject(payload.delta), asObject(payload.usage));
        break;
      case "message_stop":
        this.ended = true;
        this.#closeAll(out);
        break;
      case "error":
        throw classifyStreamError(payload, this.#url);
      default:
        break; // ping, and event types added after this was written
    }
  }

  /** A stream that ended before `message_stop` was cut. */
  cutShort(): ProviderError | undefined {
    if (this.ended) return undefined;
    return new ProviderError(
      "network",
      `the stream from ${hostOf(this.#url)} ended before message_stop`,
    );
  }

  /** The assembled message; open blocks are finalised. */
  result(stopReason?: StopReason): AssistantResult {
    // A missing stop reason (no message_delta) is read as a normal end.
    const reason = stopReason ?? this.#stopReason ?? "end_turn";
    return assistantResult(this.#partial(), reason, this.#unrecognised);
  }

  /** Attaches what was assembled so far to a failure, once streaming had begun. */
  withPartial(error: unknown): ProviderError {
    return streamReadFailure(error, this.#url, this.#began ? () => this.#partial() : undefined);
  }

  #partial(): PartialMessage {
    this.#closeAll([]);
    return { content: this.#content, usage: this.#usage };
  }

  #messageStart(message: WireObject, out: ProviderStreamEvent[]): void {
    const id = typeof message.id === "string" ? message.id : undefined;
    if (id !== undefined && id === this.#messageId) return; // a duplicate, not a restart
    this.#messageId = id;
    this.#content = [];
    this.#open.clear();
    this.#usage = emptyUsage();
    this.#stopReason = undefined;
    this.#unrecognised.clear();
    overlayUsage(this.#usage, asObject(message.usage));
    this.#setStopReason(message.stop_reason);
    // Some compatible servers send the whole answer here. As in the official
    // SDK, these blocks are the message's first and later events address them
    // by their position.
    const preset = Array.isArray(message.content) ? message.content : [];
    preset.forEach((block, index) => this.#blockStart(index, asObject(block), out));
  }

  #blockStart(index: number, wire: WireObject, out: ProviderStreamEvent[]): void {
    const block = newBlock(wire);
    if (block === undefined) {
      // Server-tool blocks are not ours; an unknown block is told, as it may be the whole answer.
      if (!/_tool_(use|result)$/.test(String(wire.type))) {
        this.#unrecognised.add(`block type ${JSON.stringify(wire.type)}`);
      }
      return;
    }
    this.#closeBlock(index, out);
    const blockIndex = this.#content.length;
    this.#content.push(block);
    this.#open.set(index, { blockIndex, block, json: "", startInput: wire.input });
    const start: BlockStartEvent = { type: "block_start", blockIndex, kind: block.type };
    if (block.type === "tool_use") start.toolUse = { id: block.id, name: block.name };
    out.push(start);
    // Anthropic starts with "", but a compatible server may put text here.
    if (block.type === "text" && block.text !== "") {
      out.push(delta(blockIndex, "text", block.text));
    } else if (block.type === "thinking" && block.thinking !== "") {
      out.push(delta(blockIndex, "thinking", block.thinking));
    }
  }

  #blockDelta(index: number, wire: WireObject, out: ProviderStreamEvent[]): void {
    const open = this.#open.get(index);
    if (open === undefined) return;
    const { block, blockIndex } = open;
    let added = "";
    let kind: DeltaKind = "text";
    if (wire.type === "text_delta" && block.type === "text") {
      added = stringField(wire, "text");
      block.text += added;
    } else if (wire.type === "thinking_delta" && block.type === "thinking") {
      added = stringField(wire, "thinking");
      kind = "thinking";
      block.thinking += added;
    } else if (wire.type === "signature_delta" && block.type === "thinking") {
      block.signature = (block.signature ?? "") + stringField(wire, "signature");
    } else if (wire.type === "input_json_delta" && block.type === "tool_use") {
      added = stringField(wire, "partial_json");
      kind = "tool_input";
      open.json += added;
    } // citations_delta and unknown deltas carry nothing we keep
    if (added !== "") out.push(delta(blockIndex, kind, added));
  }

  #closeBlock(index: number, out: ProviderStreamEvent[]): void {
    const open = this.#open.get(index);
    if (open === undefined) return;
    this.#open.delete(index);
    if (open.block.type === "tool_use") finishToolInput(open.block, open.json, open.startInput);
    out.push({ type: "block_complete", blockIndex: open.blockIndex, block: open.block });
  }

  /** Completes every open block (none after `message_stop`, which closes them). */
  closeAll(out: ProviderStreamEvent[]): void {
    this.#closeAll(out);
  }

  #closeAll(out: ProviderStreamEvent[]): void {
    for (const index of [...this.#open.keys()]) this.#closeBlock(index, out);
  }

  #messageDelta(delta: WireObject, usage: WireObject): void {
    this.#setStopReason(delta.stop_reason);
    overlayUsage(this.#usage, usage);
  }

  #setStopReason(wire: unknown): void {
    if (typeof wire !== "string") return; // null while the message is still going
    // Unknown reasons (added to the API later) are read as a normal end, and told.
    const known = STOP_REASONS.get(wire);
    if (known === undefined) this.#unrecognised.add(`stop reason ${JSON.stringify(wire)}`);
    this.#stopReason = known ?? "end_turn";
  }
}

function newBlock(wire: WireObject): StreamedBlock | undefined {
  const string = (field: string) => stringField(wire, field);
  switch (wire.type) {
    case "text":
      return { type: "text", text: string("text") };
    case "thinking": {
      const block: ThinkingBlock = { type: "thinking", thinking: string("thinking") };
      if (string("signature") !== "") block.signature = string("signature");
      return block;
    }
    case "redacted_thinking":
      return { type: "redacted_thinking", data: string("data") };
    case "tool_use":
      return { type: "tool_use", id: string("id"), name: string("name"), input: {} };
    default:
      return undefined;
  }
}

/**
 * Parses a tool call's arguments strictly. Deltas win over the start block's
 * `input`; no argument text at all means `{}`.
 */
function finishToolInput(block: ToolUseBlock, json: string, startInput: unknown): void {
  // A compatible server may send the whole input in the start block: its depth is bounded too.
  const text = json.trim() !== "" ? json : isObject(startInput) ? JSON.stringify(startInput) : "";
  if (text === "") return;
  const parsed = parseToolArguments(text);
  if (parsed) {
    block.input = parsed;
  } else {
    block.input = {};
    block.invalidInput = text;
  }
}

/** Overwrites each usage field the server reported (cumulative totals, never summed). */
function overlayUsage(usage: Usage, wire: WireObject): void {
  const count = (value: unknown) => (typeof value === "number" ? value : undefined);
  usage.inputTokens = count(wire.input_tokens) ?? usage.inputTokens;
  usage.outputTokens = count(wire.output_tokens) ?? usage.outputTokens;
  usage.cacheReadTokens = count(wire.cache_read_input_tokens) ?? usage.cacheReadTokens;
  usage.cacheWriteTokens = count(wire.cache_creation_input_tokens) ?? usage.cacheWriteTokens;
  usage.reasoningTokens = count(asObject(wire.output_tokens_details).thinking_tokens) ??
    usage.reasoningTokens;
}

function delta(blockIndex: number, kind: DeltaKind, text: string): ProviderStreamEvent {
  return { type: "content_delta", blockIndex, kind, text };
}

function stringField(wire: WireObject, field: string): string {
  const value = wire[field];
  return typeof value === "string" ? value : "";
}
