import type { ContentBlock, ResultPart, ToolUseBlock } from "./content.ts";
import type { ProviderErrorKind } from "./errors.ts";
import type { Message, StopReason } from "./message.ts";
import type { Usage } from "./usage.ts";

/**
 * The first event of a run: the user message, as added to the conversation
 * and persisted. A run that fails before (an unreadable image, a store that
 * cannot save) sends only {@linkcode RunErrorEvent}.
 */
export interface RunStartEvent {
  /** Discriminator. */
  type: "run_start";
  /** The user message as added (images downsized). */
  message: Message;
}

/**
 * A model request begins: an assistant message is about to stream. Sent
 * before every attempt, so a retried request sends it again (after its
 * {@linkcode ProviderRetryEvent}).
 */
export interface MessageStartEvent {
  /** Discriminator. */
  type: "message_start";
  /** Which model request of the run this is, from 1 (as counted by `run_complete.requests`). */
  request: number;
}

/** The kind of a streamed content block. */
export type BlockKind = "text" | "thinking" | "redacted_thinking" | "tool_use";

/** The kind of text a delta extends. */
export type DeltaKind = "text" | "thinking" | "tool_input";

/** A content block began. `blockIndex` counts blocks within the current assistant message. */
export interface BlockStartEvent {
  /** Discriminator. */
  type: "block_start";
  /** Index of the block within the assistant message being streamed. */
  blockIndex: number;
  /** What kind of block. */
  kind: BlockKind;
  /** For tool_use blocks: the call id and tool name. */
  toolUse?: { id: string; name: string };
}

/** More text for an open block. */
export interface ContentDeltaEvent {
  /** Discriminator. */
  type: "content_delta";
  /** Index of the block the text belongs to. */
  blockIndex: number;
  /** Which text grows: visible text, reasoning, or tool-call arguments (raw JSON). */
  kind: DeltaKind;
  /** The new text. */
  text: string;
}

/** A block is final. */
export interface BlockCompleteEvent {
  /** Discriminator. */
  type: "block_complete";
  /** Index of the block. */
  blockIndex: number;
  /** The finished block (tool_use input parsed). */
  block: ContentBlock;
}

/** An assistant message is final and has been added to the conversation. */
export interface MessageCompleteEvent {
  /** Discriminator. */
  type: "message_complete";
  /** The message as added to the conversation. */
  message: Message;
  /** Tokens the provider reported for this message. */
  usage: Usage;
  /** Why generation stopped. */
  stopReason: StopReason;
  /** What the provider's stream held that panto does not know (`AssistantResult.unrecognised`). */
  unrecognised?: string[];
}

/** A tool call is about to run. */
export interface ToolDispatchStartEvent {
  /** Discriminator. */
  type: "tool_dispatch_start";
  /** The call. */
  call: ToolUseBlock;
}

/**
 * A running tool reported progress through `ToolContext.onUpdate`: one event
 * per call of it. Progress reported after the tool finished or after an
 * abort is dropped. The model never sees it; only the final result is sent.
 */
export interface ToolProgressEvent {
  /** Discriminator. */
  type: "tool_progress";
  /** The call (as in `tool_dispatch_start`). */
  call: ToolUseBlock;
  /** What the tool reported so far (a text update arrives as one text part). */
  partial: ResultPart[];
}

/** A tool call finished (or failed, or was refused for bad arguments). */
export interface ToolDispatchCompleteEvent {
  /** Discriminator. */
  type: "tool_dispatch_complete";
  /** The call. */
  call: ToolUseBlock;
  /** What the model will see. */
  result: ResultPart[];
  /** True when the result is an error. */
  isError: boolean;
}

/** A model request failed with a retryable error; the agent waits and tries again. */
export interface ProviderRetryEvent {
  /** Discriminator. */
  type: "provider_retry";
  /** 1 for the first retry. */
  attempt: number;
  /** How long the agent waits before retrying. */
  delayMs: number;
  /** What went wrong (no key material). */
  error: { kind: ProviderErrorKind; message: string; status?: number };
  /** True when blocks of the failed attempt were already streamed: consumers drop them. */
  discardedPartial: boolean;
}

/** The conversation was compacted. */
export interface CompactionEvent {
  /** Discriminator. */
  type: "compaction";
  /** The summary that now stands in for older messages. */
  summary: string;
  /** Estimated tokens before compaction. */
  tokensBefore: number;
  /** Why: asked for, near the window, or after an overflow error. */
  reason: "manual" | "threshold" | "overflow";
}

/**
 * User messages from `RunOptions.steering` were added to the conversation
 * (and persisted) after a batch of tool results, before the next model
 * request: one event per message, in order.
 */
export interface SteerAppliedEvent {
  /** Discriminator. */
  type: "steer_applied";
  /** The user message as added (images downsized). */
  message: Message;
}

/** The run finished: the model gave a final answer, hit the request limit, or was aborted. */
export interface RunCompleteEvent {
  /** Discriminator. */
  type: "run_complete";
  /** The stop reason of the last assistant message. */
  stopReason: StopReason;
  /** How many model requests the run made. */
  requests: number;
  /** True when the run stopped because it made `maxTurns` model requests. */
  turnLimitReached: boolean;
}

/**
 * Why a run failed: a provider's classification, or `session` (the store
 * could not save), `image` (the user's image could not be read),
 * `tool_source` (a tool source could not list its tools), `other`
 * (anything else, e.g. a steering callback that threw).
 */
export type RunErrorKind = ProviderErrorKind | "session" | "image" | "tool_source" | "other";

/**
 * The run failed. This is its last event; the stream's `next()` then
 * rejects with the error itself, so a consumer that only reads events still
 * sees why.
 */
export interface RunErrorEvent {
  /** Discriminator. */
  type: "run_error";
  /** What went wrong (no key material); `status` is the HTTP status of a provider failure. */
  error: { kind: RunErrorKind; message: string; status?: number };
}

/**
 * Everything a run (one `Agent.run`) reports, in order: `run_start`; for
 * each model request `message_start`, the block events and
 * `message_complete`; for each tool call `tool_dispatch_start`, any
 * `tool_progress` and `tool_dispatch_complete`; `steer_applied` before the
 * next request; `provider_retry` and `compaction` when they happen; and
 * last `run_complete`, or `run_error` when the run failed.
 *
 * @example Print streamed text
 * ```ts
 * import type { AgentEvent } from "@panto/lib";
 * function show(event: AgentEvent): string {
 *   return event.type === "content_delta" && event.kind === "text" ? event.text : "";
 * }
 * console.assert(show({ type: "content_delta", blockIndex: 0, kind: "text", text: "a" }) === "a");
 * ```
 */
export type AgentEvent =
  | RunStartEvent
  | MessageStartEvent
  | BlockStartEvent
  | ContentDeltaEvent
  | BlockCompleteEvent
  | MessageCompleteEvent
  | ToolDispatchStartEvent
  | ToolProgressEvent
  | ToolDispatchCompleteEvent
  | ProviderRetryEvent
  | CompactionEvent
  | SteerAppliedEvent
  | RunCompleteEvent
  | RunErrorEvent;
