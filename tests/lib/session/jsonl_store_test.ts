import assert from "node:assert/strict";
import { join } from "node:path";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import {
  SessionChangedError,
  SessionCorruptError,
  SessionInUseError,
  type SessionStore,
} from "@panto/lib";
import { concatBytes } from "../../../lib/concat_bytes.ts";
import { ChildWriter } from "./child_writer.ts";
import { runConformance } from "./conformance.ts";
import { assistant, persistent, user } from "./fixtures.ts";

Deno.test("FileSystemJSONLStore conformance", async (t) => {
  await runConformance(t, async () => {
    const root = await Deno.makeTempDir({ prefix: "panto-jsonl-" });
    const dir = join(root, "sessions");
    return {
      store: new FileSystemJSONLStore({ dir }),
      dump: () => readTree(root),
      cleanup: () => Deno.remove(root, { recursive: true }),
    };
  });
});

/** A temp sessions directory with one stored session of `count` user/assistant pairs. */
async function withSession(
  count: number,
  body: (ctx: { dir: string; id: string; path: string }) => Promise<void>,
): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "panto-jsonl-" });
  const dir = join(root, "sessions");
  const store = new FileSystemJSONLStore({ dir });
  try {
    const session = store.create({ metadata: '{"m":1}' });
    for (let i = 0; i < count; i++) {
      await session.append(persistent(user(`q${i}`), assistant(`a${i}`)));
    }
    await store.close();
    await body({ dir, id: session.id, path: join(dir, `${session.id}.jsonl`) });
  } finally {
    await store.close();
    await Deno.remove(root, { recursive: true });
  }
}

async function texts(store: SessionStore, id: string): Promise<string[]> {
  const conversation = await store.load(id);
  assert.ok(conversation, `session ${id} should load`);
  return conversation.messages.map((m) => (m.content[0]?.type === "text" ? m.content[0].text : ""));
}

Deno.test("JSONL file layout: header line, one entry per message, name entries", async () => {
  await withSession(1, async ({ dir, id, path }) => {
    const store = new FileSystemJSONLStore({ dir });
    await store.rename(id, "named");
    await store.close();
    const lines = (await Deno.readTextFile(path)).split("\n");
    assert.equal(lines.at(-1), "", "the file ends with a newline");
    const [header, first, second, rename] = lines.map((line) => line ? JSON.parse(line) : null);
    assert.deepStrictEqual(Object.keys(header), ["type", "version", "id", "created", "metadata"]);
    assert.equal(header.type, "session");
    assert.equal(header.version, 2);
    assert.equal(header.id, id);
    assert.equal(header.metadata, '{"m":1}');
    assert.equal(first.type, "message");
    assert.equal(first.parentId, null, "the first entry is a root");
    assert.equal(second.parentId, first.id, "each entry names its parent");
    assert.match(first.id, /^[0-9a-f]{12}$/);
    assert.equal(first.message.role, "user");
    assert.equal(second.message.role, "assistant");
    assert.equal(second.wire.model, "claude-fixture-1");
    assert.equal(second.message.usage.outputTokens, 22);
    assert.equal(second.usage, undefined, "the message's own usage is not written twice");
    assert.deepStrictEqual(Object.keys(rename), ["type", "timestamp", "name"]);
  });
});

Deno.test("files are 0600 and the directories the store creates are 0700", async () => {
  await withSession(2, async ({ dir, id, path }) => {
    await Deno.writeTextFile(path, "garbage\n", { append: true });
    await Deno.writeTextFile(path, (await Deno.readTextFile(path)) + "{}\n");
    const store = new FileSystemJSONLStore({ dir });
    const report = await store.repair(id);
    await store.list();
    await store.close();
    assert.ok(report.backupPath);
    assert.equal((await Deno.stat(dir)).mode! & 0o777, 0o700);
    const names = [];
    for await (const entry of Deno.readDir(dir)) names.push(entry.name);
    for (const suffix of [".jsonl", ".meta.json", ".lock"]) {
      assert.ok(names.includes(`${id}${suffix}`), `${suffix} exists`);
    }
    assert.ok(names.some((name) => name.includes(".jsonl.bak-")));
    for (const name of names) {
      const stat = await Deno.stat(join(dir, name));
      assert.equal(stat.mode! & 0o777, stat.isDirectory ? 0o700 : 0o600, name);
    }
  });
});

