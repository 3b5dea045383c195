/**
 * What the stores do with hostile or broken surroundings: planted symbolic
 * links are never followed, a store that cannot be written says so before
 * anything depends on it, failures to save are `SessionStoreError`s naming
 * where, a file that lost its header keeps its first message on repair, and
 * base-URL credentials never reach a stored wire identity.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import {
  modelsMatchingSession,
  type ProviderConfig,
  redactUrl,
  SessionStoreError,
  wireIdentity,
} from "@panto/lib";
import { PostgresStore } from "@panto/lib/postgres";
import { SQLiteStore } from "@panto/lib/sqlite";
import { assistant, persistent, PROVIDER, user } from "./fixtures.ts";

const VICTIM_TEXT = "precious data\n";

async function withDir(body: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "panto-safety-" });
  try {
    await body(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** A sessions directory holding one stored session, and a victim file outside it. */
async function withStoredSession(
  body: (ctx: { dir: string; id: string; victim: string }) => Promise<void>,
): Promise<void> {
  await withDir(async (root) => {
    const dir = join(root, "sessions");
    const victim = join(root, "victim.txt");
    await Deno.writeTextFile(victim, VICTIM_TEXT);
    const store = new FileSystemJSONLStore({ dir });
    const session = store.create();
    await session.append(persistent(user("q"), assistant("a")));
    await store.close();
    await body({ dir, id: session.id, victim });
  });
}

async function rejectsAsStoreError(task: () => Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(task, (error) => {
    assert.ok(error instanceof SessionStoreError, `a SessionStoreError, got ${error}`);
    assert.match(error.message, pattern);
    return true;
  });
}

Deno.test("a lock file planted as a symlink to another file is refused; that file is untouched", async () => {
  await withStoredSession(async ({ dir, id, victim }) => {
    await Deno.remove(join(dir, `${id}.lock`));
    await Deno.symlink(victim, join(dir, `${id}.lock`));
    const store = new FileSystemJSONLStore({ dir });
    await rejectsAsStoreError(
      () => store.appendMessages(id, persistent(user("more"))),
      new RegExp(`lock file .*${id}\\.lock is a symbolic link .*: remove it`),
    );
    await rejectsAsStoreError(() => store.rename(id, "x"), /is a symbolic link/);
    await store.close();
    assert.equal(await Deno.readTextFile(victim), VICTIM_TEXT);
  });
});

Deno.test("a dangling lock symlink is refused and its target is not created", async () => {
  await withStoredSession(async ({ dir, id }) => {
    const target = join(dir, "..", "created-by-lock.txt");
    await Deno.remove(join(dir, `${id}.lock`));
    await Deno.symlink(target, join(dir, `${id}.lock`));
    const store = new FileSystemJSONLStore({ dir });
    await rejectsAsStoreError(
      () => store.appendMessages(id, persistent(user("more"))),
      /is a symbolic link/,
    );
    await store.close();
    await assert.rejects(() => Deno.lstat(target), Deno.errors.NotFound);
  });
});

Deno.test("symlinks planted at the sidecar and temp paths are replaced, never written through", async () => {
  await withStoredSession(async ({ dir, id, victim }) => {
    await Deno.remove(join(dir, `${id}.meta.json`));
    await Deno.symlink(victim, join(dir, `${id}.meta.json`));
    const store = new FileSystemJSONLStore({ dir });
    await store.appendMessages(id, persistent(user("more")));
    // A new session's first write goes through `<id>.jsonl.tmp`.
    const fresh = store.create();
    await Deno.symlink(victim, join(dir, `${fresh.id}.jsonl.tmp`));
    await fresh.append(persistent(user("q2"), assistant("a2")));
    await store.close();
    assert.equal(await Deno.readTextFile(victim), VICTIM_TEXT);
    assert.equal((await Deno.lstat(join(dir, `${id}.meta.json`))).isSymlink, false);
    const reopened = new FileSystemJSONLStore({ dir });
    assert.equal((await reopened.load(fresh.id))?.messages.length, 2);
    await reopened.close();
  });
});

Deno.test("a failed append is a SessionStoreError naming the session file", async () => {
  await withDir(async (root) => {
    const dir = join(root, "sessions");
    const store = new FileSystemJSONLStore({ dir });
    const session = store.create();
    // A non-empty directory where the new file's temp copy goes cannot be replaced.
    await Deno.mkdir(join(dir, `${session.id}.jsonl.tmp`, "blocker"), { recursive: true });
    await rejectsAsStoreError(
      () => session.append(persistent(user("q"), assistant("a"))),
      new RegExp(`^Could not save the session to ${dir}/${session.id}\\.jsonl: `),
    );
    await store.close();
  });
});

Deno.test("repair of a file whose header line is missing keeps the first message", async () => {
  await withStoredSession(async ({ dir, id }) => {
    const path = join(dir, `${id}.jsonl`);
    const lines = (await Deno.readTextFile(path)).split("\n");
    await Deno.writeTextFile(path, lines.slice(1).join("\n"));
    const store = new FileSystemJSONLStore({ dir });
    await assert.rejects(() => store.load(id), /:1 is corrupt: no session header/);
    const report = await store.repair(id);
    assert.deepStrictEqual(report.dropped, []);
    assert.equal(report.headerRebuilt, true);
    assert.equal(report.kept, 3, "a new header and both messages");
    assert.ok(report.backupPath);
    const conversation = await store.load(id);
    assert.deepStrictEqual(
      conversation?.messages.map((m) => m.content[0]?.type === "text" && m.content[0].text),
      ["q", "a"],
    );
    assert.equal((await store.repair(id)).backupPath, null, "a second repair finds nothing");
    await store.close();
  });
});

