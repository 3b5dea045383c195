/**
 * Sessions belong to the directory they were started in: `-c` continues
 * the latest of the working directory (or starts a new one and says so),
 * and `panto sessions` lists this directory's unless `--all`, which adds
 * the directory column.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { withFakeHome } from "../../support/fake_config.ts";
import type { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { runPanto } from "../../support/run_panto.ts";

function answer(server: FakeLlmServer, text: string): void {
  server.enqueue({ kind: "turn", blocks: [{ type: "text", text }] });
}

async function projects(home: string): Promise<[string, string]> {
  const alpha = join(home, "alpha");
  const beta = join(home, "beta");
  await Deno.mkdir(alpha);
  await Deno.mkdir(beta);
  return [await Deno.realPath(alpha), await Deno.realPath(beta)];
}

Deno.test("sessions: -c continues this directory's latest session, not another project's", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    const [alpha, beta] = await projects(home);
    answer(server, "alpha one");
    assert.equal((await runPanto(["-p", "alpha question"], { env, cwd: alpha })).code, 0);
    answer(server, "beta one");
    assert.equal((await runPanto(["-p", "beta question"], { env, cwd: beta })).code, 0);

    // beta's session is the newest overall; -c in alpha continues alpha's.
    answer(server, "alpha two");
    const again = await runPanto(["-p", "-c", "alpha again"], { env, cwd: alpha });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stderr, "");
    const body = JSON.stringify(server.requests.at(-1)!.body);
    assert.match(body, /alpha question/);
    assert.doesNotMatch(body, /beta question/);
  });
});

Deno.test("sessions: -c in a directory without a session starts a new one and says so", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    const [alpha, beta] = await projects(home);
    answer(server, "alpha one");
    assert.equal((await runPanto(["-p", "alpha question"], { env, cwd: alpha })).code, 0);

    answer(server, "fresh");
    const fresh = await runPanto(["-p", "-c", "first in beta"], { env, cwd: beta });
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.equal(fresh.stdout, "fresh\n");
    assert.match(fresh.stderr, new RegExp(`No session of ${beta} to continue: started a new one`));
    assert.doesNotMatch(JSON.stringify(server.requests.at(-1)!.body), /alpha question/);

    const listed = await runPanto(["sessions", "--json"], { env, cwd: beta });
    const sessions = JSON.parse(listed.stdout) as { lastUserMessage: string; cwd: string }[];
    assert.deepEqual(sessions.map((s) => [s.lastUserMessage, s.cwd]), [["first in beta", beta]]);
  });
});

Deno.test("panto sessions lists this directory's sessions; --all every one with its directory", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    const [alpha, beta] = await projects(home);
    answer(server, "a");
    assert.equal((await runPanto(["-p", "alpha question"], { env, cwd: alpha })).code, 0);
    answer(server, "b");
    assert.equal((await runPanto(["-p", "beta question"], { env, cwd: beta })).code, 0);

    const here = await runPanto(["sessions"], { env, cwd: alpha });
    assert.equal(here.code, 0, here.stderr);
    assert.match(here.stdout, /alpha question/);
    assert.doesNotMatch(here.stdout, /beta question|DIRECTORY/);

    const all = await runPanto(["sessions", "--all"], { env, cwd: alpha });
    assert.match(all.stdout, /^ID\s+MODIFIED\s+MSGS\s+MODEL\s+DIRECTORY\s+NAME/);
    assert.match(all.stdout, new RegExp(`${beta}\\s+beta question`));
    assert.match(all.stdout, new RegExp(`${alpha}\\s+alpha question`));

    const empty = join(home, "empty");
    await Deno.mkdir(empty);
    const none = await runPanto(["sessions"], { env, cwd: empty });
    assert.match(
      none.stdout,
      /No sessions in .*empty yet \(2 in other directories: panto sessions --all\)/,
    );
  });
});
