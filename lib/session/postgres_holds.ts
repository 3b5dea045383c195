// How a PostgreSQL store holds the sessions whose turns it runs: each held
// session's row names this store's advisory lock, which the store keeps on
// a connection of its own, so the server lets go of it when the process
// dies and the session reads as interrupted at once.
import type postgres from "postgres";
import { SessionInUseError } from "./errors.ts";
import type { StoredRow } from "./sql_rows.ts";

/**
 * A session's holder, as `panto_sessions.holder` keeps it: the store
 * holds the session-level advisory lock `key` on a connection of its own
 * while it lives, so the server lets go of it when the process dies.
 */
interface StoredHolder {
  pid: number;
  instance: string;
  since: string;
  /** The advisory lock's two keys (`pg_advisory_lock(int4, int4)`); absent from older holders. */
  key?: [number, number];
}

/**
 * The sessions one store holds, and the advisory lock their rows name.
 *
 * @example
 * ```ts ignore
 * import { SessionHolds } from "./postgres_holds.ts";
 * const holds = new SessionHolds(() => connect());
 * await holds.lock(); // before a write's transaction may name it
 * ```
 */
export class SessionHolds {
  /** Sessions this store holds. */
  readonly #held = new Set<string>();
  /** Tells this store's holds from those of other stores, in this process or another. */
  readonly #instance = crypto.randomUUID();
  /** This store's advisory lock keys: random, so no two live stores share them. */
  readonly #key: [number, number] = [randomKey(), randomKey()];
  /** The connection holding the advisory lock, taken when the store first holds a session. */
  #lockConnection: Promise<postgres.ReservedSql> | undefined;
  readonly #client: () => Promise<postgres.Sql>;

  /** @param client The store's client, connecting the first time. */
  constructor(client: () => Promise<postgres.Sql>) {
    this.#client = client;
  }

  /** @returns The sessions this store holds. */
  ids(): string[] {
    return [...this.#held];
  }

  /**
   * Takes this store's advisory lock, once (at its first write), on a
   * connection kept for it: while the lock is held the sessions naming it
   * are held, and when the process dies the server ends the connection and
   * drops the lock.
   */
  async lock(): Promise<void> {
    this.#lockConnection ??= (async () => {
      const reserved = await (await this.#client()).reserve();
      await reserved`SELECT pg_advisory_lock(${this.#key[0]}::int4, ${this.#key[1]}::int4)`;
      return reserved;
    })();
    try {
      await this.#lockConnection;
    } catch (error) {
      this.#lockConnection = undefined;
      throw error;
    }
  }

  /** Drops the advisory lock and gives its connection back to the pool. */
  async unlock(): Promise<void> {
    const reserved = await this.#lockConnection;
    this.#lockConnection = undefined;
    if (!reserved) return;
    try {
      await reserved`SELECT pg_advisory_unlock(${this.#key[0]}::int4, ${this.#key[1]}::int4)`;
    } finally {
      reserved.release();
    }
  }

  /**
   * Refuses a write to a session whose row names a live holder other than this store.
   *
   * @param sessionId The session.
   * @param row Its row, with `holder` and `held` (as {@linkcode heldNow}).
   * @throws {SessionInUseError} Naming the holder.
   */
  refuseOther(sessionId: string, row: StoredRow): void {
    const holder = row.holder as StoredHolder | null;
    if (row.held && holder && holder.instance !== this.#instance) {
      throw new SessionInUseError(sessionId, { pid: holder.pid, since: holder.since });
    }
  }

  /**
   * Records, in a write's transaction, whether the session is held after
   * it: held while its turn runs, free between turns. A live holder stays
   * the one named (its pid and time), now naming this store's lock.
   *
   * @param tx The write's transaction.
   * @param sessionId The session.
   * @param row Its row, with `holder` and `held`.
   * @param running Whether its turn still runs after the write.
   */
  async settle(
    tx: postgres.TransactionSql,
    sessionId: string,
    row: StoredRow,
    running: boolean,
  ): Promise<void> {
    if (!running) {
      await tx`UPDATE panto_sessions SET holder = NULL, held_until = NULL WHERE id = ${sessionId}`;
      this.#held.delete(sessionId);
      return;
    }
    const holder = row.holder as StoredHolder | null;
    const mine: StoredHolder = row.held && holder
      ? holder
      : { pid: Deno.pid, instance: this.#instance, since: new Date().toISOString() };
    mine.key = this.#key;
    await tx`
      UPDATE panto_sessions SET holder = ${tx.json(mine as unknown as postgres.JSONValue)},
        held_until = NULL
      WHERE id = ${sessionId}`;
    this.#held.add(sessionId);
  }

  /**
   * Lets go of a session this store holds (nothing when it holds none).
   *
   * @param id The session.
   * @param ready The client, once the store can be used.
   */
  async release(id: string, ready: () => Promise<postgres.Sql>): Promise<void> {
    if (!this.#held.delete(id)) return;
    const sql = await ready();
    await sql`
      UPDATE panto_sessions SET holder = NULL, held_until = NULL
      WHERE id = ${id} AND holder->>'instance' = ${this.#instance}`;
  }
}

/**
 * Whether a session row's holder is alive, as SQL: the advisory lock its
 * holder names is granted in this database (the server drops it with the
 * holder's connection). A holder from before the locks has no key: its
 * lease time says.
 *
 * @example
 * ```ts ignore
 * import { heldNow } from "./postgres_holds.ts";
 * const rows = await sql`SELECT id, ${heldNow(sql)} AS held FROM panto_sessions`;
 * ```
 *
 * @param sql The client or transaction the query runs on.
 * @returns The condition.
 */
export function heldNow(
  sql: postgres.Sql | postgres.TransactionSql,
): postgres.PendingQuery<postgres.Row[]> {
  return sql`(holder IS NOT NULL AND CASE WHEN holder ? 'key' THEN EXISTS (
      SELECT 1 FROM pg_locks l
      WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND l.classid::bigint = (holder->'key'->>0)::bigint
        AND l.objid::bigint = (holder->'key'->>1)::bigint)
    ELSE coalesce(held_until > now(), false) END)`;
}

/** A random advisory lock key: a non-negative int4, so `pg_locks` shows it as it is. */
function randomKey(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0]! >>> 1;
}
