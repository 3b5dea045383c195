import type { ApiName, ReasoningLevel } from "../config.ts";
import type { Conversation } from "../conversation.ts";
import type { Message } from "../message.ts";
import type { ToolDecl } from "../tool.ts";
import type { Usage } from "../usage.ts";
import type { MigrationFence } from "./migration_fence.ts";
import type { Session } from "./session.ts";
import type { StoredTree } from "./tree.ts";

/**
 * The provider identity as seen on the wire: never a config alias, never a
 * key or anything derived from one.
 */
export interface WireIdentity {
  /** Wire protocol. */
  apiStyle: ApiName;
  /** Base URL the request went to, without credentials (user info and query values are `***`). */
  baseUrl: string;
  /** Model name sent to the server. */
  model: string;
  /** Reasoning level requested. */
  reasoning: ReasoningLevel;
}

/**
 * What the agent hands a store on every append: rich on write. A store
 * keeps what it wants; the provenance fields exist for audit stores.
 */
export interface PersistentMessage {
  /** The message being appended (carries its own metadata). */
  message: Message;
  /** Usage, for assistant messages. */
  usage?: Usage;
  /** Who produced it (absent for user-side entries written before any request). */
  wire?: WireIdentity;
  /** Provenance: the whole conversation at write time. */
  conversation: readonly Message[];
  /** Provenance: the tools offered for this turn. */
  toolsAvailable: readonly ToolDecl[];
  /** The entry's id in the session tree (absent: the store numbers it by position). */
  id?: string;
  /**
   * The entry it continues (`null`: a new root). Absent: the entry stored
   * before it, so appending continues the active leaf.
   */
  parentId?: string | null;
}

/**
 * What a session is doing, as its messages say: `running` from a prompt
 * until the answer that ends the turn, `error` after a turn that failed,
 * `idle` otherwise. A `running` session that no writer holds (no lock;
 * on PostgreSQL, no live holder connection) was cut off by a crash or a kill: the
 * built-in stores report it as `interrupted`.
 *
 * @example
 * ```ts
 * import type { SessionState } from "@panto/lib";
 * const state: SessionState = { status: "idle" };
 * console.assert(state.status === "idle");
 * ```
 */
export type SessionState =
  | { status: "idle" }
  | {
    status: "running" | "interrupted";
    /** The turn: the index of the message that started it. */
    turnId: string;
    /** When the turn started (its first message's timestamp). */
    since: string;
    /** What the turn did last: the model answers a prompt or tool results next; tools run after a call. */
    last: "prompt" | "tool_call" | "tool_result";
  }
  | {
    status: "error";
    /** What went wrong, as the failed message says. */
    message: string;
  };

/** What a store tells about one session: minimal on read. */
export interface SessionInfo {
  /** The session id (a UUIDv7 for built-in stores). */
  id: string;
  /** A name the user gave it. */
  name?: string;
  /** ISO time of creation. */
  created: string;
  /** ISO time of the last append. */
  modified: string;
  /** Messages stored (on every branch of the tree). */
  messageCount: number;
  /** The last user message's text, possibly shortened. */
  lastUserMessage: string;
  /**
   * The first stored user message's text, possibly shortened: what the
   * session was started for (`replaceConversation` keeps it, as the old
   * entries stay). Absent before any user text is stored, and from stores
   * that do not keep it.
   */
  firstUserMessage?: string;
  /** The wire identity of the last assistant message. */
  wire?: WireIdentity;
  /** Working directory the session was created in. */
  cwd?: string;
  /** Owner, for multi-user stores. */
  ownerId?: string;
  /** The session this one was forked from (`store.fork`). */
  parentSessionId?: string;
  /** What the session is doing (absent: idle, or written before states were kept). */
  state?: SessionState;
  /**
   * Why the store cannot read the session (a newer format, no permission, a
   * directory in its place), when it cannot: it is listed all the same, and
   * loading it fails with this reason.
   */
  unreadable?: string;
}

/**
 * A session read back for resuming: the conversation, and the prompt that
 * was submitted but never answered (a crash or quit right after submitting).
 * The dangling prompt is not part of the conversation, so a resumed agent
 * never sends it by itself: offer it for editing, or answer it with
 * `Agent.continue()` after pushing it back onto the conversation.
 *
 * @example
 * ```ts
 * import { type LoadedSession, messageText, NullStore } from "@panto/lib";
 * const loaded: LoadedSession = await new NullStore().create().loadWithDangling();
 * console.assert(loaded.danglingUser === undefined || messageText(loaded.danglingUser) !== "");
 * ```
 */
