// An entry id used twice makes a session fail closed on every load, though
// each of its lines reads; repair used to call it intact. Now repair gives
// the later entry a new id, the lines after it follow, and the session loads.
import assert from "node:assert/strict";
import { join } from "node:path";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import { type PersistentMessage, SessionCorruptError } from "@panto/lib";
import { assistant, persistent, user } from "./fixtures.ts";

/** The entries with explicit ids and parents, as an embedder appending by hand may give them. */
function withIds(
  entries: PersistentMessage[],
  links: [string, string | null][],
): PersistentMessage[] {
  return entries.map((entry, at) => ({ ...entry, id: links[at]![0], parentId: links[at]![1] }));
}

Deno.test("repair gives a reused entry id a new one; the branch after it stays on it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "panto-duplicate-" });
  const store = new FileSystemJSONLStore({ dir });
  try {
    const session = store.create();
    await store.appendMessages(
      session.id,
      withIds(persistent(user("first"), assistant("one")), [["a", null], ["b", "a"]]),
    );
    // "b" again, continuing the first "b"; then an answer, and a label naming the second "b".
    await store.appendMessages(
      session.id,
      withIds(persistent(user("second"), assistant("two")), [["b", "b"], ["c", "b"]]),
    );
    const path = join(dir, `${session.id}.jsonl`);
    const label = {
      type: "label",
      timestamp: new Date().toISOString(),
      entryId: "b",
      label: "kept",
    };
    await Deno.writeTextFile(path, JSON.stringify(label) + "\n", { append: true });
    const before = await Deno.readTextFile(path);

    await assert.rejects(
      store.load(session.id),
      (error) =>
        error instanceof SessionCorruptError && error.line === 4 &&
        /entry id "b" is used twice/.test(error.message) && /run repair/.test(error.message),
    );

    const report = await store.repair(session.id);
    assert.equal(report.reassigned.length, 1);
    const [{ line, id, newId }] = report.reassigned as [typeof report.reassigned[0]];
    assert.deepEqual([line, id], [4, "b"]);
    assert.match(newId, /^[0-9a-f]{12}$/);
    assert.deepEqual(report.dropped, []);
    assert.equal(await Deno.readTextFile(report.backupPath!), before, "the original is kept");

    const tree = (await store.loadTree(session.id))!;
    assert.deepEqual(
      tree.entries.map((entry) => [entry.id, entry.parentId, entry.label]),
      [["a", null, undefined], ["b", "a", undefined], [newId, "b", "kept"], [
        "c",
        newId,
        undefined,
      ]],
    );
    assert.deepEqual(
      (await store.load(session.id))?.messages.map((m) => m.content[0]),
      ["first", "one", "second", "two"].map((text) => ({ type: "text", text })),
    );
    const lines = (await Deno.readTextFile(path)).split("\n");
    assert.deepEqual(
      [lines[0], lines[1], lines[2]],
      before.split("\n").slice(0, 3),
      "lines before the reused id are kept byte for byte",
    );
    assert.equal(
      (await store.repair(session.id)).backupPath,
      null,
      "a second repair finds nothing",
    );
    const resumed = await store.resolve(session.id);
    await resumed!.append(persistent(user("third"), assistant("three")));
    assert.equal((await store.load(session.id))?.messages.length, 6, "the session goes on");
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
