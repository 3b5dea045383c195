// What every built-in store does alike with a session tree: read its active
// path as a conversation, and fork a path into a new session.
import { Conversation } from "../conversation.ts";
import { SessionCorruptError, SessionNotFoundError } from "./errors.ts";
import type { Session } from "./session.ts";
import {
  newEntryId,
  pathTo,
  type RawLink,
  type RawTreeEntry,
  resolveLinks,
  resolveTree,
  type StoredTree,
  TreeEntryError,
  type TreeLink,
} from "./tree.ts";
import type { CreateSessionOptions, PersistentMessage, SessionStore } from "./types.ts";

/**
 * The conversation on a tree's active path (root to the last entry stored).
 *
 * @example
 * ```ts
 * import { activeConversation } from "./tree_store.ts";
 * const message = { role: "user" as const, content: [], timestamp: "" };
 * const entries = [{ id: "a", parentId: null, message }, { id: "b", parentId: null, message }];
 * console.assert(activeConversation({ entries, leafId: "b" }).messages.length === 1);
 * ```
 *
 * @param tree The stored tree.
 * @returns The conversation, with the tree's metadata.
 */
export function activeConversation(tree: StoredTree): Conversation {
  return new Conversation(pathTo(tree.entries, tree.leafId).map((e) => e.message), tree.metadata);
}

/**
 * The tree of stored entries, its damage reported as the stores report
 * damage: a {@linkcode SessionCorruptError} naming the record.
 *
 * @example
 * ```ts
 * import { readTree } from "./tree_store.ts";
 * const message = { role: "user" as const, content: [], timestamp: "" };
 * const tree = readTree([{ message }], undefined, "db", (index) => index + 1);
 * console.assert(tree.leafId === "0" && tree.metadata === undefined);
 * ```
 *
 * @param raw The entries in storage order.
 * @param metadata The conversation's metadata.
 * @param where The file or table, for the error.
 * @param recordOf The 1-based line or record number of an entry, for the error.
 * @returns The tree.
 * @throws {SessionCorruptError} When an entry id repeats.
 */
export function readTree(
  raw: readonly RawTreeEntry[],
  metadata: string | undefined,
  where: string,
  recordOf: (index: number) => number,
): StoredTree {
  const tree = corruptOnTreeError(() => resolveTree(raw), where, recordOf);
  return metadata === undefined ? tree : { ...tree, metadata };
}

/**
 * The links of stored entries ({@linkcode resolveLinks}), damage reported
 * as {@linkcode readTree} reports it.
 *
 * @example
 * ```ts
 * import { readLinks } from "./tree_store.ts";
 * const links = readLinks([{ id: "a", parentId: null }], "db", (index) => index + 1);
 * console.assert(links[0]?.id === "a");
 * ```
 *
 * @param raw The entries' tree fields, in storage order.
 * @param where The file or table, for the error.
 * @param recordOf The 1-based line or record number of an entry of `raw`, for the error.
 * @param before The ids of the entries stored before `raw`.
 * @returns The links.
 * @throws {SessionCorruptError} When an entry id repeats.
 */
export function readLinks(
  raw: readonly RawLink[],
  where: string,
  recordOf: (index: number) => number,
  before: readonly string[] = [],
): TreeLink[] {
  return corruptOnTreeError(() => resolveLinks(raw, before), where, recordOf);
}

function corruptOnTreeError<T>(
  read: () => T,
  where: string,
  recordOf: (index: number) => number,
): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof TreeEntryError)) throw error;
    throw new SessionCorruptError(where, recordOf(error.index), error.message);
  }
}

/**
 * The id and parent each appended row is stored with: as given, or the
 * row's position and the entry before it, so every new row names both.
 *
 * @example
 * ```ts
 * import { treeIds } from "./tree_store.ts";
 * const message = { role: "user" as const, content: [], timestamp: "" };
 * const entry = { message, conversation: [], toolsAvailable: [] };
 * const ids = treeIds([entry, { ...entry, parentId: null }], 3, "x");
 * console.assert(ids[0]?.id === "3" && ids[0].parentId === "x" && ids[1]?.parentId === null);
 * ```
 *
 * @param messages The messages appended, in order.
 * @param firstSeq The first one's position in the session.
 * @param previous The id of the entry stored last before them (`null`: none).
 * @returns Each message's id and parent.
 */
