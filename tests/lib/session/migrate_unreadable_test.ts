// A session the source cannot read stops a migration before it fences the
// source (nothing changes, every such session is named), and a store left
// fenced by a migration cut off on one lets it be repaired or removed, so
// the migration can be run again to its end.
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import postgres from "postgres";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import { type SessionStore, SessionStoreError, SessionStoreMigratedError } from "@panto/lib";
import { migrateSessions } from "@panto/lib/transfer";
import { PostgresStore } from "@panto/lib/postgres";
import { SQLiteStore } from "@panto/lib/sqlite";
import { postgresAvailable, startPostgres } from "../../support/postgres.ts";
import { assistant, persistent, user } from "./fixtures.ts";

const TARGET = "sqlite:target";

/** Three sessions of two turns each; their ids, oldest first. */
async function fill(store: SessionStore): Promise<string[]> {
  const ids: string[] = [];
  for (const text of ["one", "two", "three"]) {
    const session = store.create({ cwd: "/work" });
    await session.append(persistent(user(`question ${text}`), assistant(`answer ${text}`)));
    ids.push(session.id);
  }
  return ids;
}

/** Damages a JSONL session in the middle (a line that is not JSON, with a whole line after it). */
async function damageLine(dir: string, id: string): Promise<void> {
  await Deno.writeTextFile(join(dir, `${id}.jsonl`), "not json\n{}\n", { append: true });
}

/** Whether the migration was refused naming every id and the ways out, the source untouched. */
function refusedNaming(...ids: string[]): (error: unknown) => boolean {
  return (error) =>
    error instanceof SessionStoreError && ids.every((id) => error.message.includes(id)) &&
    /not fenced/.test(error.message) && /panto sessions repair ID/.test(error.message) &&
    /panto sessions rm ID/.test(error.message);
}

Deno.test("jsonl: unreadable sessions stop a migration before the fence; repaired, it runs", async () => {
  const root = await Deno.makeTempDir({ prefix: "panto-migrate-bad-" });
  const dir = join(root, "sessions");
  const source = new FileSystemJSONLStore({ dir });
  const target = new SQLiteStore({ path: join(root, "target.db") });
  try {
    const [first, second, third] = await fill(source);
    await damageLine(dir, first!);
    // A file of a newer format is listed as unreadable rather than damaged.
    await Deno.writeTextFile(
      join(dir, `${third}.jsonl`),
      JSON.stringify({ type: "session", version: 99, id: third, created: "2026-01-01" }) + "\n",
    );
    await assert.rejects(
      migrateSessions(source, target, { targetName: TARGET }),
      refusedNaming(first!, third!),
    );
    assert.equal(await source.migrationFence(), null, "the source is not fenced");
    assert.deepEqual(await target.list(), [], "nothing is copied");
    // Nothing fenced: the source still takes turns.
    const resumed = await source.resolve(second!);
    await resumed!.append(persistent(user("still here"), assistant("yes")));

    const report = await source.repair(first!);
    assert.equal(report.dropped.length, 2);
    await source.delete(third!);
    const done = await migrateSessions(source, target, { targetName: TARGET });
    assert.deepEqual([done.copied, done.total, done.fence.done], [2, 2, true]);
    assert.equal((await target.load(second!))?.messages.length, 4);
  } finally {
    await source.close();
    await target.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("jsonl: a store fenced by a migration stopped at a damaged session can be repaired and finished", async () => {
  const root = await Deno.makeTempDir({ prefix: "panto-migrate-fenced-" });
  const dir = join(root, "sessions");
  const source = new FileSystemJSONLStore({ dir });
  const target = new SQLiteStore({ path: join(root, "target.db") });
  try {
    const [first, second, third] = await fill(source);
    // As an earlier panto left it: fenced first, then stopped on the damage.
    await source.setMigrationFence({
      target: TARGET,
      since: new Date().toISOString(),
      done: false,
    });
    await damageLine(dir, first!);
    await damageLine(dir, third!);
    await assert.rejects(
      migrateSessions(source, target, { targetName: TARGET }),
      refusedNaming(first!, third!),
    );

    // Writes stay refused, naming the new store, but not the fixes.
    const refused = (error: unknown) =>
      error instanceof SessionStoreMigratedError && error.message.includes(TARGET);
    await assert.rejects(source.rename(second!, "renamed"), refused);
    await assert.rejects(source.delete(second!), refused, "a session that reads is kept");
    const report = await source.repair(first!);
    assert.ok(report.backupPath, "repaired, with a backup");
    assert.deepEqual(report.dropped.map((drop) => drop.reason), [
      "invalid JSON",
      "timestamp: expected a string",
    ]);
    assert.equal((await source.repair(second!)).backupPath, null, "an intact one is left alone");
    await source.delete(third!);
    assert.equal(await source.resolve(third!), null, "the unreadable one is removed");

    const done = await migrateSessions(source, target, { targetName: TARGET });
    assert.deepEqual([done.copied, done.total, done.fence.done], [2, 2, true]);
    assert.deepEqual(
      (await target.load(first!))?.messages.map((m) => m.content),
      [[{ type: "text", text: "question one" }], [{ type: "text", text: "answer one" }]],
    );
  } finally {
    await source.close();
    await target.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("sqlite: a message row that does not decode stops a migration before the fence", async () => {
  const root = await Deno.makeTempDir({ prefix: "panto-migrate-sqlite-" });
  const path = join(root, "source.db");
  const source = new SQLiteStore({ path });
  const target = new FileSystemJSONLStore({ dir: join(root, "target") });
  try {
    const [first, second] = await fill(source);
    const db = new DatabaseSync(path);
    try {
      db.prepare("UPDATE messages SET message = 'not json' WHERE session_id = ? AND seq = 1")
        .run(second!);
    } finally {
      db.close();
    }
    await assert.rejects(
      migrateSessions(source, target, { targetName: "jsonl:target" }),
      refusedNaming(second!),
    );
    assert.equal(await source.migrationFence(), null, "the source is not fenced");
    assert.deepEqual(await target.list(), []);
    await source.delete(second!);
    const done = await migrateSessions(source, target, { targetName: "jsonl:target" });
    assert.deepEqual([done.copied, done.total], [2, 2]);
    assert.equal((await target.load(first!))?.messages.length, 2);
  } finally {
    await source.close();
    await target.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test({
  name: "postgres: a message row that does not decode stops a migration before the fence",
  ignore: !postgresAvailable(),
}, async () => {
  const root = await Deno.makeTempDir({ prefix: "panto-migrate-postgres-" });
  const cluster = await startPostgres();
  const url = await cluster.createDatabase();
  const source = new PostgresStore({ url });
  const target = new SQLiteStore({ path: join(root, "target.db") });
  try {
    const [first, second] = await fill(source);
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await sql`UPDATE panto_messages SET message = 'not json'
                WHERE session_id = ${first!} AND seq = 0`;
    } finally {
      await sql.end();
    }
    await assert.rejects(
      migrateSessions(source, target, { targetName: TARGET }),
      refusedNaming(first!),
    );
    assert.equal(await source.migrationFence(), null, "the source is not fenced");
    assert.deepEqual(await target.list(), []);
    await source.delete(first!);
    const done = await migrateSessions(source, target, { targetName: TARGET });
    assert.deepEqual([done.copied, done.total], [2, 2]);
    assert.equal((await target.load(second!))?.messages.length, 2);
  } finally {
    await source.close();
    await target.close();
    await cluster.stop();
    await Deno.remove(root, { recursive: true });
  }
});
