/**
 * The picker of `/tree`: the session's tree, one row per entry, branch
 * points drawn with connectors, the active path marked, tab for prompts
 * only (typing filters either view).
 *
 * @module
 */
import type { TreeNode } from "@panto/lib";
import type { SelectItem } from "@panto/tui";
import type { PickerOptions, PickerView } from "./picker.ts";

/** A session's tree as the controller gives it. */
export interface TreeSnapshot {
  /** The roots, oldest first. */
  roots: readonly TreeNode[];
  /** The active leaf. */
  leafId: string | null;
}

/** One row: its drawing prefix and node. */
interface Row {
  prefix: string;
  node: TreeNode;
}

/**
 * The `/tree` picker, valued by entry id, opened on the active leaf.
 *
 * @param tree The session's tree.
 * @returns Picker options: every entry, tab toggling prompts only.
 */
export function treePicker(tree: TreeSnapshot): PickerOptions<string> {
  const rows = treeRows(tree.roots);
  const all: PickerView<string> = {
    title: "Session tree (● active path)",
    items: rows.map((row) => treeItem(row, tree.leafId)),
    hint: "tab prompts only",
  };
  const promptRows = rows.filter((row) => row.node.role === "user");
  const prompts: PickerView<string> = {
    title: "Session tree: prompts (● active path)",
    items: promptRows.map((row) => treeItem(row, tree.leafId)),
    hint: "tab every entry",
  };
  const leafRow = rows.findIndex((row) => row.node.id === tree.leafId);
  return {
    ...all,
    initialIndex: Math.max(0, leafRow),
    toggle: { key: "tab", view: (times) => times % 2 === 1 ? prompts : all },
  };
}

/**
 * The tree in display order (depth first, oldest child first): a chain
 * stays at one indent, and only a branch point's children get connectors,
 * so a long linear session does not drift right.
 *
 * @param roots The roots.
 * @returns The rows.
 */
export function treeRows(roots: readonly TreeNode[]): Row[] {
  const rows: Row[] = [];
  // Iterative: a session can be thousands of entries deep.
  const stack: { node: TreeNode; prefix: string; below: string }[] = [];
  const pushSiblings = (nodes: readonly TreeNode[], prefix: string) => {
    for (let i = nodes.length - 1; i >= 0; i--) {
      const node = nodes[i]!;
      if (nodes.length === 1) {
        stack.push({ node, prefix, below: prefix });
        continue;
      }
      const last = i === nodes.length - 1;
      stack.push({
        node,
        prefix: prefix + (last ? "└─ " : "├─ "),
        below: prefix + (last ? "   " : "│  "),
      });
    }
  };
  pushSiblings(roots, "");
  for (let top = stack.pop(); top; top = stack.pop()) {
    rows.push({ prefix: top.prefix, node: top.node });
    pushSiblings(top.node.children, top.below);
  }
  return rows;
}

const ROLE_TAGS: Record<TreeNode["role"], string> = {
  system: "system",
  user: "you",
  assistant: "agent",
  tool: "tool",
};

function treeItem({ prefix, node }: Row, leafId: string | null): SelectItem<string> {
  const mark = node.active ? "●" : "○";
  const item: SelectItem<string> = {
    value: node.id,
    label: `${prefix}${mark} ${ROLE_TAGS[node.role]}: ${node.preview || "(empty)"}`,
  };
  const notes = [
    ...(node.id === leafId ? ["current"] : []),
    ...(node.children.length > 1 ? [`${node.children.length} branches`] : []),
    ...(node.label === undefined ? [] : [node.label]),
  ];
  if (notes.length) item.description = notes.join(" · ");
  return item;
}
