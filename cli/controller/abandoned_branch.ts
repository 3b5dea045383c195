import type { TreeEntry } from "@panto/lib";

/**
 * The entries a move in a session's tree leaves behind: those on the path
 * to `fromLeaf` after the last entry it shares with the path to `toLeaf`
 * (what a branch summary summarises).
 *
 * @param entries Every entry of the session.
 * @param fromLeaf The active leaf before the move.
 * @param toLeaf The active leaf after it (`null`: a new root).
 * @returns The entries left, root side first; none when `toLeaf` continues `fromLeaf`.
 */
export function abandonedEntries(
  entries: readonly TreeEntry[],
  fromLeaf: string | null,
  toLeaf: string | null,
): TreeEntry[] {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const kept = new Set(pathTo(byId, toLeaf).map((entry) => entry.id));
  return pathTo(byId, fromLeaf).filter((entry) => !kept.has(entry.id)).reverse();
}

/** The entries from `leaf` up to its root (a store has checked the tree has no cycles). */
function pathTo(byId: ReadonlyMap<string, TreeEntry>, leaf: string | null): TreeEntry[] {
  const path: TreeEntry[] = [];
  for (let entry = leaf === null ? undefined : byId.get(leaf); entry;) {
    path.push(entry);
    entry = entry.parentId === null ? undefined : byId.get(entry.parentId);
  }
  return path;
}
