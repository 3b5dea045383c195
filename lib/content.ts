/**
 * A part of a tool result: text, or an image given as base64 data.
 *
 * @example A text part
 * ```ts
 * import type { ResultPart } from "@panto/lib";
 * const part: ResultPart = { type: "text", text: "42" };
 * console.assert(part.type === "text");
 * ```
 */
export type ResultPart = TextPart | ImagePart;

/** A piece of plain text. */
export interface TextPart {
  /** Discriminator. */
  type: "text";
  /** The text. */
  text: string;
}

/** An image, base64-encoded, with its media type (e.g. `image/png`). */
export interface ImagePart {
  /** Discriminator. */
  type: "image";
  /** IANA media type such as `image/png` or `image/jpeg`. */
  mediaType: string;
  /** Base64 of the encoded image bytes. */
  data: string;
}

/** Plain text written by the user or the model. */
export interface TextBlock {
  /** Discriminator. */
  type: "text";
  /** The text. */
  text: string;
}

/** An image attached to a user message. */
export interface ImageBlock {
  /** Discriminator. */
  type: "image";
  /** IANA media type such as `image/png`. */
  mediaType: string;
  /** Base64 of the encoded image bytes. */
  data: string;
}

/** The model's visible reasoning; `signature` lets Anthropic verify it when sent back. */
export interface ThinkingBlock {
  /** Discriminator. */
  type: "thinking";
  /** The reasoning text. */
  thinking: string;
  /** Opaque signature from the provider, sent back unchanged on later turns. */
  signature?: string;
}

/** Reasoning the provider encrypted; kept only to be sent back. */
export interface RedactedThinkingBlock {
  /** Discriminator. */
  type: "redacted_thinking";
  /** Opaque encrypted data. */
  data: string;
}

/** A call the model asked for. */
export interface ToolUseBlock {
  /** Discriminator. */
  type: "tool_use";
  /** Provider-assigned call id, echoed in the matching result. */
  id: string;
  /** The tool's name as registered (decoded from the wire form). */
  name: string;
  /** Parsed arguments; `{}` when the model sent none. */
  input: Record<string, unknown>;
  /** The raw argument text when it was not valid JSON (e.g. cut by max tokens). */
  invalidInput?: string;
}

/** The result of one tool call, sent back to the model. */
export interface ToolResultBlock {
  /** Discriminator. */
  type: "tool_result";
  /** The id of the {@linkcode ToolUseBlock} this answers. */
  toolUseId: string;
  /** The tool's name, kept for display and for providers that want it. */
  toolName: string;
  /** Text and image parts. */
  content: ResultPart[];
  /** True when the tool failed; the model sees the parts as an error. */
  isError: boolean;
  /**
   * How long the tool ran, in ms (from its start to its result); absent for
   * a call never started and in sessions stored before it was recorded.
   */
  durationMs?: number;
}

/** How a system block combines with earlier ones. */
export type SystemMode = "append" | "replace";

/** A system prompt entry: `replace` starts over, `append` adds to what came before. */
export interface SystemBlock {
  /** Discriminator. */
  type: "system";
  /** The prompt text. */
  text: string;
  /** Whether this block replaces or extends the effective system prompt. */
  mode: SystemMode;
}

/** A summary that stands in for every message before it. */
export interface CompactionSummaryBlock {
  /** Discriminator. */
  type: "compaction_summary";
  /** The summary text. */
  summary: string;
  /** Estimated tokens of the context the summary replaced. */
  tokensBefore?: number;
  /**
   * How many messages right after this one are copies of recent messages
   * kept verbatim (the log is append-only, so kept messages are re-appended
   * after the summary). A transcript view can skip them.
   */
  keptMessages?: number;
}

/**
 * Any block a {@linkcode Message} can hold.
 *
 * @example Match on the block type
 * ```ts
 * import type { ContentBlock } from "@panto/lib";
 * const block: ContentBlock = { type: "text", text: "hi" };
 * const text = block.type === "text" ? block.text : "";
 * console.assert(text === "hi");
 * ```
 */
export type ContentBlock =
  | TextBlock
  | ImageBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ToolUseBlock
  | ToolResultBlock
  | SystemBlock
  | CompactionSummaryBlock;
