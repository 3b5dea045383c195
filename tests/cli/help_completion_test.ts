/**
 * `--help` names every option's choices, gives examples and the
 * environment; `panto sessions --help` names its actions; shell completion
 * suggests modes, levels, stores, model aliases and session ids, and
 * `sessions` only as the first word.
 */
import assert from "node:assert/strict";
import { withFakeHome } from "../support/fake_config.ts";
import { runPanto } from "../support/run_panto.ts";

/** The values bash completion offers for the words typed (the last is the one being completed). */
async function complete(words: string[], env: Record<string, string> = {}): Promise<string[]> {
  const run = await runPanto(["completion", "bash", ...words], { env });
  assert.equal(run.code, 0, run.stderr);
  return run.stdout.split("\n").filter((line) => line !== "");
}

Deno.test("panto --help: choices of every enumerated option, examples, environment", async () => {
  const run = await runPanto(["--help"]);
  assert.equal(run.code, 0, run.stderr);
  const help = run.stdout;
  assert.match(help, /--mode MODE .*\(choices: text, json, rpc\)/);
  assert.match(help, /--thinking LEVEL .*\(choices: off, low, medium, high\)/);
  assert.match(help, /--store KIND .*\(choices: jsonl, sqlite, postgres\)/);
  assert.match(help, /--api API .*\(choices: anthropic-messages, openai-chat/);
  assert.match(help, /-c, --continue .*this directory's latest session/);
  assert.match(help, /Examples:\n\s+panto\s+chat in this directory/);
  assert.match(help, /panto -p "what does main\.ts do\?"/);
  assert.match(help, /Environment:\n\s+PANTO_HOME\s/);
  for (const name of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "NO_COLOR", "apiKeyEnv"]) {
    assert.match(help, new RegExp(name), `--help names ${name}`);
  }
});

Deno.test("panto sessions --help names its actions and --all", async () => {
  const run = await runPanto(["sessions", "--help"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /ACTION .*\(choices: list, show, rm, rename, export, repair/);
  assert.match(run.stdout, /-a, --all\s+List every directory's sessions/);
  assert.match(run.stdout, /Actions:\n\s+list\s/);
  for (
    const action of [
      "show ID",
      "export ID",
      "rename ID NAME",
      "rm ID",
      "repair ID",
      "migrate --to KIND",
    ]
  ) {
    assert.match(run.stdout, new RegExp(`^\\s+${action}\\s`, "m"), `names ${action}`);
  }
});

Deno.test("completion: modes, levels and stores; sessions only as the first word", async () => {
  assert.deepEqual(await complete(["--mode", ""]), ["text", "json", "rpc"]);
  assert.deepEqual(await complete(["-p", "--mode", ""]), ["text", "json", "rpc"]);
  assert.deepEqual(await complete(["--thinking", ""]), ["off", "low", "medium", "high"]);
  assert.deepEqual(await complete(["--thinking", "m"]), ["medium"]);
  assert.deepEqual(await complete(["--store", ""]), ["jsonl", "sqlite", "postgres"]);
  assert.ok((await complete([""])).includes("sessions"));
  assert.ok(!(await complete(["-p", ""])).includes("sessions"));
  const actions = await complete(["sessions", ""]);
  for (const action of ["list", "show", "rm", "rename", "export", "repair"]) {
    assert.ok(actions.includes(action), `${action} in ${actions}`);
  }
});

Deno.test("completion: -m offers the config's model aliases, -r and sessions ACTION the session ids", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    assert.deepEqual(await complete(["-m", ""], env), ["fast", "smart"]);
    assert.deepEqual(await complete(["-m", "sm"], env), ["smart"]);
    assert.deepEqual(await complete(["-r", ""], env), [], "no sessions yet");

    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "ok" }] });
    assert.equal((await runPanto(["-p", "hello"], { env })).code, 0);
    const listed = await runPanto(["sessions", "--json"], { env });
    const [session] = JSON.parse(listed.stdout) as { id: string }[];
    assert.ok(session);
    assert.deepEqual(await complete(["-r", ""], env), [session.id]);
    assert.deepEqual(await complete(["-r", session.id.slice(0, 6)], env), [session.id]);
    assert.deepEqual(await complete(["-r", "zz"], env), []);
    assert.ok((await complete(["sessions", "show", ""], env)).includes(session.id));
    assert.deepEqual(await complete(["--fork", ""], env), [session.id]);
  });
});