export interface LoadedSession {
  /** The conversation to resume (unanswered prompts left out). */
  conversation: Conversation;
  /** The trailing prompt no answer followed, if any. */
  danglingUser?: Message;
}

/** Options for {@linkcode SessionStore.create}. */
export interface CreateSessionOptions {
  /** Opaque JSON kept as the conversation's metadata. */
  metadata?: string;
  /** Working directory to record. */
  cwd?: string;
  /** Owner id, kept with the session by every built-in store (`list({ ownerId })` filters on it). */
  ownerId?: string;
  /** The session it is forked from, recorded in its info. */
  parentSessionId?: string;
  /** The session id to use instead of a new one (a migration keeps ids); must not exist yet. */
  id?: string;
  /** The creation time to record instead of now (ISO 8601; a migration keeps it). */
  created?: string;
}

/** Options for {@linkcode SessionStore.appendMessages}. */
export interface AppendOptions {
  /**
   * How many messages the writer believes are stored. When the session has
   * another count (another writer appended meanwhile), the append is
   * refused with `SessionChangedError`. `Session.append` always passes it.
   */
  expectedCount?: number;
  /**
   * When the messages count as written (ISO 8601; default now): the
   * session's modification time after the append. A migration passes the
   * source's, so the copy lists as it did.
   */
  writtenAt?: string;
}

/** Options for {@linkcode SessionStore.list}. */
export interface ListSessionsOptions {
  /** Most sessions to return (newest modified first). */
  limit?: number;
  /** Only sessions of this owner (every built-in store filters; none ignores it). */
  ownerId?: string;
}

/** Options for {@linkcode SessionStore.search}. */
export interface SearchOptions {
  /** Most hits to return (default 50). */
  limit?: number;
  /** Only hits in this owner's sessions (every built-in store filters). */
  ownerId?: string;
}

/** Options for {@linkcode SessionStore.resolve}. */
export interface ResolveOptions {
  /**
   * Only this owner's sessions: another owner's session is not found, and
   * an ambiguity error names only this owner's ids (every built-in store scopes).
   */
  ownerId?: string;
}

/** One search match. */
export interface SearchHit {
  /** The session it is in. */
  sessionId: string;
  /** Index of the message within the session. */
  messageIndex: number;
  /** The message's role. */
  role: Message["role"];
  /** A short excerpt around the match. */
  snippet: string;
}

/**
 * Where sessions live. Built-in stores: `NullStore`, `FileSystemJSONLStore`,
 * `SQLiteStore`, `PostgresStore`.
 */