export function treeIds(
  messages: readonly PersistentMessage[],
  firstSeq: number,
  previous: string | null,
): { id: string; parentId: string | null }[] {
  return messages.map((entry, index) => {
    const id = entry.id ?? String(firstSeq + index);
    const parentId = entry.parentId === undefined ? previous : entry.parentId;
    previous = id;
    return { id, parentId };
  });
}

/**
 * What `replaceConversation` stores: the new messages as one new branch
 * from the root (fresh ids, so none collides with the ids already in the
 * tree), which the active leaf moves to. The old entries stay in the tree.
 *
 * @example
 * ```ts
 * import { replacementBranch } from "./tree_store.ts";
 * const message = { role: "user" as const, content: [], timestamp: "" };
 * const entry = { message, conversation: [], toolsAvailable: [], id: "0", parentId: "x" };
 * const [first, second] = replacementBranch([entry, entry]);
 * console.assert(first?.parentId === null && second?.parentId === first.id && first.id !== "0");
 * ```
 *
 * @param messages The whole new conversation, in order.
 * @returns The entries to append.
 */
export function replacementBranch(messages: readonly PersistentMessage[]): PersistentMessage[] {
  let parentId: string | null = null;
  return messages.map((entry) => {
    const id = newEntryId();
    const branch: PersistentMessage = { ...entry, id, parentId };
    parentId = id;
    return branch;
  });
}

/** A store that reads trees, as the built-in ones do. */
type TreeStore = SessionStore & Required<Pick<SessionStore, "loadTree">>;

/**
 * A new session in `store` holding the path from a root to `entryId` of
 * session `id` (entry ids kept), with the source's metadata, cwd and
 * owner, and `parentSessionId` set to `id`.
 *
 * @example
 * ```ts ignore
 * import { forkSession } from "./tree_store.ts";
 * const child = await forkSession(store, sessionId, entryId, store.dir);
 * console.assert(child.info.parentSessionId === sessionId);
 * ```
 *
 * @param store The store both sessions live in.
 * @param id The session to fork.
 * @param entryId The last entry to copy.
 * @param where The store's location, for errors.
 * @returns The new session, written.
 * @throws {SessionNotFoundError} When there is no session `id`.
 * @throws {Error} When `entryId` is not an entry of it.
 */
export async function forkSession(
  store: TreeStore,
  id: string,
  entryId: string,
  where: string,
): Promise<Session> {
  const [tree, source] = await Promise.all([store.loadTree(id), store.resolve(id)]);
  if (!tree || !source || source.id !== id) throw new SessionNotFoundError(id, where);
  const path = pathTo(tree.entries, entryId);
  const options: CreateSessionOptions = { parentSessionId: id };
  if (tree.metadata !== undefined) options.metadata = tree.metadata;
  if (source.info.cwd !== undefined) options.cwd = source.info.cwd;
  if (source.info.ownerId !== undefined) options.ownerId = source.info.ownerId;
  const fork = store.create(options);
  const messages = path.map((entry): PersistentMessage => {
    const copy: PersistentMessage = {
      message: entry.message,
      conversation: [],
      toolsAvailable: [],
      id: entry.id,
      parentId: entry.parentId,
    };
    if (entry.wire) copy.wire = entry.wire;
    return copy;
  });
  await store.appendMessages(fork.id, messages, { expectedCount: 0 });
  // A path that ends mid-turn leaves the copy running: free it for whoever continues it.
  await store.release?.(fork.id);
  const written = await store.resolve(fork.id);
  if (!written) throw new SessionNotFoundError(fork.id, where);
  return written;
}
