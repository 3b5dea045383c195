import { Conversation } from "../conversation.ts";
import { summarizeBatch } from "./serialize.ts";
import type { LoadedSession, PersistentMessage, SessionInfo, SessionStore } from "./types.ts";
import { splitUnanswered } from "./unanswered.ts";

/**
 * A session: its info plus the store it lives in. A session made by
 * `store.create()` buffers appends until the first assistant message, so an
 * abandoned prompt leaves no file or row behind.
 *
 * @example Create and append through a store
 * ```ts
 * import { NullStore } from "@panto/lib";
 * const session = new NullStore().create();
 * console.assert(session.info.messageCount === 0);
 * ```
 */
export class Session {
  /** What is known about the session; `append` keeps it current. */
  readonly info: SessionInfo;
  /** The store it lives in. */
  readonly store: SessionStore;
  #pending: PersistentMessage[] = [];
  #written: boolean;
  #metadata: string | undefined;

  /**
   * Wraps an info record. Stores call this; embedders use `store.create()`,
   * `store.resolve()` or `store.latest()`.
   *
   * @param info The session's info.
   * @param store The store it lives in.
   * @param persisted False for a new session that has not been written yet.
   * @param metadata A new session's conversation metadata, for `load` before the first write.
   */
  constructor(info: SessionInfo, store: SessionStore, persisted = true, metadata?: string) {
    this.info = info;
    this.store = store;
    this.#written = persisted;
    this.#metadata = metadata;
  }

  /** The session id. */
  get id(): string {
    return this.info.id;
  }

  /** Whether anything has been written for this session. */
  get persisted(): boolean {
    return this.#written;
  }

  /**
   * Loads the conversation to resume, without prompts that were never
   * answered: see {@linkcode Session.loadWithDangling} for the trailing one.
   * A new session not written yet gives its buffered messages as they are.
   *
   * @returns The conversation.
   */
  async load(): Promise<Conversation> {
    return (await this.loadWithDangling()).conversation;
  }

  /**
   * Loads the conversation to resume and, apart from it, the prompt left
   * dangling at its end: submitted, then no answer (a crash or a quit). An
   * earlier unanswered prompt, followed by another prompt, was abandoned
   * and is in neither. The store keeps every message (`store.load`). A new
   * session not written yet has nothing dangling: its buffered messages
   * are its conversation.
   *
   * @returns The conversation and the dangling prompt.
   * @throws {Error} When the session was written but its store no longer has it.
   */
  async loadWithDangling(): Promise<LoadedSession> {
    const stored = await this.store.load(this.info.id);
    if (stored) {
      const split = splitUnanswered(stored.messages);
      const loaded: LoadedSession = {
        conversation: new Conversation(split.messages, stored.metadata),
      };
      if (split.danglingUser) loaded.danglingUser = split.danglingUser;
      return loaded;
    }
    if (this.#written) throw new Error(`Session ${this.info.id} was not found in its store`);
    const buffered = this.#pending.map((p) => structuredClone(p.message));
    return { conversation: new Conversation(buffered, this.#metadata) };
  }

  /**
   * Appends messages. For a session not yet written, messages are buffered
   * until one of them is an assistant message, then written together.
   *
   * @param messages The messages to append, in order.
   */
  async append(messages: readonly PersistentMessage[]): Promise<void> {
    if (messages.length === 0) return;
    let batch: readonly PersistentMessage[] = messages;
    if (!this.#written) {
      this.#pending.push(...messages);
      if (!this.#pending.some((p) => p.message.role === "assistant")) return;
      batch = this.#pending;
    }
    await this.store.appendMessages(this.info.id, batch, {
      expectedCount: this.info.messageCount,
    });
    this.#written = true;
    this.#pending = [];
    this.#updateInfo(batch);
  }

  /**
   * Replaces the stored conversation with `messages` (context surgery,
   * trimming): the next load returns exactly these. A new session not yet
   * written is written with them.
   *
   * @param messages The whole new conversation, in order.
   * @throws {Error} When the store cannot rewrite history.
   * @throws {SessionChangedError} When another writer changed the session since it was loaded.
   */
  async replaceConversation(messages: readonly PersistentMessage[]): Promise<void> {
    if (!this.store.replaceConversation) {
      throw new Error(
        `This session store cannot replace a conversation: append to a new session instead`,
      );
    }
    await this.store.replaceConversation(this.info.id, messages, {
      expectedCount: this.#written ? this.info.messageCount : 0,
    });
    this.#written = true;
    this.#pending = [];
    const summary = summarizeBatch(messages);
    this.info.messageCount = messages.length;
    this.info.modified = new Date().toISOString();
    this.info.lastUserMessage = summary.lastUserMessage ?? "";
    if (summary.wire) this.info.wire = summary.wire;
    else delete this.info.wire;
    if (summary.state) this.info.state = summary.state;
    else delete this.info.state;
  }

  /**
   * Lets go of the session in its store (lock and open files), for a
   * long-lived store done with it; appending again takes it again.
   */
  async release(): Promise<void> {
    await this.store.release?.(this.info.id);
  }

  /** Folds the batch in as the stores do, so `info` matches what `list` will say. */
  #updateInfo(batch: readonly PersistentMessage[]): void {
    const summary = summarizeBatch(batch, {
      state: this.info.state,
      count: this.info.messageCount,
    });
    this.info.messageCount += batch.length;
    if (summary.state) this.info.state = summary.state;
    this.info.modified = new Date().toISOString();
    if (summary.lastUserMessage !== undefined) this.info.lastUserMessage = summary.lastUserMessage;
    if (summary.wire) this.info.wire = summary.wire;
  }
}
