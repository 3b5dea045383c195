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
}

/**
 * A provider streams block events and returns the assembled message. The
 * events come in batches (the events one network chunk completed, never an
 * empty batch), so a consumer pays one async step per chunk, not per event.
 * It throws {@linkcode ProviderError} on failure; the error's `partial` holds
 * whatever was assembled before it.
 */
export type StreamMessage = (
  request: ProviderRequest,
) => AsyncGenerator<ProviderStreamEvent[], AssistantResult, void>;
