// The session tree (seeds/000 decisions 3 and 4): every stored entry names
// its parent, the last entry stored is the active leaf, and the read side
// flattens the path from a root to a leaf into one conversation.
//
// Entries written before the tree (format v1 files, schema v2 rows) carry
// neither field; they read as a linear chain: such an entry's id is its
// position in the session ("0", "1", …) and its parent is the entry before
// it. New entries carry a random id, which never looks like a position.
import type { Message } from "../message.ts";
import { userPreview } from "./serialize.ts";
import type { WireIdentity } from "./types.ts";

/**
 * One stored entry of a session tree, as a store reads it back.
 *
 * @example
 * ```ts
 * import type { TreeEntry } from "@panto/lib";
 * const entry: TreeEntry = {
 *   id: "0",
 *   parentId: null,
 *   message: { role: "user", content: [], timestamp: "2026-01-01T00:00:00.000Z" },
 * };
 * console.assert(entry.parentId === null);
 * ```
 */
export interface TreeEntry {
  /** The entry's id, unique within its session. */
  id: string;
  /** The entry it continues, or `null` for a root. */
  parentId: string | null;
  /** The message. */
  message: Message;
  /** Who produced it, when the store kept that. */
  wire?: WireIdentity;
  /** The label given to it (`Session.setLabel`). */
  label?: string;
}

/**
 * Every entry of a session, in the order they were stored, and the active leaf.
 *
 * @example
 * ```ts
 * import { NullStore, type StoredTree } from "@panto/lib";
 * const tree: StoredTree | null = await new NullStore().loadTree("none");
 * console.assert(tree === null);
 * ```
 */
export interface StoredTree {
  /** The entries in storage order (a parent always comes before its children). */
  entries: TreeEntry[];
  /** The active leaf: the last entry stored, `null` when there is none. */
  leafId: string | null;
  /** The conversation's metadata. */
  metadata?: string;
}

/**
 * A node of the tree as `/tree` shows it.
 *
 * @example
 * ```ts
 * import type { TreeNode } from "@panto/lib";
 * const node: TreeNode = {
 *   id: "0", parentId: null, role: "user", preview: "hi", active: true, children: [],
 * };
 * console.assert(node.children.length === 0);
 * ```
 */
export interface TreeNode {
  /** The entry's id (pass it to `Session.branchFrom` or `store.fork`). */
  id: string;
  /** Its parent's id, `null` for a root. */
  parentId: string | null;
  /** The message's role. */
  role: Message["role"];
  /** A one-line preview of the message. */
  preview: string;
  /** The entry's label, when one was given (`Session.setLabel`). */
  label?: string;
  /** Whether it is on the active path (root to active leaf). */
  active: boolean;
  /** Entries that continue it, oldest first. */
  children: TreeNode[];
}

/** A stored entry before the implicit fields are resolved. */
export interface RawTreeEntry extends RawLink {
  /** The message. */
  message: Message;
  /** Who produced it. */
  wire?: WireIdentity | undefined;
  /** Its label. */
  label?: string | undefined;
}

/** A stored entry that breaks the tree: its id repeats. */
export class TreeEntryError extends Error {
  /** The entry's 0-based position in the session. */
  readonly index: number;

  /**
   * Creates the error.
   *
   * @param index The entry's position.
   * @param message What is wrong.
   */
  constructor(index: number, message: string) {
    super(message);
    this.name = "TreeEntryError";
    this.index = index;
  }
}

/**
 * A fresh entry id: 12 hex digits, never equal to a position id.
 *
 * @example
 * ```ts
 * import { newEntryId } from "./tree.ts";
 * console.assert(/^[0-9a-f]{12}$/.test(newEntryId()));
 * ```
 *
 * @returns The id.
 */
export function newEntryId(): string {
  return crypto.randomUUID().replaceAll("-", "").slice(0, 12);
}

/** An entry's place in its tree: its id, its parent and its position in storage. */
export interface TreeLink {
  /** The entry's id. */
  id: string;
  /** The entry it continues, or `null` for a root. */
  parentId: string | null;
  /** Its 0-based position in storage order. */
  index: number;
  /** Its parent's position (-1 for a root). */
  parentIndex: number;
}

/** What {@linkcode resolveLinks} reads of a stored entry. */
export interface RawLink {
  /** Absent: the entry's position. */
  id?: string | undefined;
  /** Absent: the entry before it (`null`: a root). */
  parentId?: string | null | undefined;
}

/**
 * Resolves the implicit ids and parents of stored entries and checks that
 * ids are unique. An entry whose parent is not stored before it (a repair
 * dropped that damaged line) continues the entry stored before it, as an
 * entry with no parent named does. It reads only the tree fields, so a
 * store can find a path before it decodes any message.
 *
 * @example
 * ```ts
 * import { resolveLinks } from "./tree.ts";
 * const links = resolveLinks([{}, {}, { id: "x", parentId: "0" }]);
 * console.assert(links[1]?.parentId === "0" && links[2]?.parentId === "0");
 * const more = resolveLinks([{ id: "y", parentId: "x" }], ["0", "1", "x"]);
 * console.assert(more[0]?.index === 3 && more[0].parentId === "x" && more[0].parentIndex === 2);
 * ```
 *
 * @param raw The entries in storage order.
 * @param before The ids of the entries stored before them, when `raw` is
 *   not the whole session (a store reading only what was appended).
 * @returns Each entry's link, in the same order (the last is the active leaf).
 * @throws {TreeEntryError} For the entry whose id repeats (its position in `raw`).
 */
