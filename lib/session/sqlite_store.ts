import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import type { Conversation } from "../conversation.ts";
import { errorMessage } from "../error_message.ts";
import { SessionNotFoundError, SessionStoreError } from "./errors.ts";
import { checkSessionId } from "./ids.ts";
import { type MigrationFence, parseFence, refuseIfFenced } from "./migration_fence.ts";
import type { OwnerView } from "./owner_view.ts";
import { loadRecordSchemas } from "./record_schemas.ts";
import { Session } from "./session.ts";
import { SessionLocks } from "./session_locks.ts";
import { storeBatch } from "./sqlite_batch.ts";
import { openDatabase, parseJsonText, SCHEMA_VERSION, transaction } from "./sqlite_database.ts";
import {
  infoFromRow,
  listedInfo,
  searchHitFromRow,
  type StoredRow as Row,
  treeOfRows,
} from "./sql_rows.ts";
import { checkExpectedCount } from "./store_common.ts";
import { AMBIGUITY_SHOWN, type BatchWrite, StoreCore } from "./store_core.ts";
import { type StoredTree, unknownEntry } from "./tree.ts";
import type {
  AppendOptions,
  CreateSessionOptions,
  ListSessionsOptions,
  PersistentMessage,
  ResolveOptions,
  SearchHit,
  SearchOptions,
  SessionInfo,
  SessionStore,
} from "./types.ts";

/** Options for {@linkcode SQLiteStore}. */
export interface SQLiteStoreOptions {
  /** The database file (created 0600, its directory 0700, when missing); `:memory:` for tests. */
  path: string;
  /** How long a write waits for another process's transaction, in ms. Default 5000. */
  busyTimeoutMs?: number;
}

const SESSION_COLUMNS = "id, name, created, modified, cwd, message_count, last_user_message, " +
  "first_user_message, wire, owner_id, state, parent_session_id";

/**
 * Sessions in one SQLite database (`node:sqlite`): WAL journal, full
 * synchronous commits (an acknowledged append survives a power cut), one
 * `BEGIN IMMEDIATE` transaction per append batch, a busy timeout so several
 * processes can append, FTS5 search. Calls block the thread for as long as
 * SQLite takes (`node:sqlite` is synchronous).
 *
 * @example
 * ```ts
 * import { SQLiteStore } from "@panto/lib/sqlite";
 * const store = new SQLiteStore({ path: ":memory:" });
 * const session = store.create();
 * const message = (role: "user" | "assistant", text: string) => ({
 *   message: { role, content: [{ type: "text" as const, text }], timestamp: new Date().toISOString() },
 *   conversation: [],
 *   toolsAvailable: [],
 * });
 * await session.append([message("user", "find the zebra"), message("assistant", "found")]);
 * console.assert((await store.search("zebra")).length === 1);
 * await store.close();
 * ```
 */
export class SQLiteStore implements SessionStore {
  /** The database file. */
  readonly path: string;
  #db: DatabaseSync;
  #locks: SessionLocks;
  #core: StoreCore;

