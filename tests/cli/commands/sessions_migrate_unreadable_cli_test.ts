/**
 * `panto sessions migrate` with a session it cannot read: it stops before
 * fencing anything, naming the session and the fixes; `repair` and `rm`
 * work, also on a store an interrupted migration left fenced; run again,
 * the migration finishes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { withFakeHome } from "../../support/fake_config.ts";
import { runPanto } from "../../support/run_panto.ts";

/** The ids of the sessions `panto sessions --all` lists, newest first. */
async function ids(home: string): Promise<string[]> {
  const run = await runPanto(["sessions", "--json", "--all"], { env: { PANTO_HOME: home } });
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout).map((info: { id: string }) => info.id);
}

/** Two saved sessions, the newer one damaged mid-file; their ids, newest first. */
async function twoSessionsOneDamaged(
  server: { enqueue: (reply: { kind: "turn"; blocks: { type: "text"; text: string }[] }) => void },
  home: string,
): Promise<[string, string]> {
  for (const text of ["one", "two"]) {
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text }] });
    const run = await runPanto(["-p", `question ${text}`], { env: { PANTO_HOME: home } });
    assert.equal(run.code, 0, run.stderr);
  }
  const [damaged, intact] = await ids(home);
  await Deno.writeTextFile(join(home, "sessions", `${damaged}.jsonl`), "not json\n{}\n", {
    append: true,
  });
  return [damaged!, intact!];
}

Deno.test("sessions migrate: an unreadable session stops it before the fence; repaired, it finishes", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    const [damaged, intact] = await twoSessionsOneDamaged(server, home);
    const db = join(home, "moved.db");
    const run = await runPanto(["sessions", "migrate", "--to", "sqlite", "--to-url", db], { env });
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, new RegExp(`1 session\\(s\\) cannot be read: ${damaged}`));
    assert.match(run.stderr, /not fenced: repair them \(panto sessions repair ID\)/);
    assert.doesNotMatch(run.stderr, new RegExp(intact));
    await assert.rejects(Deno.stat(join(home, "sessions", "migrated.json")), Deno.errors.NotFound);

    const repaired = await runPanto(["sessions", "repair", damaged], { env });
    assert.equal(repaired.code, 0, repaired.stderr);
    assert.match(repaired.stdout, /dropped 2\n {2}line \d+: invalid JSON/);
    const moved = await runPanto(["sessions", "migrate", "--to", "sqlite", "--to-url", db], {
      env,
    });
    assert.equal(moved.code, 0, moved.stderr);
    assert.match(moved.stdout, /Copied 2 session\(s\)/);
  });
});

Deno.test("sessions repair and rm work on a store an interrupted migration left fenced", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    const [damaged, intact] = await twoSessionsOneDamaged(server, home);
    const db = join(home, "moved.db");
    const target = `sqlite:${db}`;
    // What a migration that fenced the store and then stopped on the damage left.
    await Deno.writeTextFile(
      join(home, "sessions", "migrated.json"),
      JSON.stringify({ target, since: new Date().toISOString(), done: false }),
    );
    const kept = await runPanto(["sessions", "rm", intact], { env });
    assert.notEqual(kept.code, 0, "a session that reads is not deleted from a fenced store");
    assert.match(kept.stderr, new RegExp(`is being migrated to ${target}`));
    const removed = await runPanto(["sessions", "rm", damaged], { env });
    assert.equal(removed.code, 0, removed.stderr);
    assert.deepEqual(await ids(home), [intact]);

    const moved = await runPanto(["sessions", "migrate", "--to", "sqlite", "--to-url", db], {
      env,
    });
    assert.equal(moved.code, 0, moved.stderr);
    assert.match(moved.stdout, /Copied 1 session\(s\)/);
  });
});
