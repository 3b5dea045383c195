import type { ApiName } from "./config.ts";
import type { ContentBlock } from "./content.ts";
import type { Usage } from "./usage.ts";

/**
 * Every {@linkcode Role}, for validation.
 *
 * @example
 * ```ts
 * import { ROLES } from "@panto/lib";
 * console.assert(ROLES.includes("tool"));
 * ```
 */
export const ROLES = ["system", "user", "assistant", "tool"] as const;

/**
 * Who a message is from. Tool results travel in `tool` messages; system
 * prompt entries in `system` messages.
 */
export type Role = typeof ROLES[number];

/**
 * Every {@linkcode StopReason}, for validation.
 *
 * @example
 * ```ts
 * import { STOP_REASONS } from "@panto/lib";
 * console.assert(STOP_REASONS.includes("aborted"));
 * ```
 */
export const STOP_REASONS = [
  "end_turn",
  "tool_use",
  "max_tokens",
  "stop_sequence",
  "refusal",
  "pause_turn",
  "aborted",
  "error",
  "max_turns",
] as const;

/**
 * Why an assistant message ended. `aborted` and `error` mark partial
 * messages kept after a cancelled or failed request. On tool results,
 * `aborted` and `max_turns` say the run ended there (cancelled, or at its
 * turn limit), so the turn is over.
 */
export type StopReason = typeof STOP_REASONS[number];

/**
 * One entry of a {@linkcode Conversation}.
 *
 * @example A user message
 * ```ts
 * import type { Message } from "@panto/lib";
 * const message: Message = {
 *   role: "user",
 *   content: [{ type: "text", text: "hello" }],
 *   timestamp: new Date().toISOString(),
 * };
 * console.assert(message.role === "user");
 * ```
 */
export interface Message {
  /** Who the message is from. */
  role: Role;
  /** The blocks, in order. */
  content: ContentBlock[];
  /** ISO 8601 time the message was created. */
  timestamp: string;
  /**
   * Assistant messages: why generation stopped. Tool messages: `aborted`
   * when the run was interrupted while its tools ran (nothing followed).
   */
  stopReason?: StopReason;
  /** Assistant messages that failed: what went wrong (never contains a key). */
  errorMessage?: string;
  /**
   * Assistant messages: tokens the provider reported. A compaction summary,
   * or a prompt carrying a branch summary: those of the request(s) that
   * wrote the summary (so a session's cost counts them).
   */
  usage?: Usage;
  /** Assistant messages (and the summaries above): the wire protocol that produced it (for cross-model hand-off). */
  api?: ApiName;
  /** Assistant messages (and the summaries above): the model that produced it. */
  model?: string;
  /** Opaque JSON the library never interprets and always round-trips. */
  metadata?: string;
}

/**
 * The text of every text block of a message, joined with blank lines.
 *
 * @param message The message.
 * @returns Its text.
 *
 * @example
 * ```ts
 * import { messageText } from "@panto/lib";
 * const text = messageText({ role: "user", content: [{ type: "text", text: "hi" }], timestamp: "" });
 * console.assert(text === "hi");
 * ```
 */
export function messageText(message: Message): string {
  const parts: string[] = [];
  for (const block of message.content) {
    if (block.type === "text") parts.push(block.text);
  }
  return parts.join("\n\n");
}

/**
 * Whether the run goes on after `message`: it holds tool results of a run
 * not interrupted, so a user message right after it steers that run
 * (answered by it) instead of starting one.
 *
 * @example
 * ```ts
 * import { runContinuesAfter } from "@panto/lib";
 * const results = { role: "tool" as const, content: [], timestamp: "" };
 * console.assert(runContinuesAfter(results));
 * console.assert(!runContinuesAfter({ ...results, stopReason: "aborted" }));
 * ```
 *
 * @param message The message before the user message (`undefined`: none).
 * @returns Whether a user message after it steers.
 */
export function runContinuesAfter(message: Message | undefined): boolean {
  return message?.role === "tool" && message.stopReason === undefined;
}
