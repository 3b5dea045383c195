import type { ContentBlock, ResultPart, ToolUseBlock } from "./content.ts";
import type { Message, StopReason } from "./message.ts";
import type { Usage } from "./usage.ts";

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
}

/** A tool call is about to run. */
export interface ToolDispatchStartEvent {
  /** Discriminator. */
  type: "tool_dispatch_start";
  /** The call. */
  call: ToolUseBlock;
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

/** A provider request failed with a retryable error; the agent waits and tries again. */
export interface ProviderRetryEvent {
  /** Discriminator. */
  type: "provider_retry";
  /** 1 for the first retry. */
  attempt: number;
  /** How long the agent waits before retrying. */
  delayMs: number;
  /** What went wrong (no key material). */
  error: { kind: string; message: string; status?: number };
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

/** The run finished: the model gave a final answer, hit the turn limit, or was aborted. */
export interface RunCompleteEvent {
  /** Discriminator. */
  type: "run_complete";
  /** The stop reason of the last assistant message. */
  stopReason: StopReason;
  /** How many model requests the run made. */
  requests: number;
  /** True when the run stopped because of `maxTurns`. */
  turnLimitReached: boolean;
}

/**
 * Everything an agent run reports, in order.
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
  | BlockStartEvent
  | ContentDeltaEvent
  | BlockCompleteEvent
  | MessageCompleteEvent
  | ToolDispatchStartEvent
  | ToolDispatchCompleteEvent
  | ProviderRetryEvent
  | CompactionEvent
  | RunCompleteEvent;
