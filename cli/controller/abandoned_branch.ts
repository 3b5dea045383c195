import { pathTo, type TreeEntry } from "@panto/lib";

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
  const kept = new Set(pathTo(entries, toLeaf).map((entry) => entry.id));
  return pathTo(entries, fromLeaf).filter((entry) => !kept.has(entry.id));
}
