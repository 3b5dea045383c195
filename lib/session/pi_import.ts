// pi's session files (pi-coding-agent 0.73, format version 3; older
// versions, without ids, read as one chain): a `session` header, then
// entries with `id` and `parentId`. Messages become panto messages; a
// compaction becomes a compaction summary; a session name and labels are
// kept; model and thinking changes and extension state are skipped.
import type { CompactionSummaryBlock, ContentBlock, ResultPart } from "../content.ts";
import type { Message, StopReason } from "../message.ts";
import type { Usage } from "../usage.ts";
import { SessionImportError } from "./errors.ts";
import { type ImportedSession, ImportTree, isRecord, type JsonLine } from "./import_tree.ts";
import { decodeMessage } from "./serialize.ts";

const STOP_REASONS: Record<string, StopReason> = {
  stop: "end_turn",
  length: "max_tokens",
  toolUse: "tool_use",
  error: "error",
  aborted: "aborted",
};

/** pi's API names where panto's differ. */
const API_NAMES: Record<string, string> = {
  "openai-completions": "openai-chat",
  "bedrock-converse-stream": "bedrock-converse",
};

/**
 * Whether the first line of a file is a pi session header (panto's says
 * `created` where pi's says `timestamp`).
 *
 * @example
 * ```ts
 * import { isPiHeader } from "./pi_import.ts";
 * console.assert(isPiHeader({ type: "session", version: 3, id: "x", timestamp: "t", cwd: "/" }));
 * ```
 *
 * @param value The first line's object.
 * @returns Whether it is one.
 */
export function isPiHeader(value: Record<string, unknown>): boolean {
  return value.type === "session" && typeof value.timestamp === "string" &&
    value.created === undefined;
}

/**
 * Reads a pi session file's lines (the record schemas loaded).
 *
 * @example
 * ```ts
 * import { readPiSession } from "./pi_import.ts";
 * import { loadRecordSchemas } from "./record_schemas.ts";
 * await loadRecordSchemas();
 * const session = readPiSession([
 *   { line: 1, value: { type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00Z", cwd: "/" } },
 *   { line: 2, value: { type: "message", id: "a", parentId: null, timestamp: "2026-01-01T00:00:01Z",
 *     message: { role: "user", content: "hi", timestamp: 0 } } },
 * ], "s.jsonl");
 * console.assert(session.entries[0]?.message.content[0]?.type === "text");
 * ```
 *
 * @param lines The file's objects, header first.
 * @param path The file, for errors.
 * @returns The session.
 * @throws {SessionImportError} For an entry that is not what its type says, naming its line.
 */
export function readPiSession(lines: readonly JsonLine[], path: string): ImportedSession {
  const tree = new ImportTree("pi");
  const [header, ...entries] = lines;
  if (typeof header?.value.timestamp === "string") tree.session.created = header.value.timestamp;
  for (const { value, line } of entries) {
    try {
      readEntry(tree, value, line);
    } catch (error) {
      throw new SessionImportError(path, line, (error as Error).message);
    }
  }
  return tree.session;
}

function readEntry(tree: ImportTree, entry: Record<string, unknown>, line: number): void {
  const id = typeof entry.id === "string" ? entry.id : `line-${line}`;
  const parentId = entry.parentId === null || typeof entry.parentId === "string"
    ? entry.parentId
    : undefined;
  const timestamp = typeof entry.timestamp === "string" ? entry.timestamp : "";
  switch (entry.type) {
    case "message":
      return addMessage(tree, id, parentId, entry.message, timestamp);
    case "compaction":
      return addCompaction(tree, id, parentId, entry, timestamp);
    case "branch_summary":
      return tree.add(
        id,
        parentId,
        userText(
          `Summary of the branch this conversation came back from:\n\n${entry.summary}`,
          timestamp,
        ),
      );
    case "custom_message":
      return tree.add(id, parentId, userBlocks(entry.content, timestamp));
    case "session_info":
      if (typeof entry.name === "string") tree.session.name = entry.name;
      return tree.skip(id, parentId);
    case "label":
      if (typeof entry.targetId === "string") {
        tree.label(entry.targetId, typeof entry.label === "string" ? entry.label : undefined);
      }
      return tree.skip(id, parentId);
    default:
      return tree.skip(id, parentId, String(entry.type));
  }
}

/**
 * pi keeps the messages from `firstKeptEntryId` on before its compaction
 * entry; panto's summary stands in for everything before it, so those
 * messages follow it as copies (as panto's own compaction keeps them).
 */
function addCompaction(
  tree: ImportTree,
  id: string,
  parentId: string | null | undefined,
  entry: Record<string, unknown>,
  timestamp: string,
): void {
  const kept = typeof entry.firstKeptEntryId === "string"
    ? tree.messagesBetween(entry.firstKeptEntryId, parentId)
    : [];
  const message = summary(String(entry.summary ?? ""), entry, timestamp);
  if (kept.length > 0) (message.content[0] as CompactionSummaryBlock).keptMessages = kept.length;
  tree.add(id, parentId, message);
  let last = id;
  kept.forEach((copy, n) => {
    const { usage: _counted, ...rest } = copy;
    tree.add(`${id}-kept-${n}`, last, { ...rest, content: structuredClone(copy.content) });
    last = `${id}-kept-${n}`;
  });
  tree.continueAt(id, last);
}