Deno.test("a torn last line is ignored on load and truncated by the next append", async () => {
  await withSession(3, async ({ dir, id, path }) => {
    const whole = await Deno.readFile(path);
    await Deno.writeFile(path, whole.subarray(0, whole.length - 17));
    const store = new FileSystemJSONLStore({ dir });
    assert.deepStrictEqual(await texts(store, id), ["q0", "a0", "q1", "a1", "q2"]);
    await store.appendMessages(id, persistent(user("after crash")));
    assert.deepStrictEqual(await texts(store, id), ["q0", "a0", "q1", "a1", "q2", "after crash"]);
    await store.close();
    const lines = (await Deno.readTextFile(path)).split("\n");
    assert.equal(lines.length, 8, "header + 6 entries + final empty string");
    for (const line of lines.slice(0, -1)) JSON.parse(line);
  });
});

Deno.test("invalid JSON on the last line (with its newline) is treated as torn", async () => {
  await withSession(1, async ({ dir, id, path }) => {
    await Deno.writeTextFile(path, '{"type":"message","timest\n', { append: true });
    const store = new FileSystemJSONLStore({ dir });
    assert.deepStrictEqual(await texts(store, id), ["q0", "a0"]);
    await store.appendMessages(id, persistent(user("next")));
    await store.close();
    const reopened = new FileSystemJSONLStore({ dir });
    assert.deepStrictEqual(await texts(reopened, id), ["q0", "a0", "next"]);
    await reopened.close();
  });
});

Deno.test("garbage in the middle fails closed with file and line; repair keeps the rest", async () => {
  await withSession(3, async ({ dir, id, path }) => {
    const lines = (await Deno.readTextFile(path)).split("\n");
    lines.splice(3, 0, "this is not json");
    lines.splice(
      5,
      0,
      '{"type":"message","timestamp":"t","message":{"role":"robot","content":[]}}',
    );
    const damaged = lines.join("\n");
    await Deno.writeTextFile(path, damaged);
    const store = new FileSystemJSONLStore({ dir });
    await assert.rejects(() => store.load(id), (error: unknown) => {
      assert.ok(error instanceof SessionCorruptError);
      assert.equal(error.location, path);
      assert.equal(error.line, 4);
      assert.match(
        error.message,
        new RegExp(`${escape(path)}:4 is corrupt: invalid JSON; run repair`),
      );
      return true;
    });
    await assert.rejects(
      () => store.appendMessages(id, persistent(user("x"))),
      SessionCorruptError,
    );
    const [listed] = await store.list();
    assert.equal(listed?.id, id, "a damaged session is still listed");

    const report = await store.repair(id);
    assert.deepStrictEqual(report.dropped.map((d) => d.line), [4, 6]);
    assert.match(report.dropped[1]!.reason, /message\.role/);
    assert.equal(report.kept, 7);
    assert.equal(await Deno.readTextFile(report.backupPath!), damaged);
    assert.deepStrictEqual(await texts(store, id), ["q0", "a0", "q1", "a1", "q2", "a2"]);
    assert.equal((await store.load(id))!.metadata, '{"m":1}');
    await store.appendMessages(id, persistent(user("after repair")));
    assert.equal((await store.list())[0]?.messageCount, 7);
    assert.deepStrictEqual((await store.repair(id)).dropped, [], "a second repair finds nothing");
    await store.close();
  });
});

Deno.test("a damaged header fails closed; repair writes a minimal header", async () => {
  await withSession(1, async ({ dir, id, path }) => {
    const lines = (await Deno.readTextFile(path)).split("\n");
    lines[0] = '{"type":"session","version":';
    await Deno.writeTextFile(path, lines.join("\n"));
    const store = new FileSystemJSONLStore({ dir });
    await assert.rejects(() => store.load(id), /:1 is corrupt: invalid JSON/);
    const report = await store.repair(id);
    assert.deepStrictEqual(report.dropped.map((d) => d.line), [1]);
    const conversation = await store.load(id);
    assert.equal(conversation?.messages.length, 2);
    assert.equal(conversation?.metadata, undefined);
    await store.close();
  });
});

