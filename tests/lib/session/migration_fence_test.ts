// The migration fence against a turn in flight (issue 14): a write either
// lands before the copy is taken (and is copied) or reads the fence and is
// refused, naming the new store; a turn never lands in the old store unseen.
import assert from "node:assert/strict";
import { join } from "node:path";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import { SessionInUseError, type SessionStore, SessionStoreMigratedError } from "@panto/lib";
import { migrateSessions } from "@panto/lib/transfer";
import { PostgresStore } from "@panto/lib/postgres";
import { SQLiteStore } from "@panto/lib/sqlite";
import { FileLock } from "../../../lib/session/file_lock.ts";
import { newSessionId } from "../../../lib/session/ids.ts";
import { postgresAvailable, startPostgres } from "../../support/postgres.ts";
import { ChildWriter } from "./child_writer.ts";
import { assistant, persistent, user } from "./fixtures.ts";

const TARGET = "sqlite:target";

/** Whether the error is the fence's refusal naming the new store. */
function refusedForTarget(error: unknown): boolean {
  return error instanceof SessionStoreMigratedError && error.message.includes(TARGET);
}

/** The texts of a session's messages in `store`. */
async function texts(store: SessionStore, id: string): Promise<string[]> {
  const conversation = await store.load(id);
  return (conversation?.messages ?? []).map((message) =>
    message.content.map((block) => block.type === "text" ? block.text : block.type).join("")
  );
}

