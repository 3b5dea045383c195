// How the SQLite and PostgreSQL stores keep sessions as rows: a session's
// `sessions` row read as its list entry, its message rows written from a
// batch and read back as its tree, and a search hit's row.
import { errorMessage } from "../error_message.ts";
import type { Message } from "../message.ts";
import { SessionCorruptError } from "./errors.ts";
import { recordSchemas } from "./record_schemas.ts";
import {
  checkNesting,
  decode,
  decodeMessage,
  decodeWire,
  searchableText,
  stringifyWellFormed,
  withUsage,
} from "./serialize.ts";
import { emptySessionInfo } from "./store_common.ts";
import type { RawTreeEntry, StoredTree } from "./tree.ts";
import { readTree, treeIds } from "./tree_store.ts";
import type { PersistentMessage, SearchHit, SessionInfo, SessionState } from "./types.ts";

/** A database row, column name to value. */
export type StoredRow = Record<string, unknown>;

/** A message of a batch as its row stores it. */
export interface MessageRow {
  /** Its position in the session. */
  seq: number;
  /** Its entry id. */
  id: string;
  /** Its parent's entry id (`null`: a root). */
  parentId: string | null;
  /** Its role. */
  role: string;
  /** The message as JSON, its usage included. */
  message: string;
  /** The text search finds it by. */
  text: string;
}

/**
 * The rows a batch of appended messages is stored as, each with its
 * position, entry id and parent. Every message is checked first, so a
 * batch holding one nested too deeply is refused before any row is written.
 *
 * @example
 * ```ts
 * import { messageRows } from "./sql_rows.ts";
 * const message = { role: "user" as const, content: [], timestamp: "" };
 * const [row] = messageRows([{ message, conversation: [], toolsAvailable: [] }], 3, undefined);
 * console.assert(row?.seq === 3 && row.id === "3" && row.parentId === null);
 * ```
 *
 * @param messages The messages, in order.
 * @param firstSeq The first one's position.
 * @param last The row stored last before them (`seq`, `entry_id`), if any.
 * @returns The rows.
 * @throws {Error} When a message nests too deeply to be continued.
 */
export function messageRows(
  messages: readonly PersistentMessage[],
  firstSeq: number,
  last: StoredRow | undefined,
): MessageRow[] {
  messages.forEach((entry) => checkNesting(entry.message));
  const ids = treeIds(messages, firstSeq, last ? String(last.entry_id ?? last.seq) : null);
  return messages.map(({ message, usage }, index) => ({
    seq: firstSeq + index,
    ...ids[index]!,
    role: message.role,
    message: stringifyWellFormed(withUsage(message, usage)),
    text: searchableText(message),
  }));
}

/**
 * Decodes message rows (`seq`, `message` JSON), which must be numbered 0, 1, 2, … in order.
 * The record schemas must be loaded first.
 *
 * @example
 * ```ts
 * import { decodeMessageRows } from "./sql_rows.ts";
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
 * import { searchHitFromRow } from "./sql_rows.ts";
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
 * The list entry of a `sessions` row as the SQL stores keep it; `parseJson`
 * reads a JSON column (`wire`, `state`): text in SQLite, already parsed
 * (`jsonb`) in PostgreSQL. Times are ISO 8601 text or `Date`s. The record
 * schemas must be loaded first.
 *
 * @example
 * ```ts
 * import { infoFromRow } from "./sql_rows.ts";
 * const row = {
 *   id: "s1", created: "2026-01-01T00:00:00.000Z", modified: "2026-01-01T00:00:00.000Z",
 *   message_count: 0, last_user_message: "", first_user_message: null, name: "n", cwd: null,
 *   owner_id: null, parent_session_id: null, state: null, wire: null,
 * };
 * console.assert(infoFromRow(row, (value) => JSON.parse(String(value))).name === "n");
 * ```
 *
 * @param row The row.
 * @param parseJson How the store's JSON columns read.
 * @returns The entry (a `running` state as stored).
 * @throws {Error} When its `wire` or `state` does not decode.
 */
export function infoFromRow(row: StoredRow, parseJson: (value: unknown) => unknown): SessionInfo {
  const info: SessionInfo = {
    id: String(row.id),
    created: isoTime(row.created),
    modified: isoTime(row.modified),
    messageCount: Number(row.message_count),
    lastUserMessage: String(row.last_user_message),
  };
  if (row.first_user_message !== null) info.firstUserMessage = String(row.first_user_message);
  if (row.name !== null) info.name = String(row.name);
  if (row.cwd !== null) info.cwd = String(row.cwd);
  if (row.owner_id !== null) info.ownerId = String(row.owner_id);
  if (row.parent_session_id !== null) info.parentSessionId = String(row.parent_session_id);
  const state = storedState(row.state, parseJson);
  if (state) info.state = state;
  if (row.wire !== null) info.wire = decodeWire(parseJson(row.wire));
  return info;
}

