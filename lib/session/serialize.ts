import type { z } from "zod";
import type { Message } from "../message.ts";
import type { Usage } from "../usage.ts";
import { recordSchemas } from "./record_schemas.ts";
import { nextState } from "./session_state.ts";
import type { SessionInfo, SessionState, WireIdentity } from "./types.ts";

// Stored records are validated on the way back in: a record that parses as
// JSON but has the wrong shape is corrupt, and stores fail closed on it.
// Fields the schemas do not know are kept (see schemas.ts). The decoders
// need the schemas loaded (loadRecordSchemas, awaited by every store read).

/**
 * Validates a stored message.
 *
 * @param value Parsed JSON.
 * @returns The message.
 * @throws {Error} Naming the first field that is wrong.
 */
export function decodeMessage(value: unknown): Message {
  return decode(recordSchemas().messageSchema, value, "message");
}

/**
 * Validates a stored usage record.
 *
 * @param value Parsed JSON.
 * @returns The usage.
 */
export function decodeUsage(value: unknown): Usage {
  return decode(recordSchemas().usageSchema, value, "usage");
}

/**
 * Validates a stored wire identity.
 *
 * @param value Parsed JSON.
 * @returns The wire identity.
 */
export function decodeWire(value: unknown): WireIdentity {
  return decode(recordSchemas().wireSchema, value, "wire");
}

/**
 * Validates a stored record against its schema and returns it as parsed:
 * validated, not rebuilt, so nothing is lost (zod's copy would drop an own
 * `__proto__` key, which a model can put in tool arguments). The schemas
 * have no defaults, coercions or value-changing transforms, so the value is
 * exactly what they describe.
 *
 * @param schema The record's schema.
 * @param value Parsed JSON.
 * @param what The record's name, first in the error's field path.
 * @returns The record, unknown fields kept.
 * @throws {Error} Naming the first field that is wrong, as `what.field: problem`.
 */
export function decode<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return value as T;
  const issue = result.error.issues[0];
  const path = issue ? [what, ...issue.path.map(String)].join(".") : what;
  throw new Error(`${path}: ${issue?.message ?? "invalid"}`);
}

/** A `\uD800`–`\uDFFF` escape: `JSON.stringify` writes lone surrogates this way (and only those). */
const LONE_SURROGATE_ESCAPE = /\\ud[89a-f][0-9a-f]{2}/;

/**
 * `JSON.stringify` that replaces lone UTF-16 surrogates (in values and keys)
 * with U+FFFD, so every store keeps the same text: SQLite and PostgreSQL hold
 * UTF-8, which cannot represent a lone surrogate.
 *
 * @param value A JSON-compatible value.
 * @returns Its JSON text, well-formed Unicode.
 */
export function stringifyWellFormed(value: unknown): string {
  const json = JSON.stringify(value);
  // The fast path is exact: a match can also be a literal backslash followed
  // by "ud800" in the text, which the slow path handles just as well.
  if (!LONE_SURROGATE_ESCAPE.test(json)) return json;
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (typeof inner === "string") return inner.toWellFormed();
    if (inner === null || typeof inner !== "object" || Array.isArray(inner)) return inner;
    return Object.fromEntries(Object.entries(inner).map(([k, v]) => [k.toWellFormed(), v]));
  });
}

/**
 * The text a search looks at: text, thinking, system and summary blocks and
 * the text parts of tool results (no images, no tool arguments, no opaque
 * data). NUL becomes a space, because PostgreSQL text cannot hold it.
 *
 * @param message The message.
 * @returns Its searchable text, one block per line.
 */
export function searchableText(message: Message): string {
  const parts: string[] = [];
  for (const block of message.content) {
    switch (block.type) {
      case "text":
      case "system":
        parts.push(block.text);
        break;
      case "thinking":
        parts.push(block.thinking);
        break;
      case "compaction_summary":
        parts.push(block.summary);
        break;
      case "tool_result":
        for (const part of block.content) if (part.type === "text") parts.push(part.text);
        break;
    }
  }
  return parts.join("\n").toWellFormed().replaceAll("\0", " ");
}

/** Longest `lastUserMessage` / `firstUserMessage` kept, in code points. */
const PREVIEW_LENGTH = 200;

/**
 * The preview of a user message shown in session lists: its first text
 * block, cut at a code point boundary.
 *
 * @param message Any message.
 * @returns The preview, or `undefined` when it is not a user message with text.
 */
export function userPreview(message: Message): string | undefined {
  if (message.role !== "user") return undefined;
  const text = message.content.find((block) => block.type === "text");
  if (!text || text.type !== "text") return undefined;
  // NUL becomes a space: PostgreSQL text cannot hold it.
  return Array.from(text.text.toWellFormed().replaceAll("\0", " ")).slice(0, PREVIEW_LENGTH)
    .join("");
}

/**
 * Notes a stored row's preview as its session's first prompt, unless the
 * session has one already: a backfill reads user rows in order, folding each.
 *
 * @param into First prompts by session id.
 * @param sessionId The row's session.
 * @param json The row's message, as stored.
 */
export function foldFirstPreview(into: Map<string, string>, sessionId: string, json: string): void {
  if (into.has(sessionId)) return;
  try {
    const preview = userPreview(JSON.parse(json) as Message);
    if (preview !== undefined) into.set(sessionId, preview);
  } catch {
    // A damaged row: loading its session fails, naming it; the list goes on.
  }
}

