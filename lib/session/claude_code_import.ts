// Claude Code's transcripts (~/.claude/projects/<project>/<uuid>.jsonl):
// `user` and `assistant` lines with `uuid`, `parentUuid` and an Anthropic
// API `message`; tool results come back in user lines as `tool_result`
// blocks. Claude Code writes one line per content block of an answer (the
// lines share `message.id`): they are merged back into one message. A
// `summary` line names the session; side chains (a subagent's turns),
// meta lines and bookkeeping lines (`system`, `file-history-snapshot`, …)
// are skipped.
import type { ContentBlock, ResultPart } from "../content.ts";
import type { Message } from "../message.ts";
import { STOP_REASONS } from "../message.ts";
import { SessionImportError } from "./errors.ts";
import { type ImportedSession, ImportTree, isRecord, type JsonLine } from "./import_tree.ts";
import { decodeMessage } from "./serialize.ts";

/** Line types only Claude Code writes, for telling its files from others. */
const CLAUDE_CODE_TYPES = ["user", "assistant", "summary", "system", "file-history-snapshot"];

/**
 * Whether a file's first line looks like a Claude Code transcript's.
 *
 * @example
 * ```ts
 * import { isClaudeCodeLine } from "./claude_code_import.ts";
 * console.assert(isClaudeCodeLine({ type: "user", uuid: "u", parentUuid: null }));
 * ```
 *
 * @param value The first line's object.
 * @returns Whether it is one.
 */
export function isClaudeCodeLine(value: Record<string, unknown>): boolean {
  return "uuid" in value || "sessionId" in value || "leafUuid" in value ||
    (value.type === "queue-operation") ||
    (CLAUDE_CODE_TYPES.includes(String(value.type)) && "message" in value);
}

/**
 * Reads a Claude Code transcript's lines (the record schemas loaded).
 *
 * @example
 * ```ts
 * import { readClaudeCodeSession } from "./claude_code_import.ts";
 * import { loadRecordSchemas } from "./record_schemas.ts";
 * await loadRecordSchemas();
 * const session = readClaudeCodeSession([
 *   { line: 1, value: { type: "user", uuid: "a", parentUuid: null, timestamp: "2026-01-01T00:00:00Z",
 *     message: { role: "user", content: "hi" } } },
 * ], "t.jsonl");
 * console.assert(session.entries[0]?.message.role === "user");
 * ```
 *
 * @param lines The file's objects.
 * @param path The file, for errors.
 * @returns The session.
 * @throws {SessionImportError} For a line that is not what its type says, naming it.
 */
export function readClaudeCodeSession(lines: readonly JsonLine[], path: string): ImportedSession {
  const tree = new ImportTree("claude-code");
  /** Tool call ids to their tools' names: a `tool_result` names only the call. */
  const toolNames = new Map<string, string>();
  for (const { value, line } of lines) {
    try {
      readLine(tree, value, toolNames);
    } catch (error) {
      throw new SessionImportError(path, line, (error as Error).message);
    }
  }
  return tree.session;
}

function readLine(
  tree: ImportTree,
  entry: Record<string, unknown>,
  toolNames: Map<string, string>,
): void {
  const id = typeof entry.uuid === "string" ? entry.uuid : undefined;
  const parentId = typeof entry.parentUuid === "string" ? entry.parentUuid : null;
  const kind = String(entry.type);
  if (kind === "summary" && typeof entry.summary === "string") {
    tree.session.name = entry.summary;
    return tree.skip(id, parentId);
  }
  if ((kind !== "user" && kind !== "assistant") || id === undefined) {
    return tree.skip(id, parentId, kind);
  }
  if (entry.isSidechain === true) return tree.skip(id, parentId, "side chain");
  if (entry.isMeta === true) return tree.skip(id, parentId, "meta");
  if (!isRecord(entry.message)) throw new Error("message: expected an object");
  const timestamp = typeof entry.timestamp === "string" ? entry.timestamp : "";
  tree.session.created ??= timestamp;
  if (kind === "assistant") {
    return addAssistant(tree, id, parentId, entry.message, timestamp, toolNames);
  }
  const message = userMessage(entry, timestamp, toolNames);
  // Parallel calls' results come one a line; panto answers a turn's calls in one tool message.
  const into = message.role === "tool"
    ? tree.mergeTarget(parentId, (previous) => previous.role === "tool")
    : undefined;
  if (!into) return tree.add(id, parentId, message);
  into.content.push(...message.content);
  tree.merged(id, parentId);
}

