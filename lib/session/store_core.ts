// What the JSONL, SQLite and PostgreSQL stores do alike around their own
// storage: sessions created and not written yet, the closed state, the
// checks an append or a replacement starts with, and the methods made of
// the store's other methods (latest, fork, export). Each store holds one.
import type { Conversation } from "../conversation.ts";
import { AmbiguousSessionIdError, SessionNotFoundError } from "./errors.ts";
import { checkSessionId } from "./ids.ts";
import { exportMarkdown } from "./markdown_export.ts";
import { OwnerView, type ScopableStore } from "./owner_view.ts";
import { Session } from "./session.ts";
import { addPending, type PendingSession, saveFailure } from "./store_common.ts";
import { activeConversation, forkSession, replacementBranch } from "./tree_store.ts";
import type {
  AppendOptions,
  CreateSessionOptions,
  PersistentMessage,
  SessionInfo,
} from "./types.ts";

/** How many ids an ambiguous prefix's error names. */
export const AMBIGUITY_SHOWN = 5;

/** What an append or a replacement asks the store to write. */
export interface BatchWrite {
  /** The entries to store: the appended messages, or the replacement's new branch. */
  messages: readonly PersistentMessage[];
  /** The message count the writer expects (`undefined`: no check). */
  expectedCount: number | undefined;
  /** When they count as written (`undefined`: now). */
  writtenAt: string | undefined;
  /** Whether it replaces the conversation (with no messages: leaves none). */
  replaces: boolean;
}

/** How a store's core writes a batch, and names the store in errors. */
export interface StoreCoreOptions {
  /** The directory, file or database (credentials redacted), for not-found errors and forks. */
  location: string;
  /** The store's write of an append's or a replacement's batch to a session. */
  write: (sessionId: string, batch: BatchWrite) => Promise<void>;
  /** Where a batch is saved, for "Could not save the session to …" (default `location`). */
  saveLocation?: (sessionId: string) => string;
  /** Whether "store is closed" names `location` (default true). */
  closedNamesLocation?: boolean;
  /** What a failed write's error is reported as (default as it is): credentials scrubbed. */
  scrub?: (error: unknown) => unknown;
}

/**
 * The part of a built-in store that is the same for every one of them:
 * it keeps the sessions created and not yet written, refuses calls once
 * the store is closed, and runs the shared halves of `create`, `forOwner`,
 * `latest`, `fork`, `export`, `appendMessages` and `replaceConversation`
 * around the store's own reads and writes.
 *
 * @example
 * ```ts ignore
 * import { StoreCore } from "./store_core.ts";
 * class MyStore {
 *   #core = new StoreCore(this, { location: "my store", write: (id, batch) => this.#write(id, batch) });
 *   appendMessages(sessionId, messages, options = {}) {
 *     return this.#core.append(sessionId, messages, options);
 *   }
 * }
 * ```
 */
export class StoreCore {
  /** The sessions created and not written yet, by id. */
  readonly pending = new Map<string, PendingSession>();
  readonly #store: ScopableStore;
  readonly #options: StoreCoreOptions;
  #closed = false;

  /**
   * @param store The store this is the core of.
   * @param options How errors name the store.
   */
  constructor(store: ScopableStore, options: StoreCoreOptions) {
    this.#store = store;
    this.#options = options;
  }

  /** The store's location, for errors. */
  get location(): string {
    return this.#options.location;
  }

  /** Whether the store was closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Marks the store closed.
   *
   * @returns Whether it was open (a second close has nothing to do).
   */
  close(): boolean {
    const wasOpen = !this.#closed;
    this.#closed = true;
    return wasOpen;
  }

