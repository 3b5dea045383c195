/**
 * `@panto/lib/sqlite`: {@linkcode SQLiteStore}, sessions in one SQLite
 * database through `node:sqlite`. It creates the database file with
 * Deno's file APIs, so this entry point runs on Deno only.
 *
 * @example Keep sessions in memory
 * ```ts
 * import { SQLiteStore } from "@panto/lib/sqlite";
 *
 * const store = new SQLiteStore({ path: ":memory:" });
 * const session = store.create();
 * console.assert((await session.load()).messages.length === 0);
 * await store.close();
 * ```
 *
 * @module
 */
export { SQLiteStore, type SQLiteStoreOptions } from "./session/sqlite_store.ts";
