// `load` on the JSONL store reads message lines only up to their tree
// fields and decodes just the active path: these check that it gives what
// the whole tree gives, and that the shortcut never reads a line wrongly.
import assert from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import { FileSystemJSONLStore, SessionCorruptError } from "@panto/lib";
import { pathTo } from "../../../lib/session/tree.ts";
import { persistent, user } from "./fixtures.ts";

/** A store in a fresh directory, removed after `body`. */
async function withStore(
  body: (store: FileSystemJSONLStore, dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "panto-jsonl-path-" });
  const store = new FileSystemJSONLStore({ dir });
  try {
    await body(store, dir);
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Stores entries whose parents are the given earlier positions (`null`: a new root). */
async function storeTree(store: FileSystemJSONLStore, parents: (number | null)[]): Promise<string> {
  const session = store.create();
  const entries = parents.map((parent, index) => ({
    ...persistent(user(`m${index}`))[0]!,
    id: `e${index}`,
    parentId: parent === null ? null : `e${parent}`,
  }));
  await store.appendMessages(session.id, entries);
  await store.release?.(session.id);
  return session.id;
}

const text = (message: { content: { type: string; text?: string }[] }) =>
  message.content[0]?.text ?? "";

Deno.test("load gives the active path of the whole tree, for any tree", async () => {
  const trees = fc.integer({ min: 1, max: 40 }).chain((size) =>
    fc.tuple(
      ...Array.from({ length: size }, (_, index) =>
        index === 0 ? fc.constant(null) : fc.option(fc.nat(index - 1), { freq: 8 })),
    )
  );
  await withStore(async (store) => {
    await fc.assert(
      fc.asyncProperty(trees, async (parents) => {
        const id = await storeTree(store, parents);
        const tree = (await store.loadTree(id))!;
        const expected = pathTo(tree.entries, tree.leafId).map((entry) => text(entry.message));
        const loaded = (await store.load(id))!.messages.map(text);
        assert.deepStrictEqual(loaded, expected);
      }),
      { numRuns: 60 },
    );
  });
});

Deno.test("lines in another key order, or with escapes in their ids, are read whole", async () => {
  await withStore(async (store, dir) => {
    const id = await storeTree(store, [null, 0, 1]);
    const path = join(dir, `${id}.jsonl`);
    const lines = (await Deno.readTextFile(path)).split("\n");
    // Line 3 (e1) written by another tool: keys in another order, an escaped id.
    const { type, timestamp, id: _, parentId, message } = JSON.parse(lines[2]!);
    lines[2] =
      `{"message":${JSON.stringify(message)},"type":"${type}","timestamp":"${timestamp}",` +
      `"parentId":"${parentId}","id":"\\u0065\\u0031"}`;
    await Deno.writeTextFile(path, lines.join("\n"));
    assert.deepStrictEqual((await store.load(id))!.messages.map(text), ["m0", "m1", "m2"]);
  });
});

Deno.test("a line on the path whose id is given twice, differently, fails closed", async () => {
  await withStore(async (store, dir) => {
    const id = await storeTree(store, [null, 0, 1]);
    const path = join(dir, `${id}.jsonl`);
    const lines = (await Deno.readTextFile(path)).split("\n");
    // JSON.parse keeps the last "id": the line says e1 up front and e9 at its end.
    lines[2] = `${lines[2]!.slice(0, -1)},"id":"e9"}`;
    await Deno.writeTextFile(path, lines.join("\n"));
    await assert.rejects(() => store.load(id), (error: unknown) => {
      assert.ok(error instanceof SessionCorruptError);
      assert.equal(error.line, 3);
      assert.match(error.message, /given twice/);
      return true;
    });
  });
});
