import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { SessionCorruptError, SessionInUseError } from "@panto/lib";
import { SQLiteStore } from "@panto/lib/sqlite";
import { ChildWriter } from "./child_writer.ts";
import { runConformance } from "./conformance.ts";
import { checkUnreadableSummaryListed } from "./unreadable_row.ts";
import { assistant, persistent, user } from "./fixtures.ts";

Deno.test("SQLiteStore conformance", async (t) => {
  await runConformance(t, async () => {
    const root = await Deno.makeTempDir({ prefix: "panto-sqlite-" });
    const path = join(root, "db", "sessions.db");
    return {
      store: new SQLiteStore({ path }),
      dump: async () => {
        const parts = await Promise.all(
          ["", "-wal", "-shm"].map((suffix) =>
            Deno.readFile(path + suffix).catch(() => new Uint8Array())
          ),
        );
        return new Uint8Array(parts.flatMap((part) => Array.from(part)));
      },
      cleanup: () => Deno.remove(root, { recursive: true }),
    };
  });
});

async function withDatabase(body: (path: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "panto-sqlite-" });
  try {
    await body(join(root, "state", "sessions.db"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("SQLite: WAL, full sync, schema version, 0600 files in a 0700 directory", async () => {
  await withDatabase(async (path) => {
    const store = new SQLiteStore({ path });
    await store.create().append(persistent(user("q"), assistant("a")));
    const peek = new DatabaseSync(path, { readOnly: true });
    try {
      assert.equal(peek.prepare("PRAGMA journal_mode").get()?.journal_mode, "wal");
      assert.equal(
        peek.prepare("PRAGMA user_version").get()?.user_version,
        SQLiteStore.schemaVersion,
      );
    } finally {
      peek.close();
    }
    for (const suffix of ["", "-wal", "-shm"]) {
      assert.equal((await Deno.stat(path + suffix)).mode! & 0o777, 0o600, `sessions.db${suffix}`);
    }
    assert.equal((await Deno.stat(join(path, ".."))).mode! & 0o777, 0o700);
    await store.close();
  });
});

Deno.test("SQLite: a newer schema version is refused", async () => {
  await withDatabase(async (path) => {
    await new SQLiteStore({ path }).close();
    const db = new DatabaseSync(path);
    db.exec("PRAGMA user_version = 99");
    db.close();
    assert.throws(
      () => new SQLiteStore({ path }),
      new RegExp(`schema version 99; this panto knows ${SQLiteStore.schemaVersion}:`),
    );
  });
});

Deno.test("SQLite: a version 1 database is migrated on open (owners, state, first prompts), its sessions kept", async () => {
  await withDatabase(async (path) => {
    const store = new SQLiteStore({ path });
    const old = store.create();
    await old.append(persistent(user("from version 1"), assistant("a")));
    await old.append(persistent(user("later"), assistant("b")));
    const empty = store.create();
    await empty.append(persistent(assistant("no prompt")));
    await store.close();
    const db = new DatabaseSync(path);
    db.exec(
      "DROP INDEX sessions_by_owner; ALTER TABLE sessions DROP COLUMN owner_id; " +
        "ALTER TABLE sessions DROP COLUMN state; DROP INDEX messages_by_entry; " +
        "ALTER TABLE messages DROP COLUMN entry_id; ALTER TABLE messages DROP COLUMN parent_id; " +
        "ALTER TABLE sessions DROP COLUMN parent_session_id; " +
        "ALTER TABLE sessions DROP COLUMN first_user_message; " +
        "ALTER TABLE messages DROP COLUMN label",
    );
    db.exec("PRAGMA user_version = 1");
    db.close();
    const reopened = new SQLiteStore({ path });
    await reopened.create({ ownerId: "alice" }).append(persistent(user("q"), assistant("a")));
    const listed = await reopened.list();
    assert.deepStrictEqual(listed.map((s) => s.ownerId ?? null), ["alice", null, null]);
    assert.deepStrictEqual(
      listed.map((s) => [s.lastUserMessage, s.firstUserMessage]),
      [["q", "q"], ["", undefined], ["later", "from version 1"]],
    );
    await reopened.close();
  });
});

Deno.test("SQLite: a session whose summary row does not decode is listed as unreadable, the others as usual", async () => {
  await withDatabase(async (path) => {
    const store = new SQLiteStore({ path });
    await checkUnreadableSummaryListed(store, (id) => {
      const db = new DatabaseSync(path);
      db.prepare(`UPDATE sessions SET state = '{"status":"weird"}' WHERE id = ?`).run(id);
      db.close();
      return Promise.resolve();
    });
    await store.close();
  });
});

Deno.test("SQLite: a damaged message row fails closed naming the message", async () => {
  await withDatabase(async (path) => {
    const store = new SQLiteStore({ path });
    const session = store.create();
    await session.append(persistent(user("q"), assistant("a"), user("r")));
    const db = new DatabaseSync(path);
    db.prepare('UPDATE messages SET message = \'{"role":"user"\' WHERE seq = 1').run();
    db.close();
    await assert.rejects(() => store.load(session.id), (error: unknown) => {
      assert.ok(error instanceof SessionCorruptError);
      assert.equal(error.line, 2);
      assert.match(error.message, new RegExp(`session ${session.id}`));
      return true;
    });
    await store.close();
  });
});

Deno.test("SQLite: two processes append to two sessions at once without loss or interleaving", async () => {
  await withDatabase(async (path) => {
    const store = new SQLiteStore({ path });
    const sessions = [store.create(), store.create()];
    for (const session of sessions) {
      await session.append(persistent(user("start"), assistant("ok")));
    }
    await store.close();
    const writers = sessions.map((session) =>
      new ChildWriter(["sqlite", path, session.id, "60", "2000"])
    );
    const results = await Promise.all(writers.map((w) => w.finish()));
    for (const result of results) assert.equal(result.code, 0, result.stderr);
    const reader = new SQLiteStore({ path });
    for (const [index, session] of sessions.entries()) {
      const texts = (await reader.load(session.id))!.messages.slice(2).map((m) =>
        m.content[0]?.type === "text" ? m.content[0].text : ""
      );
      const pid = writers[index]!.process.pid;
      assert.deepStrictEqual(
        texts.map((t) => t.split(" ").slice(0, 4).join(" ")),
        Array.from({ length: 60 }, (_, i) => `seq ${i} pid ${pid}`),
      );
    }
    await reader.close();
  });
});

Deno.test("SQLite: a second writer of a session is refused, naming the holder and since when", async () => {
  await withDatabase(async (path) => {
    const holder = new ChildWriter(["sqlite", path, "new", "3", "0", "hold"]);
    const id = (await holder.waitFor(/^session /)).slice("session ".length);
    await holder.waitFor(/^holding$/);
    const refused = new ChildWriter(["sqlite", path, id, "1"]);
    const error = await refused.waitFor(/^error /);
    assert.match(
      error,
      new RegExp(`in use by another process \\(pid ${holder.process.pid}\\) since \\d{4}-\\d\\d-`),
    );
    assert.equal((await refused.finish()).code, 3);
    const store = new SQLiteStore({ path });
    await assert.rejects(() => store.delete(id), SessionInUseError);
    assert.equal((await store.load(id))!.messages.length, 5, "readers are not blocked");
    assert.equal((await holder.finish()).code, 0);
    await store.appendMessages(id, persistent(user("mine now")));

    const second = new SQLiteStore({ path });
    await assert.rejects(
      () => second.appendMessages(id, persistent(user("theirs"))),
      (error: unknown) => {
        assert.ok(error instanceof SessionInUseError);
        assert.equal(error.holder.pid, Deno.pid);
        assert.match(error.message, /in use by this process \(another store or agent writes it\)/);
        return true;
      },
    );
    await store.release(id);
    await second.appendMessages(id, persistent(user("theirs")));
    assert.equal((await second.load(id))!.messages.length, 7);
    await second.delete(id);
    await assert.rejects(Deno.stat(`${path}.locks/${id}.lock`), Deno.errors.NotFound);
    await second.close();
    await store.close();
  });
});

Deno.test("SQLite: kill -9 during appends never loses an acknowledged append (5 runs)", async () => {
  await withDatabase(async (path) => {
    for (let run = 0; run < 5; run++) {
      const child = new ChildWriter(["sqlite", path, "new", "100000", String(run * 20_000)]);
      const id = (await child.waitFor(/^session /)).slice("session ".length);
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 100));
      child.process.kill("SIGKILL");
      await child.finish();
      const acknowledged = child.lines.filter((line) => /^\d+$/.test(line)).length;
      const store = new SQLiteStore({ path });
      const stored = (await store.load(id))!.messages.length - 2;
      assert.ok(
        stored >= acknowledged,
        `run ${run}: acknowledged ${acknowledged}, stored ${stored}`,
      );
      await store.close();
    }
  });
});

Deno.test("SQLite: rows from before the tree read as one chain, and appends continue it", async () => {
  await withDatabase(async (path) => {
    const store = new SQLiteStore({ path });
    const session = store.create();
    await session.append(persistent(user("q0"), assistant("a0"), user("q1"), assistant("a1")));
    await store.close();
    const db = new DatabaseSync(path);
    db.exec("UPDATE messages SET entry_id = NULL, parent_id = NULL");
    db.close();
    const reopened = new SQLiteStore({ path });
    const tree = await reopened.loadTree(session.id);
    assert.deepStrictEqual(tree?.entries.map((e) => [e.id, e.parentId]), [
      ["0", null],
      ["1", "0"],
      ["2", "1"],
      ["3", "2"],
    ]);
    const resumed = await reopened.resolve(session.id);
    await resumed!.append(persistent(user("q2"), assistant("a2")));
    const after = await reopened.loadTree(session.id);
    assert.equal(after?.entries[4]?.parentId, "3");
    await resumed!.branchFrom("1");
    await resumed!.append(persistent(user("q1b"), assistant("a1b")));
    const texts = (await reopened.load(session.id))?.messages.map((m) =>
      m.content[0]?.type === "text" ? m.content[0].text : ""
    );
    assert.deepStrictEqual(texts, ["q0", "a0", "q1b", "a1b"]);
    await reopened.close();
  });
});
