import assert from "node:assert/strict";
import { join } from "node:path";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import {
  type SavingSessionStore,
  type SessionStore,
  SessionStoreError,
  SessionStoreMigratedError,
} from "@panto/lib";
import { migrateSessions } from "@panto/lib/transfer";
import { PostgresStore } from "@panto/lib/postgres";
import { SQLiteStore } from "@panto/lib/sqlite";
import { postgresAvailable, type PostgresCluster, startPostgres } from "../../support/postgres.ts";
import { assistant, everyKindOfMessage, persistent, user } from "./fixtures.ts";

type Kind = "jsonl" | "sqlite" | "postgres";

/** Opens a store of a kind at a location (a directory, a database file, a URL). */
function open(kind: Kind, location: string): SavingSessionStore {
  if (kind === "jsonl") return new FileSystemJSONLStore({ dir: location });
  if (kind === "sqlite") return new SQLiteStore({ path: location });
  return new PostgresStore({ url: location });
}

/** Sessions of every shape: names, owners, metadata, every block type, a dangling prompt, a cut-off turn. */
async function fill(store: SavingSessionStore, count: number): Promise<void> {
  count -= 2; // the branched session and its fork
  const first = store.create({ cwd: "/work", metadata: '{"channel":"web"}', ownerId: "alice" });
  await store.rename(first.id, "every kind");
  await first.append(persistent(...everyKindOfMessage()));
  // A tree: a branch from the first prompt, then a fork of the old branch.
  const branched = store.create({ cwd: "/work" });
  await branched.append(persistent(user("first try"), assistant("answer a")));
  const [root, oldLeaf] = (await store.loadTree(branched.id))!.entries;
  await branched.branchFrom(root!.id);
  await branched.append(persistent(user("second try"), assistant("answer b")));
  await branched.setLabel(root!.id, "the question");
  await store.fork(branched.id, oldLeaf!.id);
  for (let i = 1; i < count; i++) {
    const session = store.create({ cwd: `/work/${i % 3}`, ...(i % 2 ? { ownerId: "bob" } : {}) });
    await session.append(persistent(user(`question ${i}`), assistant(`answer ${i}`)));
    if (i % 4 === 0) await session.append(persistent(user(`left unanswered ${i}`)));
    if (i % 5 === 0) await store.rename(session.id, `name ${i}`);
    await session.release();
  }
}

/** Everything a migration keeps, per session, by id. */
async function contents(store: SavingSessionStore): Promise<Map<string, unknown>> {
  const result = new Map<string, unknown>();
  for (const info of await store.list()) {
    result.set(info.id, {
      info,
      conversation: await store.load(info.id),
      tree: await store.loadTree(info.id),
    });
  }
  return result;
}

async function assertWritesRefused(store: SessionStore, target: string): Promise<void> {
  const [info] = await store.list();
  const session = await store.resolve(info!.id);
  const refused = (error: unknown) =>
    error instanceof SessionStoreMigratedError && error.message.includes(target);
  await assert.rejects(session!.append(persistent(user("late"), assistant("lost"))), refused);
  await assert.rejects(store.create().append(persistent(user("new"), assistant("x"))), refused);
  await assert.rejects(store.rename(info!.id, "renamed"), refused);
  await assert.rejects(store.delete(info!.id), refused);
}

async function checkMigration(
  from: { kind: Kind; location: string },
  to: { kind: Kind; location: string },
): Promise<void> {
  const source = open(from.kind, from.location);
  const target = open(to.kind, to.location);
  try {
    await fill(source, 12);
    const before = await contents(source);
    const progress: string[] = [];
    const report = await migrateSessions(source, target, {
      targetName: `${to.kind}:test`,
      onProgress: ({ id, copied }) => progress.push(`${id} ${copied}`),
    });
    assert.deepEqual([report.copied, report.skipped, report.total], [12, 0, 12]);
    assert.equal(progress.length, 12);
    assert.deepEqual(await contents(target), before);
    assert.deepEqual(await contents(source), before, "the source is left as it was");
    const copied = await target.list();
    const fork = copied.find((info) => info.parentSessionId !== undefined);
    const tree = await target.loadTree(fork!.parentSessionId!);
    assert.deepEqual(
      tree!.entries.map((entry) => entry.parentId),
      [null, tree!.entries[0]!.id, tree!.entries[0]!.id, tree!.entries[2]!.id],
      "the branch is copied as a branch, entry ids kept",
    );
    assert.equal(tree!.entries[0]!.label, "the question", "labels are copied");
    // The list keeps the source's order (newest first).
    assert.deepEqual(
      (await target.list()).map((info) => info.id),
      (await source.list()).map((info) => info.id),
    );
    assert.deepEqual(await source.migrationFence(), { ...report.fence, done: true });
    await assertWritesRefused(source, `${to.kind}:test`);

    // Done: the target is the store now, and copying again could undo its writes.
    for (const targetName of [`${to.kind}:test`, "elsewhere"]) {
      await assert.rejects(
        migrateSessions(source, target, { targetName }),
        (error) =>
          error instanceof SessionStoreError &&
          error.message.includes(`migrated to ${to.kind}:test`),
      );
    }
  } finally {
    await source.close();
    await target.close();
  }
}

