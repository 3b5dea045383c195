import type { RedactedThinkingBlock, TextBlock, ThinkingBlock, ToolUseBlock } from "../content.ts";
import { concatBytes } from "../concat_bytes.ts";
import { type PartialMessage, ProviderError } from "../errors.ts";
import type { BlockKind, DeltaKind } from "../events.ts";
import type { StopReason } from "../message.ts";
import { emptyUsage, type Usage } from "../usage.ts";
import { assembleMessage, assistantResult, type MessageAssembler } from "./assemble_batches.ts";
import { classifyStreamError, hostOf, streamReadFailure } from "./error_classification.ts";
import { asObject, isObject, parseWireObject, type WireObject } from "./wire_object.ts";
import type { AssistantResult, ProviderStreamEvent } from "./provider.ts";
import type { SseEvent } from "./sse.ts";
import { parseToolArguments } from "./tool_arguments.ts";

/**
 * Assembles an assistant message from the events of Bedrock's
 * `ConverseStream` (the frames of its binary event stream, decoded by the
 * `bedrock-converse` provider), yielding block events as it goes: one batch
 * per batch of events that completes any.
 *
 * - Each `contentBlockIndex` is a block: text, reasoning (`reasoningContent`
 *   text and signature, shown as thinking), encrypted reasoning
 *   (`redactedContent`, kept as redacted thinking) or a tool call
 *   (`contentBlockStart` names it, `toolUse.input` deltas stream its JSON).
 *   A text or reasoning block starts at its first non-empty delta; blocks
 *   that never get one are left out.
 * - Tool arguments are parsed strictly when their block stops; none means
 *   `{}`; text that is not a JSON object (cut by `max_tokens`) leaves
 *   `input: {}` and is kept in `invalidInput`.
 * - `messageStop` gives the stop reason (`guardrail_intervened` and
 *   `content_filtered` are refusals); `metadata`, which follows it, the
 *   usage (`inputTokens` counts no cached token; cache reads and writes are
 *   their own counts). The stream is read to its end.
 * - An exception frame (`throttlingException`, `modelStreamErrorException`,
 *   …: any member named `…Exception`) fails with a classified error.
 * - Unknown events, block starts and deltas (`citation`) are skipped and
 *   named in `unrecognised`.
 * - When the event source throws an abort error, the partial message is
 *   returned with stop reason `aborted`.
 *
 * @param events Decoded events in batches (`type` the frame's event or
 * exception type, `data` its JSON).
 * @param url Where the events came from; error messages name its host.
 * @returns Batches of block events, then the assembled message.
 * @throws {ProviderError} On an exception frame (classified), a stream that
 * ends before `messageStop` (`network`, retryable), malformed JSON
 * (`stream`), or a failing source; `partial` holds what was assembled once
 * streaming began.
 *
 * @example Assemble decoded events
 * ```ts
 * import { parseBedrockStream } from "./bedrock_stream.ts";
 * const event = (type: string, data: unknown) => ({ type, data: JSON.stringify(data), id: "" });
 * async function* source() {
 *   yield [
 *     event("messageStart", { role: "assistant" }),
 *     event("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Hi" } }),
 *     event("contentBlockStop", { contentBlockIndex: 0 }),
 *     event("messageStop", { stopReason: "end_turn" }),
 *     event("metadata", { usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 } }),
 *   ];
 * }
 * const stream = parseBedrockStream(source(), "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse-stream");
 * let step = await stream.next();
 * while (!step.done) step = await stream.next();
 * console.assert(step.value.content[0]?.type === "text" && step.value.usage.outputTokens === 1);
 * ```
 */
export async function* parseBedrockStream(
  events: AsyncIterable<readonly SseEvent[]>,
  url: string,
): AsyncGenerator<ProviderStreamEvent[], AssistantResult, void> {
  return yield* assembleMessage(events, new BedrockMessageAssembler(url));
}

/** The blocks a Bedrock message is assembled from. */
type StreamedBlock = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock;

/** A block being streamed, keyed by its `contentBlockIndex`. */
interface OpenBlock {
  /** Position in the assembled content. */
  blockIndex: number;
  /** The block, updated in place. */
  block: StreamedBlock;
  /** A tool call's argument text so far. */
  json: string;
}

const STOP_REASONS: ReadonlyMap<string, StopReason> = new Map([
  ["end_turn", "end_turn"],
  ["tool_use", "tool_use"],
  ["max_tokens", "max_tokens"],
  ["stop_sequence", "stop_sequence"],
  ["guardrail_intervened", "refusal"],
  ["content_filtered", "refusal"],
  // The output was cut because the context window filled: same remedy as max_tokens.
  ["model_context_window_exceeded", "max_tokens"],
]);