Deno.test("JSONL checkWritable: passes and leaves nothing; an unwritable directory fails naming it", async () => {
  await withDir(async (root) => {
    const good = new FileSystemJSONLStore({ dir: join(root, "sessions") });
    await good.checkWritable();
    assert.deepStrictEqual(await Array.fromAsync(Deno.readDir(join(root, "sessions"))), []);
    await good.close();

    await Deno.writeTextFile(join(root, "file.txt"), "not a directory");
    for (const dir of [join(root, "file.txt"), join(root, "file.txt", "sessions")]) {
      const store = new FileSystemJSONLStore({ dir });
      await rejectsAsStoreError(
        () => store.checkWritable(),
        new RegExp(`^Sessions directory ${dir} is not a directory`),
      );
      await store.close();
    }
    // A directory where not even root can create a file (procfs; chmod does not stop root).
    const procfs = new FileSystemJSONLStore({ dir: "/proc/self" });
    await rejectsAsStoreError(
      () => procfs.checkWritable(),
      /^Sessions directory \/proc\/self cannot be written: /,
    );
    await procfs.close();
    assert.throws(
      () => new FileSystemJSONLStore({ dir: "" }),
      (error) => error instanceof SessionStoreError && /path is empty/.test(error.message),
    );
  });
});

Deno.test("SQLite: empty path, a text file and a newer schema are SessionStoreErrors naming the file", async () => {
  await withDir(async (root) => {
    const storeError = (pattern: RegExp) => (error: unknown) =>
      error instanceof SessionStoreError && pattern.test(error.message);
    assert.throws(() => new SQLiteStore({ path: "" }), storeError(/path is empty/));

    const text = join(root, "notes.txt");
    await Deno.writeTextFile(text, "hello, I am not a database\n".repeat(20));
    assert.throws(
      () => new SQLiteStore({ path: text }),
      storeError(
        new RegExp(`^Session database ${text} could not be opened: file is not a database`),
      ),
    );
    assert.equal(await Deno.readTextFile(text), "hello, I am not a database\n".repeat(20));

    const newer = join(root, "newer.db");
    await new SQLiteStore({ path: newer }).close();
    const db = new DatabaseSync(newer);
    db.exec("PRAGMA user_version = 99");
    db.close();
    assert.throws(() => new SQLiteStore({ path: newer }), storeError(/schema version 99.*upgrade/));

    const good = new SQLiteStore({ path: join(root, "good.db") });
    await good.checkWritable();
    await good.close();
  });
});

Deno.test("PostgreSQL: a refused connection is a SessionStoreError with the password redacted", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  const store = new PostgresStore({ url: `postgres://app:hunter2pw@127.0.0.1:${port}/panto` });
  await assert.rejects(() => store.checkWritable(), (error) => {
    assert.ok(error instanceof SessionStoreError, String(error));
    assert.match(
      error.message,
      new RegExp(
        `^Session database postgres://app:\\*\\*\\*@127\\.0\\.0\\.1:${port}/panto could not be used: .*ECONNREFUSED`,
      ),
    );
    assert.doesNotMatch(error.message, /hunter2pw/);
    return true;
  });
  await store.close();
});

Deno.test("base-URL credentials never reach the stored wire identity", async () => {
  await withDir(async (root) => {
    const provider: ProviderConfig = {
      ...PROVIDER,
      baseUrl: "https://bob:hunter2pw@llm.example/v1?key=qsecret99&api-version=2",
    };
    const wire = wireIdentity(provider);
    assert.equal(wire.baseUrl, "https://bob:***@llm.example/v1?key=***&api-version=***");
    const dir = join(root, "sessions");
    const store = new FileSystemJSONLStore({ dir });
    const session = store.create();
    const [question, answer] = persistent(user("q"), assistant("a"));
    await session.append([question!, { ...answer!, wire }]);
    await store.close();
    for await (const entry of Deno.readDir(dir)) {
      const text = await Deno.readTextFile(join(dir, entry.name));
      assert.doesNotMatch(text, /hunter2pw|qsecret99/, entry.name);
    }
    // The same configured model still matches the session on resume.
    const reader = new FileSystemJSONLStore({ dir });
    const [info] = await reader.list();
    await reader.close();
    assert.equal(modelsMatchingSession([{ alias: "m", provider }], info!).length, 1);
  });
});

Deno.test("redactUrl hides user info and query values and leaves plain URLs as given", () => {
  assert.equal(redactUrl("https://api.anthropic.com"), "https://api.anthropic.com");
  assert.equal(redactUrl("http://127.0.0.1:8080/v1/"), "http://127.0.0.1:8080/v1/");
  assert.equal(redactUrl("https://tok3n@host/v1"), "https://***@host/v1");
  assert.equal(redactUrl("http://bob:pw@host:1"), "http://bob:***@host:1");
  assert.equal(redactUrl("http://host:1?key=k"), "http://host:1?key=***");
  assert.equal(redactUrl("postgres://app:pw@db:5432/x"), "postgres://app:***@db:5432/x");
  assert.equal(redactUrl("https://host/v1#frag"), "https://host/v1");
  assert.equal(redactUrl("not a url user:pw@host?k=v"), "***@host?***");
});
