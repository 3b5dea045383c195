// How the SQLite store writes an append's or a replacement's batch, in the
// write's transaction: the session's row, the message rows and their
// search text, and the summary columns a list reads.
import type { DatabaseSync } from "node:sqlite";
import { type BatchStart, summarizeBatch } from "./serialize.ts";
import { messageRows, type StoredRow, storedState } from "./sql_rows.ts";
import { parseJsonText } from "./sqlite_database.ts";
import { checkExpectedCount, type PendingSession } from "./store_common.ts";
import type { BatchWrite } from "./store_core.ts";
import type { PersistentMessage } from "./types.ts";

/**
 * Stores an append's (or a replacement's) batch, in the write's
 * transaction: the session's row inserted at its first write, its message
 * rows and their search text, and its summary columns.
 *
 * @example
 * ```ts
 * import { storeBatch } from "./sqlite_batch.ts";
 * import { openDatabase, transaction } from "./sqlite_database.ts";
 * import { loadRecordSchemas } from "./record_schemas.ts";
 * await loadRecordSchemas();
 * const db = openDatabase(":memory:", 5000);
 * const message = { role: "user" as const, content: [], timestamp: "" };
 * const messages = [{ message, conversation: [], toolsAvailable: [] }];
 * const batch = { messages, expectedCount: 0, writtenAt: undefined, replaces: false };
 * console.assert(transaction(db, () => storeBatch(db, "s1", batch, undefined)) === true);
 * db.close();
 * ```
 *
 * @param db The database, in a transaction.
 * @param sessionId The session.
 * @param batch What to store.
 * @param pending What `create` was told, when the session is not written yet.
 * @returns Whether the session's turn still runs after it.
 * @throws {SessionChangedError} When the session has another message count than expected.
 */
export function storeBatch(
  db: DatabaseSync,
  sessionId: string,
  batch: BatchWrite,
  pending: PendingSession | undefined,
): boolean {
  const { messages, expectedCount } = batch;
  const clear = batch.replaces && messages.length === 0;
  const now = batch.writtenAt ?? new Date().toISOString();
  const before = startSession(db, sessionId, now, pending);
  checkExpectedCount(sessionId, expectedCount, before.count);
  if (clear) db.prepare("DELETE FROM messages WHERE session_id = ?").run(sessionId);
  const start = clear ? { count: 0 } : before;
  insertRows(db, sessionId, messages, start.count, now);
  const summary = summarizeBatch(messages, start);
  // Clearing resets every summary field; an append (a replacement too) folds its batch in.
  db.prepare(
    `UPDATE sessions SET modified = ?, message_count = ?,
       last_user_message = ${clear ? "?" : "coalesce(?, last_user_message)"},
       first_user_message = ${clear ? "?" : "coalesce(first_user_message, ?)"},
       wire = ${clear ? "?" : "coalesce(?, wire)"}, state = ${clear ? "?" : "coalesce(?, state)"}
     WHERE id = ?`,
  ).run(
    now,
    start.count + messages.length,
    summary.lastUserMessage ?? (clear ? "" : null),
    summary.firstUserMessage ?? null,
    summary.wire ? JSON.stringify(summary.wire) : null,
    summary.state ? JSON.stringify(summary.state) : null,
    sessionId,
  );
  return summary.state?.status === "running";
}

/** The session's message count and state, inserting its row on the first append. */
function startSession(
  db: DatabaseSync,
  id: string,
  now: string,
  pending: PendingSession | undefined,
): BatchStart {
  const row = db.prepare("SELECT message_count, state FROM sessions WHERE id = ?").get(id);
  if (row) {
    return { count: Number(row.message_count), state: storedState(row.state, parseJsonText) };
  }
  const draft = pending ?? { created: now };
  db.prepare(
    `INSERT INTO sessions (id, name, created, modified, cwd, metadata, owner_id, parent_session_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    draft.name ? draft.name.toWellFormed() : null,
    draft.created,
    now,
    draft.cwd?.toWellFormed() ?? null,
    draft.metadata?.toWellFormed() ?? null,
    draft.ownerId?.toWellFormed() ?? null,
    draft.parentSessionId ?? null,
  );
  return { count: 0 };
}

/** Inserts the batch's message rows, and each one's text into the search index. */
function insertRows(
  db: DatabaseSync,
  sessionId: string,
  messages: readonly PersistentMessage[],
  firstSeq: number,
  now: string,
): void {
  const insertMessage = db.prepare(
    `INSERT INTO messages (session_id, seq, written, role, wire, usage, message, entry_id, parent_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  );
  const insertText = db.prepare("INSERT INTO message_text (rowid, body) VALUES (?, ?)");
  const last = db.prepare(
    "SELECT seq, entry_id FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT 1",
  ).get(sessionId) as StoredRow | undefined;
  messageRows(messages, firstSeq, last).forEach((row, index) => {
    const { wire, usage } = messages[index]!;
    const inserted = insertMessage.get(
      sessionId,
      row.seq,
      now,
      row.role,
      wire ? JSON.stringify(wire) : null,
      usage ? JSON.stringify(usage) : null,
      row.message,
      row.id,
      row.parentId,
    ) as StoredRow | undefined;
    insertText.run(Number(inserted?.id), row.text);
  });
}
