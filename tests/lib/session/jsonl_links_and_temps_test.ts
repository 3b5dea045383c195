// The JSONL store's session files are written in place, never through a
// symbolic link planted at `<id>.jsonl`; and a `<id>.jsonl.tmp` left by a
// write cut off before its rename (kill -9 in replaceConversation) is never
// a session, and is removed by the next list, writer or repair.
import assert from "node:assert/strict";
import { join } from "node:path";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import { SessionStoreError } from "@panto/lib";
import { assistant, persistent, user } from "./fixtures.ts";

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

Deno.test("an append to a session whose file is a symbolic link is refused; its target is untouched", async () => {
  const dir = await Deno.makeTempDir({ prefix: "panto-link-" });
  const writer = new FileSystemJSONLStore({ dir });
  try {
    const session = writer.create();
    await session.append(persistent(user("q"), assistant("a")));
    await writer.close();
    const path = join(dir, `${session.id}.jsonl`);
    // Another user's file, made to look like the session: a link in its place.
    const victim = join(dir, "elsewhere.txt");
    await Deno.rename(path, victim);
    await Deno.symlink(victim, path);
    const before = await Deno.readFile(victim);

    const store = new FileSystemJSONLStore({ dir });
    try {
      const refused = (error: unknown) =>
        error instanceof SessionStoreError && error.message.includes(path) &&
        /symbolic link/.test(error.message);
      const resumed = await store.resolve(session.id);
      await assert.rejects(resumed!.append(persistent(user("more"), assistant("b"))), refused);
      await assert.rejects(store.rename(session.id, "renamed"), refused);
      await assert.rejects(store.repair(session.id), refused);
      await assert.rejects(store.replaceConversation(session.id, persistent(user("x"))), refused);
      assert.deepEqual(await Deno.readFile(victim), before, "the file it points to is unchanged");
      assert.ok((await Deno.lstat(path)).isSymlink, "the link is left for the user to look at");
    } finally {
      await store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a link planted where a new session's file will be stops its first write", async () => {
  const dir = await Deno.makeTempDir({ prefix: "panto-link-" });
  const store = new FileSystemJSONLStore({ dir });
  try {
    const session = store.create();
    const victim = join(dir, "elsewhere.txt");
    await Deno.writeTextFile(victim, "keep me\n");
    const path = join(dir, `${session.id}.jsonl`);
    await Deno.symlink(victim, path);
    await assert.rejects(
      session.append(persistent(user("q"), assistant("a"))),
      (error) => error instanceof SessionStoreError && error.message.includes(path),
    );
    assert.equal(await Deno.readTextFile(victim), "keep me\n");
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a temp file left by a cut-off replaceConversation is never a session and is removed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "panto-temp-" });
  const store = new FileSystemJSONLStore({ dir });
  try {
    const session = store.create();
    await session.append(persistent(user("q"), assistant("a")));
    const stored = await Deno.readTextFile(join(dir, `${session.id}.jsonl`));
    // What a kill -9 between writing the replacement and renaming it leaves.
    const leftover = join(dir, `${session.id}.jsonl.tmp`);
    await Deno.writeTextFile(leftover, stored + stored);
    // And one of a first write cut off: no session file at all.
    const orphanId = "0190a5c4-0000-7000-8000-000000000000";
    const orphan = join(dir, `${orphanId}.jsonl.tmp`);
    await Deno.writeTextFile(orphan, stored.replaceAll(session.id, orphanId));

    const reader = new FileSystemJSONLStore({ dir });
    try {
      assert.deepEqual((await reader.list()).map((info) => info.id), [session.id]);
      assert.equal(await reader.resolve("0190a5c4"), null, "not resolved as a session");
      assert.equal(await exists(leftover), false, "the list removed it");
      assert.equal(await exists(orphan), false);
      assert.equal((await reader.load(session.id))?.messages.length, 2, "the session is as it was");
    } finally {
      await reader.close();
    }

    // The next writer removes one too (it holds the session's lock), and so does repair.
    await Deno.writeTextFile(leftover, "partial");
    await session.append(persistent(user("again"), assistant("b")));
    assert.equal(await exists(leftover), false, "the writer removed it");
    await Deno.writeTextFile(leftover, "partial");
    assert.equal((await store.repair(session.id)).backupPath, null);
    assert.equal(await exists(leftover), false, "repair removed it");
    assert.equal((await store.load(session.id))?.messages.length, 4);
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a temp file of a session another writer holds is left to it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "panto-temp-" });
  const writer = new FileSystemJSONLStore({ dir });
  const lister = new FileSystemJSONLStore({ dir });
  try {
    const session = writer.create();
    // The prompt is stored and the turn runs: the writer holds the session's lock.
    await session.append(persistent(user("q"), assistant("a"), user("running")));
    assert.equal(session.info.state?.status, "running");
    const inFlight = join(dir, `${session.id}.jsonl.tmp`);
    await Deno.writeTextFile(inFlight, "being written");
    await lister.list();
    assert.equal(await Deno.readTextFile(inFlight), "being written");
  } finally {
    await writer.close();
    await lister.close();
    await Deno.remove(dir, { recursive: true });
  }
});