/** Incremental state of one Converse response. */
class BedrockMessageAssembler implements MessageAssembler {
  readonly #url: string;
  #content: StreamedBlock[] = [];
  #open = new Map<number, OpenBlock>();
  #usage: Usage = emptyUsage();
  #stopReason: string | undefined;
  #unrecognised = new Set<string>();
  /** Whether any event arrived: from then on failures carry the partial message. */
  #began = false;
  /** `metadata` follows `messageStop`: the stream is read to its end. */
  readonly ended = false;

  constructor(url: string) {
    this.#url = url;
  }

  /** Applies one event; appends the block events it causes to `out`. */
  handle(event: SseEvent, out: ProviderStreamEvent[]): void {
    this.#began = true;
    const payload = parseWireObject(event.data, this.#url, `a "${event.type}" event`);
    switch (event.type) {
      case "contentBlockDelta": // first: nearly every event is one
        this.#delta(Number(payload.contentBlockIndex), asObject(payload.delta), out);
        break;
      case "contentBlockStart":
        this.#start(Number(payload.contentBlockIndex), asObject(payload.start), out);
        break;
      case "contentBlockStop":
        this.#close(Number(payload.contentBlockIndex), out);
        break;
      case "messageStop":
        this.#stopReason = typeof payload.stopReason === "string" ? payload.stopReason : "";
        this.closeAll(out);
        break;
      case "metadata":
        if (isObject(payload.usage)) this.#usage = toUsage(payload.usage);
        break;
      case "messageStart":
        break;
      default:
        // The API's stream names its failures `…Exception` (throttlingException, …).
        if (event.type.endsWith("Exception")) {
          throw classifyStreamError({ error: { ...payload, type: event.type } }, this.#url);
        }
        this.#unrecognised.add(`event ${JSON.stringify(event.type)}`);
    }
  }

  /** EOF before `messageStop`: the connection was cut. */
  cutShort(): ProviderError | undefined {
    if (this.#stopReason !== undefined) return undefined;
    return new ProviderError(
      "network",
      `the stream from ${hostOf(this.#url)} ended before messageStop`,
    );
  }

  /** Completes every open block (a stream may leave out `contentBlockStop`). */
  closeAll(out: ProviderStreamEvent[]): void {
    for (const index of [...this.#open.keys()]) this.#close(index, out);
  }

  /** The assembled message. */
  result(stopReason?: StopReason): AssistantResult {
    // The blocks close first: the final stop reason looks at them.
    const assembled = this.#partial();
    return assistantResult(assembled, stopReason ?? this.#finalStopReason(), this.#unrecognised);
  }

  /** Attaches what was assembled so far to a failure, once streaming had begun. */
  withPartial(error: unknown): ProviderError {
    return streamReadFailure(error, this.#url, this.#began ? () => this.#partial() : undefined);
  }

  #partial(): PartialMessage {
    this.closeAll([]);
    return { content: this.#content, usage: this.#usage };
  }

  /** The stop reason given; an unknown one reads as a normal end (and is told), none as the calls say. */
  #finalStopReason(): StopReason {
    const known = STOP_REASONS.get(this.#stopReason ?? "");
    if (known !== undefined) return known;
    if (this.#stopReason) this.#unrecognised.add(`stop reason ${JSON.stringify(this.#stopReason)}`);
    return this.#content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn";
  }

  /** A block's start: a tool call's id and name; other starts carry nothing panto reads. */
  #start(index: number, start: WireObject, out: ProviderStreamEvent[]): void {
    if (isObject(start.toolUse)) {
      const { toolUseId, name } = start.toolUse;
      this.#close(index, out);
      this.#open.set(
        index,
        this.#begin({
          type: "tool_use",
          // Some servers leave the id out; the result must still name one.
          id: typeof toolUseId === "string" && toolUseId !== ""
            ? toolUseId
            : `tooluse_${crypto.randomUUID().replaceAll("-", "")}`,
          name: typeof name === "string" ? name : "",
          input: {},
        }, out),
      );
      return;
    }
    for (const kind of Object.keys(start)) {
      this.#unrecognised.add(`contentBlockStart ${JSON.stringify(kind)}`);
    }
  }

  #delta(index: number, delta: WireObject, out: ProviderStreamEvent[]): void {
    if (typeof delta.text === "string") {
      this.#append(index, "text", delta.text, out);
    } else if (isObject(delta.toolUse)) {
      this.#toolInput(index, delta.toolUse.input, out);
    } else if (isObject(delta.reasoningContent)) {
      this.#reasoning(index, delta.reasoningContent, out);
    } else {
      for (const kind of Object.keys(delta)) {
        this.#unrecognised.add(`delta ${JSON.stringify(kind)}`);
      }
    }
  }

  #reasoning(index: number, reasoning: WireObject, out: ProviderStreamEvent[]): void {
    const { text, signature, redactedContent } = reasoning;
    if (typeof text === "string") this.#append(index, "thinking", text, out);
    if (typeof signature === "string" && signature !== "") {
      const block = this.#openOf(index, "thinking", out).block as ThinkingBlock;
      block.signature = (block.signature ?? "") + signature;
    }
    if (typeof redactedContent === "string" && redactedContent !== "") {
      const block = this.#openOf(index, "redacted_thinking", out).block as RedactedThinkingBlock;
      block.data = joinBase64(block.data, redactedContent);
    }
  }

  /** More text or reasoning for the block at `index`, started by its first non-empty piece. */
  #append(
    index: number,
    kind: "text" | "thinking",
    text: string,
    out: ProviderStreamEvent[],
  ): void {
    if (text === "") return;
    const open = this.#openOf(index, kind, out);
    if (open.block.type === "text") open.block.text += text;
    else if (open.block.type === "thinking") open.block.thinking += text;
    out.push(delta(open.blockIndex, kind, text));
  }

  #toolInput(index: number, input: unknown, out: ProviderStreamEvent[]): void {
    const open = this.#open.get(index);
    if (open?.block.type !== "tool_use") {
      // A call Bedrock never named cannot be run: told, not guessed.
      this.#unrecognised.add("toolUse delta without a contentBlockStart");
      return;
    }
    if (typeof input !== "string" || input === "") return;
    open.json += input;
    out.push(delta(open.blockIndex, "tool_input", input));
  }

