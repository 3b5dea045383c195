// What the file, SQLite and PostgreSQL stores do alike: drafting a session
// before its first write, refusing a writer with a stale view, and naming
// where a save failed.
import { errorMessage } from "../error_message.ts";
import { SessionChangedError, SessionStoreError } from "./errors.ts";
import { checkSessionId, newSessionId } from "./ids.ts";
import type { CreateSessionOptions, SessionInfo } from "./types.ts";

/** A session not written yet: what `create` was told, kept for its first write. */
export interface PendingSession {
  /** When `create` ran (ISO 8601). */
  created: string;
  /** The working directory `create` was given. */
  cwd?: string;
  /** The conversation metadata `create` was given. */
  metadata?: string;
  /** A name given before the first write. */
  name?: string;
  /** The owner `create` was given. */
  ownerId?: string;
  /** The session it was forked from. */
  parentSessionId?: string;
}

/**
 * The list entry of a session with no messages yet.
 *
 * @example
 * ```ts
 * import { emptySessionInfo } from "./store_common.ts";
 * const info = emptySessionInfo("0190-example", "2025-01-01T00:00:00.000Z");
 * console.assert(info.messageCount === 0 && info.modified === info.created);
 * ```
 *
 * @param id The session id.
 * @param created When it was created (ISO 8601); also its modification time.
 * @returns The entry.
 */
export function emptySessionInfo(id: string, created: string): SessionInfo {
  return { id, created, modified: created, messageCount: 0, lastUserMessage: "" };
}

/**
 * A new session's pending record and list entry, from `create`'s options
 * (a fresh id, created now, unless the options name them).
 *
 * @example
 * ```ts
 * import { draftSession } from "./store_common.ts";
 * const { pending, info } = draftSession({ cwd: "/work" });
 * console.assert(pending.cwd === "/work" && info.cwd === "/work");
 * ```
 *
 * @param options The working directory, metadata and owner to keep.
 * @returns The pending record (for the first write) and the entry (for the handle).
 */
export function draftSession(
  options: CreateSessionOptions,
): { pending: PendingSession; info: SessionInfo } {
  const created = options.created ?? new Date().toISOString();
  const pending: PendingSession = { created };
  const id = options.id === undefined ? newSessionId() : checkSessionId(options.id);
  const info = emptySessionInfo(id, created);
  if (options.cwd !== undefined) pending.cwd = info.cwd = options.cwd;
  if (options.metadata !== undefined) pending.metadata = options.metadata;
  if (options.ownerId !== undefined) pending.ownerId = info.ownerId = options.ownerId;
  if (options.parentSessionId !== undefined) {
    pending.parentSessionId = info.parentSessionId = options.parentSessionId;
  }
  return { pending, info };
}

/**
 * Drafts a new session (as {@linkcode draftSession}) and records it as
 * pending in `pending`, refusing an id already pending there: a second
 * `create` with that id must not take over the first one's owner or name.
 *
 * @example
 * ```ts
 * import { addPending, type PendingSession } from "./store_common.ts";
 * const pending = new Map<string, PendingSession>();
 * const info = addPending(pending, { ownerId: "alice" });
 * console.assert(pending.get(info.id)?.ownerId === "alice");
 * ```
 *
 * @param pending The store's sessions not written yet.
 * @param options `create`'s options.
 * @returns The new session's list entry.
 * @throws {Error} When `options.id` is already pending.
 */
export function addPending(
  pending: Map<string, PendingSession>,
  options: CreateSessionOptions,
): SessionInfo {
  const draft = draftSession(options);
  if (pending.has(draft.info.id)) {
    throw new Error(`Session ${draft.info.id} was already created: give another id, or none`);
  }
  pending.set(draft.info.id, draft.pending);
  return draft.info;
}

/**
 * A store failure while saving, as a {@linkcode SessionStoreError} naming
 * where the session was being saved; a store error passes through as it is.
 *
 * @example
 * ```ts
 * import { saveFailure } from "./store_common.ts";
 * const error = saveFailure(new Error("No space left on device"), "/s/a.jsonl");
 * console.assert(error.message === "Could not save the session to /s/a.jsonl: No space left on device");
 * ```
 *
 * @param error What the write threw.
 * @param location The file or database (credentials redacted).
 * @returns The error to throw.
 */
export function saveFailure(error: unknown, location: string): SessionStoreError {
  if (error instanceof SessionStoreError) return error;
  return new SessionStoreError(
    `Could not save the session to ${location}: ${errorMessage(error)}`,
    {
      cause: error,
    },
  );
}

/**
 * Refuses an append whose writer expected another message count: another
 * writer appended since it loaded the session.
 *
 * @example
 * ```ts
 * import { checkExpectedCount } from "./store_common.ts";
 * checkExpectedCount("abc", undefined, 7); // no expectation: nothing to check
 * checkExpectedCount("abc", 7, 7);
 * ```
 *
 * @param id The session.
 * @param expected What the writer expects (`undefined`: no check).
 * @param found What is stored.
 * @throws {SessionChangedError} When they differ.
 */
export function checkExpectedCount(id: string, expected: number | undefined, found: number): void {
  if (expected !== undefined && expected !== found) {
    throw new SessionChangedError(id, expected, found);
  }
}
