/**
 * `@panto/lib/postgres`: {@linkcode PostgresStore}, sessions in PostgreSQL
 * through postgres.js, for a service whose users' sessions live in one
 * database.
 *
 * @example Keep sessions in PostgreSQL
 * ```ts ignore
 * import { PostgresStore } from "@panto/lib/postgres";
 *
 * const store = new PostgresStore({ url: "postgres://app@db.internal/app" });
 * const alice = store.forOwner("alice"); // only alice's sessions
 * const session = alice.create();
 * // … new Agent({ config, session }) …
 * await store.close();
 * ```
 *
 * @module
 */
export {
  type PostgresClient,
  PostgresStore,
  type PostgresStoreOptions,
} from "./session/postgres_store.ts";