/**
 * The message as it is stored: with the entry's usage attached when the
 * message lacks its own, so usage round-trips whichever field carried it.
 *
 * @param message The message appended.
 * @param usage The entry's usage.
 * @returns The message to store (the input when nothing changes).
 */
export function withUsage(message: Message, usage: Usage | undefined): Message {
  return usage && !message.usage ? { ...message, usage } : message;
}

/**
 * The deepest nesting of objects and arrays a stored message may have. A
 * message is plain JSON of a few levels (a tool call's arguments add theirs,
 * bounded at 100 where a provider reads them); a value nested thousands
 * deep is written by `JSON.stringify`, but overflows the stack where it is
 * copied (`structuredClone`) or sent again (a replacer recurses), so a
 * session holding one could never be continued.
 */
const MAX_STORED_DEPTH = 1000;

/**
 * Refuses a message nested deeper than {@linkcode MAX_STORED_DEPTH}, before
 * anything of its batch is written. Walked without recursion, so any depth
 * is measured.
 *
 * @example
 * ```ts
 * import { checkNesting } from "./serialize.ts";
 * let input: unknown = 1;
 * for (let i = 0; i < 2000; i++) input = [input];
 * const message = {
 *   role: "assistant" as const,
 *   content: [{ type: "tool_use" as const, id: "c", name: "ls", input: { input } }],
 *   timestamp: "2026-01-01T00:00:00.000Z",
 * };
 * try {
 *   checkNesting(message);
 *   throw new Error("not refused");
 * } catch (error) {
 *   console.assert((error as Error).message.includes("deeper than 1000"));
 * }
 * ```
 *
 * @param message The message to store.
 * @throws {Error} Naming the message and the limit.
 */
export function checkNesting(message: Message): void {
  const stack: [unknown, number][] = [[message, 1]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [value, depth] = item;
    const children = Array.isArray(value) ? value : Object.values(value as object);
    for (const child of children) {
      if (typeof child !== "object" || child === null) continue;
      if (depth + 1 > MAX_STORED_DEPTH) {
        throw new Error(
          `the ${message.role} message of ${message.timestamp} nests objects and arrays deeper ` +
            `than ${MAX_STORED_DEPTH} levels (a tool call's arguments?), which could not be ` +
            `read back and sent again safely, so nothing of its batch was saved: store it with ` +
            `that value flattened, or as a string`,
        );
      }
      stack.push([child, depth + 1]);
    }
  }
}

/**
 * A short excerpt of `text` around `index`, on one line.
 *
 * @param text The text.
 * @param index Where the match starts.
 * @param length How long the match is.
 * @returns The excerpt, with `…` where it was cut.
 */
export function excerpt(text: string, index: number, length: number): string {
  const radius = 40;
  const start = Math.max(0, index - radius);
  const end = Math.min(text.length, index + length + radius);
  const body = text.slice(start, end).toWellFormed().replace(/\s+/g, " ");
  return `${start > 0 ? "…" : ""}${body}${end < text.length ? "…" : ""}`;
}

/** What a batch of appends changes in a session's summary. */
export interface BatchSummary {
  /** Preview of the batch's first user message with text, if any. */
  firstUserMessage?: string;
  /** Preview of the batch's last user message with text, if any. */
  lastUserMessage?: string;
  /** Wire identity of the batch's last assistant message that has one. */
  wire?: WireIdentity;
  /** The session's state after the batch. */
  state?: SessionState;
}

/** Where a batch starts: the session's state and message count before it. */
export interface BatchStart {
  /** The state before the batch. */
  state?: SessionState | undefined;
  /** Messages stored before the batch. */
  count: number;
}

/**
 * Folds a batch into the summary fields every store keeps per session.
 *
 * @param messages The messages, in order.
 * @param start The session's state and message count before the batch.
 * @returns The first and last user previews and last assistant wire identity in the batch, and the state after it.
 */
export function summarizeBatch(
  messages: readonly { message: Message; wire?: WireIdentity | undefined }[],
  start: BatchStart = { count: 0 },
): BatchSummary {
  const summary: BatchSummary = {};
  let state = start.state;
  for (const [index, { message, wire }] of messages.entries()) {
    const preview = userPreview(message);
    if (preview !== undefined) {
      summary.firstUserMessage ??= preview;
      summary.lastUserMessage = preview;
    }
    if (wire && message.role === "assistant") summary.wire = { ...wire };
    state = nextState(state, message, start.count + index);
  }
  if (state) summary.state = state;
  return summary;
}

/**
 * Folds an appended batch's summary into a session's info: the first
 * prompt is kept once set, the rest follow the batch.
 *
 * @param info The info to update in place.
 * @param batch What the batch changes.
 */
export function foldSummary(info: SessionInfo, batch: BatchSummary): void {
  if (batch.state) info.state = batch.state;
  if (batch.lastUserMessage !== undefined) info.lastUserMessage = batch.lastUserMessage;
  if (batch.firstUserMessage !== undefined) info.firstUserMessage ??= batch.firstUserMessage;
  if (batch.wire) info.wire = batch.wire;
}
