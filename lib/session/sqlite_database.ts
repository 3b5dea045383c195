// The SQLite store's database: its file created with safe modes, the
// connection's settings, the schema and its migrations, and transactions.
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { errorMessage } from "../error_message.ts";
import { SessionStoreError } from "./errors.ts";
import { foldFirstPreview } from "./serialize.ts";

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

/**
 * The schema version this code writes: how many migrations it knows.
 *
 * @example
 * ```ts
 * import { SCHEMA_VERSION } from "./sqlite_database.ts";
 * console.assert(SCHEMA_VERSION >= 5);
 * ```
 */
export const SCHEMA_VERSION: number = MIGRATIONS.length;

/**
 * A JSON column's value: this schema keeps JSON as `TEXT`.
 *
 * @example
 * ```ts
 * import { parseJsonText } from "./sqlite_database.ts";
 * console.assert((parseJsonText('{"a":1}') as { a: number }).a === 1);
 * ```
 *
 * @param value The column.
 * @returns The parsed value.
 */
export function parseJsonText(value: unknown): unknown {
  return JSON.parse(String(value));
}

/**
 * Opens the database, creating its file 0600 (SQLite gives its -wal and
 * -shm files the same mode): WAL journal, full synchronous commits, foreign
 * keys on, and its schema migrated.
 *
 * @example
 * ```ts
 * import { openDatabase, SCHEMA_VERSION } from "./sqlite_database.ts";
 * const db = openDatabase(":memory:", 5000);
 * console.assert(db.prepare("PRAGMA user_version").get()?.user_version === SCHEMA_VERSION);
 * db.close();
 * ```
 *
 * @param path The database file, or `:memory:`.
 * @param busyTimeoutMs How long a write waits for another process's transaction.
 * @returns The open database.
 * @throws {SessionStoreError} Naming the file, when it cannot be created or
 *   is not a SQLite database, or its schema is newer than this code knows.
 */
export function openDatabase(path: string, busyTimeoutMs: number): DatabaseSync {
  let db: DatabaseSync;
  try {
    if (path !== ":memory:") createFile(path);
    db = new DatabaseSync(path);
  } catch (error) {
    throw openFailure(path, error);
  }
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = FULL");
    db.exec("PRAGMA foreign_keys = ON");
    migrate(db, path);
  } catch (error) {
    db.close();
    throw openFailure(path, error);
  }
  return db;
}

/**
 * Runs `task` in a `BEGIN IMMEDIATE` transaction: committed when it
 * returns, rolled back when it throws.
 *
 * @example
 * ```ts
 * import { openDatabase, transaction } from "./sqlite_database.ts";
 * const db = openDatabase(":memory:", 5000);
 * console.assert(transaction(db, () => 42) === 42);
 * db.close();
 * ```
 *
 * @param db The database.
 * @param task What to do in it.
 * @returns What `task` returns.
 */
export function transaction<T>(db: DatabaseSync, task: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = task();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
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

/**
 * Brings the database's schema to this code's version in one transaction.
 *
 * @throws {SessionStoreError} When its schema is newer than this code knows.
 */
function migrate(db: DatabaseSync, path: string): void {
  transaction(db, () => {
    const version = Number(db.prepare("PRAGMA user_version").get()?.user_version ?? 0);
    if (version > SCHEMA_VERSION) {
      throw new SessionStoreError(
        `Session database ${path} has schema version ${version}; this panto knows ` +
          `${SCHEMA_VERSION}: upgrade panto to open it`,
      );
    }
    for (const migration of MIGRATIONS.slice(version)) {
      if (typeof migration === "string") db.exec(migration);
      else migration(db);
    }
    if (version < SCHEMA_VERSION) db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
  });
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