  /** The open block of `kind` at `index`; one of another kind there is completed first. */
  #openOf(
    index: number,
    kind: "text" | "thinking" | "redacted_thinking",
    out: ProviderStreamEvent[],
  ): OpenBlock {
    const open = this.#open.get(index);
    if (open?.block.type === kind) return open;
    this.#close(index, out);
    const block: StreamedBlock = kind === "text"
      ? { type: "text", text: "" }
      : kind === "thinking"
      ? { type: "thinking", thinking: "" }
      : { type: "redacted_thinking", data: "" };
    const started = this.#begin(block, out);
    this.#open.set(index, started);
    return started;
  }

  #begin(block: StreamedBlock, out: ProviderStreamEvent[]): OpenBlock {
    const blockIndex = this.#content.length;
    this.#content.push(block);
    const kind: BlockKind = block.type;
    out.push(
      block.type === "tool_use"
        ? { type: "block_start", blockIndex, kind, toolUse: { id: block.id, name: block.name } }
        : { type: "block_start", blockIndex, kind },
    );
    return { blockIndex, block, json: "" };
  }

  #close(index: number, out: ProviderStreamEvent[]): void {
    const open = this.#open.get(index);
    if (open === undefined) return;
    this.#open.delete(index);
    if (open.block.type === "tool_use") setArguments(open.block, open.json);
    out.push({ type: "block_complete", blockIndex: open.blockIndex, block: open.block });
  }
}

/** Parses a call's arguments strictly (see `tool_arguments.ts`); none means `{}`. */
function setArguments(block: ToolUseBlock, json: string): void {
  if (json.trim() === "") return;
  const parsed = parseToolArguments(json);
  if (parsed !== undefined) block.input = parsed;
  else block.invalidInput = json;
}

/** Two pieces of encrypted reasoning as one base64 text (each piece is padded on its own). */
function joinBase64(first: string, second: string): string {
  if (first === "") return second;
  try {
    return concatBytes([Uint8Array.fromBase64(first), Uint8Array.fromBase64(second)]).toBase64();
  } catch {
    return first + second; // not base64: kept as sent
  }
}

/**
 * Bedrock's `TokenUsage`: `inputTokens` already leaves out the tokens read
 * from and written to the prompt cache, which have their own counts.
 */
function toUsage(wire: WireObject): Usage {
  const count = (value: unknown) => (typeof value === "number" ? value : 0);
  return {
    inputTokens: count(wire.inputTokens),
    outputTokens: count(wire.outputTokens),
    cacheReadTokens: count(wire.cacheReadInputTokens),
    cacheWriteTokens: count(wire.cacheWriteInputTokens),
    reasoningTokens: 0,
  };
}

function delta(blockIndex: number, kind: DeltaKind, text: string): ProviderStreamEvent {
  return { type: "content_delta", blockIndex, kind, text };
}
