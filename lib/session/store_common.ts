// What the file, SQLite and PostgreSQL stores do alike: drafting a session
// before its first write, and reading back rows of stored messages and hits.
import { errorMessage } from "../error_message.ts";
import type { Message } from "../message.ts";
import { SessionChangedError, SessionCorruptError, SessionStoreError } from "./errors.ts";
import { checkSessionId, newSessionId } from "./ids.ts";
import { decodeMessage } from "./serialize.ts";
import type { CreateSessionOptions, SearchHit, SessionInfo } from "./types.ts";

/** A session not written yet: what `create` was told, kept for its first write. */
export interface PendingSession {
  /** When `create` ran (ISO 8601). */
  created: string;
  /** The working directory `create` was given. */
  cwd?: string;
  /** The conversation metadata `create` was given. */
  metadata?: string;
  /** A name given before the first write. */
  name?: string;
  /** The owner `create` was given. */
  ownerId?: string;
  /** The session it was forked from. */
  parentSessionId?: string;
}

/** A database row, column name to value. */
export type StoredRow = Record<string, unknown>;

/**
 * The list entry of a session with no messages yet.
 *
 * @example
 * ```ts
 * import { emptySessionInfo } from "./store_common.ts";
 * const info = emptySessionInfo("0190-example", "2025-01-01T00:00:00.000Z");
 * console.assert(info.messageCount === 0 && info.modified === info.created);
 * ```
 *
 * @param id The session id.
 * @param created When it was created (ISO 8601); also its modification time.
 * @returns The entry.
 */
export function emptySessionInfo(id: string, created: string): SessionInfo {
  return { id, created, modified: created, messageCount: 0, lastUserMessage: "" };
}

/**
 * A new session's pending record and list entry, from `create`'s options
 * (a fresh id, created now, unless the options name them).
 *
 * @example
 * ```ts
 * import { draftSession } from "./store_common.ts";
 * const { pending, info } = draftSession({ cwd: "/work" });
 * console.assert(pending.cwd === "/work" && info.cwd === "/work");
 * ```
 *
 * @param options The working directory, metadata and owner to keep.
 * @returns The pending record (for the first write) and the entry (for the handle).
 */
export function draftSession(
  options: CreateSessionOptions,
): { pending: PendingSession; info: SessionInfo } {
  const created = options.created ?? new Date().toISOString();
  const pending: PendingSession = { created };
  const id = options.id === undefined ? newSessionId() : checkSessionId(options.id);
  const info = emptySessionInfo(id, created);
  if (options.cwd !== undefined) pending.cwd = info.cwd = options.cwd;
  if (options.metadata !== undefined) pending.metadata = options.metadata;
  if (options.ownerId !== undefined) pending.ownerId = info.ownerId = options.ownerId;
  if (options.parentSessionId !== undefined) {
    pending.parentSessionId = info.parentSessionId = options.parentSessionId;
  }
  return { pending, info };
}

/**
 * Drafts a new session (as {@linkcode draftSession}) and records it as
 * pending in `pending`, refusing an id already pending there: a second
 * `create` with that id must not take over the first one's owner or name.
 *
 * @example
 * ```ts
 * import { addPending, type PendingSession } from "./store_common.ts";
 * const pending = new Map<string, PendingSession>();
 * const info = addPending(pending, { ownerId: "alice" });
 * console.assert(pending.get(info.id)?.ownerId === "alice");
 * ```
 *
 * @param pending The store's sessions not written yet.
 * @param options `create`'s options.
 * @returns The new session's list entry.
 * @throws {Error} When `options.id` is already pending.
 */
export function addPending(
  pending: Map<string, PendingSession>,
  options: CreateSessionOptions,
): SessionInfo {
  const draft = draftSession(options);
  if (pending.has(draft.info.id)) {
    throw new Error(`Session ${draft.info.id} was already created: give another id, or none`);
  }
  pending.set(draft.info.id, draft.pending);
  return draft.info;
}

/**
 * Decodes message rows (`seq`, `message` JSON), which must be numbered 0, 1, 2, … in order.
 * The record schemas must be loaded first.
 *
 * @example
 * ```ts
 * import { decodeMessageRows } from "./store_common.ts";
 * import { loadRecordSchemas } from "./record_schemas.ts";
 * await loadRecordSchemas();
 * const message = { role: "user", content: [], timestamp: "2025-01-01T00:00:00.000Z" };
 * const [decoded] = decodeMessageRows([{ seq: 0, message: JSON.stringify(message) }], "db");
 * console.assert(decoded?.role === "user");
 * ```
 *
 * @param rows The rows, ordered by `seq`.
 * @param where Where they come from, for the error.
 * @returns The messages.
 * @throws {SessionCorruptError} Naming `where` and the message number of a gap or a bad record.
 */