/**
 * A `state` column's session state, `undefined` when it has none.
 *
 * @example
 * ```ts
 * import { storedState } from "./sql_rows.ts";
 * console.assert(storedState(null, (value) => value) === undefined);
 * ```
 *
 * @param value The column.
 * @param parseJson How the store's JSON columns read.
 * @returns The state.
 * @throws {Error} When it does not decode.
 */
export function storedState(
  value: unknown,
  parseJson: (value: unknown) => unknown,
): SessionState | undefined {
  return value === null || value === undefined
    ? undefined
    : decode(recordSchemas().sessionStateSchema, parseJson(value), "state");
}

/**
 * A session row's list entry, or, when its summary columns do not decode
 * (a damaged `wire` or `state`), the session listed as unreadable with the
 * reason, as the JSONL store lists a file it cannot read: one bad row does
 * not hide the others.
 *
 * @example
 * ```ts
 * import { listedInfo } from "./sql_rows.ts";
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
    const info: SessionInfo = {
      ...emptySessionInfo(String(row.id), isoTime(row.created)),
      modified: isoTime(row.modified),
      unreadable: `its summary row does not decode: ${errorMessage(error)}`,
    };
    // Kept when readable, so the session still lists under its directory and owner.
    if (typeof row.name === "string") info.name = row.name;
    if (typeof row.cwd === "string") info.cwd = row.cwd;
    if (typeof row.owner_id === "string") info.ownerId = row.owner_id;
    return info;
  }
}

/**
 * The entries of message rows (`seq`, `message`, `entry_id`, `parent_id`,
 * `wire`, `label`, ordered by `seq`): a row without an entry id was written before
 * the tree, and reads as the next link of one chain. The record schemas
 * must be loaded first.
 *
 * @example
 * ```ts
 * import { rawEntries } from "./sql_rows.ts";
 * import { loadRecordSchemas } from "./record_schemas.ts";
 * await loadRecordSchemas();
 * const message = JSON.stringify({ role: "user", content: [], timestamp: "" });
 * const [entry] = rawEntries([{ seq: 0, message, entry_id: "a", parent_id: null, wire: null }], "db");
 * console.assert(entry?.id === "a" && entry.parentId === null);
 * ```
 *
 * @param rows The rows.
 * @param where Where they come from, for errors.
 * @returns The entries, ids and parents as stored.
 * @throws {SessionCorruptError} Naming `where` and the record of a gap or a bad message.
 */
export function rawEntries(rows: readonly StoredRow[], where: string): RawTreeEntry[] {
  const messages = decodeMessageRows(rows, where);
  return rows.map((row, index) => {
    const entry: RawTreeEntry = { message: messages[index]! };
    if (row.entry_id !== null && row.entry_id !== undefined) {
      entry.id = String(row.entry_id);
      entry.parentId = row.parent_id === null ? null : String(row.parent_id);
    }
    if (typeof row.label === "string" && row.label !== "") entry.label = row.label;
    if (row.wire !== null && row.wire !== undefined) {
      entry.wire = decodeWire(typeof row.wire === "string" ? JSON.parse(row.wire) : row.wire);
    }
    return entry;
  });
}

/**
 * The tree of a session stored as SQL rows: its `sessions` row (for the
 * metadata) and its message rows as {@linkcode rawEntries} reads them.
 * The record schemas must be loaded first.
 *
 * @example
 * ```ts
 * import { treeOfRows } from "./sql_rows.ts";
 * import { loadRecordSchemas } from "./record_schemas.ts";
 * await loadRecordSchemas();
 * const message = JSON.stringify({ role: "user", content: [], timestamp: "" });
 * const tree = treeOfRows({ metadata: "m" }, [{ seq: 0, message, entry_id: null, wire: null }], "db");
 * console.assert(tree.metadata === "m" && tree.leafId === "0");
 * ```
 *
 * @param session The session's row.
 * @param rows Its message rows, ordered by `seq`.
 * @param where Where they come from, for errors.
 * @returns The tree.
 * @throws {SessionCorruptError} Naming `where` and the record of the damage.
 */
export function treeOfRows(
  session: StoredRow,
  rows: readonly StoredRow[],
  where: string,
): StoredTree {
  const metadata = session.metadata === null ? undefined : String(session.metadata);
  return readTree(rawEntries(rows, where), metadata, where, (index) => index + 1);
}

/** A time column as ISO 8601: SQLite keeps the text, PostgreSQL gives a `Date`. */
function isoTime(value: unknown): string {
  return value instanceof Date ? value.toISOString() : String(value);
}