function addAssistant(
  tree: ImportTree,
  id: string,
  parentId: string | null,
  raw: Record<string, unknown>,
  timestamp: string,
  toolNames: Map<string, string>,
): void {
  const blocks = contentArray(raw.content).map(assistantBlock);
  for (const block of blocks) if (block.type === "tool_use") toolNames.set(block.id, block.name);
  const answerId = typeof raw.id === "string" ? raw.id : undefined;
  const into = answerId === undefined ? undefined : tree.mergeTarget(
    parentId,
    (message) => message.role === "assistant" && message.metadata === answerMetadata(answerId),
  );
  if (into) {
    into.content.push(...blocks);
    settle(into, raw);
    return tree.merged(id, parentId);
  }
  const message: Message = {
    role: "assistant",
    content: blocks,
    timestamp,
    api: "anthropic-messages",
  };
  if (typeof raw.model === "string") message.model = raw.model;
  if (answerId !== undefined) message.metadata = answerMetadata(answerId);
  settle(message, raw);
  tree.add(id, parentId, decodeMessage(message));
}

/** Keeps the answer's id, so the lines of one answer are known as such. */
function answerMetadata(answerId: string): string {
  return JSON.stringify({ claudeCodeMessageId: answerId });
}

/** The stop reason and usage, which the answer's last line carries. */
function settle(message: Message, raw: Record<string, unknown>): void {
  const stop = STOP_REASONS.find((reason) => reason === raw.stop_reason);
  if (stop) message.stopReason = stop;
  if (isRecord(raw.usage)) {
    const count = (value: unknown) => (typeof value === "number" ? value : 0);
    message.usage = {
      inputTokens: count(raw.usage.input_tokens),
      outputTokens: count(raw.usage.output_tokens),
      cacheReadTokens: count(raw.usage.cache_read_input_tokens),
      cacheWriteTokens: count(raw.usage.cache_creation_input_tokens),
      reasoningTokens: 0,
    };
  }
}

function userMessage(
  entry: Record<string, unknown>,
  timestamp: string,
  toolNames: Map<string, string>,
): Message {
  const raw = entry.message as Record<string, unknown>;
  const blocks = contentArray(raw.content).map((block) => userBlock(block, toolNames));
  if (entry.isCompactSummary === true) {
    const summary = blocks.map((b) => (b.type === "text" ? b.text : "")).join("\n");
    return decodeMessage({
      role: "user",
      content: [{ type: "compaction_summary", summary }],
      timestamp,
    });
  }
  const results = blocks.some((block) => block.type === "tool_result");
  return decodeMessage({ role: results ? "tool" : "user", content: blocks, timestamp });
}

function contentArray(content: unknown): unknown[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) throw new Error("message.content: expected a string or an array");
  return content;
}

function assistantBlock(raw: unknown): ContentBlock {
  if (!isRecord(raw)) throw new Error("message.content: expected objects");
  switch (raw.type) {
    case "tool_use":
      return {
        type: "tool_use",
        id: String(raw.id),
        name: String(raw.name),
        input: isRecord(raw.input) ? raw.input : {},
      };
    case "thinking":
      return typeof raw.signature === "string"
        ? { type: "thinking", thinking: String(raw.thinking), signature: raw.signature }
        : { type: "thinking", thinking: String(raw.thinking) };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: String(raw.data) };
    default:
      return part(raw);
  }
}

function userBlock(raw: unknown, toolNames: Map<string, string>): ContentBlock {
  if (!isRecord(raw) || raw.type !== "tool_result") return part(raw);
  const toolUseId = String(raw.tool_use_id);
  return {
    type: "tool_result",
    toolUseId,
    toolName: toolNames.get(toolUseId) ?? "unknown",
    content: contentArray(raw.content ?? "").map(part),
    isError: raw.is_error === true,
  };
}

/** A text or image block (an API image names its data in `source`). */
function part(raw: unknown): ResultPart {
  if (isRecord(raw) && raw.type === "text" && typeof raw.text === "string") {
    return { type: "text", text: raw.text };
  }
  if (isRecord(raw) && raw.type === "image" && isRecord(raw.source)) {
    return {
      type: "image",
      mediaType: String(raw.source.media_type),
      data: String(raw.source.data),
    };
  }
  throw new Error(`message.content: unknown block ${JSON.stringify(raw)?.slice(0, 80)}`);
}
