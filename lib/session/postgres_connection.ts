// The PostgreSQL store's connection: a client given or opened on first use
// (postgres.js loads only then), the schema migrated before first use, and
// errors that never show the URL or its password.
import type postgres from "postgres";
import { errorMessage } from "../error_message.ts";
import { SessionStoreError } from "./errors.ts";
import type { PostgresStoreOptions } from "./postgres_store.ts";
import { migrateOnce } from "./postgres_schema.ts";
import { loadRecordSchemas } from "./record_schemas.ts";
import { redactUrl } from "./redact_url.ts";

/**
 * A PostgreSQL store's client, from a URL or given.
 *
 * @example
 * ```ts
 * import { PostgresConnection } from "./postgres_connection.ts";
 * const db = new PostgresConnection({ url: "postgres://app:hunter2@db.internal/app" });
 * console.assert(!db.location.includes("hunter2"));
 * console.assert(!db.scrubbed(new Error("bad password hunter2")).message.includes("hunter2"));
 * ```
 */
export class PostgresConnection {
  /** The database, for messages: the URL without its password. */
  readonly location: string;
  /** The client: given, or made on first use. */
  #client: postgres.Sql | undefined;
  readonly #connect: () => Promise<postgres.Sql>;
  readonly #ownsClient: boolean;
  #opening: Promise<postgres.Sql> | undefined;
  /** Text that must not appear in messages: the URL as given and its password. */
  readonly #secrets: string[];

  /**
   * Nothing connects until first use.
   *
   * @param options A URL or a client, and the pool's size.
   * @throws {Error} When given neither a URL nor a client.
   */
  constructor(options: PostgresStoreOptions) {
    if (!options.client && options.url === undefined) {
      throw new Error("PostgresStore needs a url (postgres://user@host/db) or a client");
    }
    this.#ownsClient = !options.client;
    this.#client = options.client;
    const url = options.url!;
    this.location = options.client ? "the given PostgreSQL client" : redactUrl(url);
    this.#secrets = options.client ? [] : [url, ...urlPassword(url)];
    const max = options.maxConnections ?? 4;
    // postgres.js loads on first use: most runs never touch PostgreSQL.
    this.#connect = async () => {
      const { default: connect } = await import("postgres");
      return connect(url, { max, onnotice: () => {} });
    };
  }

  /**
   * The client, after the schema is migrated (and with the record schemas
   * loaded, so rows can be decoded).
   *
   * @returns The client.
   * @throws {SessionStoreError} When the server cannot be reached or migrated.
   */
  async ready(): Promise<postgres.Sql> {
    await loadRecordSchemas();
    try {
      const sql = await this.client();
      await migrateOnce(sql);
      return sql;
    } catch (error) {
      if (error instanceof SessionStoreError) throw error;
      throw new SessionStoreError(
        `Session database ${this.location} could not be used: ${this.scrubbed(error).message}`,
        { cause: error },
      );
    }
  }

  /** @returns The client, connecting the first time. */
  async client(): Promise<postgres.Sql> {
    if (this.#client) return this.#client;
    this.#opening ??= this.#connect();
    this.#client = await this.#opening;
    return this.#client;
  }

  /**
   * The error with the URL and password replaced (a store error of ours is already clean).
   *
   * @param error What was thrown.
   * @returns An error safe to show.
   */
  scrubbed(error: unknown): Error {
    if (error instanceof SessionStoreError) return error;
    let text = errorMessage(error);
    for (const secret of this.#secrets) text = text.replaceAll(secret, "***");
    return new Error(text);
  }

  /** Ends the connection pool, if it was opened from the URL (a given client is left open). */
  async end(): Promise<void> {
    if (!this.#ownsClient) return;
    const client = this.#client ?? await this.#opening?.catch(() => undefined);
    await client?.end({ timeout: 5 });
  }
}

/** The URL's password (decoded), when it has one. */
function urlPassword(url: string): string[] {
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password ? [password] : [];
  } catch {
    return [];
  }
}
