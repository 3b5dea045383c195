import {
  headerLine,
  JSONL_FORMAT_VERSION,
  labelLine,
  messageLine,
  type SessionHeader,
} from "./jsonl_format.ts";
import type { StoredTree } from "./tree.ts";
import type { SessionInfo } from "./types.ts";

/**
 * Renders a whole session (every branch, labels, name) in panto's JSONL
 * session format: what a JSONL store keeps, so `readSessionFile` (and
 * `panto sessions import`) reads it back whatever store it came from.
 *
 * @example
 * ```ts
 * import { exportJsonl } from "@panto/lib/transfer";
 * const info = { id: "s", created: "2026-01-01T00:00:00Z", modified: "2026-01-01T00:00:00Z",
 *   messageCount: 0, lastUserMessage: "" };
 * const text = exportJsonl(info, { entries: [], leafId: null });
 * console.assert(JSON.parse(text.split("\n")[0]!).type === "session");
 * ```
 *
 * @param info The session's info.
 * @param tree Its entries.
 * @returns The file's text.
 */
export function exportJsonl(info: SessionInfo, tree: StoredTree): string {
  const header: SessionHeader = {
    type: "session",
    version: JSONL_FORMAT_VERSION,
    id: info.id,
    created: info.created,
  };
  if (info.cwd !== undefined) header.cwd = info.cwd;
  if (tree.metadata !== undefined) header.metadata = tree.metadata;
  if (info.name !== undefined) header.name = info.name;
  if (info.ownerId !== undefined) header.ownerId = info.ownerId;
  if (info.parentSessionId !== undefined) header.parentSessionId = info.parentSessionId;
  const lines = [headerLine(header)];
  for (const { id, parentId, message, wire } of tree.entries) {
    lines.push(messageLine({
      message,
      conversation: [],
      toolsAvailable: [],
      id,
      parentId,
      ...(wire ? { wire } : {}),
      ...(message.usage ? { usage: message.usage } : {}),
    }, message.timestamp));
  }
  for (const { id, label } of tree.entries) {
    if (label) lines.push(labelLine(id, label, info.modified));
  }
  return lines.join("");
}
