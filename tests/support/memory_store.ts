import {
  Conversation,
  type CreateSessionOptions,
  type PersistentMessage,
  type SearchHit,
  Session,
  type SessionInfo,
  type SessionStore,
} from "@panto/lib";
import { emptySessionInfo } from "../../lib/session/store_common.ts";

/**
 * A store that keeps every append in memory, in order, for tests that check
 * what the agent persisted and when.
 */
export class MemoryStore implements SessionStore {
  /** Every appendMessages call, in order. */
  readonly appends: { sessionId: string; messages: PersistentMessage[] }[] = [];
  #sessions = new Map<string, { info: SessionInfo; entries: PersistentMessage[] }>();

  create(options: CreateSessionOptions = {}): Session {
    const info = emptySessionInfo(crypto.randomUUID(), new Date().toISOString());
    if (options.cwd) info.cwd = options.cwd;
    return new Session(info, this, false);
  }

  /** Messages stored for a session, in order. */
  stored(sessionId: string): PersistentMessage[] {
    return this.#sessions.get(sessionId)?.entries ?? [];
  }

  list(): Promise<SessionInfo[]> {
    return Promise.resolve([...this.#sessions.values()].map((s) => s.info));
  }
  async resolve(id: string): Promise<Session | null> {
    const found = this.#sessions.get(id);
    return await Promise.resolve(found ? new Session(found.info, this) : null);
  }
  latest(): Promise<Session | null> {
    const last = [...this.#sessions.values()].at(-1);
    return Promise.resolve(last ? new Session(last.info, this) : null);
  }
  load(id: string): Promise<Conversation | null> {
    const found = this.#sessions.get(id);
    return Promise.resolve(
      found ? new Conversation(found.entries.map((e) => structuredClone(e.message))) : null,
    );
  }
  appendMessages(sessionId: string, messages: readonly PersistentMessage[]): Promise<void> {
    const copy = messages.map((m) => structuredClone(m));
    this.appends.push({ sessionId, messages: copy });
    let session = this.#sessions.get(sessionId);
    if (!session) {
      const now = new Date().toISOString();
      session = {
        info: { id: sessionId, created: now, modified: now, messageCount: 0, lastUserMessage: "" },
        entries: [],
      };
      this.#sessions.set(sessionId, session);
    }
    session.entries.push(...copy);
    session.info.messageCount = session.entries.length;
    return Promise.resolve();
  }
  search(): Promise<SearchHit[]> {
    return Promise.resolve([]);
  }
  rename(): Promise<void> {
    return Promise.resolve();
  }
  delete(id: string): Promise<void> {
    this.#sessions.delete(id);
    return Promise.resolve();
  }
  export(): Promise<string> {
    return Promise.resolve("");
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}