export function decodeMessageRows(rows: readonly StoredRow[], where: string): Message[] {
  return rows.map((row, index) => {
    try {
      if (row.seq !== index) {
        throw new Error(`expected message ${index}, found ${String(row.seq)}`);
      }
      return decodeMessage(JSON.parse(String(row.message)));
    } catch (error) {
      throw new SessionCorruptError(where, index + 1, (error as Error).message);
    }
  });
}

/**
 * A search hit from a row of `session_id`, `seq`, `role` and `snippet`
 * (white space in the snippet folded to single spaces).
 *
 * @example
 * ```ts
 * import { searchHitFromRow } from "./store_common.ts";
 * const hit = searchHitFromRow({ session_id: "s", seq: 2, role: "user", snippet: "a\n b" });
 * console.assert(hit.snippet === "a b" && hit.messageIndex === 2);
 * ```
 *
 * @param row The row.
 * @returns The hit.
 */
export function searchHitFromRow(row: StoredRow): SearchHit {
  return {
    sessionId: String(row.session_id),
    messageIndex: Number(row.seq),
    role: String(row.role) as SearchHit["role"],
    snippet: String(row.snippet).replace(/\s+/g, " "),
  };
}

/**
 * A store failure while saving, as a {@linkcode SessionStoreError} naming
 * where the session was being saved; a store error passes through as it is.
 *
 * @example
 * ```ts
 * import { saveFailure } from "./store_common.ts";
 * const error = saveFailure(new Error("No space left on device"), "/s/a.jsonl");
 * console.assert(error.message === "Could not save the session to /s/a.jsonl: No space left on device");
 * ```
 *
 * @param error What the write threw.
 * @param location The file or database (credentials redacted).
 * @returns The error to throw.
 */
export function saveFailure(error: unknown, location: string): SessionStoreError {
  if (error instanceof SessionStoreError) return error;
  return new SessionStoreError(
    `Could not save the session to ${location}: ${errorMessage(error)}`,
    {
      cause: error,
    },
  );
}

/**
 * Refuses an append whose writer expected another message count: another
 * writer appended since it loaded the session.
 *
 * @example
 * ```ts
 * import { checkExpectedCount } from "./store_common.ts";
 * checkExpectedCount("abc", undefined, 7); // no expectation: nothing to check
 * checkExpectedCount("abc", 7, 7);
 * ```
 *
 * @param id The session.
 * @param expected What the writer expects (`undefined`: no check).
 * @param found What is stored.
 * @throws {SessionChangedError} When they differ.
 */
export function checkExpectedCount(id: string, expected: number | undefined, found: number): void {
  if (expected !== undefined && expected !== found) {
    throw new SessionChangedError(id, expected, found);
  }
}

/**
 * A session row's list entry, or, when its summary columns do not decode
 * (a damaged `wire` or `state`), the session listed as unreadable with the
 * reason, as the JSONL store lists a file it cannot read: one bad row does
 * not hide the others.
 *
 * @example
 * ```ts
 * import { listedInfo } from "./store_common.ts";
 * const row = { id: "s1", created: "2026-01-01T00:00:00.000Z", modified: "2026-01-01T00:00:00.000Z" };
 * const info = listedInfo(row, () => JSON.parse("{"));
 * console.assert(info.unreadable?.startsWith("its summary row does not decode") === true);
 * ```
 *
 * @param row The `sessions` row.
 * @param toInfo The store's decoding of a row.
 * @returns The entry.
 */
export function listedInfo(row: StoredRow, toInfo: (row: StoredRow) => SessionInfo): SessionInfo {
  try {
    return toInfo(row);
  } catch (error) {
    const time = (value: unknown) => value instanceof Date ? value.toISOString() : String(value);
    const info: SessionInfo = {
      ...emptySessionInfo(String(row.id), time(row.created)),
      modified: time(row.modified),
      unreadable: `its summary row does not decode: ${errorMessage(error)}`,
    };
    // Kept when readable, so the session still lists under its directory and owner.
    if (typeof row.name === "string") info.name = row.name;
    if (typeof row.cwd === "string") info.cwd = row.cwd;
    if (typeof row.owner_id === "string") info.ownerId = row.owner_id;
    return info;
  }
}
