// A damaged tree index (.index/<id>.tree.json) is never trusted: a parent
// cycle once sent `panto sessions show` round and round until it held 3 GB.
// Whatever is wrong with it, a load reads the session file itself, returns
// the same conversation and writes a sound index again.
import assert from "node:assert/strict";
import { join } from "node:path";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import { assistant, persistent, user } from "./fixtures.ts";

type Index = Record<string, unknown> & {
  ids: unknown[];
  parents: unknown[];
  starts: unknown[];
  ends: unknown[];
  lineNumbers: unknown[];
  checked: unknown[];
};

/** A session with a branch (so parents are not just "the one before"), loaded once to index it. */
async function branchedSession(store: FileSystemJSONLStore): Promise<string> {
  const session = store.create();
  await session.append(persistent(user("first"), assistant("one")));
  const [root] = (await store.loadTree(session.id))!.entries;
  await session.branchFrom(root!.id);
  await session.append(persistent(user("second"), assistant("two")));
  await session.append(persistent(user("third"), assistant("three")));
  await store.load(session.id);
  return session.id;
}

const DAMAGES: [string, (index: Index) => void][] = [
  ["a parent cycle", (index) => {
    index.parents[1] = 4;
    index.parents[4] = 1;
  }],
  ["an entry its own parent", (index) => (index.parents[5] = 5)],
  ["a parent out of range", (index) => (index.parents[5] = 99)],
  ["a parent below -1", (index) => (index.parents[3] = -7)],
  ["a parent that is not a number", (index) => (index.parents[2] = "0")],
  ["short parents", (index) => index.parents.pop()],
  ["short byte ranges", (index) => index.starts.splice(1, 2)],
  ["no ids", (index) => delete (index as Record<string, unknown>).ids],
  ["an id that is not a string", (index) => (index.ids[2] = 7)],
  ["an id used twice", (index) => (index.ids[3] = index.ids[1])],
  ["covered past the end of the file", (index) => (index.covered = 1e9)],
  ["covered as text", (index) => (index.covered = String(index.covered))],
  ["a range past what is covered", (index) => (index.ends[5] = (index.covered as number) + 10)],
  ["line numbers out of order", (index) => (index.lineNumbers[2] = 1)],
  ["a sample that is not bytes", (index) => ((index.sample as unknown[])[0] = 300)],
  ["checked marks that are not 0 or 1", (index) => (index.checked[0] = "yes")],
  ["the index not an object", (index) => Object.keys(index).forEach((key) => delete index[key])],
  // Well formed, but leading to other lines: the lines' own ids give it away.
  ["two entries' lines swapped", (index) => {
    [index.starts[1], index.starts[3]] = [index.starts[3], index.starts[1]];
    [index.ends[1], index.ends[3]] = [index.ends[3], index.ends[1]];
  }],
];

Deno.test("a damaged tree index is rebuilt from the session file, never followed", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "panto-tree-index-" });
  const store = new FileSystemJSONLStore({ dir });
  try {
    const id = await branchedSession(store);
    const indexPath = join(dir, ".index", `${id}.tree.json`);
    const sound = await Deno.readTextFile(indexPath);
    const expected = await store.load(id);
    assert.deepEqual(
      expected?.messages.map((m) => m.content[0]),
      ["first", "second", "two", "third", "three"].map((text) => ({ type: "text", text })),
    );
    for (const [name, damage] of DAMAGES) {
      await t.step(name, async () => {
        const index: Index = JSON.parse(sound);
        damage(index);
        await Deno.writeTextFile(indexPath, JSON.stringify(index));
        const reader = new FileSystemJSONLStore({ dir });
        try {
          assert.deepEqual(await reader.load(id), expected);
          assert.match(await reader.export(id), /three/, "`panto sessions show` reads it too");
          assert.deepEqual(
            JSON.parse(await Deno.readTextFile(indexPath)).parents,
            JSON.parse(sound).parents,
            "the index is written again from the file",
          );
          assert.deepEqual(await reader.load(id), expected, "and the next load uses it");
        } finally {
          await reader.close();
        }
      });
    }
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a tree index that is not JSON, or a directory, is ignored", async () => {
  const dir = await Deno.makeTempDir({ prefix: "panto-tree-index-" });
  const store = new FileSystemJSONLStore({ dir });
  try {
    const id = await branchedSession(store);
    const expected = await store.load(id);
    const indexPath = join(dir, ".index", `${id}.tree.json`);
    await Deno.writeTextFile(indexPath, '{"version":2,"ids":[');
    assert.deepEqual(await store.load(id), expected);
    await Deno.remove(indexPath);
    await Deno.mkdir(indexPath);
    assert.deepEqual(await store.load(id), expected);
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
