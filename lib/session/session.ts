import { Conversation } from "../conversation.ts";
import { summarizeBatch } from "./serialize.ts";
import type { PersistentMessage, SessionInfo, SessionStore } from "./types.ts";

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
   * Loads the stored conversation (or the buffered one for a new session).
   *
   * @returns The conversation.
   */
  async load(): Promise<Conversation> {
    const conversation = await this.store.load(this.info.id);
    if (conversation) return conversation;
    if (!this.#written) {
      return new Conversation(this.#pending.map((p) => structuredClone(p.message)), this.#metadata);
    }
    throw new Error(`Session ${this.info.id} was not found in its store`);
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
    await this.store.appendMessages(this.info.id, batch);
    this.#written = true;
    this.#pending = [];
    this.#updateInfo(batch);
  }

  /** Folds the batch in as the stores do, so `info` matches what `list` will say. */
  #updateInfo(batch: readonly PersistentMessage[]): void {
    const summary = summarizeBatch(batch);
    this.info.messageCount += batch.length;
    this.info.modified = new Date().toISOString();
    if (summary.lastUserMessage !== undefined) this.info.lastUserMessage = summary.lastUserMessage;
    if (summary.wire) this.info.wire = summary.wire;
  }
}
