import { Conversation } from "../conversation.ts";
import type { Message } from "../message.ts";
import { foldSummary, summarizeBatch } from "./serialize.ts";
import {
  newEntryId,
  pathTo,
  resolveTree,
  type StoredTree,
  type TreeNode,
  treeNodes,
} from "./tree.ts";
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
  /** Where the next append goes: an entry, `null` for a new root, `undefined` for the last stored. */
  #leaf: string | null | undefined;

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
    this.#leaf = persisted ? undefined : null;
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
    const tree = await this.#readTree();
    const leaf = this.#leaf === undefined ? tree.leafId : this.#leaf;
    const messages = pathTo(tree.entries, leaf).map((entry) => entry.message);
    if (!this.#written) return { conversation: new Conversation(messages, tree.metadata) };
    const split = splitUnanswered(messages);
    const loaded: LoadedSession = {
      conversation: new Conversation(split.messages, tree.metadata),
    };
    if (split.danglingUser) loaded.danglingUser = split.danglingUser;
    return loaded;
  }

  /**
   * The session's tree: every entry on every branch, the path the next
   * append continues marked active.
   *
   * @example
   * ```ts
   * import { NullStore } from "@panto/lib";
   * const session = new NullStore().create();
   * const { roots, leafId, path } = await session.tree();
   * console.assert(roots.length === 0 && leafId === null && path.length === 0);
   * ```
   *
   * @returns The roots (oldest first), the active leaf, and the ids from a root to it.
   * @throws {Error} When the session was written but its store no longer has it.
   */
  async tree(): Promise<{ roots: TreeNode[]; leafId: string | null; path: string[] }> {
    const tree = await this.#readTree();
    const leafId = this.#leaf === undefined ? tree.leafId : this.#leaf;
    const path = pathTo(tree.entries, leafId).map((entry) => entry.id);
    return { roots: treeNodes(tree.entries, leafId), leafId, path };
  }

  /**
   * The messages stored on other branches than the active path (the entries
   * `/tree` left behind), e.g. to count what the whole session cost.
   *
   * @example
   * ```ts
   * import { NullStore } from "@panto/lib";
   * const session = new NullStore().create();
   * console.assert((await session.messagesOffPath()).length === 0);
   * ```
   *
   * @returns Those messages, in storage order.
   * @throws {Error} When the session was written but its store no longer has it.
   */
  async messagesOffPath(): Promise<Message[]> {
    const tree = await this.#readTree();
    const leafId = this.#leaf === undefined ? tree.leafId : this.#leaf;
    const onPath = new Set(pathTo(tree.entries, leafId).map((entry) => entry.id));
    return tree.entries.filter((entry) => !onPath.has(entry.id)).map((entry) => entry.message);
  }

  /**
   * Moves the active leaf to an earlier entry: the next append continues
   * from it as a new branch, and the entries after it stay in the tree.
   * To edit and resubmit a prompt, branch from the entry before it (its
   * `parentId`; `null` starts a new root) and append the edited prompt.
   * Nothing is written until that append.
   *
   * @example
   * ```ts
   * import { NullStore } from "@panto/lib";
   * const session = new NullStore().create();
   * const { conversation } = await session.branchFrom(null);
   * console.assert(conversation.messages.length === 0);
   * ```
   *
   * @param entryId The entry to continue from, or `null` for a new root.
   * @returns The conversation up to it, as `loadWithDangling` gives it.
   * @throws {Error} When the entry is not in this session.
   */
  async branchFrom(entryId: string | null): Promise<LoadedSession> {
    const tree = await this.#readTree();
    pathTo(tree.entries, entryId);
    this.#leaf = entryId;
    return await this.loadWithDangling();
  }

  /**
   * Labels a stored entry of this session (`null` or `""` removes the
   * label), so `/tree` shows it.
   *
   * @param entryId The entry, an id from its tree.
   * @param label The label.
   * @throws {Error} When the store keeps no labels, or the entry is not stored in this session.
   */
  async setLabel(entryId: string, label: string | null): Promise<void> {
    if (!this.store.setLabel) {
      throw new Error(
        `This session store keeps no labels: use a JSONL, SQLite or PostgreSQL store`,
      );
    }
    await this.store.setLabel(this.info.id, entryId, label);
  }

  /** Every entry, from the store, or (not written yet) from the buffer. */
  async #readTree(): Promise<StoredTree> {
    const stored = this.store.loadTree
      ? await this.store.loadTree(this.info.id)
      : await this.#linearTree();
    if (stored) return stored;
    if (this.#written) throw new Error(`Session ${this.info.id} was not found in its store`);
    const buffered = resolveTree(this.#pending.map((p) => ({
      id: p.id,
      parentId: p.parentId,
      message: structuredClone(p.message),
    })));
    return this.#metadata === undefined ? buffered : { ...buffered, metadata: this.#metadata };
  }

  /** A store without trees: its messages as one chain. */
  async #linearTree(): Promise<StoredTree | null> {
    const conversation = await this.store.load(this.info.id);
    if (!conversation) return null;
    const tree = resolveTree(conversation.messages.map((message) => ({ message })));
    return conversation.metadata === undefined
      ? tree
      : { ...tree, metadata: conversation.metadata };
  }

  /**
   * Appends messages. For a session not yet written, messages are buffered
   * until one of them is an assistant message, then written together.
   *
   * @param messages The messages to append, in order.
   */
  async append(messages: readonly PersistentMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const stamped = this.#stamp(messages);
    let batch: readonly PersistentMessage[] = stamped;
    const before = { pending: this.#pending, leaf: this.#leaf };
    if (!this.#written) {
      this.#pending = [...this.#pending, ...stamped];
      this.#leaf = stamped.at(-1)?.id;
      if (!this.#pending.some((p) => p.message.role === "assistant")) return;
      batch = this.#pending;
    }
    try {
      await this.store.appendMessages(this.info.id, batch, {
        expectedCount: this.info.messageCount,
      });
    } catch (error) {
      // A refused append wrote nothing: the buffer stays what it was, as the agent's memory does.
      this.#pending = before.pending;
      this.#leaf = before.leaf;
      throw error;
    }
    this.#written = true;
    this.#pending = [];
    this.#leaf = batch.at(-1)?.id;
    this.#updateInfo(batch);
  }

  /**
   * Checks, writing nothing, that an append now would not be refused
   * because another writer holds the session or changed it since this
   * handle saw it (`store.checkAppend`); the agent calls it before a run's
   * first request when the run appends nothing first (`continue()`). A
   * session not written yet, or a store without the check, passes.
   *
   * @throws {SessionInUseError} When another writer holds the session.
   * @throws {SessionChangedError} When another writer changed it since.
   */
  async checkAppend(): Promise<void> {
    if (!this.#written) return;
    await this.store.checkAppend?.(this.info.id, { expectedCount: this.info.messageCount });
  }

  /** The messages with entry ids, each continuing the one before, the first the active leaf. */
  #stamp(messages: readonly PersistentMessage[]): PersistentMessage[] {
    let parent = this.#leaf;
    return messages.map((entry) => {
      const stamped: PersistentMessage = { ...entry, id: entry.id ?? newEntryId() };
      if (stamped.parentId === undefined && parent !== undefined) stamped.parentId = parent;
      parent = stamped.id;
      return stamped;
    });
  }

  /**
   * Replaces the stored conversation with `messages` (context surgery,
   * trimming): the next load returns exactly these. They are stored as a new
   * branch from the root (fresh entry ids) and the old entries stay in the
   * tree; an empty replacement deletes every entry. A new session not yet
   * written is written with them.
   *
   * @example Keep an edited conversation
   * ```ts
   * import { NullStore } from "@panto/lib";
   * const session = new NullStore().create();
   * const conversation = await session.load();
   * conversation.addUserMessage("Only this.");
   * await session.replaceConversation(conversation.messages);
   * ```
   *
   * @param messages The whole new conversation, in order: messages (e.g.
   *   `agent.conversation.messages` after surgery), or entries with their
   *   provenance (the wire identity that produced an answer) to keep it.
   * @throws {Error} When the store cannot rewrite history.
   * @throws {SessionChangedError} When another writer changed the session since it was loaded.
   */
  async replaceConversation(
    messages: readonly (Message | PersistentMessage)[],
  ): Promise<void> {
    if (!this.store.replaceConversation) {
      throw new Error(
        `This session store cannot replace a conversation: append to a new session instead`,
      );
    }
    const entries = asEntries(messages);
    await this.store.replaceConversation(this.info.id, entries, {
      expectedCount: this.#written ? this.info.messageCount : 0,
    });
    this.#written = true;
    this.#pending = [];
    this.#leaf = undefined;
    if (entries.length > 0) return this.#updateInfo(entries);
    this.info.messageCount = 0;
    this.info.modified = new Date().toISOString();
    this.info.lastUserMessage = "";
    delete this.info.firstUserMessage;
    delete this.info.wire;
    delete this.info.state;
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
    this.info.modified = new Date().toISOString();
    foldSummary(this.info, summary);
  }
}

/** Messages as the entries a store takes; entries given as such are kept as they are. */
function asEntries(messages: readonly (Message | PersistentMessage)[]): PersistentMessage[] {
  const conversation = messages.map((m) => "message" in m ? m.message : m);
  return messages.map((m, index) => {
    if ("message" in m) return m;
    const entry: PersistentMessage = {
      message: conversation[index]!,
      conversation,
      toolsAvailable: [],
    };
    if (m.usage) entry.usage = m.usage;
    return entry;
  });
}