export interface SessionStore {
  /** An in-memory handle for a new session; nothing is written until the first assistant message. */
  create(options?: CreateSessionOptions): Session;
  /** Sessions, newest modified first. */
  list(options?: ListSessionsOptions): Promise<SessionInfo[]>;
  /** The session whose id is, or starts with, `idOrPrefix`; `null` when none; throws when ambiguous. */
  resolve(idOrPrefix: string, options?: ResolveOptions): Promise<Session | null>;
  /** The most recently modified session. */
  latest(): Promise<Session | null>;
  /**
   * The stored messages on the active path (root to the last entry
   * stored), or `null` for an unknown id. `Session.load()` reads through
   * it and leaves unanswered prompts out.
   */
  load(id: string): Promise<Conversation | null>;
  /**
   * Every stored entry with its id and parent, and the active leaf (the
   * last entry stored), or `null` for an unknown id. `load` is the path
   * from a root to that leaf. The built-in stores have it.
   */
  loadTree?(id: string): Promise<StoredTree | null>;
  /**
   * A new session holding the path from a root to `entryId` of session
   * `id` (ids kept), whose info names `id` as its `parentSessionId`. The
   * built-in stores that save anything have it.
   */
  fork?(id: string, entryId: string): Promise<Session>;
  /**
   * Appends durably: when the promise resolves, the messages survive a
   * crash. The built-in stores hold the session for one writer while a turn
   * runs (its state is `running`) and let go when it is idle again.
   */
  appendMessages(
    sessionId: string,
    messages: readonly PersistentMessage[],
    options?: AppendOptions,
  ): Promise<void>;
  /**
   * Replaces a session's conversation with `messages` (context surgery,
   * trimming), keeping its metadata, name and owner. The built-in stores
   * store them as one new branch from the root (fresh entry ids) that the
   * active leaf moves to, the old entries staying in the tree; all or
   * nothing (one transaction, or on JSONL a new file renamed over the old);
   * an empty replacement deletes every entry. `expectedCount` refuses a
   * writer with a stale view, as for appends. Stores that cannot rewrite
   * history need not have it.
   */
  replaceConversation?(
    sessionId: string,
    messages: readonly PersistentMessage[],
    options?: AppendOptions,
  ): Promise<void>;
  /**
   * Labels entry `entryId` of session `id` (`null` or `""` removes its
   * label): `loadTree` and `/tree` show it. The built-in stores that save
   * anything have it.
   */
  setLabel?(id: string, entryId: string, label: string | null): Promise<void>;
  /**
   * Checks, writing nothing, that an append to session `sessionId` now
   * would not be refused: throws `SessionInUseError` when another writer
   * holds it, and, given `expectedCount`, `SessionChangedError` when it has
   * another message count. A run that appends nothing before its first
   * model request (`Agent.continue`) asks this first, so no tokens are spent
   * on an answer that could not be saved. The built-in stores that save
   * anything have it; an unknown session passes.
   */
  checkAppend?(sessionId: string, options?: AppendOptions): Promise<void>;
  /** Full-text search over message text. */
  search(query: string, options?: SearchOptions): Promise<SearchHit[]>;
  /** Gives a session a name. */
  rename(id: string, name: string): Promise<void>;
  /** Deletes a session. */
  delete(id: string): Promise<void>;
  /** The session as Markdown. */
  export(id: string): Promise<string>;
  /** Releases connections and locks. */
  close(): Promise<void>;
  /**
   * Lets go of one session this store writes (its lock and open files), so
   * another writer may take it; the next append takes it again. Stores
   * that hold nothing per session need not have it.
   */
  release?(id: string): Promise<void>;
  /**
   * The migration fence: set when `migrateSessions` moves this store's
   * sessions elsewhere, after which every write is refused with a
   * `SessionStoreMigratedError` naming the new store. `null` when unfenced.
   */
  migrationFence?(): Promise<MigrationFence | null>;
  /**
   * Sets (or, with `null`, lifts) the migration fence. The built-in stores
   * that save anything have it.
   */
  setMigrationFence?(fence: MigrationFence | null): Promise<void>;
  /**
   * Waits until every write that read no migration fence has landed, and
   * throws `SessionInUseError` when a writer still holds a session after
   * `timeoutMs`. A store that reads the fence in each write's own
   * transaction (SQLite, PostgreSQL) needs nothing of the kind and need not
   * have it; the JSONL store, whose writes read it under the session's lock,
   * waits for those locks.
   */
  drainWriters?(timeoutMs: number): Promise<void>;
  /**
   * Checks, before anything depends on it, that sessions can be saved
   * (directory writable, database opens for writing, server answers);
   * throws a `SessionStoreError` naming the location and the cause. The
   * built-in stores that save anything have it.
   */
  checkWritable?(): Promise<void>;
}

/**
 * A store that saves sessions, as every built-in store but `NullStore`
 * does: the tree, fork, label, replacement, hold-check and migration
 * methods that {@linkcode SessionStore} leaves optional are present, so
 * code holding one calls them without `!`.
 *
 * @example
 * ```ts
 * import type { SavingSessionStore } from "@panto/lib";
 * import { SQLiteStore } from "@panto/lib/sqlite";
 * const store: SavingSessionStore = new SQLiteStore({ path: ":memory:" });
 * const session = store.create();
 * console.assert((await store.loadTree(session.id)) === null);
 * await store.close();
 * ```
 */
export type SavingSessionStore =
  & SessionStore
  & Required<
    Pick<
      SessionStore,
      | "loadTree"
      | "fork"
      | "replaceConversation"
      | "setLabel"
      | "checkAppend"
      | "release"
      | "migrationFence"
      | "setMigrationFence"
      | "checkWritable"
    >
  >;
