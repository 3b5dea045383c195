import type { ContentBlock } from "../content.ts";
import type { ProviderConfig } from "../config.ts";
import type { BlockCompleteEvent, BlockStartEvent, ContentDeltaEvent } from "../events.ts";
import type { Message, StopReason } from "../message.ts";
import type { ToolDecl } from "../tool.ts";
import type { Usage } from "../usage.ts";

/** One request to a provider: everything needed to build the HTTP body. */
export interface ProviderRequest {
  /** Provider, model, key, reasoning level, limits. */
  config: ProviderConfig;
  /** The effective system prompt ("" for none). */
  system: string;
  /** The wire context: user, assistant and tool messages (no system entries). */
  messages: readonly Message[];
  /** Tools offered, with names already encoded for the wire. */
  tools: readonly ToolDecl[];
  /** Cancels the request; the stream then ends with stop reason `aborted`. */
  signal: AbortSignal;
  /** Fail with a `timeout` error when the server is silent this long (ms). */
  idleTimeoutMs: number;
}

/** The events a provider streams while it assembles a message. */
export type ProviderStreamEvent = BlockStartEvent | ContentDeltaEvent | BlockCompleteEvent;

/** The assembled assistant message. */
export interface AssistantResult {
  /** Blocks in order (tool names still in wire form). */
  content: ContentBlock[];
  /** Usage: the last report the server sent. */
  usage: Usage;
  /** Why it stopped (`aborted` when the signal fired). */
  stopReason: StopReason;
  /**
   * What the stream held that panto does not know, left out or read as a
   * normal end, e.g. `block type "x"`, `stop reason "y"` (an API newer
   * than this panto): so that an answer that shows nothing can say why.
   */
  unrecognised?: string[];
}

/**
 * A provider streams block events and returns the assembled message. The
 * events come in batches (the events one network chunk completed, never an
 * empty batch), so a consumer pays one async step per chunk, not per event.
 * It throws {@linkcode ProviderError} on failure (its `kind` decides whether
 * the agent retries); the error's `partial` holds whatever was assembled
 * before it. When `request.signal` fires it returns what it has with stop
 * reason `aborted` (or throws an abort error; see `isAbortError`).
 *
 * Pass one to `new Agent({ provider })`, or name it with `registerProvider`.
 *
 * @example A provider that echoes the last user message, streaming it as one text block
 * ```ts
 * import { emptyUsage, messageText, type StreamMessage } from "@panto/lib";
 * const echo: StreamMessage = async function* (request) {
 *   const last = request.messages.at(-1);
 *   const text = last ? messageText(last) : "";
 *   yield [{ type: "block_start", blockIndex: 0, kind: "text" }];
 *   yield [{ type: "content_delta", blockIndex: 0, kind: "text", text }];
 *   const block = { type: "text" as const, text };
 *   yield [{ type: "block_complete", blockIndex: 0, block }];
 *   return { content: [block], usage: emptyUsage(), stopReason: "end_turn" };
 * };
 * const stream = echo({
 *   config: { api: "echo", baseUrl: "", model: "echo", reasoning: "off" },
 *   system: "",
 *   messages: [{ role: "user", content: [{ type: "text", text: "hi" }], timestamp: "" }],
 *   tools: [],
 *   signal: new AbortController().signal,
 *   idleTimeoutMs: 1000,
 * });
 * let step = await stream.next();
 * while (!step.done) step = await stream.next();
 * console.assert(step.value.content[0]?.type === "text");
 * ```
 */
export type StreamMessage = (
  request: ProviderRequest,
) => AsyncGenerator<ProviderStreamEvent[], AssistantResult, void>;
