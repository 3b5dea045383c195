// One owner's capability over a shared store: the same checks for the JSONL,
// SQLite and PostgreSQL stores, so no store re-implements them.
import type { Conversation } from "../conversation.ts";
import { SessionNotFoundError } from "./errors.ts";
import { checkSessionId } from "./ids.ts";
import { Session } from "./session.ts";
import type { StoredTree } from "./tree.ts";
import type {
  AppendOptions,
  CreateSessionOptions,
  ListSessionsOptions,
  PersistentMessage,
  ResolveOptions,
  SavingSessionStore,
  SearchHit,
  SearchOptions,
  SessionInfo,
  SessionStore,
} from "./types.ts";

/**
 * What a store lends an owner view: every per-session method, `list`,
 * `search` and `resolve` that filter on an owner, and the owner of one id.
 */
export type ScopableStore =
  & SavingSessionStore
  & {
    /**
     * The owner of session `id`, stored or created and not written yet:
     * `undefined` when it has none, `null` when there is no such session.
     */
    ownerOf(id: string): Promise<string | undefined | null>;
  };

/**
 * One owner's view of a store (`store.forOwner(id)`): through it nothing
 * can read, list, search, resolve, write, label, fork, rename, delete or
 * export another owner's session (another owner's session is "not found",
 * and errors name only this owner's ids). It has no store-wide
 * administration (no migration fence, no `drainWriters`, no repair, no
 * `forOwner`), so it is no migration source; sessions it opens keep it as
 * their store. Closing it lets go of the sessions it wrote and leaves the
 * store open. The unscoped store is what an administrator holds.
 *
 * @example
 * ```ts
 * import { SQLiteStore } from "@panto/lib/sqlite";
 * const store = new SQLiteStore({ path: ":memory:" });
 * const alice = store.forOwner("alice");
 * const session = alice.create();
 * console.assert(session.store === alice && session.info.ownerId === "alice");
 * console.assert((await alice.list()).length === 0);
 * await store.close();
 * ```
 */
export class OwnerView implements SessionStore {
  /** The owner this view is scoped to. */
  readonly ownerId: string;
  readonly #store: ScopableStore;
  /** Sessions written through this view, let go of on close. */
  readonly #written = new Set<string>();
  #closed = false;

  /**
   * Scopes `store` to `ownerId`; stores call this from `forOwner`.
   *
   * @param store The unscoped store.
   * @param ownerId The owner (not empty).
   * @throws {Error} When `ownerId` is empty.
   */
  constructor(store: ScopableStore, ownerId: string) {
    if (ownerId === "") throw new Error(`An owner id is empty: name the owner to scope to`);
    this.#store = store;
    this.ownerId = ownerId;
  }

  /**
   * A new session of this owner; nothing is written until the first assistant message.
   *
   * @param options As for the store; `ownerId`, when given, must be this view's.
   * @returns The session, whose store is this view.
   * @throws {Error} When `ownerId` names another owner.
   */
  create(options: CreateSessionOptions = {}): Session {
    this.#scoped(options.ownerId, "create sessions for");
    const draft = this.#store.create({ ...options, ownerId: this.ownerId });
    return new Session(draft.info, this, false, options.metadata);
  }

  /**
   * This owner's sessions, newest modified first.
   *
   * @param options How many; `ownerId`, when given, must be this view's.
   * @returns The sessions.
   * @throws {Error} When `ownerId` names another owner.
   */
  list(options: ListSessionsOptions = {}): Promise<SessionInfo[]> {
    this.#scoped(options.ownerId, "list the sessions of");
    return this.#store.list({ ...options, ownerId: this.ownerId });
  }

  /**
   * This owner's session whose id is, or starts with, `idOrPrefix`.
   *
   * @param idOrPrefix An id or a prefix of one.
   * @param options `ownerId`, when given, must be this view's.
   * @returns The session, or `null` when none of this owner's matches.
   * @throws {AmbiguousSessionIdError} When several of this owner's match (naming only those).
   * @throws {Error} When `ownerId` names another owner.
   */
  async resolve(idOrPrefix: string, options: ResolveOptions = {}): Promise<Session | null> {
    this.#scoped(options.ownerId, "resolve the sessions of");
    return this.#adopt(await this.#store.resolve(idOrPrefix, { ownerId: this.ownerId }));
  }

  /**
   * This owner's most recently modified session.
   *
   * @returns It, or `null` when there are none.
   */
  async latest(): Promise<Session | null> {
    const [info] = await this.list({ limit: 1 });
    return info ? new Session(info, this) : null;
  }

  /**
   * The conversation on the active path.
   *
   * @param id The session id.
   * @returns It, or `null` for an unknown id or another owner's session.
   */
  async load(id: string): Promise<Conversation | null> {
    return await this.#owns(id) ? await this.#store.load(id) : null;
  }

  /**
   * Every entry of the session's tree.
   *
   * @param id The session id.
   * @returns It, or `null` for an unknown id or another owner's session.
   */
  async loadTree(id: string): Promise<StoredTree | null> {
    return await this.#owns(id) ? await this.#store.loadTree(id) : null;
  }

  /**
   * A new session of this owner holding the path from a root to `entryId`.
   *
   * @param id The session to fork (this owner's).
   * @param entryId The last entry to copy.
   * @returns The new session, whose store is this view.
   * @throws {SessionNotFoundError} For an unknown id or another owner's session.
   */
  async fork(id: string, entryId: string): Promise<Session> {
    await this.#require(id);
    const fork = await this.#store.fork(id, entryId);
    this.#written.add(fork.id);
    return new Session(fork.info, this);
  }

