import { dirname } from "node:path";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import type { Conversation } from "../conversation.ts";
import { errorMessage } from "../error_message.ts";
import { AmbiguousSessionIdError, SessionNotFoundError, SessionStoreError } from "./errors.ts";
import { checkSessionId } from "./ids.ts";
import { exportMarkdown } from "./markdown_export.ts";
import { type MigrationFence, parseFence, refuseIfFenced } from "./migration_fence.ts";
import {
  type BatchStart,
  checkNesting,
  decode,
  decodeWire,
  foldFirstPreview,
  searchableText,
  stringifyWellFormed,
  summarizeBatch,
  withUsage,
} from "./serialize.ts";
import { Session } from "./session.ts";
import { type StoredTree, unknownEntry } from "./tree.ts";
import {
  activeConversation,
  forkSession,
  rawEntries,
  readTree,
  replacementBranch,
  treeIds,
} from "./tree_store.ts";
import { loadRecordSchemas, recordSchemas } from "./record_schemas.ts";
import { SessionLocks } from "./session_locks.ts";
import { OwnerView } from "./owner_view.ts";
import {
  addPending,
  checkExpectedCount,
  listedInfo,
  type PendingSession,
  saveFailure,
  searchHitFromRow,
  type StoredRow as Row,
} from "./store_common.ts";
import type {
  AppendOptions,
  CreateSessionOptions,
  ListSessionsOptions,
  PersistentMessage,
  ResolveOptions,
  SearchHit,
  SearchOptions,
  SessionInfo,
  SessionState,
  SessionStore,
} from "./types.ts";

/** Options for {@linkcode SQLiteStore}. */
export interface SQLiteStoreOptions {
  /** The database file (created 0600, its directory 0700, when missing); `:memory:` for tests. */
  path: string;
  /** How long a write waits for another process's transaction, in ms. Default 5000. */
  busyTimeoutMs?: number;
}

/**
 * Schema migrations, applied in order; `PRAGMA user_version` records how
 * many ran. Never edit a released entry: append a new one. A function runs
 * where SQL cannot compute what it fills in.
 */
const MIGRATIONS: readonly (string | ((db: DatabaseSync) => void))[] = [
  `CREATE TABLE sessions (
     id TEXT PRIMARY KEY,
     name TEXT,
     created TEXT NOT NULL,
     modified TEXT NOT NULL,
     cwd TEXT,
     metadata TEXT,
     message_count INTEGER NOT NULL DEFAULT 0,
     last_user_message TEXT NOT NULL DEFAULT '',
     wire TEXT
   ) STRICT;
   CREATE INDEX sessions_by_modified ON sessions (modified DESC, id DESC);
   CREATE TABLE messages (
     id INTEGER PRIMARY KEY,
     session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
     seq INTEGER NOT NULL,
     written TEXT NOT NULL,
     role TEXT NOT NULL,
     wire TEXT,
     usage TEXT,
     message TEXT NOT NULL,
     UNIQUE (session_id, seq)
   ) STRICT;
   CREATE VIRTUAL TABLE message_text USING fts5 (body, tokenize = 'unicode61 remove_diacritics 2');
   CREATE TRIGGER messages_drop_text AFTER DELETE ON messages BEGIN
     DELETE FROM message_text WHERE rowid = old.id;
   END;`,
  `ALTER TABLE sessions ADD COLUMN owner_id TEXT;
   ALTER TABLE sessions ADD COLUMN state TEXT;
   CREATE INDEX sessions_by_owner ON sessions (owner_id, modified DESC, id DESC);`,
  // The session tree: rows from before it have no entry id (they read as one chain).
  `ALTER TABLE messages ADD COLUMN entry_id TEXT;
   ALTER TABLE messages ADD COLUMN parent_id TEXT;
   CREATE UNIQUE INDEX messages_by_entry ON messages (session_id, entry_id);
   ALTER TABLE sessions ADD COLUMN parent_session_id TEXT;`,
  addFirstPrompts,
  "ALTER TABLE messages ADD COLUMN label TEXT;",
];

const SESSION_COLUMNS = "id, name, created, modified, cwd, message_count, last_user_message, " +
  "first_user_message, wire, owner_id, state, parent_session_id";
