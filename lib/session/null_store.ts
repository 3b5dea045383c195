import type { Conversation } from "../conversation.ts";
import { Session } from "./session.ts";
import { emptySessionInfo } from "./store_common.ts";
import type { StoredTree } from "./tree.ts";
import type {
  CreateSessionOptions,
  PersistentMessage,
  SearchHit,
  SessionInfo,
  SessionStore,
} from "./types.ts";

/**
 * A store that keeps nothing and fails on nothing (`--no-session`).
 *
 * @example
 * ```ts
 * import { NullStore } from "@panto/lib";
 * const store = new NullStore();
 * const session = store.create();
 * await session.append([]);
 * console.assert((await store.list()).length === 0);
 * ```
 */
export class NullStore implements SessionStore {
  /** A fresh in-memory session handle. */
  create(options: CreateSessionOptions = {}): Session {
    const info = emptySessionInfo(crypto.randomUUID(), new Date().toISOString());
    if (options.cwd !== undefined) info.cwd = options.cwd;
    return new Session(info, this, false);
  }
  /** Always empty. */
  list(): Promise<SessionInfo[]> {
    return Promise.resolve([]);
  }
  /** Always `null`. */
  resolve(_idOrPrefix: string): Promise<Session | null> {
    return Promise.resolve(null);
  }
  /** Always `null`. */
  latest(): Promise<Session | null> {
    return Promise.resolve(null);
  }
  /** Always `null`. */
  load(_id: string): Promise<Conversation | null> {
    return Promise.resolve(null);
  }
  /** Always `null`. */
  loadTree(_id: string): Promise<StoredTree | null> {
    return Promise.resolve(null);
  }
  /** Discards the messages. */
  appendMessages(_sessionId: string, _messages: readonly PersistentMessage[]): Promise<void> {
    return Promise.resolve();
  }
  /** Discards the messages. */
  replaceConversation(
    _sessionId: string,
    _messages: readonly PersistentMessage[],
  ): Promise<void> {
    return Promise.resolve();
  }
  /** Always empty. */
  search(_query: string): Promise<SearchHit[]> {
    return Promise.resolve([]);
  }
  /** Does nothing. */
  rename(_id: string, _name: string): Promise<void> {
    return Promise.resolve();
  }
  /** Does nothing. */
  delete(_id: string): Promise<void> {
    return Promise.resolve();
  }
  /** An empty document. */
  export(_id: string): Promise<string> {
    return Promise.resolve("");
  }
  /** Does nothing. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