  /**
   * Appends to this owner's session, as the store does.
   *
   * @param sessionId The session.
   * @param messages The messages, in order.
   * @param options As for the store.
   * @throws {SessionNotFoundError} For an unknown id or another owner's session.
   */
  async appendMessages(
    sessionId: string,
    messages: readonly PersistentMessage[],
    options?: AppendOptions,
  ): Promise<void> {
    await this.#store.appendMessages(await this.#writing(sessionId), messages, options);
  }

  /**
   * Checks, writing nothing, that an append to this owner's session would
   * not be refused, as the store does.
   *
   * @param sessionId The session.
   * @param options As for the store.
   * @throws {SessionNotFoundError} For an unknown id or another owner's session.
   */
  async checkAppend(sessionId: string, options?: AppendOptions): Promise<void> {
    await this.#require(sessionId);
    await this.#store.checkAppend(sessionId, options);
  }

  /**
   * Replaces this owner's session's conversation, as the store does.
   *
   * @param sessionId The session.
   * @param messages The whole new conversation.
   * @param options As for the store.
   * @throws {SessionNotFoundError} For an unknown id or another owner's session.
   */
  async replaceConversation(
    sessionId: string,
    messages: readonly PersistentMessage[],
    options?: AppendOptions,
  ): Promise<void> {
    await this.#store.replaceConversation(await this.#writing(sessionId), messages, options);
  }

  /**
   * Labels an entry of this owner's session.
   *
   * @param id The session.
   * @param entryId The entry.
   * @param label The label (`null` or `""`: none).
   * @throws {SessionNotFoundError} For an unknown id or another owner's session.
   */
  async setLabel(id: string, entryId: string, label: string | null): Promise<void> {
    await this.#require(id);
    await this.#store.setLabel(id, entryId, label);
  }

  /**
   * Hits in this owner's sessions only.
   *
   * @param query The text to find.
   * @param options How many; `ownerId`, when given, must be this view's.
   * @returns The hits.
   * @throws {Error} When `ownerId` names another owner.
   */
  search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    this.#scoped(options.ownerId, "search the sessions of");
    const limit = options.limit === undefined ? {} : { limit: options.limit };
    return this.#store.search(query, { ...limit, ownerId: this.ownerId });
  }

  /**
   * Names this owner's session.
   *
   * @param id The session.
   * @param name The name (`""` clears it).
   * @throws {SessionNotFoundError} For an unknown id or another owner's session.
   */
  async rename(id: string, name: string): Promise<void> {
    await this.#require(id);
    await this.#store.rename(id, name);
  }

  /**
   * Deletes this owner's session.
   *
   * @param id The session.
   * @throws {SessionNotFoundError} For an unknown id or another owner's session.
   */
  async delete(id: string): Promise<void> {
    await this.#require(id);
    await this.#store.delete(id);
    this.#written.delete(id);
  }

  /**
   * This owner's session as Markdown.
   *
   * @param id The session.
   * @returns The document.
   * @throws {SessionNotFoundError} For an unknown id or another owner's session.
   */
  async export(id: string): Promise<string> {
    await this.#require(id);
    return await this.#store.export(id);
  }

  /**
   * Lets go of this owner's session in the store.
   *
   * @param id The session.
   * @throws {SessionNotFoundError} For an unknown id or another owner's session.
   */
  async release(id: string): Promise<void> {
    await this.#require(id);
    await this.#store.release(id);
  }

  /**
   * Checks that the store can save sessions.
   *
   * @throws {SessionStoreError} Naming the location and the cause.
   */
  checkWritable(): Promise<void> {
    this.#assertOpen();
    return this.#store.checkWritable();
  }

  /** Lets go of the sessions written through this view; the store stays open. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled([...this.#written].map((id) => this.#store.release(id)));
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error(`The session store view of owner ${this.ownerId} is closed`);
  }

  /**
   * Refuses, naming the fix, an `ownerId` option naming another owner: a
   * view never reaches another owner's sessions, and silently answering
   * for its own instead would mislead.
   */
  #scoped(ownerId: string | undefined, action: string): void {
    this.#assertOpen();
    if (ownerId === undefined || ownerId === this.ownerId) return;
    throw new Error(
      `This store is scoped to owner ${this.ownerId}; it cannot ${action} ${ownerId}: ` +
        `use the unscoped store (an administrator's) or that owner's view`,
    );
  }

  /** Whether session `id` exists and is this owner's. */
  async #owns(id: string): Promise<boolean> {
    this.#assertOpen();
    checkSessionId(id);
    return await this.#store.ownerOf(id) === this.ownerId;
  }

  /** Refuses an unknown id, or another owner's, as not found in this owner's sessions. */
  async #require(id: string): Promise<void> {
    if (!await this.#owns(id)) {
      throw new SessionNotFoundError(id, `the sessions of owner ${this.ownerId}`);
    }
  }

  /** Session `id`, checked as this owner's and recorded as written through this view. */
  async #writing(id: string): Promise<string> {
    await this.#require(id);
    this.#written.add(id);
    return id;
  }

  /** A session the store opened, re-opened with this view as its store. */
  #adopt(session: Session | null): Session | null {
    return session ? new Session(session.info, this) : null;
  }
}