Deno.test("a newer format version is refused with a clear error", async () => {
  await withSession(1, async ({ dir, id, path }) => {
    const lines = (await Deno.readTextFile(path)).split("\n");
    lines[0] = lines[0]!.replace('"version":2', '"version":3');
    await Deno.writeTextFile(path, lines.join("\n"));
    const store = new FileSystemJSONLStore({ dir });
    await assert.rejects(() => store.load(id), /format version 3; this panto reads version 2/);
    // Listed as unreadable, with the reason; -c (latest) and -r (resolve) then fail with it.
    const [listed] = await store.list();
    assert.equal(listed?.id, id);
    assert.equal(
      listed?.unreadable,
      "written in session format version 3; this panto reads version 2: upgrade panto to read it",
    );
    const latest = await store.latest();
    assert.equal(latest?.id, id, "an older readable session is not continued silently");
    await assert.rejects(() => latest!.load(), /format version 3/);
    await assert.rejects(async () => await (await store.resolve(id))!.load(), /format version 3/);
    await store.close();
  });
});

Deno.test("a directory where a session file should be is a clear error", async () => {
  const root = await Deno.makeTempDir({ prefix: "panto-jsonl-" });
  try {
    const id = "0190a5c4-7b1e-7c3d-9f00-1a2b3c4d5e6f";
    await Deno.mkdir(join(root, `${id}.jsonl`));
    const store = new FileSystemJSONLStore({ dir: root });
    await assert.rejects(() => store.load(id), /is not a regular file/);
    await assert.rejects(
      () => store.appendMessages(id, persistent(user("x"))),
      /is not a regular file/,
    );
    const [listed] = await store.list();
    assert.equal(listed?.id, id);
    assert.equal(listed?.unreadable, "not a regular file (a directory?)");
    await store.close();
    const file = join(root, "plain-file");
    await Deno.writeTextFile(file, "");
    const onFile = new FileSystemJSONLStore({ dir: file });
    await assert.rejects(
      () => onFile.create().append(persistent(user("x"), assistant("y"))),
      /is not a directory/,
    );
    await assert.rejects(() => onFile.list(), /is not a directory/);
    await onFile.close();
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("ids cannot escape the sessions directory", async () => {
  const root = await Deno.makeTempDir({ prefix: "panto-jsonl-" });
  try {
    const dir = join(root, "sessions");
    const store = new FileSystemJSONLStore({ dir });
    for (
      const id of ["../x", "../../etc/passwd", "/etc/passwd", join(root, "abs"), "..", "a/../../b"]
    ) {
      await assert.rejects(() => store.appendMessages(id, persistent(user("x"), assistant("y"))));
    }
    await store.close();
    const entries = [];
    for await (const entry of Deno.readDir(root)) entries.push(entry.name);
    assert.deepStrictEqual(entries, [], "nothing was created anywhere");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("list reads sidecar summaries and rebuilds stale or missing ones", async () => {
  await withSession(2, async ({ dir, id }) => {
    const sidecar = join(dir, `${id}.meta.json`);
    const stored = JSON.parse(await Deno.readTextFile(sidecar));
    assert.equal(stored.info.messageCount, 4);
    stored.info.lastUserMessage = "from the sidecar";
    await Deno.writeTextFile(sidecar, JSON.stringify(stored));
    const store = new FileSystemJSONLStore({ dir });
    assert.equal(
      (await store.list())[0]?.lastUserMessage,
      "from the sidecar",
      "the sidecar is used",
    );

    const other = new FileSystemJSONLStore({ dir });
    await other.appendMessages(id, persistent(user("newest")));
    await other.close();
    assert.equal((await store.list())[0]?.lastUserMessage, "newest", "a stale sidecar is rebuilt");

    await Deno.remove(sidecar);
    // The list index would answer for the unchanged file: without it, the file is read.
    await Deno.remove(join(dir, ".index"), { recursive: true });
    const [info] = await store.list();
    assert.equal(info?.messageCount, 5);
    assert.equal(info?.lastUserMessage, "newest");
    assert.ok((await Deno.stat(sidecar)).isFile, "the sidecar is written back");
    await Deno.writeTextFile(sidecar, "{broken");
    assert.equal((await store.list())[0]?.messageCount, 5);
    await store.close();
  });
});

Deno.test("a second writer in the same process gets the in-use error", async () => {
  await withSession(1, async ({ dir, id }) => {
    const first = new FileSystemJSONLStore({ dir });
    const second = new FileSystemJSONLStore({ dir });
    await first.appendMessages(id, persistent(user("mine")));
    await assert.rejects(
      () => second.appendMessages(id, persistent(user("theirs"))),
      (error: unknown) => {
        assert.ok(error instanceof SessionInUseError);
        assert.equal(error.holder.pid, Deno.pid);
        assert.match(
          error.message,
          new RegExp(
            `^Session ${id} is in use by this process \\(another store or agent writes it\\) since \\d{4}-`,
          ),
        );
        return true;
      },
    );
    await assert.rejects(() => second.delete(id), SessionInUseError);
    assert.deepStrictEqual((await texts(second, id)).at(-1), "mine", "readers are not blocked");
    await first.close();
    await second.appendMessages(id, persistent(user("theirs")));
    assert.deepStrictEqual((await texts(second, id)).slice(-2), ["mine", "theirs"]);
    await second.close();
  });
});

Deno.test("two processes: the second is refused with the holder's pid until the first closes", async () => {
  const root = await Deno.makeTempDir({ prefix: "panto-jsonl-" });
  try {
    const holder = new ChildWriter(["jsonl", root, "new", "3", "0", "hold"]);
    const id = (await holder.waitFor(/^session /)).slice("session ".length);
    await holder.waitFor(/^holding$/);
    const refused = new ChildWriter(["jsonl", root, id, "1"]);
    const error = await refused.waitFor(/^error /);
    assert.match(
      error,
      new RegExp(`in use by another process \\(pid ${holder.process.pid}\\) since \\d{4}-\\d\\d-`),
    );
    assert.equal((await refused.finish()).code, 3);
    assert.equal((await holder.finish()).code, 0);
    const after = new ChildWriter(["jsonl", root, id, "2"]);
    assert.equal((await after.finish()).code, 0);
    const store = new FileSystemJSONLStore({ dir: root });
    const seqs = (await texts(store, id)).filter((t) => t.startsWith("seq")).map((t) =>
      t.split(" ")[1]
    );
    assert.deepStrictEqual(seqs, ["0", "1", "2", "0", "1"]);
    await store.close();
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("kill -9 during appends never loses an acknowledged append (20 runs)", async () => {
  const root = await Deno.makeTempDir({ prefix: "panto-jsonl-kill-" });
  try {
    const runs = Array.from({ length: 20 }, (_, run) => run);
    let torn = 0;
    const lanes = [0, 1].map(async (lane) => {
      for (const run of runs.filter((r) => r % 2 === lane)) {
        torn += await killRun(root, run) ? 1 : 0;
      }
    });
    await Promise.all(lanes);
    console.log(`${torn} of ${runs.length} kills left a torn last line`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/** One kill; true when it left a torn last line behind. */
async function killRun(root: string, run: number): Promise<boolean> {
  const bytes = [0, 1000, 60_000, 300_000][run % 4]!;
  const child = new ChildWriter(["jsonl", root, "new", "100000", String(bytes)]);
  const id = (await child.waitFor(/^session /)).slice("session ".length);
  await new Promise((resolve) => setTimeout(resolve, Math.random() * 120));
  child.process.kill("SIGKILL");
  await child.finish();
  const acknowledged = child.lines.filter((line) => /^\d+$/.test(line)).map(Number);
  const raw = await Deno.readFile(join(root, `${id}.jsonl`));
  const store = new FileSystemJSONLStore({ dir: root });
  try {
    const stored = (await texts(store, id)).slice(2).map((text) => Number(text.split(" ")[1]));
    assert.deepStrictEqual(stored, stored.map((_, i) => i), `run ${run}: appends stored in order`);
    const last = acknowledged.at(-1) ?? -1;
    assert.ok(
      stored.length >= last + 1,
      `run ${run}: acknowledged ${last + 1}, stored ${stored.length}`,
    );
    await store.appendMessages(id, persistent(user("recovered")));
    assert.equal((await texts(store, id)).at(-1), "recovered");
  } finally {
    await store.close();
  }
  return raw.at(-1) !== 0x0a;
}

async function readTree(root: string): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const entry of Deno.readDir(root)) {
    const path = join(root, entry.name);
    parts.push(entry.isDirectory ? await readTree(path) : await Deno.readFile(path));
  }
  return concatBytes(parts);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

Deno.test("a torn last line stays torn after list rebuilt the sidecar: the next append is readable", async () => {
  await withSession(1, async ({ dir, id, path }) => {
    await Deno.writeTextFile(path, '{"type":"message","timest', { append: true });
    const store = new FileSystemJSONLStore({ dir });
    assert.equal((await store.list())[0]?.messageCount, 2, "list summarises the readable lines");
    await store.appendMessages(id, persistent(user("after crash")));
    await store.close();
    const reopened = new FileSystemJSONLStore({ dir });
    assert.deepStrictEqual(await texts(reopened, id), ["q0", "a0", "after crash"]);
    await reopened.close();
  });
});

Deno.test("an append whose sidecar cannot be written still succeeds, once", async () => {
  const root = await Deno.makeTempDir({ prefix: "panto-jsonl-" });
  const store = new FileSystemJSONLStore({ dir: root });
  try {
    const session = store.create();
    // A directory where the sidecar goes: writing the sidecar fails.
    await Deno.mkdir(join(root, `${session.id}.meta.json`));
    await session.append(persistent(user("q0"), assistant("a0")));
    await session.append(persistent(user("q1")));
    assert.deepStrictEqual(await texts(store, session.id), ["q0", "a0", "q1"]);
    await store.rename(session.id, "still named");
    assert.equal((await store.list())[0]?.name, "still named");
  } finally {
    await store.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a store holds a session's file and lock only while its turn runs, or until release", async () => {
  const dir = await Deno.makeTempDir({ prefix: "panto-jsonl-" });
  // Only descriptors into this store's directory: test files run in parallel in one process.
  const openFiles = () =>
    [...Deno.readDirSync("/proc/self/fd")].filter((fd) => {
      try {
        return Deno.readLinkSync(`/proc/self/fd/${fd.name}`).startsWith(dir);
      } catch {
        return false; // closed between listing and reading
      }
    }).length;
  const store = new FileSystemJSONLStore({ dir });
  const other = new FileSystemJSONLStore({ dir });
  try {
    const before = openFiles();
    const sessions = Array.from({ length: 10 }, () => store.create());
    for (const session of sessions) await session.append(persistent(user("q"), assistant("a")));
    assert.equal(openFiles(), before, "idle sessions hold nothing");
    for (const session of sessions) await session.append(persistent(user("a long turn")));
    assert.ok(openFiles() >= before + 20, "a running turn holds its file and its lock");
    for (const session of sessions) await session.release();
    assert.equal(openFiles(), before);

    const [first] = sessions;
    await other.appendMessages(first!.id, persistent(user("another writer")));
    await assert.rejects(() => first!.append(persistent(user("back"))), SessionInUseError);
    await other.release(first!.id);
    await assert.rejects(
      () => first!.append(persistent(user("back"))),
      (error: unknown) => {
        assert.ok(error instanceof SessionChangedError);
        assert.match(
          error.message,
          /changed by another writer since it was loaded \(it has 4 messages, this one knew 3\)/,
        );
        return true;
      },
    );
    const fresh = (await store.resolve(first!.id))!;
    await fresh.append(persistent(user("back"), assistant("ok")));
    assert.deepStrictEqual((await texts(store, first!.id)).slice(-3), [
      "another writer",
      "back",
      "ok",
    ]);
  } finally {
    await store.close();
    await other.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a sidecar from before states (version 1) is rebuilt from the file", async () => {
  await withSession(1, async ({ dir, id }) => {
    const store = new FileSystemJSONLStore({ dir });
    await store.appendMessages(id, persistent(user("cut off")));
    await store.close();
    const sidecar = join(dir, `${id}.meta.json`);
    const old = JSON.parse(await Deno.readTextFile(sidecar));
    assert.equal(old.info.state.status, "running");
    delete old.info.state;
    await Deno.writeTextFile(sidecar, JSON.stringify({ ...old, version: 1 }));
    const reader = new FileSystemJSONLStore({ dir });
    assert.equal((await reader.list())[0]?.state?.status, "interrupted");
    assert.equal(JSON.parse(await Deno.readTextFile(sidecar)).version, 3, "rewritten");
    await reader.close();
  });
});

Deno.test("a sidecar from before first prompts (version 2) is rebuilt from the file", async () => {
  await withSession(1, async ({ dir, id }) => {
    const store = new FileSystemJSONLStore({ dir });
    await store.appendMessages(id, persistent(user("later"), assistant("ok")));
    await store.close();
    const sidecar = join(dir, `${id}.meta.json`);
    const old = JSON.parse(await Deno.readTextFile(sidecar));
    assert.equal(old.info.firstUserMessage, "q0");
    delete old.info.firstUserMessage;
    await Deno.writeTextFile(sidecar, JSON.stringify({ ...old, version: 2 }));
    const reader = new FileSystemJSONLStore({ dir });
    assert.equal((await reader.list())[0]?.firstUserMessage, "q0");
    await reader.appendMessages(id, persistent(user("last"), assistant("ok")));
    assert.equal((await reader.list())[0]?.firstUserMessage, "q0", "an append keeps it");
    await reader.close();
  });
});

Deno.test("a version 1 file reads as one chain; its first write makes it version 2, old lines kept", async () => {
  await withSession(2, async ({ dir, id, path }) => {
    const lines = (await Deno.readTextFile(path)).split("\n").filter((line) => line !== "");
    const v1 = lines.map((line, index) => {
      const record = JSON.parse(line);
      if (index === 0) {
        record.version = 1;
      } else {
        delete record.id;
        delete record.parentId;
      }
      return JSON.stringify(record);
    });
    await Deno.writeTextFile(path, v1.join("\n") + "\n");
    await Deno.remove(join(dir, `${id}.meta.json`)).catch(() => {});
    const store = new FileSystemJSONLStore({ dir });
    const tree = await store.loadTree(id);
    assert.deepStrictEqual(tree?.entries.map((e) => [e.id, e.parentId]), [
      ["0", null],
      ["1", "0"],
      ["2", "1"],
      ["3", "2"],
    ]);
    const session = await store.resolve(id);
    await session!.branchFrom("1");
    await session!.append(persistent(user("q1b"), assistant("a1b")));
    await store.close();
    const after = (await Deno.readTextFile(path)).split("\n").filter((line) => line !== "");
    assert.equal(JSON.parse(after[0]!).version, 2);
    assert.deepStrictEqual(after.slice(1, 5), v1.slice(1), "the version 1 lines stay as written");
    assert.equal(JSON.parse(after[5]!).parentId, "1");
    const reopened = new FileSystemJSONLStore({ dir });
    assert.deepStrictEqual(await texts(reopened, id), ["q0", "a0", "q1b", "a1b"]);
    await reopened.close();
  });
});

Deno.test("an entry id used twice fails closed, naming the line", async () => {
  await withSession(1, async ({ dir, id, path }) => {
    const lines = (await Deno.readTextFile(path)).split("\n");
    const second = JSON.parse(lines[2]!);
    second.id = JSON.parse(lines[1]!).id;
    lines[2] = JSON.stringify(second);
    await Deno.writeTextFile(path, lines.join("\n"));
    const store = new FileSystemJSONLStore({ dir });
    await assert.rejects(() => store.load(id), (error: unknown) => {
      assert.ok(error instanceof SessionCorruptError);
      assert.equal(error.line, 3);
      assert.match(error.message, /entry id "[0-9a-f]{12}" is used twice/);
      return true;
    });
    await store.close();
  });
});

Deno.test("repair drops a damaged entry mid-session; the entries after it continue the one before", async () => {
  await withSession(2, async ({ dir, id, path }) => {
    const lines = (await Deno.readTextFile(path)).split("\n");
    lines[2] = "{ damaged";
    await Deno.writeTextFile(path, lines.join("\n"));
    const store = new FileSystemJSONLStore({ dir });
    await assert.rejects(() => store.load(id), SessionCorruptError);
    const report = await store.repair(id);
    assert.deepStrictEqual(report.dropped.map((d) => d.line), [3]);
    assert.deepStrictEqual(await texts(store, id), ["q0", "q1", "a1"]);
    const tree = await store.loadTree(id);
    assert.equal(tree?.entries[1]?.parentId, tree?.entries[0]?.id, "a1's parent was dropped");
    await store.close();
  });
});

Deno.test("load checks the entries on the active path; a damaged branch off it fails loadTree, not load", async () => {
  await withSession(2, async ({ dir, id, path }) => {
    // Lines 2-5 are q0 a0 q1 a1; a new q1 continuing a0 makes q1 a1 a branch off the path.
    const lines = (await Deno.readTextFile(path)).split("\n");
    const branch = { ...JSON.parse(lines[3]!), id: "b1", parentId: JSON.parse(lines[2]!).id };
    branch.message.content = [{ type: "text", text: "q1 again" }];
    lines.splice(5, 0, JSON.stringify(branch));
    const offPath = JSON.parse(lines[4]!);
    offPath.message.role = "robot";
    lines[4] = JSON.stringify(offPath);
    await Deno.writeTextFile(path, lines.join("\n"));
    const store = new FileSystemJSONLStore({ dir });
    assert.deepStrictEqual(await texts(store, id), ["q0", "a0", "q1 again"]);
    await assert.rejects(() => store.loadTree(id), (error: unknown) => {
      assert.ok(error instanceof SessionCorruptError);
      assert.equal(error.line, 5);
      assert.match(error.message, /:5 is corrupt: message\.role/);
      return true;
    });
    lines[4] = "{ not json";
    await Deno.writeTextFile(path, lines.join("\n"));
    await assert.rejects(
      () => store.load(id),
      /:5 is corrupt: invalid JSON/,
      "a line not in the writer's layout is read whole",
    );
    lines[4] = JSON.stringify({ ...offPath, message: { ...offPath.message, role: "assistant" } });
    const onPath = JSON.parse(lines[2]!);
    onPath.message.content = "not a list";
    lines[2] = JSON.stringify(onPath);
    await Deno.writeTextFile(path, lines.join("\n"));
    await assert.rejects(() => store.load(id), (error: unknown) => {
      assert.ok(error instanceof SessionCorruptError);
      assert.equal(error.line, 3);
      assert.match(error.message, /:3 is corrupt: message\.content: .*; run repair/);
      return true;
    });
    await store.close();
  });
});

Deno.test("a stray invalid byte in an otherwise ASCII file names its line (no crash)", async () => {
  await withSession(2, async ({ dir, id, path }) => {
    const lines = (await Deno.readTextFile(path)).split("\n");
    const encoder = new TextEncoder();
    await Deno.writeFile(
      path,
      concatBytes([
        encoder.encode(`${lines.slice(0, 2).join("\n")}\n`),
        new Uint8Array([0x80, 0x0a]),
        encoder.encode(lines.slice(2).join("\n")),
      ]),
    );
    const store = new FileSystemJSONLStore({ dir });
    await assert.rejects(() => store.load(id), /:3 is corrupt: invalid UTF-8/);
    await store.close();
  });
});

Deno.test("invalid UTF-8 names its line; text past it, U+FFFD as text, and a byte order mark opening a line, still read", async () => {
  await withSession(2, async ({ dir, id, path }) => {
    const encoder = new TextEncoder();
    const lines = (await Deno.readTextFile(path)).split("\n");
    const q1 = JSON.parse(lines[3]!);
    q1.message.content = [{ type: "text", text: "ünïcødé 漢字 \uFFFD" }];
    lines[3] = `\uFEFF${JSON.stringify(q1)}`;
    await Deno.writeTextFile(path, lines.join("\n"));
    const store = new FileSystemJSONLStore({ dir });
    assert.deepStrictEqual(await texts(store, id), ["q0", "a0", "ünïcødé 漢字 \uFFFD", "a1"]);
    const [head, tail] = [lines.slice(0, 2).join("\n"), lines.slice(2).join("\n")];
    await Deno.writeFile(
      path,
      concatBytes([
        encoder.encode(`${head}\n`),
        new Uint8Array([0xff, 0x0a]),
        encoder.encode(tail),
      ]),
    );
    await assert.rejects(() => store.load(id), /:3 is corrupt: invalid UTF-8/);
    await store.close();
  });
});