function addMessage(
  tree: ImportTree,
  id: string,
  parentId: string | null | undefined,
  raw: unknown,
  timestamp: string,
): void {
  if (!isRecord(raw)) throw new Error("message: expected an object");
  switch (raw.role) {
    case "user":
    case "custom":
      return tree.add(id, parentId, userBlocks(raw.content, timestamp));
    case "assistant":
      return tree.add(id, parentId, assistant(raw, timestamp));
    case "toolResult": {
      const result = toolResult(raw);
      // pi keeps each result apart; panto answers a turn's calls in one tool message.
      const into = tree.mergeTarget(parentId, (message) => message.role === "tool");
      if (into) {
        into.content.push(result);
        return tree.merged(id, parentId);
      }
      return tree.add(id, parentId, decodeMessage({ role: "tool", content: [result], timestamp }));
    }
    case "bashExecution":
      return tree.add(id, parentId, userText(bashText(raw), timestamp));
    case "compactionSummary":
      return tree.add(id, parentId, summary(String(raw.summary ?? ""), raw, timestamp));
    case "branchSummary":
      return tree.add(id, parentId, userText(String(raw.summary ?? ""), timestamp));
    default:
      return tree.skip(id, parentId, `message role ${String(raw.role)}`);
  }
}

function assistant(raw: Record<string, unknown>, timestamp: string): Message {
  const content = array(raw.content, "message.content").map(assistantBlock);
  const message: Message = { role: "assistant", content, timestamp };
  const stop = STOP_REASONS[String(raw.stopReason)];
  if (stop) message.stopReason = stop;
  if (typeof raw.errorMessage === "string") message.errorMessage = raw.errorMessage;
  if (typeof raw.model === "string") message.model = raw.model;
  if (typeof raw.api === "string") message.api = API_NAMES[raw.api] ?? raw.api;
  const usage = piUsage(raw.usage);
  if (usage) message.usage = usage;
  return decodeMessage(message);
}

function assistantBlock(raw: unknown): ContentBlock {
  if (!isRecord(raw)) throw new Error("message.content: expected objects");
  switch (raw.type) {
    case "toolCall":
      return {
        type: "tool_use",
        id: String(raw.id),
        name: String(raw.name),
        input: isRecord(raw.arguments) ? raw.arguments : {},
      };
    case "thinking":
      if (raw.redacted === true) {
        return { type: "redacted_thinking", data: String(raw.thinkingSignature ?? "") };
      }
      return typeof raw.thinkingSignature === "string"
        ? { type: "thinking", thinking: String(raw.thinking), signature: raw.thinkingSignature }
        : { type: "thinking", thinking: String(raw.thinking) };
    default:
      return part(raw);
  }
}

function toolResult(raw: Record<string, unknown>): ContentBlock {
  return {
    type: "tool_result",
    toolUseId: String(raw.toolCallId),
    toolName: String(raw.toolName),
    content: array(raw.content, "message.content").map(part),
    isError: raw.isError === true,
  };
}

/** A text or image part (pi's `mimeType` is panto's `mediaType`). */
function part(raw: unknown): ResultPart {
  if (isRecord(raw) && raw.type === "image") {
    return { type: "image", mediaType: String(raw.mimeType), data: String(raw.data) };
  }
  if (isRecord(raw) && raw.type === "text" && typeof raw.text === "string") {
    return { type: "text", text: raw.text };
  }
  throw new Error(`message.content: unknown block ${JSON.stringify(raw)?.slice(0, 80)}`);
}

function userBlocks(content: unknown, timestamp: string): Message {
  if (typeof content === "string") return userText(content, timestamp);
  return decodeMessage({ role: "user", content: array(content, "content").map(part), timestamp });
}

function userText(text: string, timestamp: string): Message {
  return decodeMessage({ role: "user", content: [{ type: "text", text }], timestamp });
}

function summary(text: string, raw: Record<string, unknown>, timestamp: string): Message {
  const block: ContentBlock = { type: "compaction_summary", summary: text };
  if (typeof raw.tokensBefore === "number") block.tokensBefore = raw.tokensBefore;
  return decodeMessage({ role: "user", content: [block], timestamp });
}

/** A `!command` as pi sends it to the model. */
function bashText(raw: Record<string, unknown>): string {
  const output = typeof raw.output === "string" && raw.output !== ""
    ? `\`\`\`\n${raw.output}\n\`\`\``
    : "(no output)";
  const exit = typeof raw.exitCode === "number" && raw.exitCode !== 0
    ? `\n\nCommand exited with code ${raw.exitCode}`
    : "";
  return `Ran \`${String(raw.command)}\`\n${output}${
    raw.cancelled === true ? "\n\n(command cancelled)" : exit
  }`;
}

function piUsage(raw: unknown): Usage | undefined {
  if (!isRecord(raw)) return undefined;
  const count = (value: unknown) => (typeof value === "number" ? value : 0);
  return {
    inputTokens: count(raw.input),
    outputTokens: count(raw.output),
    cacheReadTokens: count(raw.cacheRead),
    cacheWriteTokens: count(raw.cacheWrite),
    reasoningTokens: 0,
  };
}

function array(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${what}: expected an array`);
  return value;
}
