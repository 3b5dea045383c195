// `load` on the JSONL store reads message lines only up to their tree
// fields, keeps them in a tree index, and decodes just the active path:
// these check that it gives what the whole tree gives, that a stale index
// is never used, and that the shortcut never reads a line wrongly.
import assert from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import { SessionCorruptError } from "@panto/lib";
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

/** Appends entries whose parents are the given positions (`null`: a new root) to session `id`. */
async function appendTree(
  store: FileSystemJSONLStore,
  id: string,
  parents: (number | null)[],
  first = 0,
): Promise<void> {
  const entries = parents.map((parent, at) => ({
    ...persistent(user(`m${first + at}`))[0]!,
    id: `e${first + at}`,
    parentId: parent === null ? null : `e${parent}`,
  }));
  await store.appendMessages(id, entries);
  await store.release?.(id);
}

/** Stores entries whose parents are the given earlier positions (`null`: a new root). */
async function storeTree(store: FileSystemJSONLStore, parents: (number | null)[]): Promise<string> {
  const session = store.create();
  await appendTree(store, session.id, parents);
  return session.id;
}

/** What the whole tree says the active path is. */
async function expectedPath(store: FileSystemJSONLStore, id: string): Promise<string[]> {
  const tree = (await store.loadTree(id))!;
  return pathTo(tree.entries, tree.leafId).map((entry) => text(entry.message));
}

const text = (message: { content: { type: string; text?: string }[] }) =>
  message.content[0]?.text ?? "";

/** Parents for `size` entries after `first` earlier ones: mostly the entry before, sometimes any earlier one or none. */
function treeParents(first: number, size: number) {
  return fc.tuple(
    ...Array.from(
      { length: size },
      (_, at) =>
        first + at === 0 ? fc.constant(null) : fc.option(fc.nat(first + at - 1), { freq: 8 }),
    ),
  );
}

Deno.test("load gives the active path of the whole tree, for any tree, before and after appends", async () => {
  const cases = fc.tuple(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 10 })).chain((
    [size, more],
  ) => fc.tuple(treeParents(0, size), treeParents(size, more)));
  await withStore(async (store) => {
    await fc.assert(
      fc.asyncProperty(cases, async ([parents, appended]) => {
        const id = await storeTree(store, parents);
        assert.deepStrictEqual(
          (await store.load(id))!.messages.map(text),
          await expectedPath(store, id),
        );
        // Again from the index the first load wrote, then with lines appended past it.
        assert.deepStrictEqual(
          (await store.load(id))!.messages.map(text),
          await expectedPath(store, id),
        );
        await appendTree(store, id, appended, parents.length);
        assert.deepStrictEqual(
          (await store.load(id))!.messages.map(text),
          await expectedPath(store, id),
        );
      }),
      { numRuns: 60 },
    );
  });
});

Deno.test("a tree index that no longer describes its file is rebuilt", async () => {
  await withStore(async (store, dir) => {
    const id = await storeTree(store, [null, 0, 1]);
    const path = join(dir, `${id}.jsonl`);
    const indexPath = join(dir, ".index", `${id}.tree.json`);
    assert.deepStrictEqual((await store.load(id))!.messages.map(text), ["m0", "m1", "m2"]);
    assert.ok((await Deno.stat(indexPath)).isFile, "the first load writes the index");
    const original = await Deno.readTextFile(path);
    const loaded = async () => (await store.load(id))!.messages.map(text);

    // Edited in place, the same size (e2 now continues e0): only the mtime tells.
    await Deno.writeTextFile(path, original.replace('"parentId":"e1"', '"parentId":"e0"'));
    await Deno.utime(path, new Date(), new Date(Date.now() + 5000));
    assert.deepStrictEqual(await loaded(), ["m0", "m2"]);

    // Edited and grown: the bytes before the end the index covers changed.
    await Deno.writeTextFile(path, original.replace('"m2"', '"m2, longer"'));
    assert.deepStrictEqual(await loaded(), ["m0", "m1", "m2, longer"]);

    // Shorter than the index covers.
    const lines = original.split("\n");
    await Deno.writeTextFile(path, lines.slice(0, 3).join("\n") + "\n");
    assert.deepStrictEqual(await loaded(), ["m0", "m1"]);

    // Another file renamed into place (a replace), and a damaged index.
    await Deno.writeTextFile(`${path}.new`, original.replace('"m0"', '"n0"'));
    await Deno.rename(`${path}.new`, path);
    assert.deepStrictEqual(await loaded(), ["n0", "m1", "m2"]);
    await Deno.writeTextFile(indexPath, "{ not json");
    assert.deepStrictEqual(await loaded(), ["n0", "m1", "m2"]);

    await store.delete(id);
    await assert.rejects(() => Deno.stat(indexPath), Deno.errors.NotFound, "delete removes it");
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
      assert.match(error.message, /id: "e9", where the line starts with "e1"/);
      return true;
    });
  });
});

Deno.test("lines are checked against the schemas until a load has checked them in an unchanged file", async () => {
  await withStore(async (store, dir) => {
    const id = await storeTree(store, [null, 0, 1]);
    const path = join(dir, `${id}.jsonl`);
    assert.deepStrictEqual((await store.load(id))!.messages.map(text), ["m0", "m1", "m2"]);
    const lines = (await Deno.readTextFile(path)).split("\n");
    const bad = (line: string, parentId: string, newId: string) => {
      const value = JSON.parse(line);
      return JSON.stringify({
        ...value,
        id: newId,
        parentId,
        message: { ...value.message, role: "robot" },
      });
    };
    // Appended past the index by another program: read, and checked.
    await Deno.writeTextFile(path, `${bad(lines[3]!, "e2", "e3")}\n`, { append: true });
    await assert.rejects(() => store.load(id), /:5 is corrupt: message\.role/);
    // A checked line edited in place (same size, a new mtime): checked again.
    const robot = lines[2]!.replace('"role":"user"', '"role":"robo"');
    await Deno.writeTextFile(path, [...lines.slice(0, 2), robot, ...lines.slice(3)].join("\n"));
    await Deno.utime(path, new Date(), new Date(Date.now() + 5000));
    await assert.rejects(() => store.load(id), /:3 is corrupt: message\.role/);
  });
});