/** Resolves once the source's fence is set. */
async function fenceSet(store: SessionStore): Promise<void> {
  while (await store.migrationFence!() === null) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A promise's outcome so far: `"pending"` until it settles. */
function outcome(promise: Promise<unknown>): () => string {
  let state = "pending";
  promise.then(() => state = "resolved", () => state = "rejected");
  return () => state;
}

/**
 * A turn is running (its prompt stored, its answer not yet) when a migration
 * starts: what it stored is copied, and its answer is refused naming the new store.
 *
 * @param waits Whether the migration must wait for the turn's lock (JSONL).
 */
async function runningTurnScenario(
  openSource: () => SessionStore,
  migrator: (writer: SessionStore) => SessionStore,
  waits: boolean,
): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "panto-fence-" });
  const writer = openSource();
  const source = migrator(writer);
  const target = new SQLiteStore({ path: join(root, "target.db") });
  try {
    const session = writer.create();
    await session.append(persistent(user("first"), assistant("first answer")));
    await session.append(persistent(user("second")));
    assert.equal(session.info.state?.status, "running", "the turn holds the session");

    const migration = migrateSessions(source, target, { targetName: TARGET, waitMs: 20_000 });
    const state = outcome(migration);
    await fenceSet(source);
    if (waits) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(state(), "pending", "the migration waits while the turn holds the session");
      assert.deepEqual(await target.list(), [], "nothing is copied before the turn lets go");
    }
    // The answer arrives after the fence: refused, and the session let go.
    await assert.rejects(session.append(persistent(assistant("lost answer"))), refusedForTarget);
    const report = await migration;
    assert.deepEqual([report.copied, report.total, report.fence.done], [1, 1, true]);
    assert.deepEqual(await texts(target, session.id), ["first", "first answer", "second"]);
    assert.deepEqual(await texts(source, session.id), ["first", "first answer", "second"]);
    const [copied] = await target.list();
    assert.equal(copied?.state?.status, "interrupted", "the cut-off turn shows in the new store");
  } finally {
    if (source !== writer) await source.close();
    await writer.close();
    await target.close();
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("jsonl: a migration waits for a running turn; its next write is refused and lets go", async (t) => {
  const dir = () => Deno.makeTempDirSync({ prefix: "panto-fence-src-" });
  for (
    const [name, migrator] of [
      ["migrated by another store", (writer: SessionStore) => reopen(writer)],
      ["migrated by the writer's own store", (writer: SessionStore) => writer],
    ] as const
  ) {
    await t.step(name, async () => {
      const at = dir();
      try {
        await runningTurnScenario(() => new FileSystemJSONLStore({ dir: at }), migrator, true);
      } finally {
        await Deno.remove(at, { recursive: true });
      }
    });
  }
});

/** Another store on the same directory (as `panto sessions migrate` beside a running chat). */
function reopen(store: SessionStore): SessionStore {
  return new FileSystemJSONLStore({ dir: (store as FileSystemJSONLStore).dir });
}

Deno.test("sqlite: a running turn's writes up to the fence are copied, the next is refused", async () => {
  const root = await Deno.makeTempDir({ prefix: "panto-fence-src-" });
  const path = join(root, "source.db");
  try {
    await runningTurnScenario(
      () => new SQLiteStore({ path }),
      () => new SQLiteStore({ path }),
      false,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test({
  name: "postgres: a running turn's writes up to the fence are copied, the next is refused",
  ignore: !postgresAvailable(),
}, async () => {
  const cluster = await startPostgres();
  try {
    const url = await cluster.createDatabase();
    await runningTurnScenario(
      () => new PostgresStore({ url }),
      () => new PostgresStore({ url }),
      false,
    );
  } finally {
    await cluster.stop();
  }
});

Deno.test("jsonl: a turn held by another process past waitMs stops the migration, named; run again once idle, it waits and finishes", async () => {
  const root = await Deno.makeTempDir({ prefix: "panto-fence-" });
  const dir = join(root, "sessions");
  // The child stores a prompt with no answer, so its turn runs, and holds the session.
  const child = new ChildWriter(["jsonl", dir, "new", "1", "0", "hold"]);
  const source = new FileSystemJSONLStore({ dir });
  const target = new SQLiteStore({ path: join(root, "target.db") });
  try {
    const id = (await child.waitFor(/^session /)).slice("session ".length);
    await child.waitFor(/^holding$/);
    await assert.rejects(
      migrateSessions(source, target, { targetName: TARGET, waitMs: 200 }),
      (error) => {
        assert.ok(error instanceof SessionInUseError, String(error));
        assert.equal(error.id, id);
        assert.equal(error.holder.pid, child.process.pid);
        assert.match(error.message, new RegExp(`Session ${id} is in use by another process`));
        assert.match(error.message, / since \d{4}-/);
        assert.match(error.message, /retry the migration when it is idle/);
        return true;
      },
    );
    assert.equal((await source.migrationFence())?.done, false, "the source stays fenced");
    assert.deepEqual(await target.list(), [], "nothing was copied");

    const migration = migrateSessions(source, target, { targetName: TARGET, waitMs: 20_000 });
    const state = outcome(migration);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(state(), "pending", "waiting for the other process");
    const { code } = await child.finish(); // its store closes and lets the session go
    assert.equal(code, 0);
    const report = await migration;
    assert.deepEqual([report.copied, report.fence.done], [1, true]);
    const copied = await texts(target, id);
    assert.deepEqual(copied.slice(0, 2), ["start", "started"]);
    assert.match(
      copied[2] ?? "",
      new RegExp(`^seq 0 pid ${child.process.pid}`),
      "the held turn's prompt",
    );
    assert.deepEqual(copied, await texts(source, id));
  } finally {
    await child.finish().catch(() => {});
    await source.close();
    await target.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("jsonl: a write that finds the session held by another process in a fenced store is refused for the fence", async () => {
  const root = await Deno.makeTempDir({ prefix: "panto-fence-" });
  const child = new ChildWriter(["jsonl", root, "new", "1", "0", "hold"]);
  const store = new FileSystemJSONLStore({ dir: root });
  try {
    const id = (await child.waitFor(/^session /)).slice("session ".length);
    await child.waitFor(/^holding$/);
    await store.setMigrationFence({ target: TARGET, since: new Date().toISOString(), done: false });
    const session = (await store.resolve(id))!;
    await assert.rejects(session.append(persistent(user("mine"))), refusedForTarget);
    await assert.rejects(store.rename(id, "renamed"), refusedForTarget);
  } finally {
    await child.finish();
    await store.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("jsonl: the migration waits for a writer holding a new session's lock before its file exists", async () => {
  const root = await Deno.makeTempDir({ prefix: "panto-fence-" });
  const dir = join(root, "sessions");
  await Deno.mkdir(dir);
  const source = new FileSystemJSONLStore({ dir });
  const target = new SQLiteStore({ path: join(root, "target.db") });
  // A first write takes the lock, reads no fence, and only then makes the file: hold it there.
  const lock = await FileLock.tryAcquire(join(dir, `${newSessionId()}.lock`));
  assert.ok(lock instanceof FileLock);
  let held = true;
  try {
    const migration = migrateSessions(source, target, { targetName: TARGET, waitMs: 20_000 });
    const state = outcome(migration);
    await fenceSet(source);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(state(), "pending", "a session not listed yet is waited for too");
    lock.release();
    held = false;
    const report = await migration;
    assert.deepEqual([report.total, report.fence.done], [0, true]);
  } finally {
    if (held) lock.release();
    await source.close();
    await target.close();
    await Deno.remove(root, { recursive: true });
  }
});
