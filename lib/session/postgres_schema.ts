// The PostgreSQL store's schema: its versioned migrations, run once per
// client, in one transaction under an advisory lock so that processes
// starting together never run them twice.
import type postgres from "postgres";
import { SessionStoreError } from "./errors.ts";
import { foldFirstPreview } from "./serialize.ts";

/** A versioned schema change; never edit a released one, append a new one. */
interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Fills in, after `sql`, what SQL cannot compute. */
  backfill?: (tx: postgres.TransactionSql) => Promise<void>;
}

const MIGRATIONS: readonly Migration[] = [{
  version: 1,
  name: "sessions and messages",
  sql: `
    CREATE TABLE panto_sessions (
      id text PRIMARY KEY,
      owner_id text,
      name text,
      created timestamptz NOT NULL,
      modified timestamptz NOT NULL,
      cwd text,
      metadata text,
      message_count integer NOT NULL DEFAULT 0,
      last_user_message text NOT NULL DEFAULT '',
      wire jsonb
    );
    CREATE INDEX panto_sessions_by_owner ON panto_sessions (owner_id, modified DESC, id DESC);
    CREATE INDEX panto_sessions_by_modified ON panto_sessions (modified DESC, id DESC);
    CREATE INDEX panto_sessions_by_prefix ON panto_sessions (id text_pattern_ops);
    CREATE TABLE panto_messages (
      session_id text NOT NULL REFERENCES panto_sessions (id) ON DELETE CASCADE,
      seq integer NOT NULL,
      written timestamptz NOT NULL DEFAULT now(),
      role text NOT NULL,
      wire jsonb,
      usage jsonb,
      message text NOT NULL,
      search_text text NOT NULL,
      search_vector tsvector NOT NULL,
      PRIMARY KEY (session_id, seq)
    );
    CREATE INDEX panto_messages_search ON panto_messages USING gin (search_vector);`,
}, {
  version: 2,
  name: "session state",
  sql: `ALTER TABLE panto_sessions ADD COLUMN state jsonb, ADD COLUMN holder jsonb,
           ADD COLUMN held_until timestamptz;`,
}, {
  version: 3,
  name: "session tree",
  // Rows from before the tree have no entry id: they read as one chain.
  sql: `ALTER TABLE panto_messages ADD COLUMN entry_id text, ADD COLUMN parent_id text;
        CREATE UNIQUE INDEX panto_messages_by_entry ON panto_messages (session_id, entry_id);
        ALTER TABLE panto_sessions ADD COLUMN parent_session_id text;`,
}, {
  version: 4,
  name: "first prompt",
  sql: `ALTER TABLE panto_sessions ADD COLUMN first_user_message text;`,
  backfill: backfillFirstPrompts,
}, {
  version: 5,
  name: "entry labels",
  sql: `ALTER TABLE panto_messages ADD COLUMN label text;`,
}];

/**
 * The schema version this code writes: how many migrations it knows.
 *
 * @example
 * ```ts
 * import { SCHEMA_VERSION } from "./postgres_schema.ts";
 * console.assert(SCHEMA_VERSION >= 5);
 * ```
 */
export const SCHEMA_VERSION: number = MIGRATIONS.length;

/** Rows a backfill reads at a time. */
const BACKFILL_BATCH = 500;

/** Key of the advisory lock that serialises migrations across processes. */
const MIGRATION_LOCK = 7_302_513_980_114_261;

/** Migrations already run per client, so stores sharing a client share one run. */
const migrated = new WeakMap<postgres.Sql, Promise<void>>();

/**
 * Brings the client's database to this code's schema, once per client:
 * stores sharing a client share one run (a failed run is tried again by
 * the next call).
 *
 * @example
 * ```ts ignore
 * import { migrateOnce } from "./postgres_schema.ts";
 * await migrateOnce(sql);
 * ```
 *
 * @param sql The client.
 * @throws {SessionStoreError} When the database's schema is newer than this code knows.
 */
export async function migrateOnce(sql: postgres.Sql): Promise<void> {
  let migration = migrated.get(sql);
  if (!migration) {
    migration = migrate(sql);
    migrated.set(sql, migration);
    migration.catch(() => migrated.delete(sql));
  }
  await migration;
}

async function migrate(sql: postgres.Sql): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`
      CREATE TABLE IF NOT EXISTS panto_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied timestamptz NOT NULL DEFAULT now()
      )`;
    // Outside the numbered migrations: a fence is kept apart from the schema's versions.
    await tx`CREATE TABLE IF NOT EXISTS panto_migration_fence (fence text NOT NULL)`;
    const applied = new Set(
      (await tx`SELECT version FROM panto_migrations`).map((row) => Number(row.version)),
    );
    const newest = Math.max(0, ...applied);
    if (newest > SCHEMA_VERSION) {
      throw new SessionStoreError(
        `The session database has schema version ${newest}; this panto knows ${SCHEMA_VERSION}: upgrade panto`,
      );
    }
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      await tx.unsafe(migration.sql);
      await migration.backfill?.(tx);
      await tx`INSERT INTO panto_migrations (version, name) VALUES (${migration.version}, ${migration.name})`;
    }
  });
}

/** Migration 4: the first prompt of the sessions stored before it. */
async function backfillFirstPrompts(tx: postgres.TransactionSql): Promise<void> {
  const firsts = new Map<string, string>();
  await tx`
    SELECT session_id, message FROM panto_messages WHERE role = 'user' ORDER BY session_id, seq`
    .cursor(BACKFILL_BATCH, (rows) => {
      for (const row of rows) foldFirstPreview(firsts, String(row.session_id), String(row.message));
    });
  for (const [id, preview] of firsts) {
    await tx`UPDATE panto_sessions SET first_user_message = ${preview} WHERE id = ${id}`;
  }
}
