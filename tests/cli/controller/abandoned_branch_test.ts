import assert from "node:assert/strict";
import type { TreeEntry } from "@panto/lib";
import { abandonedEntries } from "../../../cli/controller/abandoned_branch.ts";

/** q1 → a1 → { q2 → a2, q2b → a2b }, as a store gives it (parents first). */
function entries(): TreeEntry[] {
  const entry = (id: string, parentId: string | null): TreeEntry => ({
    id,
    parentId,
    message: { role: "user", content: [], timestamp: "2026-01-01T00:00:00.000Z" },
  });
  return [
    entry("q1", null),
    entry("a1", "q1"),
    entry("q2", "a1"),
    entry("a2", "q2"),
    entry("q2b", "a1"),
    entry("a2b", "q2b"),
  ];
}

const ids = (list: TreeEntry[]) => list.map((entry) => entry.id);

Deno.test("abandoned entries: the old path after the point it shares with the new one", () => {
  assert.deepEqual(ids(abandonedEntries(entries(), "a2", "a1")), ["q2", "a2"], "back up the path");
  assert.deepEqual(ids(abandonedEntries(entries(), "a2", "a2b")), ["q2", "a2"], "to a sibling");
  assert.deepEqual(
    ids(abandonedEntries(entries(), "a2", null)),
    ["q1", "a1", "q2", "a2"],
    "a root",
  );
  assert.deepEqual(ids(abandonedEntries(entries(), "a1", "a2b")), [], "further down: nothing left");
  assert.deepEqual(ids(abandonedEntries(entries(), null, "a1")), [], "from nothing");
});
