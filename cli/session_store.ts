import { join } from "node:path";
import {
  FileSystemJSONLStore,
  NullStore,
  PostgresStore,
  type SessionStore,
  SQLiteStore,
} from "@panto/lib";
import { UsageError } from "./errors.ts";

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

/**
 * Opens the session store the flags ask for. Defaults: JSONL files under
 * `$PANTO_HOME/sessions`; SQLite at `$PANTO_HOME/sessions.db`.
 *
 * @param flags The store flags.
 * @param pantoHome panto's home directory.
 * @returns The store (close it when done: it holds locks and connections).
 * @throws {UsageError} When postgres is chosen without a URL, or a URL is given for jsonl.
 */
export function openStore(flags: StoreFlags, pantoHome: string): SessionStore {
  if (flags.noSession) return new NullStore();
  const kind = flags.store ?? "jsonl";
  switch (kind) {
    case "jsonl":
      if (flags.storeUrl) {
        throw new UsageError(
          "--store-url is for sqlite and postgres stores: use --session-dir DIR for jsonl",
        );
      }
      return new FileSystemJSONLStore({ dir: flags.sessionDir ?? join(pantoHome, "sessions") });
    case "sqlite":
      return new SQLiteStore({ path: flags.storeUrl ?? join(pantoHome, "sessions.db") });
    case "postgres":
      if (!flags.storeUrl?.match(/^postgres(ql)?:\/\//)) {
        throw new UsageError(
          `--store postgres needs --store-url postgres://user:password@host:5432/database${
            flags.storeUrl ? ` (got ${JSON.stringify(redactUrl(flags.storeUrl))})` : ""
          }`,
        );
      }
      return new PostgresStore({ url: flags.storeUrl });
  }
}

/**
 * A URL with its password replaced, for messages.
 *
 * @param url A connection URL.
 * @returns The URL with `***` in place of the password.
 *
 * @example
 * ```ts
 * import { redactUrl } from "./session_store.ts";
 * console.assert(redactUrl("postgres://app:s3cret@db/app") === "postgres://app:***@db/app");
 * ```
 */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@/]*@/, "$1***@");
}