Deno.test("migrateSessions copies every session, verifies it and fences the source", async (t) => {
  const root = await Deno.makeTempDir();
  try {
    await t.step("jsonl → sqlite", () =>
      checkMigration(
        { kind: "jsonl", location: join(root, "a") },
        { kind: "sqlite", location: join(root, "a.db") },
      ));
    await t.step("sqlite → jsonl", () =>
      checkMigration(
        { kind: "sqlite", location: join(root, "b.db") },
        { kind: "jsonl", location: join(root, "b") },
      ));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test({
  name: "migrateSessions to and from PostgreSQL",
  ignore: !postgresAvailable(),
}, async (t) => {
  const root = await Deno.makeTempDir();
  let cluster: PostgresCluster | null = null;
  try {
    cluster = await startPostgres();
    const first = await cluster.createDatabase();
    const second = await cluster.createDatabase();
    await t.step("sqlite → postgres", () =>
      checkMigration(
        { kind: "sqlite", location: join(root, "c.db") },
        { kind: "postgres", location: first },
      ));
    await t.step("sqlite → postgres, killed midway, then finished", async () =>
      await killAndResume(
        { kind: "sqlite", location: join(root, "e.db") },
        { kind: "postgres", location: await cluster!.createDatabase() },
      ));
    await t.step("postgres → jsonl", () =>
      checkMigration(
        { kind: "postgres", location: second },
        { kind: "jsonl", location: join(root, "d") },
      ));
  } finally {
    await cluster?.stop();
    await Deno.remove(root, { recursive: true });
  }
});

/** Fills `from`, kills a migration to `to` after ten sessions, then finishes it in this process. */
async function killAndResume(
  from: { kind: Kind; location: string },
  to: { kind: Kind; location: string },
): Promise<void> {
  const source = open(from.kind, from.location);
  await fill(source, 40);
  const before = await contents(source);
  await source.close();

  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("./migrate_child.ts", import.meta.url).pathname,
      from.kind,
      from.location,
      to.kind,
      to.location,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  let buffer = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    buffer += decoder.decode(chunk);
    if (buffer.split("\n").filter((line) => line.startsWith("copied ")).length >= 10) {
      child.kill("SIGKILL");
      break;
    }
  }
  const status = await child.status;
  assert.equal(status.signal, "SIGKILL", "the child was killed before it finished");

  const resumedSource = open(from.kind, from.location);
  const target = open(to.kind, to.location);
  const targetName = `${to.kind}:${to.location}`;
  try {
    await assertWritesRefused(resumedSource, targetName);
    assert.equal((await resumedSource.migrationFence())?.done, false);
    const copiedBefore = (await target.list()).length;
    assert.ok(copiedBefore >= 10 && copiedBefore < 40, `${copiedBefore} copied before the kill`);
    const report = await migrateSessions(resumedSource, target, { targetName });
    assert.equal(report.skipped, copiedBefore);
    assert.equal(report.copied, 40 - copiedBefore);
    assert.deepEqual(await contents(target), before);
    assert.equal((await resumedSource.migrationFence())?.done, true);
  } finally {
    await resumedSource.close();
    await target.close();
  }
}

Deno.test("a migration killed midway is finished by running it again", async () => {
  const root = await Deno.makeTempDir();
  try {
    await killAndResume(
      { kind: "jsonl", location: join(root, "sessions") },
      { kind: "sqlite", location: join(root, "sessions.db") },
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a session the target holds with other content, or one the source cannot read, stops the migration", async () => {
  const root = await Deno.makeTempDir();
  const source = new FileSystemJSONLStore({ dir: join(root, "s") });
  const target = new SQLiteStore({ path: join(root, "t.db") });
  try {
    await fill(source, 3);
    const [info] = await source.list();
    // The target holds another conversation under the same id (e.g. written to it meanwhile).
    const stray = target.create({ id: info!.id });
    await stray.append(persistent(user("something else"), assistant("else")));
    await assert.rejects(
      migrateSessions(source, target, { targetName: "sqlite:t" }),
      (error) => error instanceof SessionStoreError && error.message.includes(info!.id),
    );
    assert.deepEqual(
      (await target.load(info!.id))?.messages.map((m) => m.content),
      [[{ type: "text", text: "something else" }], [{ type: "text", text: "else" }]],
      "the target's own session is kept",
    );
    await target.delete(info!.id);
    // Fenced for this target, not done: running again finishes it.
    const report = await migrateSessions(source, target, { targetName: "sqlite:t" });
    assert.deepEqual([report.copied + report.skipped, report.copied > 0], [3, true]);
    assert.deepEqual(await contents(target), await contents(source));
    await source.setMigrationFence(null);

    await Deno.writeTextFile(join(root, "s", `${info!.id}.jsonl`), "not json\n{}\n", {
      append: true,
    });
    await assert.rejects(
      migrateSessions(source, target, { targetName: "sqlite:t" }),
      // Named, with what to do (repair), whether the list or the load finds the damage.
      (error) =>
        error instanceof SessionStoreError && error.message.includes(info!.id) &&
        error.message.includes("repair"),
    );
  } finally {
    await source.close();
    await target.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a copy cut off after its messages but before its labels gets them when run again", async () => {
  const root = await Deno.makeTempDir();
  const source = new FileSystemJSONLStore({ dir: join(root, "s") });
  const target = new SQLiteStore({ path: join(root, "t.db") });
  try {
    await fill(source, 3);
    await migrateSessions(source, target, { targetName: "sqlite:t" });
    await source.setMigrationFence(null);
    let unlabelled = 0;
    for (const info of await target.list()) {
      for (const entry of (await target.loadTree(info.id))!.entries) {
        if (entry.label === undefined) continue;
        await target.setLabel(info.id, entry.id, null);
        unlabelled++;
      }
    }
    assert.equal(unlabelled, 1, "the branched session's label");
    const report = await migrateSessions(source, target, { targetName: "sqlite:t" });
    assert.deepEqual([report.copied, report.skipped], [1, 2]);
    assert.deepEqual(await contents(target), await contents(source));
  } finally {
    await source.close();
    await target.close();
    await Deno.remove(root, { recursive: true });
  }
});
