import assert from "node:assert/strict";
import { join } from "node:path";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import { readListIndex } from "../../../lib/session/jsonl_list_index.ts";
import { assistant, persistent, user } from "./fixtures.ts";

Deno.test("JSONL list index: trusted while the directory is unchanged, rebuilt after any write", async () => {
  const dir = await Deno.makeTempDir();
  const writer = new FileSystemJSONLStore({ dir });
  const reader = new FileSystemJSONLStore({ dir });
  try {
    const sessions = [writer.create(), writer.create()];
    for (const session of sessions) {
      await session.append(persistent(user("q"), assistant("a")));
    }
    assert.deepEqual((await reader.list()).map((info) => info.messageCount), [2, 2]);
    // Just written: the directory may still change within its mtime's millisecond.
    assert.equal((await readListIndex(dir))?.dirMtimeMs, null);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    await reader.list();
    const index = await readListIndex(dir);
    assert.equal(index?.dirMtimeMs, (await Deno.stat(dir)).mtime?.getTime());
    assert.deepEqual(Object.keys(index!.sessions).sort(), sessions.map((s) => s.id).sort());

    // Another store appends: its sidecar is rewritten, so the directory changes.
    await sessions[0]!.append(persistent(user("again"), assistant("b")));
    const listed = await reader.list();
    assert.deepEqual(listed.map((info) => [info.id, info.messageCount]), [
      [sessions[0]!.id, 4],
      [sessions[1]!.id, 2],
    ]);
    await writer.delete(sessions[1]!.id);
    assert.deepEqual((await reader.list()).map((info) => info.id), [sessions[0]!.id]);

    // An entry listed unreadable is read again even from a trusted index: its reason
    // (a newer format, a permission) can go without the file or directory changing.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    await reader.list();
    const trusted = await readListIndex(dir);
    assert.notEqual(trusted?.dirMtimeMs, null);
    trusted!.sessions[sessions[0]!.id]!.info.unreadable = "permission denied";
    await Deno.writeTextFile(
      join(dir, ".index", "list.json"),
      JSON.stringify({ version: 2, ...trusted }),
    );
    const [again] = await reader.list();
    assert.equal(again?.unreadable, undefined);
    assert.equal(again?.messageCount, 4);

    // A damaged index is not trusted: every session is read again.
    await Deno.writeTextFile(join(dir, ".index", "list.json"), "{ not json");
    assert.deepEqual((await reader.list()).map((info) => info.messageCount), [4]);
  } finally {
    await writer.close();
    await reader.close();
    await Deno.remove(dir, { recursive: true });
  }
});
