import type postgres from "postgres";
import type { Conversation } from "../conversation.ts";
import { SessionNotFoundError } from "./errors.ts";
import { checkSessionId } from "./ids.ts";
import { type MigrationFence, parseFence, refuseIfFenced } from "./migration_fence.ts";
import type { OwnerView } from "./owner_view.ts";
import { PostgresConnection } from "./postgres_connection.ts";
import { heldNow, SessionHolds } from "./postgres_holds.ts";
import { SCHEMA_VERSION } from "./postgres_schema.ts";
import { summarizeBatch } from "./serialize.ts";
import { Session } from "./session.ts";
import {
  infoFromRow,
  listedInfo,
  messageRows,
  searchHitFromRow,
  type StoredRow as Row,
  storedState,
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

/** A postgres.js client (`import postgres from "postgres"`). */
export type PostgresClient = postgres.Sql;

/** Options for {@linkcode PostgresStore}: a URL, or a client to share. */
export interface PostgresStoreOptions {
  /** Connection URL (`postgres://user@host:5432/db`); `PG*` environment variables fill gaps. */
  url?: string;
  /** An existing client to use instead of `url` (the store never ends it). */
  client?: PostgresClient;
  /**
   * Connections in the pool this store opens from `url`. Default 4. While
   * the store holds a session (a turn runs), one of them is kept for the
   * advisory lock that tells other processes it is alive. A given client
   * needs 2 or more (a store that writes keeps one).
   */
  maxConnections?: number;
}

/** Text kept per message for search: `tsvector` values are limited to 1 MB. */
const SEARCH_TEXT_LIMIT = 100_000;

/**
 * Sessions in PostgreSQL, for services whose processes and hosts share one
 * database. Each append is one transaction that locks the session row
 * (`SELECT … FOR UPDATE`), so concurrent writers on any number of
 * connections never interleave a batch or reuse a sequence number.
 * `forOwner` gives one user's view (a capability: it reaches that owner's
 * sessions only). A writer holds a session while its turn runs by naming
 * a session-level advisory lock it keeps on a connection of its own: when
 * the process dies the server drops the lock, and the session reads as
 * `interrupted` at once. Migrations run in a transaction under an
 * advisory lock on first use.
 *
 * @example
 * ```ts ignore
 * import { PostgresStore } from "@panto/lib/postgres";
 * const store = new PostgresStore({ url: "postgres://app@db.internal/app" });
 * const alice = store.forOwner("alice");
 * const session = alice.create({ metadata: '{"channel":"web"}' });
 * // … new Agent({ config, session }) …
 * console.log(await alice.list({ limit: 20 }));
 * await store.close();
 * ```
 */
export class PostgresStore implements SessionStore {
  readonly #db: PostgresConnection;
  readonly #core: StoreCore;
  /** The sessions this store holds while their turns run. */
  readonly #holds: SessionHolds;

  /**
   * Creates the store (connections open lazily, on first use).
   *
   * @param options A URL or a client.
   */
  constructor(options: PostgresStoreOptions) {
    this.#db = new PostgresConnection(options);
    this.#holds = new SessionHolds(() => this.#db.client());
    this.#core = new StoreCore(this, {
      location: this.#db.location,
      write: (id, batch) => this.#insert(id, batch),
      closedNamesLocation: false,
      scrub: (error) => this.#db.scrubbed(error),
    });
  }

  /** The schema version this code writes. */
  static get schemaVersion(): number {
    return SCHEMA_VERSION;
  }

  /**
   * One owner's view of this store: it reaches that owner's sessions only,
   * and has no store-wide administration (see {@linkcode OwnerView}).
   * Closing the view does not close the pool.
   *
   * @param ownerId The owner.
   * @returns The view, sharing this store's connections.
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
  async ownerOf(id: string): Promise<string | undefined | null> {
    checkSessionId(id);
    const sql = await this.#ready();
    const [row] = await sql`SELECT owner_id FROM panto_sessions WHERE id = ${id}`;
    if (!row) return this.#core.pendingOwner(id);
    return row.owner_id === null ? undefined : String(row.owner_id);
  }

  /**
   * Checks that sessions can be saved, before anything depends on it: the
   * server answers, the schema is migrated (in a write transaction), and no
   * migration fenced the database.
   *
   * @throws {SessionStoreError} Naming the database (password redacted) and the cause.
   * @throws {SessionStoreMigratedError} When its sessions were moved to another store.
   */
  async checkWritable(): Promise<void> {
    refuseIfFenced(this.#db.location, await readFence(await this.#ready()));
  }

  /**
   * A new session handle; nothing is written until the first assistant message.
   *
   * @param options Metadata, working directory, and owner.
   * @returns The session.
   */
  create(options: CreateSessionOptions = {}): Session {
    return this.#core.create(options);
  }

  /**
   * Sessions, newest modified first: everyone's or `options.ownerId`'s.
   *
   * @param options Limit and owner filter.
   * @returns The sessions.
   */
  async list(options: ListSessionsOptions = {}): Promise<SessionInfo[]> {
    const sql = await this.#ready();
    const rows = await sql`
      SELECT *, ${heldNow(sql)} AS held FROM panto_sessions
      WHERE ${owned(sql, options.ownerId)}
      ORDER BY modified DESC, id DESC LIMIT ${options.limit ?? null}`;
    return rows.map((row) => listedInfo(row, toInfo));
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
    checkSessionId(idOrPrefix);
    const sql = await this.#ready();
    const scope = owned(sql, options.ownerId);
    const [exact] = await sql`SELECT *, ${heldNow(sql)} AS held FROM panto_sessions
      WHERE id = ${idOrPrefix} AND ${scope}`;
    if (exact) return new Session(toInfo(exact), this);
    const pattern = `${idOrPrefix.replaceAll("_", "\\_")}%`;
    const matches = await sql`
      SELECT *, ${heldNow(sql)} AS held, count(*) OVER () AS total FROM panto_sessions
      WHERE id LIKE ${pattern} AND ${scope} ORDER BY id LIMIT ${AMBIGUITY_SHOWN}`;
    if (matches.length > 1) {
      const ids = matches.map((row) => String(row.id));
      throw this.#core.ambiguous(idOrPrefix, ids, Number(matches[0]!.total));
    }
    return matches[0] ? new Session(toInfo(matches[0]), this) : null;
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
   * @throws {SessionCorruptError} Naming the session and message number.
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
   * @throws {SessionCorruptError} Naming the session and message number.
   */
  async loadTree(id: string): Promise<StoredTree | null> {
    checkSessionId(id);
    const sql = await this.#ready();
    const [session] = await sql`SELECT metadata FROM panto_sessions WHERE id = ${id}`;
    if (!session) return null;
    const rows = await sql`
      SELECT seq, message, entry_id, parent_id, wire, label FROM panto_messages
      WHERE session_id = ${id} ORDER BY seq`;
    return treeOfRows(session, rows, `panto_messages (session ${id})`);
  }

  /**
   * A new session holding the path from a root to `entryId`, recording
   * this one as its parent session (its owner is kept).
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
   * Appends in one transaction holding the session row's lock; committed
   * before the promise resolves.
   *
   * @param sessionId The session.
   * @param messages The messages, in order.
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
   * kept. Leased as an append is.
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
   * Checks, writing nothing, that an append now would not be refused: no
   * other writer's lease is live, and the message count is `expectedCount`
   * when given.
   *
   * @param sessionId The session.
   * @param options The message count the writer expects.
   * @throws {SessionInUseError} When another writer holds the session.
   * @throws {SessionChangedError} When the session has another message count than expected.
   */
  async checkAppend(sessionId: string, options: AppendOptions = {}): Promise<void> {
    checkSessionId(sessionId);
    const sql = await this.#ready();
    const [row] = await sql`
      SELECT message_count, holder, ${heldNow(sql)} AS held
      FROM panto_sessions WHERE id = ${sessionId}`;
    if (!row) return;
    this.#holds.refuseOther(sessionId, row);
    checkExpectedCount(sessionId, options.expectedCount, Number(row.message_count));
  }

  /** Stores an append's (or a replacement's) batch in one transaction holding the session row. */
  async #insert(sessionId: string, batch: BatchWrite): Promise<void> {
    const { messages, expectedCount, writtenAt } = batch;
    const clear = batch.replaces && messages.length === 0;
    const sql = await this.#ready();
    const pending = this.#core.pending.get(sessionId) ?? { created: new Date().toISOString() };
    // Before the row can name the lock (a holder must never name a lock nobody holds), and
    // outside the transaction: waiting for a connection while holding one could starve the pool.
    await this.#holds.lock();
    await sql.begin(async (tx) => {
      refuseIfFenced(this.#db.location, await readFence(tx));
      await tx`
        INSERT INTO panto_sessions (id, owner_id, name, created, modified, cwd, metadata,
                                    parent_session_id)
        VALUES (${sessionId}, ${pending.ownerId ?? null}, ${
        wellFormed(pending.name || undefined)
      }, ${pending.created},
                now(), ${wellFormed(pending.cwd)}, ${wellFormed(pending.metadata)},
                ${pending.parentSessionId ?? null})
        ON CONFLICT (id) DO NOTHING`;
      const [row] = await tx`
        SELECT message_count, state, holder, ${heldNow(tx)} AS held
        FROM panto_sessions WHERE id = ${sessionId} FOR UPDATE`;
      if (!row) throw new SessionNotFoundError(sessionId, this.#db.location);
      this.#holds.refuseOther(sessionId, row);
      checkExpectedCount(sessionId, expectedCount, Number(row.message_count));
      if (clear) await tx`DELETE FROM panto_messages WHERE session_id = ${sessionId}`;
      const start = clear ? 0 : Number(row.message_count);
      const batch = summarizeBatch(
        messages,
        clear ? { count: 0 } : { state: storedState(row.state, parseJsonb), count: start },
      );
      await this.#holds.settle(tx, sessionId, row, batch.state?.status === "running");
      const [last] = start === 0 ? [] : await tx`
        SELECT seq, entry_id FROM panto_messages WHERE session_id = ${sessionId}
        ORDER BY seq DESC LIMIT 1`;
      for (const [index, row] of messageRows(messages, start, last).entries()) {
        const { wire, usage } = messages[index]!;
        const text = row.text.slice(0, SEARCH_TEXT_LIMIT);
        await tx`
          INSERT INTO panto_messages (session_id, seq, role, wire, usage, message, search_text,
                                      search_vector, entry_id, parent_id)
          VALUES (${sessionId}, ${row.seq}, ${row.role}, ${json(tx, wire)}, ${json(tx, usage)},
                  ${row.message}, ${text.toWellFormed()},
                  to_tsvector('simple', ${searchWords(text)}), ${row.id}, ${row.parentId})`;
      }
      // Clearing resets every summary field; an append (a replacement too) folds its batch in.
      const kept = (column: string) => clear ? tx`NULL` : tx(column);
      await tx`
        UPDATE panto_sessions SET modified = coalesce(${writtenAt ?? null}::timestamptz, now()),
          message_count = ${start + messages.length},
          last_user_message = coalesce(${batch.lastUserMessage ?? null}, ${
        clear ? "" : tx`last_user_message`
      }),
          first_user_message = coalesce(${kept("first_user_message")}, ${
        batch.firstUserMessage ?? null
      }),
          wire = coalesce(${json(tx, batch.wire)}, ${kept("wire")})::jsonb,
          state = coalesce(${json(tx, batch.state)}, ${kept("state")})::jsonb
        WHERE id = ${sessionId}`;
    });
  }

  /**
   * Full-text search (`to_tsvector('simple')` over words of letters and
   * digits, so `zebra.txt` matches `zebra`); every word of the query must
   * occur. Best matches first, each with a `ts_headline` snippet.
   *
   * @param query Words to find.
   * @param options How many hits to return (default 50), and in whose sessions (`ownerId`).
   * @returns The hits.
   */
  async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    const words = searchWords(query).trim();
    if (words === "") return [];
    const sql = await this.#ready();
    const rows = await sql`
      SELECT m.session_id, m.seq, m.role,
        ts_headline('simple', m.search_text, q, 'StartSel="",StopSel="",MaxWords=24,MinWords=8') AS snippet
      FROM panto_messages m JOIN panto_sessions s ON s.id = m.session_id,
        plainto_tsquery('simple', ${words}) q
      WHERE m.search_vector @@ q AND ${owned(sql, options.ownerId, sql`s.owner_id`)}
      ORDER BY ts_rank(m.search_vector, q) DESC, s.modified DESC, m.seq
      LIMIT ${options.limit ?? 50}`;
    return rows.map(searchHitFromRow);
  }

  /**
   * Names a session.
   *
   * @param id The session.
   * @param name The new name (`""` clears it).
   * @throws {SessionNotFoundError} When there is no such session.
   */
  async rename(id: string, name: string): Promise<void> {
    checkSessionId(id);
    const count = await this.#fencedWrite(async (tx) => {
      const { count } = await tx`
        UPDATE panto_sessions SET name = ${wellFormed(name || undefined)} WHERE id = ${id}`;
      return count;
    });
    if (count === 0) this.#core.renamePending(id, name);
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
    checkSessionId(id);
    await this.#fencedWrite(async (tx) => {
      const [session] = await tx`SELECT 1 FROM panto_sessions WHERE id = ${id}`;
      if (!session) throw new SessionNotFoundError(id, this.#db.location);
      // Rows from before the tree have no entry id: theirs is their position.
      const { count } = await tx`
        UPDATE panto_messages SET label = ${wellFormed(label || undefined)}
        WHERE session_id = ${id} AND coalesce(entry_id, seq::text) = ${entryId}`;
      if (count === 0) throw unknownEntry(entryId);
      return count;
    });
  }

  /**
   * Deletes a session and its messages.
   *
   * @param id The session.
   * @throws {SessionNotFoundError} When there is no such session.
   */
  async delete(id: string): Promise<void> {
    checkSessionId(id);
    const count = await this.#fencedWrite(async (tx) => {
      const { count } = await tx`DELETE FROM panto_sessions WHERE id = ${id}`;
      return count;
    });
    if (!this.#core.pending.delete(id) && count === 0) {
      throw new SessionNotFoundError(id, this.#db.location);
    }
  }

  /**
   * The session as Markdown.
   *
   * @param id The session.
   * @returns The document.
   */
  export(id: string): Promise<string> {
    return this.#core.export(id, async () => {
      const sql = await this.#ready();
      const [row] = await sql`SELECT * FROM panto_sessions WHERE id = ${id}`;
      return row ? toInfo(row) : null;
    });
  }

  /**
   * Lets go of a session this store writes, so another writer may take it
   * at once; the next append takes it again.
   *
   * @param id The session.
   */
  async release(id: string): Promise<void> {
    checkSessionId(id);
    await this.#holds.release(id, () => this.#ready());
  }

  /**
   * Lets go of the sessions it holds and of its advisory lock, then ends
   * the connection pool if this store opened it.
   */
  async close(): Promise<void> {
    if (this.#core.closed) return;
    await Promise.allSettled(this.#holds.ids().map((id) => this.release(id)));
    this.#core.close();
    await this.#holds.unlock().catch(() => {});
    await this.#db.end();
  }

  /**
   * The migration fence (table `panto_migration_fence`), or `null`.
   *
   * @returns The fence.
   * @throws {SessionStoreError} When it is damaged.
   */
  async migrationFence(): Promise<MigrationFence | null> {
    return await readFence(await this.#ready());
  }

  /**
   * Sets the migration fence, or lifts it with `null`. The table is locked
   * first, so a write whose transaction read no fence commits before the
   * fence does, and every later one sees it.
   *
   * @param fence The fence.
   */
  async setMigrationFence(fence: MigrationFence | null): Promise<void> {
    const sql = await this.#ready();
    await sql.begin(async (tx) => {
      await tx`LOCK TABLE panto_migration_fence IN ACCESS EXCLUSIVE MODE`;
      await tx`DELETE FROM panto_migration_fence`;
      if (fence) {
        await tx`INSERT INTO panto_migration_fence (fence) VALUES (${JSON.stringify(fence)})`;
      }
    });
  }

  /**
   * Runs a write in a transaction that reads the fence first: it holds the
   * fence table's share lock until it commits, so a fence being set waits
   * for it (and the migration copies it), or it sees the fence and is refused.
   * Returns what `write` does (the rows it changed).
   */
  async #fencedWrite(write: (tx: postgres.TransactionSql) => Promise<number>): Promise<number> {
    const sql = await this.#ready();
    return await sql.begin(async (tx) => {
      refuseIfFenced(this.#db.location, await readFence(tx));
      return await write(tx);
    });
  }

  /**
   * The client, after the schema is migrated.
   *
   * @throws {SessionStoreError} When the server cannot be reached or migrated.
   */
  #ready(): Promise<PostgresClient> {
    this.#core.assertOpen();
    return this.#db.ready();
  }
}

async function readFence(
  sql: postgres.TransactionSql | PostgresClient,
): Promise<MigrationFence | null> {
  const [row] = await sql`SELECT fence FROM panto_migration_fence LIMIT 1`;
  return row ? parseFence(String(row.fence), "panto_migration_fence") : null;
}

/** A row's list entry; `running` with no live holder (`held`) reads `interrupted`: the writer died mid-turn. */
function toInfo(row: Row): SessionInfo {
  const info = infoFromRow(row, parseJsonb);
  if (info.state?.status === "running" && row.held !== true) {
    info.state = { ...info.state, status: "interrupted" };
  }
  return info;
}

/** A `jsonb` column, which postgres.js has already parsed. */
function parseJsonb(value: unknown): unknown {
  return value;
}

/** The condition keeping one owner's rows (`true` for everyone's). */
function owned(
  sql: PostgresClient | postgres.TransactionSql,
  ownerId: string | undefined,
  column = sql`owner_id`,
): postgres.PendingQuery<postgres.Row[]> {
  return ownerId === undefined ? sql`true` : sql`${column} = ${ownerId.toWellFormed()}`;
}

/** Words of letters, marks and digits, space-separated: how both the index and queries see text. */
function searchWords(text: string): string {
  return text.toWellFormed().replace(/[^\p{L}\p{M}\p{N}]+/gu, " ");
}

/** A jsonb parameter (`null` when absent). */
function json(sql: postgres.TransactionSql, value: object | undefined): postgres.Parameter | null {
  return value === undefined ? null : sql.json(withoutNul(value) as postgres.JSONValue);
}

/**
 * `value` with U+0000 replaced by U+FFFD in every string and key: jsonb
 * refuses U+0000, and a turn must not fail to save for it. Usage is kept
 * exactly in the message text as well; a wire identity or state with
 * U+0000 comes back with U+FFFD (as lone surrogates do everywhere).
 */
function withoutNul(value: unknown): unknown {
  if (typeof value === "string") return value.replaceAll("\0", "\uFFFD");
  if (Array.isArray(value)) return value.map(withoutNul);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [withoutNul(key) as string, withoutNul(item)]),
  );
}

function wellFormed(text: string | undefined): string | null {
  return text === undefined ? null : text.toWellFormed();
}
