/**
 * `panto sessions migrate`: every session moves to the new store with its
 * id and model, the old store then refuses a turn before any model request
 * (naming the new store), and the new one continues the sessions.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { withFakeHome } from "../../support/fake_config.ts";
import { runPanto } from "../../support/run_panto.ts";

async function listed(
  home: string,
  ...store: string[]
): Promise<{ id: string; wire?: { model: string } }[]> {
  const run = await runPanto(["sessions", "--json", "--all", ...store], {
    env: { PANTO_HOME: home },
  });
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

Deno.test("sessions migrate --to sqlite moves every session and fences the jsonl store", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    for (const text of ["one", "two"]) {
      server.enqueue({ kind: "turn", blocks: [{ type: "text", text }] });
      assert.equal((await runPanto(["-p", `question ${text}`, "-m", "smart"], { env })).code, 0);
    }
    const before = await listed(home);
    assert.equal(before.length, 2);

    const missing = await runPanto(["sessions", "migrate"], { env });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /needs --to jsonl\|sqlite\|postgres/);

    const db = join(home, "moved.db");
    // The spelling: with a jsonl source, --store-url names the target.
    const run = await runPanto(["sessions", "migrate", "--to", "sqlite", "--store-url", db], {
      env,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Copied 2 session\(s\) and verified each/);
    assert.match(run.stdout, /fenced/);
    assert.deepEqual(await listed(home, "--store", "sqlite", "--store-url", db), before);

    const requests = server.requests.length;
    const refused = await runPanto(["-p", "-c", "more"], { env });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, new RegExp(`was migrated to sqlite:${db}`));
    assert.equal(server.requests.length, requests, "no model request is sent for a fenced store");

    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "three" }] });
    const resumed = await runPanto(["-p", "-c", "--store", "sqlite", "--store-url", db, "more"], {
      env,
    });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(JSON.stringify(server.requests.at(-1)!.body), /question two/);

    const again = await runPanto(["sessions", "migrate", "--to", "sqlite", "--to-url", db], {
      env,
    });
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /already migrated to sqlite:/);
  });
});

Deno.test("sessions migrate --wait: a turn still running past it stops the migration, naming the holder", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "one" }] });
    assert.equal((await runPanto(["-p", "first", "-m", "smart"], { env })).code, 0);
    // A turn that holds its session for 15 s (its answer comes late): longer than the
    // migration below takes to start and give up, even on a busy machine.
    server.enqueue({
      kind: "turn",
      blocks: [{ type: "text", text: "late" }],
      headerDelayMs: 15_000,
    });
    const running = runPanto(["-p", "-c", "second"], { env });
    const deadline = Date.now() + 60_000;
    while (server.requests.length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(server.requests.length, 2, "the second turn's request was sent");

    const db = join(home, "moved.db");
    const run = await runPanto(
      ["sessions", "migrate", "--to", "sqlite", "--to-url", db, "--wait", "1"],
      { env },
    );
    // It gave up while the turn still ran, and says it waited 1 s (--wait), not the default 30 s.
    assert.notEqual(run.code, 0);
    assert.match(
      run.stderr,
      /in use by another process \(pid \d+\) since .*within 1 s.*retry the migration when it is idle/s,
    );
    // The turn's answer is refused for the fence, naming the new store.
    const turn = await running;
    assert.notEqual(turn.code, 0);
    assert.match(turn.stderr, /migrated to sqlite:/);

    const bad = await runPanto(["sessions", "migrate", "--to", "sqlite", "--wait", "soon"], {
      env,
    });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--wait/);
  });
});