  /**
   * Refuses a call on a closed store.
   *
   * @throws {Error} Naming the store, once it is closed.
   */
  assertOpen(): void {
    if (!this.#closed) return;
    const at = this.#options.closedNamesLocation === false ? "" : ` at ${this.location}`;
    throw new Error(`The session store${at} is closed`);
  }

  /**
   * A new session handle, pending until its first write.
   *
   * @param options `create`'s options.
   * @returns The session.
   */
  create(options: CreateSessionOptions): Session {
    this.assertOpen();
    return new Session(addPending(this.pending, options), this.#store, false, options.metadata);
  }

  /**
   * One owner's view of the store.
   *
   * @param ownerId The owner.
   * @returns The view.
   */
  forOwner(ownerId: string): OwnerView {
    return new OwnerView(this.#store, ownerId);
  }

  /**
   * The owner of a session created and not written yet.
   *
   * @param id The session id.
   * @returns Its owner (`undefined`: none), or `null` when no such session is pending.
   */
  pendingOwner(id: string): string | undefined | null {
    const pending = this.pending.get(id);
    return pending ? pending.ownerId : null;
  }

  /**
   * Names a session created and not written yet (its first write records the name).
   *
   * @param id The session id.
   * @param name The name.
   * @throws {SessionNotFoundError} When no such session is pending.
   */
  renamePending(id: string, name: string): void {
    const pending = this.pending.get(id);
    if (!pending) throw new SessionNotFoundError(id, this.location);
    pending.name = name;
  }

  /**
   * The error that a prefix matches several sessions.
   *
   * @param prefix The prefix.
   * @param ids The matching ids, sorted (only the first few are named).
   * @param total How many match in all.
   * @returns The error to throw.
   */
  ambiguous(prefix: string, ids: readonly string[], total: number): AmbiguousSessionIdError {
    return new AmbiguousSessionIdError(prefix, ids.slice(0, AMBIGUITY_SHOWN), total);
  }

  /**
   * The most recently modified session.
   *
   * @returns It, or `null` when there are none.
   */
  async latest(): Promise<Session | null> {
    const [info] = await this.#store.list({ limit: 1 });
    return info ? new Session(info, this.#store) : null;
  }

  /**
   * The conversation on the active path of the session's stored tree.
   *
   * @param id The session id.
   * @returns It, or `null` for an unknown id.
   */
  async load(id: string): Promise<Conversation | null> {
    const tree = await this.#store.loadTree(id);
    return tree ? activeConversation(tree) : null;
  }

  /**
   * A new session holding the path from a root to `entryId`.
   *
   * @param id The session to fork.
   * @param entryId The last entry to copy.
   * @returns The new session.
   */
  fork(id: string, entryId: string): Promise<Session> {
    return forkSession(this.#store, id, entryId, this.location);
  }

  /**
   * The session as Markdown, with the list entry `infoOf` gives.
   *
   * @param id The session.
   * @param infoOf Its list entry, as the store reads it.
   * @returns The document.
   * @throws {SessionNotFoundError} When there is no such session.
   */
  async export(id: string, infoOf: (id: string) => Promise<SessionInfo | null>): Promise<string> {
    const conversation = await this.#store.load(id);
    const info = await infoOf(id);
    if (!conversation || !info) throw new SessionNotFoundError(id, this.location);
    return exportMarkdown(info, conversation);
  }

  /**
   * Appends through the store's write (nothing for no messages).
   *
   * @param sessionId The session.
   * @param messages The messages, in order.
   * @param options The expected count and the time written.
   * @throws {SessionStoreError} "Could not save the session to …", or the store's own error.
   */
  async append(
    sessionId: string,
    messages: readonly PersistentMessage[],
    options: AppendOptions,
  ): Promise<void> {
    this.assertOpen();
    checkSessionId(sessionId);
    if (messages.length === 0) return;
    const { expectedCount, writtenAt } = options;
    await this.#save(sessionId, { messages, expectedCount, writtenAt, replaces: false });
  }

  /**
   * Replaces the conversation through the store's write, the messages
   * stored as a new branch from the root (written now: a replacement keeps
   * no source's times).
   *
   * @param sessionId The session.
   * @param messages The whole new conversation.
   * @param expectedCount The message count the writer expects (`undefined`: no check).
   * @throws {SessionStoreError} "Could not save the session to …", or the store's own error.
   */
  async replace(
    sessionId: string,
    messages: readonly PersistentMessage[],
    expectedCount: number | undefined,
  ): Promise<void> {
    this.assertOpen();
    checkSessionId(sessionId);
    const branch = replacementBranch(messages);
    await this.#save(sessionId, {
      messages: branch,
      expectedCount,
      writtenAt: undefined,
      replaces: true,
    });
  }

  /** Runs a batch's write, naming where the save failed; the session is no longer pending after. */
  async #save(sessionId: string, batch: BatchWrite): Promise<void> {
    try {
      await this.#options.write(sessionId, batch);
    } catch (error) {
      const location = this.#options.saveLocation?.(sessionId) ?? this.location;
      throw saveFailure(this.#options.scrub?.(error) ?? error, location);
    }
    this.pending.delete(sessionId);
  }
}
