/**
 * The picker of `/tree`: the session's tree, one row per entry, branch
 * points drawn with connectors, the active path marked, tab for prompts
 * only (typing filters either view), ctrl+l to label the selected entry.
 *
 * @module
 */
import type { TreeNode } from "@panto/lib";
import type { SelectItem } from "@panto/tui";
import type { PickerContent, PickerOptions, PickerView } from "./picker.ts";

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
 * Labels an entry (an empty label removes it) and gives the tree after it.
 *
 * @param entryId The entry.
 * @param label The label, `""` to remove it.
 */
export type Relabel = (entryId: string, label: string) => Promise<TreeSnapshot>;

/**
 * The `/tree` picker, valued by entry id, opened on the active leaf.
 *
 * @param tree The session's tree.
 * @param relabel Labels an entry (ctrl+l).
 * @param title What choosing does (default "Session tree").
 * @returns Picker options: every entry, tab toggling prompts only.
 */
export function treePicker(
  tree: TreeSnapshot,
  relabel: Relabel,
  title = "Session tree",
): PickerOptions<string> {
  const content = treeContent(tree, relabel, title);
  const leafRow = content.items.findIndex((item) => item.value === tree.leafId);
  return { ...content, initialIndex: Math.max(0, leafRow) };
}

/** The views of `tree`, and the label input that rebuilds them. */
function treeContent(tree: TreeSnapshot, relabel: Relabel, title: string): PickerContent<string> {
  const rows = treeRows(tree.roots);
  const all: PickerView<string> = {
    title: `${title} (● active path)`,
    items: rows.map((row) => treeItem(row, tree.leafId)),
    hint: "tab prompts only",
  };
  const promptRows = rows.filter((row) => row.node.role === "user");
  const prompts: PickerView<string> = {
    title: `${title}: prompts (● active path)`,
    items: promptRows.map((row) => treeItem(row, tree.leafId)),
    hint: "tab every entry",
  };
  const nodes = new Map(rows.map((row) => [row.node.id, row.node]));
  return {
    ...all,
    toggle: { key: "tab", view: (times) => times % 2 === 1 ? prompts : all },
    input: {
      key: "ctrl+l",
      hint: "ctrl+l label",
      open: (item) => {
        const node = nodes.get(item.value);
        return {
          title: `Label for ${node ? nodeText(node) : item.label}`,
          text: node?.label ?? "",
          hint: "empty removes it",
        };
      },
      submit: async (entryId, label) => treeContent(await relabel(entryId, label), relabel, title),
    },
  };
}

/**
 * Whether moving to `entryId` leaves entries of the active path behind
 * (entries after the point it shares with the active path), so a summary
 * of them can be offered.
 *
 * @param tree The session's tree.
 * @param entryId The entry chosen.
 * @returns True when the active path goes on past `entryId`'s ancestors.
 */
export function leavesBranch(tree: TreeSnapshot, entryId: string): boolean {
  const parents = new Map(treeRows(tree.roots).map(({ node }) => [node.id, node.parentId]));
  const kept = new Set<string>();
  for (let id: string | null | undefined = entryId; id; id = parents.get(id)) kept.add(id);
  for (let id: string | null | undefined = tree.leafId; id; id = parents.get(id)) {
    if (!kept.has(id)) return true;
  }
  return false;
}

/** How a move that leaves a branch goes: with a summary of the branch or not, and what it should keep. */
export interface BranchChoice {
  /** Summarise the branch left. */
  readonly summarise: boolean;
  /** What the summary should keep. */
  readonly instructions?: string;
}

const NO_SUMMARY: BranchChoice = { summarise: false };
const SUMMARY: BranchChoice = { summarise: true };
/** The item that asks for instructions (its own object: the picker tells it by identity). */
const SUMMARY_WITH_INSTRUCTIONS: BranchChoice = { summarise: true };

/**
 * The choice offered when a move leaves a branch: no summary (first), a
 * summary, or a summary following instructions typed in a box (empty: none;
 * esc cancels the move).
 */
export const SUMMARY_CHOICE: PickerOptions<BranchChoice> = {
  title: "Summarise the branch you leave?",
  items: [
    { value: NO_SUMMARY, label: "No summary", description: "continue from the chosen point" },
    {
      value: SUMMARY,
      label: "Summarise it",
      description: "the model writes what was tried there; it goes with your next prompt",
    },
    {
      value: SUMMARY_WITH_INSTRUCTIONS,
      label: "Summarise it, with my instructions…",
      description: "you say what the summary should keep",
    },
  ],
  ask: {
    value: SUMMARY_WITH_INSTRUCTIONS,
    title: "What should the summary of the branch keep?",
    hints: ["enter summarise", "empty: no instructions", "esc cancel the move"],
    choose: (text) => text ? { summarise: true, instructions: text } : SUMMARY,
  },
};

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
    label: `${prefix}${mark} ${nodeText(node)}`,
  };
  const notes = [
    ...(node.id === leafId ? ["current"] : []),
    ...(node.children.length > 1 ? [`${node.children.length} branches`] : []),
    ...(node.label === undefined ? [] : [node.label]),
  ];
  if (notes.length) item.description = notes.join(" · ");
  return item;
}

/** `you: the prompt`: who wrote the entry and how it starts. */
function nodeText(node: TreeNode): string {
  return `${ROLE_TAGS[node.role]}: ${node.preview || "(empty)"}`;
}
