import { join } from "node:path";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import {
  NullStore,
  redactUrl,
  type SessionStore,
  SessionStoreError,
  SessionStoreMigratedError,
} from "@panto/lib";
import { errorMessage } from "../shared/error_message.ts";
import { UsageError } from "../shared/errors.ts";

/** Which store backs the sessions. */
export type StoreKind = "jsonl" | "sqlite" | "postgres";

/** Every {@linkcode StoreKind}. */
export const STORE_KINDS: readonly StoreKind[] = ["jsonl", "sqlite", "postgres"];

/** Flags that choose the store. */
export interface StoreFlags {
  /** `--store`. */
  store: StoreKind | undefined;
  /** `--store-url` (a file path for sqlite, a `postgres://` URL for postgres). */
  storeUrl: string | undefined;
  /** `--session-dir` (jsonl). */
  sessionDir: string | undefined;
  /** `--no-session`. */
  noSession: boolean;
}

/** How to get past a store that cannot be used, per kind. */
const FIXES: Record<StoreKind, string> = {
  jsonl: "pass --session-dir DIR for a directory you can write, fix the permissions, " +
    "or run with --no-session to save nothing",
  sqlite: "pass --store-url FILE for a SQLite database you can write, fix the permissions, " +
    "or run with --no-session to save nothing",
  postgres: "check --store-url and that the server is running and accepts the user, " +
    "or run with --no-session to save nothing",
};

/**
 * Opens the session store the flags ask for. Defaults: JSONL files under
 * `$PANTO_HOME/sessions`; SQLite at `$PANTO_HOME/sessions.db`.
 *
 * @param flags The store flags.
 * @param pantoHome panto's home directory.
 * @returns The store (close it when done: it holds locks and connections).
 *   The SQLite and PostgreSQL stores load only when chosen, so a start
 *   with the default store loads neither.
 * @throws {UsageError} When postgres is chosen without a URL, a URL is given
 *   for jsonl, or the store cannot be opened (an empty path, a file that is
 *   not a database, a newer schema).
 */
export async function openStore(flags: StoreFlags, pantoHome: string): Promise<SessionStore> {
  if (flags.noSession) return new NullStore();
  const kind = flags.store ?? "jsonl";
  try {
    return await createStore(kind, flags, pantoHome);
  } catch (error) {
    throw storeUsageError(kind, error);
  }
}

/**
 * Opens the store and checks that sessions can be saved to it, so that a
 * store that cannot be written stops panto before any model request (whose
 * answer would otherwise be lost).
 *
 * @param flags The store flags.
 * @param pantoHome panto's home directory.
 * @returns The store, known to be writable.
 * @throws {UsageError} Naming the directory, file or URL (password
 *   redacted), the cause, and how to fix it.
 */
export async function openWritableStore(
  flags: StoreFlags,
  pantoHome: string,
): Promise<SessionStore> {
  const store = await openStore(flags, pantoHome);
  try {
    await store.checkWritable?.();
    return store;
  } catch (error) {
    await store.close();
    throw storeUsageError(flags.store ?? "jsonl", error);
  }
}

async function createStore(
  kind: StoreKind,
  flags: StoreFlags,
  pantoHome: string,
): Promise<SessionStore> {
  switch (kind) {
    case "jsonl":
      if (flags.storeUrl) {
        throw new UsageError(
          "--store-url is for sqlite and postgres stores: use --session-dir DIR for jsonl",
        );
      }
      return new FileSystemJSONLStore({ dir: storeLocation("jsonl", flags, pantoHome) });
    case "sqlite": {
      const { SQLiteStore } = await import("@panto/lib/sqlite");
      return new SQLiteStore({ path: storeLocation("sqlite", flags, pantoHome) });
    }
    case "postgres": {
      if (!flags.storeUrl?.match(/^postgres(ql)?:\/\//)) {
        throw new UsageError(
          `--store postgres needs --store-url postgres://user:password@host:5432/database${
            flags.storeUrl ? ` (got ${JSON.stringify(redactUrl(flags.storeUrl))})` : ""
          }`,
        );
      }
      const { PostgresStore } = await import("@panto/lib/postgres");
      return new PostgresStore({ url: flags.storeUrl });
    }
  }
}

/**
 * Where a store of `kind` lives with these flags: the sessions directory,
 * the database file, or the PostgreSQL URL with its password redacted.
 *
 * @param kind The store kind.
 * @param flags `--session-dir` (jsonl) or `--store-url`.
 * @param pantoHome panto's home directory, for the defaults.
 * @returns The location, for messages and the migration fence.
 */
export function storeLocation(kind: StoreKind, flags: StoreFlags, pantoHome: string): string {
  switch (kind) {
    case "jsonl":
      return flags.sessionDir ?? join(pantoHome, "sessions");
    case "sqlite":
      return flags.storeUrl ?? join(pantoHome, "sessions.db");
    case "postgres":
      return redactUrl(flags.storeUrl ?? "");
  }
}

/**
 * A failure of the store itself (a sessions directory that is a file, a
 * database that refuses connections) as a usage error with the flags that
 * fix it; errors about one session (not found, corrupt, in use) and any
 * other error are returned as they are.
 *
 * @param flags The store flags.
 * @param error What a store operation threw.
 * @returns The error to throw.
 */
export function storeFailureAsUsage(flags: StoreFlags, error: unknown): unknown {
  if (!(error instanceof SessionStoreError) || error.constructor !== SessionStoreError) {
    return error;
  }
  return storeUsageError(flags.store ?? "jsonl", error);
}

/** A store's own complaint plus the flags that fix it; anything else is a bug and stays as it is. */
function storeUsageError(kind: StoreKind, error: unknown): unknown {
  if (!(error instanceof SessionStoreError)) return error;
  // Its message already names the store to use instead.
  if (error instanceof SessionStoreMigratedError) return new UsageError(error.message);
  return new UsageError(`${errorMessage(error).replace(/[.\s]+$/, "")}. To fix: ${FIXES[kind]}`);
}
