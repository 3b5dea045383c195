import assert from "node:assert/strict";
import type { TreeNode } from "@panto/lib";
import {
  leavesBranch,
  type Relabel,
  SUMMARY_CHOICE,
  treePicker,
  treeRows,
  type TreeSnapshot,
} from "../../../cli/chat/tree_view.ts";

function node(
  id: string,
  role: TreeNode["role"],
  active: boolean,
  children: TreeNode[] = [],
): TreeNode {
  for (const child of children) child.parentId = id;
  return { id, parentId: null, role, preview: `text ${id}`, active, children };
}

/** q1 → a1, then two branches: q2 → a2 (abandoned) and q2b → a2b (active). */
function sample(): TreeNode[] {
  return [
    node("q1", "user", true, [
      node("a1", "assistant", true, [
        node("q2", "user", false, [node("a2", "assistant", false)]),
        node("q2b", "user", true, [node("a2b", "assistant", true)]),
      ]),
    ]),
  ];
}

const refuse: Relabel = () => Promise.reject(new Error("no labels in this test"));

Deno.test("tree rows: a chain stays at one indent; only a branch point's children get connectors", () => {
  const rows = treeRows(sample()).map((row) => `${row.prefix}${row.node.id}`);
  assert.deepEqual(rows, [
    "q1",
    "a1",
    "├─ q2",
    "│  a2",
    "└─ q2b",
    "   a2b",
  ]);
});

Deno.test("tree rows: a 20,000-entry chain is laid out without deep recursion", () => {
  let leaf: TreeNode = node("e19999", "assistant", true);
  for (let i = 19_998; i >= 0; i--) {
    leaf = node(`e${i}`, i % 2 ? "assistant" : "user", true, [leaf]);
  }
  const rows = treeRows([leaf]);
  assert.equal(rows.length, 20_000);
  assert.ok(rows.every((row) => row.prefix === ""));
});

Deno.test("tree picker: opens on the current leaf, marks the active path, tab shows prompts only", () => {
  const picker = treePicker({ roots: sample(), leafId: "a2b" }, refuse);
  assert.equal(picker.items[picker.initialIndex ?? -1]?.value, "a2b");
  assert.deepEqual(picker.items.map((item) => item.label), [
    "● you: text q1",
    "● agent: text a1",
    "├─ ○ you: text q2",
    "│  ○ agent: text a2",
    "└─ ● you: text q2b",
    "   ● agent: text a2b",
  ]);
  assert.equal(picker.items[1]?.description, "2 branches");
  assert.equal(picker.items[5]?.description, "current");
  const prompts = picker.toggle!.view(1);
  assert.deepEqual(prompts.items.map((item) => item.value), ["q1", "q2", "q2b"]);
  assert.deepEqual(picker.toggle!.view(2).items.length, 6, "tab again: every entry");
});

Deno.test("tree picker: an entry's label is shown after its other notes", () => {
  const roots = sample();
  roots[0]!.label = "start";
  roots[0]!.children[0]!.label = "checkpoint";
  const picker = treePicker({ roots, leafId: "a2b" }, refuse);
  assert.equal(picker.items[0]?.description, "start");
  assert.equal(picker.items[1]?.description, "2 branches · checkpoint");
});

Deno.test("tree picker: ctrl+l asks for the entry's label and lists the relabelled tree", async () => {
  const roots = sample();
  roots[0]!.children[0]!.label = "checkpoint";
  const calls: [string, string][] = [];
  const relabel: Relabel = (entryId, label) => {
    calls.push([entryId, label]);
    const after: TreeSnapshot = { roots: sample(), leafId: "a2b" };
    after.roots[0]!.label = label;
    return Promise.resolve(after);
  };
  const picker = treePicker({ roots, leafId: "a2b" }, relabel);
  const input = picker.input!;
  assert.equal(input.key, "ctrl+l");
  assert.deepEqual(input.open(picker.items[1]!), {
    title: "Label for agent: text a1",
    text: "checkpoint",
    hint: "empty removes it",
  });
  assert.equal(input.open(picker.items[0]!).text, "", "no label yet: an empty line");
  const after = await input.submit("q1", "start here");
  assert.deepEqual(calls, [["q1", "start here"]]);
  assert.equal(after.items[0]?.description, "start here", "the new tree, labelled");
  assert.equal(
    after.input?.open(after.items[0]!).text,
    "start here",
    "asks again with the new label",
  );
  assert.equal(after.toggle?.view(1).items[0]?.description, "start here", "the prompts view too");
});

Deno.test("tree picker: a move leaves a branch unless it only goes further down the active path", () => {
  const tree = { roots: sample(), leafId: "a2b" };
  assert.equal(leavesBranch(tree, "a1"), true, "back up the path");
  assert.equal(leavesBranch(tree, "a2"), true, "to the other branch");
  assert.equal(leavesBranch(tree, "q2b"), true, "to a prompt of the path (it is edited)");
  assert.equal(leavesBranch({ roots: sample(), leafId: "a1" }, "a2b"), false, "further down");
});

Deno.test("summary choice: no summary first; the third item asks for instructions, an empty line giving none", () => {
  const { items, ask, initialIndex } = SUMMARY_CHOICE;
  assert.deepEqual(items.map((item) => item.label), [
    "No summary",
    "Summarise it",
    "Summarise it, with my instructions…",
  ]);
  assert.equal(initialIndex ?? 0, 0, "no summary is the default");
  assert.deepEqual(items.map((item) => item.value.summarise), [false, true, true]);
  assert.equal(ask?.value, items[2]?.value, "the third item asks");
  assert.notEqual(ask?.value, items[1]?.value, "the plain summary does not ask");
  assert.deepEqual(ask?.choose("keep the failing test names"), {
    summarise: true,
    instructions: "keep the failing test names",
  });
  assert.deepEqual(ask?.choose(""), { summarise: true }, "an empty line: no instructions");
});