const AMBIGUITY_SHOWN = 5;

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
  #pending = new Map<string, PendingSession>();
  #locks: SessionLocks;
  #closed = false;

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
    if (options.path === "") {
      throw new SessionStoreError("The session database path is empty: name a file or :memory:");
    }
    this.#db = openDatabase(options.path);
    this.#locks = new SessionLocks(options.path === ":memory:" ? null : `${options.path}.locks`);
    try {
      this.#db.exec(`PRAGMA busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
      this.#db.exec("PRAGMA journal_mode = WAL");
      this.#db.exec("PRAGMA synchronous = FULL");
      this.#db.exec("PRAGMA foreign_keys = ON");
      this.#migrate();
    } catch (error) {
      this.#db.close();
      throw openFailure(options.path, error);
    }
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
        this.#transaction(() => this.#db.exec(`PRAGMA user_version = ${MIGRATIONS.length}`));
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
    return MIGRATIONS.length;
  }

  /**
   * A new session handle; nothing is written until the first assistant message.
   *
   * @param options Conversation metadata and working directory.
   * @returns The session.
   */
  create(options: CreateSessionOptions = {}): Session {
    this.#assertOpen();
    return new Session(addPending(this.#pending, options), this, false, options.metadata);
  }

  /**
   * One owner's view of this store: it reaches that owner's sessions only,
   * and has no store-wide administration (see {@linkcode OwnerView}).
   *
   * @param ownerId The owner.
   * @returns The view, sharing this store's database and locks.
   */
  forOwner(ownerId: string): OwnerView {
    return new OwnerView(this, ownerId);
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
      if (!row) return this.#pending.has(id) ? this.#pending.get(id)!.ownerId : null;
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
        const ids = matches.slice(0, AMBIGUITY_SHOWN).map((row) => String(row.id));
        throw new AmbiguousSessionIdError(idOrPrefix, ids, Number(total?.n ?? ids.length));
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
  async latest(): Promise<Session | null> {
    const [info] = await this.list({ limit: 1 });
    return info ? new Session(info, this) : null;
  }

  /**
   * The conversation on the active path. A record that does not decode throws.
   *
   * @param id The session id.
   * @returns The conversation, or `null` for an unknown id.
   * @throws {SessionCorruptError} Naming the database, session and message number.
   */
  async load(id: string): Promise<Conversation | null> {
    const tree = await this.loadTree(id);
    return tree ? activeConversation(tree) : null;
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
      const where = `${this.path} (session ${id}, message)`;
      const metadata = session.metadata === null ? undefined : String(session.metadata);
      return readTree(rawEntries(rows, where), metadata, where, (index) => index + 1);
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
    return forkSession(this, id, entryId, this.path);
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
  async appendMessages(
    sessionId: string,
    messages: readonly PersistentMessage[],
    options: AppendOptions = {},
  ): Promise<void> {
    this.#assertOpen();
    checkSessionId(sessionId);
    if (messages.length === 0) return;
    await this.#locks.hold(sessionId);
    let running = false;
    try {
      running = await this.#run(() =>
        this.#write(sessionId, messages, options.expectedCount, false, options.writtenAt)
      );
    } finally {
      if (!running) await this.#locks.release(sessionId);
    }
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
  async replaceConversation(
    sessionId: string,
    messages: readonly PersistentMessage[],
    options: AppendOptions = {},
  ): Promise<void> {
    this.#assertOpen();
    checkSessionId(sessionId);
    const clears = messages.length === 0;
    await this.#locks.hold(sessionId);
    let running = false;
    try {
      running = await this.#run(() =>
        this.#write(sessionId, replacementBranch(messages), options.expectedCount, clears)
      );
    } finally {
      if (!running) await this.#locks.release(sessionId);
    }
  }

  /**
   * An append's (or, with `clear`, an empty replacement's) transaction; returns
   * whether the session's turn is still running.
   */
  #write(
    sessionId: string,
    messages: readonly PersistentMessage[],
    expectedCount: number | undefined,
    clear = false,
    now = new Date().toISOString(),
  ): boolean {
    let running = false;
    this.#saveTransaction(() => {
      this.#refuseIfFenced();
      const before = this.#startSession(sessionId, now);
      checkExpectedCount(sessionId, expectedCount, before.count);
      if (clear) this.#db.prepare("DELETE FROM messages WHERE session_id = ?").run(sessionId);
      const start = clear ? { count: 0 } : before;
      this.#insertRows(sessionId, messages, start.count, now);
      const batch = summarizeBatch(messages, start);
      // Clearing resets every summary field; an append (a replacement too) folds its batch in.
      this.#db.prepare(
        `UPDATE sessions SET modified = ?, message_count = ?,
           last_user_message = ${clear ? "?" : "coalesce(?, last_user_message)"},
           first_user_message = ${clear ? "?" : "coalesce(first_user_message, ?)"},
           wire = ${clear ? "?" : "coalesce(?, wire)"}, state = ${
          clear ? "?" : "coalesce(?, state)"
        }
         WHERE id = ?`,
      ).run(
        now,
        start.count + messages.length,
        batch.lastUserMessage ?? (clear ? "" : null),
        batch.firstUserMessage ?? null,
        batch.wire ? JSON.stringify(batch.wire) : null,
        batch.state ? JSON.stringify(batch.state) : null,
        sessionId,
      );
      running = batch.state?.status === "running";
    });
    this.#pending.delete(sessionId);
    return running;
  }

  #insertRows(
    sessionId: string,
    messages: readonly PersistentMessage[],
    firstSeq: number,
    now: string,
  ): void {
    const insertMessage = this.#db.prepare(
      `INSERT INTO messages (session_id, seq, written, role, wire, usage, message, entry_id, parent_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    );
    const insertText = this.#db.prepare("INSERT INTO message_text (rowid, body) VALUES (?, ?)");
    const last = this.#get(
      "SELECT seq, entry_id FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT 1",
      sessionId,
    );
    const ids = treeIds(messages, firstSeq, last ? String(last.entry_id ?? last.seq) : null);
    messages.forEach((entry, index) => {
      checkNesting(entry.message);
      const row = insertMessage.get(
        sessionId,
        firstSeq + index,
        now,
        entry.message.role,
        entry.wire ? JSON.stringify(entry.wire) : null,
        entry.usage ? JSON.stringify(entry.usage) : null,
        stringifyWellFormed(withUsage(entry.message, entry.usage)),
        ids[index]!.id,
        ids[index]!.parentId,
      );
      insertText.run(Number(row?.id), searchableText(entry.message));
    });
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
    if (!this.#stored(id)) {
      const pending = this.#pending.get(id);
      if (!pending) throw new SessionNotFoundError(id, this.path);
      pending.name = name;
      return;
    }
    await this.#locks.with(id, () =>
      this.#run(() =>
        // The fence is read in the write's transaction, so a migration copies the write or it is refused.
        this.#transaction(() => {
          this.#refuseIfFenced();
          const value = name === "" ? null : name.toWellFormed();
          this.#db.prepare("UPDATE sessions SET name = ? WHERE id = ?").run(value, id);
        })
      ));
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
    await this.#run(() =>
      this.#transaction(() => {
        this.#refuseIfFenced();
        // Rows from before the tree have no entry id: theirs is their position.
        const { changes } = this.#db.prepare(
          `UPDATE messages SET label = ?
           WHERE session_id = ? AND coalesce(entry_id, CAST(seq AS TEXT)) = ?`,
        ).run(label ? label.toWellFormed() : null, id, entryId);
        if (changes === 0) throw unknownEntry(entryId);
      })
    );
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
    const wasPending = this.#pending.delete(id);
    if (!this.#stored(id)) {
      if (wasPending) return;
      throw new SessionNotFoundError(id, this.path);
    }
    await this.#locks.with(id, async () => {
      await this.#run(() =>
        this.#transaction(() => {
          this.#refuseIfFenced();
          this.#db.prepare("DELETE FROM sessions WHERE id = ?").run(id);
        })
      );
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
  async export(id: string): Promise<string> {
    const conversation = await this.load(id);
    const row = this.#get(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ?`, id);
    if (!conversation || !row) throw new SessionNotFoundError(id, this.path);
    return exportMarkdown(toInfo(row), conversation);
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
      this.#transaction(() => {
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
    if (this.#closed) return;
    this.#closed = true;
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
    if (this.#closed) throw new Error(`The session store at ${this.path} is closed`);
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

  #transaction(task: () => void): void {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      task();
      this.#db.exec("COMMIT");
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      throw error;
    }
  }

  /** A transaction whose failure says that the session could not be saved, and where. */
  #saveTransaction(task: () => void): void {
    try {
      this.#transaction(task);
    } catch (error) {
      throw saveFailure(error, this.path);
    }
  }

  /** The session's message count and state, inserting its row on the first append. */
  #startSession(id: string, now: string): BatchStart {
    const row = this.#get("SELECT message_count, state FROM sessions WHERE id = ?", id);
    if (row) return { count: Number(row.message_count), state: storedState(row.state) };
    const pending = this.#pending.get(id) ?? { created: now };
    this.#db.prepare(
      `INSERT INTO sessions (id, name, created, modified, cwd, metadata, owner_id, parent_session_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      id,
      pending.name ? pending.name.toWellFormed() : null,
      pending.created,
      now,
      pending.cwd?.toWellFormed() ?? null,
      pending.metadata?.toWellFormed() ?? null,
      pending.ownerId?.toWellFormed() ?? null,
      pending.parentSessionId ?? null,
    );
    return { count: 0 };
  }

  #migrate(): void {
    this.#transaction(() => {
      const version = Number(this.#get("PRAGMA user_version")?.user_version ?? 0);
      if (version > MIGRATIONS.length) {
        throw new SessionStoreError(
          `Session database ${this.path} has schema version ${version}; this panto knows ` +
            `${MIGRATIONS.length}: upgrade panto to open it`,
        );
      }
      for (const migration of MIGRATIONS.slice(version)) {
        if (typeof migration === "string") this.#db.exec(migration);
        else migration(this.#db);
      }
      if (version < MIGRATIONS.length) this.#db.exec(`PRAGMA user_version = ${MIGRATIONS.length}`);
    });
  }
}

/** Migration 4: the first prompt, filled in for the sessions stored before it. */
function addFirstPrompts(db: DatabaseSync): void {
  db.exec("ALTER TABLE sessions ADD COLUMN first_user_message TEXT");
  const firsts = new Map<string, string>();
  const rows = db.prepare(
    "SELECT session_id, message FROM messages WHERE role = 'user' ORDER BY session_id, seq",
  );
  for (const row of rows.iterate()) {
    foldFirstPreview(firsts, String(row.session_id), String(row.message));
  }
  const set = db.prepare("UPDATE sessions SET first_user_message = ? WHERE id = ?");
  for (const [id, preview] of firsts) set.run(preview, id);
}

function storedState(value: unknown): SessionState | undefined {
  return value === null || value === undefined
    ? undefined
    : decode(recordSchemas().sessionStateSchema, JSON.parse(String(value)), "state");
}

function toInfo(row: Row): SessionInfo {
  const info: SessionInfo = {
    id: String(row.id),
    created: String(row.created),
    modified: String(row.modified),
    messageCount: Number(row.message_count),
    lastUserMessage: String(row.last_user_message),
  };
  if (row.first_user_message !== null) info.firstUserMessage = String(row.first_user_message);
  if (row.name !== null) info.name = String(row.name);
  if (row.cwd !== null) info.cwd = String(row.cwd);
  if (row.owner_id !== null) info.ownerId = String(row.owner_id);
  if (row.parent_session_id !== null) info.parentSessionId = String(row.parent_session_id);
  const state = storedState(row.state);
  if (state) info.state = state;
  if (row.wire !== null) info.wire = decodeWire(JSON.parse(String(row.wire)));
  return info;
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

/** Opens the database, creating its file 0600 (SQLite gives its -wal and -shm files the same mode). */
function openDatabase(path: string): DatabaseSync {
  try {
    if (path !== ":memory:") createFile(path);
    return new DatabaseSync(path);
  } catch (error) {
    throw openFailure(path, error);
  }
}

/**
 * Creates the database file 0600, and its directory 0700 only when that is
 * missing: a program granted just the database's files may not touch the
 * directory they are in.
 */
function createFile(path: string): void {
  const create = () => Deno.openSync(path, { write: true, create: true, mode: 0o600 }).close();
  try {
    create();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    Deno.mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    create();
  }
}

function openFailure(path: string, error: unknown): SessionStoreError {
  if (error instanceof SessionStoreError) return error;
  return new SessionStoreError(
    `Session database ${path} could not be opened: ${errorMessage(error)}`,
    { cause: error },
  );
}