export function resolveLinks(
  raw: readonly RawLink[],
  before: readonly string[] = [],
): TreeLink[] {
  const positions = new Map(before.map((id, index) => [id, index]));
  const links: TreeLink[] = [];
  let previous = before.at(-1) ?? null;
  for (let at = 0; at < raw.length; at++) {
    const item = raw[at]!;
    const index = before.length + at;
    const id = item.id ?? String(index);
    const named = item.parentId === undefined ? previous : item.parentId;
    const parentId = named === null || positions.has(named) ? named : previous;
    if (positions.has(id)) {
      throw new TreeEntryError(at, `entry id ${JSON.stringify(id)} is used twice`);
    }
    const parentIndex = parentId === null ? -1 : positions.get(parentId)!;
    positions.set(id, index);
    links.push({ id, parentId, index, parentIndex });
    previous = id;
  }
  return links;
}

/**
 * The tree of stored entries: their links ({@linkcode resolveLinks}) with
 * their messages.
 *
 * @example
 * ```ts
 * import { resolveTree } from "./tree.ts";
 * const message = { role: "user" as const, content: [], timestamp: "" };
 * const tree = resolveTree([{ message }, { message }]);
 * console.assert(tree.entries[1]?.parentId === "0" && tree.leafId === "1");
 * ```
 *
 * @param raw The entries in storage order.
 * @returns The entries with ids and parents, and the active leaf.
 * @throws {TreeEntryError} For the entry whose id repeats.
 */
export function resolveTree(raw: readonly RawTreeEntry[]): StoredTree {
  const entries = resolveLinks(raw).map(({ id, parentId, index }): TreeEntry => {
    const item = raw[index]!;
    const entry: TreeEntry = { id, parentId, message: item.message };
    if (item.wire) entry.wire = item.wire;
    if (item.label) entry.label = item.label;
    return entry;
  });
  return { entries, leafId: entries.at(-1)?.id ?? null };
}

/**
 * The entries from a root down to `leafId`, in order.
 *
 * @example
 * ```ts
 * import { pathTo, resolveTree } from "./tree.ts";
 * const message = { role: "user" as const, content: [], timestamp: "" };
 * const tree = resolveTree([{ message }, { message }, { message, parentId: "0" }]);
 * console.assert(pathTo(tree.entries, "2").map((e) => e.id).join() === "0,2");
 * ```
 *
 * @param entries The tree's entries.
 * @param leafId The last entry of the path (`null`: the empty path).
 * @returns The path.
 * @throws {Error} When `leafId` is not an entry of the tree.
 */
export function pathTo<T extends { id: string; parentId: string | null }>(
  entries: readonly T[],
  leafId: string | null,
): T[] {
  if (leafId === null) return [];
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const path: T[] = [];
  for (
    let at = byId.get(leafId);
    at;
    at = at.parentId === null ? undefined : byId.get(at.parentId)
  ) {
    path.push(at);
  }
  if (path.length === 0) throw unknownEntry(leafId);
  return path.reverse();
}

/**
 * The error for an entry id that is not in the session.
 *
 * @example
 * ```ts
 * import { unknownEntry } from "./tree.ts";
 * console.assert(unknownEntry("x").message.includes('"x"'));
 * ```
 *
 * @param entryId The id.
 * @returns The error, saying where to find the ids.
 */
export function unknownEntry(entryId: string): Error {
  return new Error(
    `Entry ${JSON.stringify(entryId)} is not in this session: pick one from its tree`,
  );
}

/**
 * The tree's roots, each with its descendants, the path to `leafId` marked active.
 *
 * @example
 * ```ts
 * import { resolveTree, treeNodes } from "./tree.ts";
 * const message = { role: "user" as const, content: [{ type: "text" as const, text: "hi" }], timestamp: "" };
 * const tree = resolveTree([{ message }, { message }, { message, parentId: "0" }]);
 * const [root] = treeNodes(tree.entries, "2");
 * console.assert(root?.children.length === 2 && root.children[1]?.active === true);
 * ```
 *
 * @param entries The tree's entries, in storage order.
 * @param leafId The active leaf.
 * @returns The roots, oldest first.
 */
export function treeNodes(entries: readonly TreeEntry[], leafId: string | null): TreeNode[] {
  const active = new Set(pathTo(entries, leafId).map((entry) => entry.id));
  const nodes = new Map<string, TreeNode>();
  const roots: TreeNode[] = [];
  for (const entry of entries) {
    const node: TreeNode = {
      id: entry.id,
      parentId: entry.parentId,
      role: entry.message.role,
      preview: entryPreview(entry.message),
      active: active.has(entry.id),
      children: [],
    };
    if (entry.label) node.label = entry.label;
    nodes.set(entry.id, node);
    const parent = entry.parentId === null ? undefined : nodes.get(entry.parentId);
    (parent ? parent.children : roots).push(node);
  }
  return roots;
}

/** Longest preview shown per node, in code points. */
const NODE_PREVIEW = 80;

/** One line saying what a message holds: its text, else its tool calls or results. */
function entryPreview(message: Message): string {
  const text = userPreview(message) ?? message.content.map((block) => {
    switch (block.type) {
      case "text":
      case "system":
        return block.text;
      case "tool_use":
        return `[${block.name}]`;
      case "tool_result":
        return `[${block.toolName} result]`;
      case "compaction_summary":
        return "[compaction summary]";
      default:
        return "";
    }
  }).filter((part) => part !== "").join(" ");
  return Array.from(text.replace(/\s+/g, " ").trim()).slice(0, NODE_PREVIEW).join("");
}
