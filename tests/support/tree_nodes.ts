/**
 * The nodes of a session tree as a flat list, for tests that look for an
 * entry by its preview, label or children.
 *
 * @module
 */
import type { TreeNode } from "@panto/lib";

/** Every node of a tree, depth first. */
export function allNodes(roots: readonly TreeNode[]): TreeNode[] {
  return roots.flatMap((node) => [node, ...allNodes(node.children)]);
}