  /**
   * Opens (creating if needed) the database and migrates its schema.
   *
   * @param options The database file and busy timeout.
   * @throws {SessionStoreError} Naming the file, when the path is `""`, the
   *   file cannot be created or is not a SQLite database, or its schema is
   *   newer than this code knows.
   */
  constructor(options: SQLiteStoreOptions) {
    this.path = options.path;
    this.#core = new StoreCore(this, {
      location: options.path,
      write: (id, batch) => this.#write(id, batch),
    });
    if (options.path === "") {
      throw new SessionStoreError("The session database path is empty: name a file or :memory:");
    }
    this.#db = openDatabase(options.path, options.busyTimeoutMs ?? 5000);
    this.#locks = new SessionLocks(options.path === ":memory:" ? null : `${options.path}.locks`);
  }

  /**
   * Checks that sessions can be saved, before anything depends on it: a
   * write transaction commits (it rewrites the schema version in place), and
   * no migration fenced the database.
   *
   * @throws {SessionStoreError} Naming the file and the cause.
   * @throws {SessionStoreMigratedError} When its sessions were moved to another store.
   */
  checkWritable(): Promise<void> {
    return this.#run(() => {
      try {
        transaction(this.#db, () => this.#db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`));
      } catch (error) {
        throw new SessionStoreError(
          `Session database ${this.path} cannot be written: ${errorMessage(error)}`,
          { cause: error },
        );
      }
      this.#refuseIfFenced();
    });
  }

  /** The schema version this code writes. */
  static get schemaVersion(): number {
    return SCHEMA_VERSION;
  }

  /**
   * A new session handle; nothing is written until the first assistant message.
   *
   * @param options Conversation metadata and working directory.
   * @returns The session.
   */
  create(options: CreateSessionOptions = {}): Session {
    return this.#core.create(options);
  }

  /**
   * One owner's view of this store: it reaches that owner's sessions only,
   * and has no store-wide administration (see {@linkcode OwnerView}).
   *
   * @param ownerId The owner.
   * @returns The view, sharing this store's database and locks.
   */
  forOwner(ownerId: string): OwnerView {
    return this.#core.forOwner(ownerId);
  }

  /**
   * The owner of a session, stored or created and not written yet.
   *
   * @param id The session id.
   * @returns The owner, `undefined` when it has none, `null` when there is no such session.
   */
  ownerOf(id: string): Promise<string | undefined | null> {
    return this.#run(() => {
      checkSessionId(id);
      const row = this.#get("SELECT owner_id FROM sessions WHERE id = ?", id);
      if (!row) return this.#core.pendingOwner(id);
      return row.owner_id === null ? undefined : String(row.owner_id);
    });
  }

  /**
   * Sessions, newest modified first.
   *
   * @param options How many to return, and whose (`ownerId`).
   * @returns The sessions.
   */
  async list(options: ListSessionsOptions = {}): Promise<SessionInfo[]> {
    const infos = await this.#run(() => {
      const owner = ownerFilter(options.ownerId);
      const rows = this.#all(
        `SELECT ${SESSION_COLUMNS} FROM sessions WHERE ${owner.sql}
         ORDER BY modified DESC, id DESC LIMIT ?`,
        ...owner.params,
        options.limit ?? -1,
      );
      return rows.map((row) => listedInfo(row, toInfo));
    });
    return await Promise.all(infos.map((info) => this.#live(info)));
  }

  /**
   * The session with this id, or the only one whose id starts with it.
   *
   * @param idOrPrefix An id or a prefix of one.
   * @param options Whose sessions to look in (`ownerId`; default everyone's).
   * @returns The session, or `null` when none matches.
   * @throws {AmbiguousSessionIdError} When several match (naming only those in scope).
   */
  async resolve(idOrPrefix: string, options: ResolveOptions = {}): Promise<Session | null> {
    const found = await this.#run(() => {
      checkSessionId(idOrPrefix);
      const owner = ownerFilter(options.ownerId);
      const exact = this.#get(
        `SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ? AND ${owner.sql}`,
        idOrPrefix,
        ...owner.params,
      );
      if (exact) return toInfo(exact);
      const prefixed = `FROM sessions WHERE substr(id, 1, ?) = ? AND ${owner.sql}`;
      const matches = this.#all(
        `SELECT ${SESSION_COLUMNS} ${prefixed} ORDER BY id LIMIT ?`,
        idOrPrefix.length,
        idOrPrefix,
        ...owner.params,
        AMBIGUITY_SHOWN + 1,
      );
      if (matches.length > 1) {
        const total = this.#get(
          `SELECT count(*) AS n ${prefixed}`,
          idOrPrefix.length,
          idOrPrefix,
          ...owner.params,
        );
        const ids = matches.map((row) => String(row.id));
        throw this.#core.ambiguous(idOrPrefix, ids, Number(total?.n ?? ids.length));
      }
      return matches[0] ? toInfo(matches[0]) : null;
    });
    return found ? new Session(await this.#live(found), this) : null;
  }

  /**
   * The most recently modified session.
   *
   * @returns It, or `null` when there are none.
   */
  latest(): Promise<Session | null> {
    return this.#core.latest();
  }

  /**
   * The conversation on the active path. A record that does not decode throws.
   *
   * @param id The session id.
   * @returns The conversation, or `null` for an unknown id.
   * @throws {SessionCorruptError} Naming the database, session and message number.
   */
  load(id: string): Promise<Conversation | null> {
    return this.#core.load(id);
  }

  /**
   * Every entry of the session's tree, and its active leaf (the last
   * stored). Rows written before the tree read as one chain.
   *
   * @param id The session id.
   * @returns The tree, or `null` for an unknown id.
   * @throws {SessionCorruptError} Naming the database, session and message number.
   */
  loadTree(id: string): Promise<StoredTree | null> {
    return this.#run(() => {
      checkSessionId(id);
      const session = this.#get("SELECT metadata FROM sessions WHERE id = ?", id);
      if (!session) return null;
      const rows = this.#all(
        `SELECT seq, message, entry_id, parent_id, wire, label FROM messages
         WHERE session_id = ? ORDER BY seq`,
        id,
      );
      return treeOfRows(session, rows, `${this.path} (session ${id}, message)`);
    });
  }

  /**
   * A new session holding the path from a root to `entryId`, recording
   * this one as its parent session.
   *
   * @param id The session to fork.
   * @param entryId The last entry to copy (an id from its tree).
   * @returns The new session.
   * @throws {SessionNotFoundError} When there is no such session.
   */
  fork(id: string, entryId: string): Promise<Session> {
    return this.#core.fork(id, entryId);
  }

  /**
   * Appends in one `BEGIN IMMEDIATE` transaction, committed with a full sync
   * before the promise resolves.
   *
   * An append takes the session's lock, held while its turn runs (the state
   * is `running`) and let go when the session is idle again, so a second
   * writer cannot interleave its turns.
   *
   * @param sessionId The session.
   * @param messages The messages, in order.
   * @param options The message count the writer expects.
   * @throws {SessionInUseError} When another writer holds the session.
   * @throws {SessionChangedError} When the session has another message count than expected.
   * @throws {SessionStoreError} When the database cannot be written ("Could not save the session to …").
   */
  appendMessages(
    sessionId: string,
    messages: readonly PersistentMessage[],
    options: AppendOptions = {},
  ): Promise<void> {
    return this.#core.append(sessionId, messages, options);
  }

  /**
   * Replaces the session's conversation in one transaction: the messages
   * are stored as a new branch from the root, which becomes the active path,
   * and the old entries stay in the tree (an empty replacement deletes every
   * entry, as a tree has no empty path); name, metadata, owner and cwd are
   * kept. Takes the lock as an append does.
   *
   * @param sessionId The session.
   * @param messages The whole new conversation, in order.
   * @param options The message count the writer expects.
   * @throws {SessionInUseError} When another writer holds the session.
   * @throws {SessionChangedError} When the session has another message count than expected.
   */
  replaceConversation(
    sessionId: string,
    messages: readonly PersistentMessage[],
    options: AppendOptions = {},
  ): Promise<void> {
    return this.#core.replace(sessionId, messages, options.expectedCount);
  }

  /**
   * Writes an append's (or a replacement's) batch holding the session's
   * lock, which it keeps while the session's turn runs.
   */
  async #write(sessionId: string, batch: BatchWrite): Promise<void> {
    await this.#locks.hold(sessionId);
    let running = false;
    try {
      running = await this.#fencedWrite(() =>
        storeBatch(this.#db, sessionId, batch, this.#core.pending.get(sessionId))
      );
    } finally {
      if (!running) await this.#locks.release(sessionId);
    }
  }

  /**
   * FTS5 search: every whitespace-separated term must occur as a word
   * (case and diacritics ignored), best matches first.
   *
   * @param query Words to find.
   * @param options How many hits to return (default 50), and in whose sessions (`ownerId`).
   * @returns The hits, each with an FTS5 `snippet()`.
   */
  search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    return this.#run(() => {
      const match = ftsQuery(query);
      if (match === "") return [];
      const owner = ownerFilter(options.ownerId, "s.owner_id");
      const rows = this.#all(
        `SELECT m.session_id, m.seq, m.role, snippet(message_text, 0, '', '', '…', 16) AS snippet
         FROM message_text JOIN messages m ON m.id = message_text.rowid
           JOIN sessions s ON s.id = m.session_id
         WHERE message_text MATCH ? AND ${owner.sql} ORDER BY rank LIMIT ?`,
        match,
        ...owner.params,
        options.limit ?? 50,
      );
      return rows.map(searchHitFromRow);
    });
  }

  /**
   * Names a session.
   *
   * @param id The session.
   * @param name The new name (`""` clears it).
   */
  async rename(id: string, name: string): Promise<void> {
    this.#assertOpen();
    checkSessionId(id);
    if (!this.#stored(id)) return this.#core.renamePending(id, name);
    await this.#locks.with(id, () =>
      this.#fencedWrite(() => {
        const value = name === "" ? null : name.toWellFormed();
        this.#db.prepare("UPDATE sessions SET name = ? WHERE id = ?").run(value, id);
      }));
  }

  /**
   * Labels an entry (its row's `label` column).
   *
   * @param id The session.
   * @param entryId The entry, an id from its tree.
   * @param label The label (`null` or `""`: none).
   * @throws {SessionNotFoundError} When there is no such session.
   * @throws {Error} When the entry is not in the session.
   */
  async setLabel(id: string, entryId: string, label: string | null): Promise<void> {
    this.#assertOpen();
    checkSessionId(id);
    if (!this.#stored(id)) throw new SessionNotFoundError(id, this.path);
    await this.#fencedWrite(() => {
      // Rows from before the tree have no entry id: theirs is their position.
      const { changes } = this.#db.prepare(
        `UPDATE messages SET label = ?
         WHERE session_id = ? AND coalesce(entry_id, CAST(seq AS TEXT)) = ?`,
      ).run(label ? label.toWellFormed() : null, id, entryId);
      if (changes === 0) throw unknownEntry(entryId);
    });
  }

  /**
   * Deletes a session and its messages.
   *
   * @param id The session.
   * @throws {SessionInUseError} When another writer holds it.
   * @throws {SessionNotFoundError} When there is no such session.
   */
  async delete(id: string): Promise<void> {
    this.#assertOpen();
    checkSessionId(id);
    const wasPending = this.#core.pending.delete(id);
    if (!this.#stored(id)) {
      if (wasPending) return;
      throw new SessionNotFoundError(id, this.path);
    }
    await this.#locks.with(id, async () => {
      await this.#fencedWrite(() => this.#db.prepare("DELETE FROM sessions WHERE id = ?").run(id));
      await this.#locks.removeFile(id);
    });
    await this.#locks.release(id);
  }

  /**
   * Checks, writing nothing, that an append now would not be refused: the
   * session's lock is free or this store's, and its message count is
   * `expectedCount` when given.
   *
   * @param sessionId The session.
   * @param options The message count the writer expects.
   * @throws {SessionInUseError} When another writer holds the session.
   * @throws {SessionChangedError} When the session has another message count than expected.
   */
  async checkAppend(sessionId: string, options: AppendOptions = {}): Promise<void> {
    this.#assertOpen();
    checkSessionId(sessionId);
    await this.#locks.with(sessionId, () => {
      const row = this.#get("SELECT message_count FROM sessions WHERE id = ?", sessionId);
      if (row) checkExpectedCount(sessionId, options.expectedCount, Number(row.message_count));
    });
  }

  /**
   * Lets go of a session this store writes (its lock), so another writer
   * may take it; the next append takes it again.
   *
   * @param id The session.
   */
  async release(id: string): Promise<void> {
    checkSessionId(id);
    await this.#locks.release(id);
  }

  /**
   * The session as Markdown.
   *
   * @param id The session.
   * @returns The document.
   */
  export(id: string): Promise<string> {
    return this.#core.export(id, () =>
      this.#run(() => {
        const row = this.#get(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ?`, id);
        return row ? toInfo(row) : null;
      }));
  }

  /**
   * The migration fence (the `migration_fence` table, made by the first
   * fence), or `null`.
   *
   * @returns The fence.
   * @throws {SessionStoreError} When it is damaged.
   */
  migrationFence(): Promise<MigrationFence | null> {
    return this.#run(() => this.#fence());
  }

  /**
   * Sets the migration fence, or lifts it with `null`, in one transaction.
   *
   * @param fence The fence.
   */
  setMigrationFence(fence: MigrationFence | null): Promise<void> {
    return this.#run(() =>
      transaction(this.#db, () => {
        this.#db.exec("CREATE TABLE IF NOT EXISTS migration_fence (fence TEXT NOT NULL)");
        this.#db.exec("DELETE FROM migration_fence");
        if (fence) {
          this.#db.prepare("INSERT INTO migration_fence (fence) VALUES (?)")
            .run(JSON.stringify(fence));
        }
      })
    );
  }

  #fence(): MigrationFence | null {
    // No table: never fenced (it is made by the first fence, not by a schema version).
    const table = this.#get("SELECT 1 AS found FROM sqlite_master WHERE name = 'migration_fence'");
    const row = table ? this.#get("SELECT fence FROM migration_fence") : undefined;
    return row ? parseFence(String(row.fence), this.path) : null;
  }

  #refuseIfFenced(): void {
    refuseIfFenced(this.path, this.#fence());
  }

  /** Releases the sessions' locks and closes the database. */
  async close(): Promise<void> {
    if (!this.#core.close()) return;
    await this.#locks.releaseAll();
    this.#db.close();
  }

  /** The info, with a `running` state no writer holds (a crash cut its turn off) as `interrupted`. */
  async #live(info: SessionInfo): Promise<SessionInfo> {
    const state = info.state;
    if (state?.status === "running" && !await this.#locks.isHeld(info.id)) {
      info.state = { ...state, status: "interrupted" };
    }
    return info;
  }

  /** Whether the session has a row. */
  #stored(id: string): boolean {
    return this.#get("SELECT 1 AS found FROM sessions WHERE id = ?", id) !== undefined;
  }

  #assertOpen(): void {
    this.#core.assertOpen();
  }

  /**
   * Runs synchronous store code as a promise, so errors reject instead of
   * throwing, once stored records can be decoded.
   */
  async #run<T>(task: () => T): Promise<T> {
    this.#assertOpen();
    await loadRecordSchemas();
    return task();
  }

  #get(sql: string, ...params: SQLInputValue[]): Row | undefined {
    return this.#db.prepare(sql).get(...params) as Row | undefined;
  }

  #all(sql: string, ...params: SQLInputValue[]): Row[] {
    return this.#db.prepare(sql).all(...params) as Row[];
  }

  /**
   * Runs a write in a transaction that reads the migration fence first, so
   * a migration copies the write or it is refused.
   */
  #fencedWrite<T>(write: () => T): Promise<T> {
    return this.#run(() =>
      transaction(this.#db, () => {
        this.#refuseIfFenced();
        return write();
      })
    );
  }
}

/** A row's list entry, its JSON columns stored as text. */
function toInfo(row: Row): SessionInfo {
  return infoFromRow(row, parseJsonText);
}

/** The condition keeping one owner's rows (`1` for everyone's), and its parameters. */
function ownerFilter(
  ownerId: string | undefined,
  column = "owner_id",
): { sql: string; params: SQLInputValue[] } {
  return ownerId === undefined
    ? { sql: "1", params: [] }
    : { sql: `${column} = ?`, params: [ownerId.toWellFormed()] };
}

/** Each term quoted, so user input is never FTS5 syntax: all terms must match. */
function ftsQuery(query: string): string {
  return query.trim().split(/\s+/).filter((term) => term !== "")
    .map((term) => `"${term.toWellFormed().replaceAll("\0", "").replaceAll('"', '""')}"`)
    .join(" ");
}
