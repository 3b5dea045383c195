// The migration fence (seeds/003): once a store's sessions are being moved
// to another store, the old one refuses writes, naming the new one, so no
// turn lands where nobody will read it again.
import { SessionStoreError } from "./errors.ts";
import { recordSchemas } from "./record_schemas.ts";

/**
 * What a store records when its sessions move to another store.
 *
 * @example
 * ```ts
 * import type { MigrationFence } from "@panto/lib";
 * const fence: MigrationFence = {
 *   target: "sqlite:/home/me/.panto/sessions.db",
 *   since: "2026-01-01T00:00:00.000Z",
 *   done: false,
 * };
 * console.assert(!fence.done);
 * ```
 */
export interface MigrationFence {
  /** The new store, as the user would name it (`sqlite:/path`, a redacted URL, `jsonl:/dir`). */
  target: string;
  /** When the migration started (ISO 8601). */
  since: string;
  /** Whether every session was copied and verified. */
  done: boolean;
}

/**
 * A write to a store whose sessions were moved (or are being moved) to
 * another store: the message names the new one.
 *
 * @example
 * ```ts
 * import { SessionStoreMigratedError } from "@panto/lib";
 * const error = new SessionStoreMigratedError("/s", {
 *   target: "sqlite:/db",
 *   since: "2026-01-01T00:00:00.000Z",
 *   done: true,
 * });
 * console.assert(error.message.includes("sqlite:/db"));
 * ```
 */
export class SessionStoreMigratedError extends SessionStoreError {
  /** The fence that refused the write. */
  readonly fence: MigrationFence;

  /**
   * Creates the error.
   *
   * @param location The old store (directory or redacted database).
   * @param fence Its fence.
   */
  constructor(location: string, fence: MigrationFence) {
    const what = fence.done ? "was migrated" : "is being migrated";
    super(
      `The session store ${location} ${what} to ${fence.target} (since ${fence.since}) and ` +
        `no longer takes writes: use the new store (--store/--store-url), or ` +
        `run \`panto sessions migrate\` again to finish an interrupted migration`,
    );
    this.name = "SessionStoreMigratedError";
    this.fence = fence;
  }
}

/**
 * Decodes a stored fence.
 *
 * @param text Its JSON text.
 * @param where Where it is kept, for the error.
 * @returns The fence.
 * @throws {SessionStoreError} When it is not a fence: writes must not go on past damage.
 */
export function parseFence(text: string, where: string): MigrationFence {
  try {
    return recordSchemas().migrationFenceSchema.parse(JSON.parse(text));
  } catch (error) {
    throw new SessionStoreError(
      `The migration fence in ${where} is damaged (${(error as Error).message}): ` +
        `run \`panto sessions migrate\` again, or remove it if no migration was meant`,
      { cause: error },
    );
  }
}

/**
 * Throws when the store is fenced.
 *
 * @param location The store, for the message.
 * @param fence Its fence, or `null`.
 * @throws {SessionStoreMigratedError} When `fence` is set.
 */
export function refuseIfFenced(location: string, fence: MigrationFence | null): void {
  if (fence) throw new SessionStoreMigratedError(location, fence);
}
