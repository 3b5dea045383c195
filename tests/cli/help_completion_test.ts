/**
 * `--help` (and `-h`) names every option's choices, the commands, gives
 * examples and the environment; `-v` is `--version`; `panto sessions --help`
 * names its actions; shell completion suggests modes, levels, stores, model
 * aliases and session ids, and `sessions` and `acp` only as the first word.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { LAUNCHER_FLAGS } from "../../cli/launcher/install.ts";
import { childEnv } from "../support/child_env.ts";
import { withFakeHome } from "../support/fake_config.ts";
import { runPanto } from "../support/run_panto.ts";

const LAUNCHER = fileURLToPath(new URL("../../cli/launcher/launch.ts", import.meta.url));

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
  assert.match(help, /--thinking LEVEL .*\(choices: off, minimal, low, medium, high, xhigh\)/);
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

Deno.test("panto --help lists panto acp and shows -r's id as optional", async () => {
  const run = await runPanto(["--help"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^\s+panto acp \[/m, "a usage line for panto acp");
  assert.match(run.stdout, /^\s+acp\s+Serve an editor over the Agent Client Protocol/m);
  assert.match(run.stdout, /^\s+-r, --resume \[ID\]\s+Resume a session/m);
  assert.match(run.stdout, /\[-r\/--resume \[ID\]\]/, "the usage line too");
});

Deno.test("panto acp --help: the flags panto acp takes, not the chat-only ones", async () => {
  for (const help of ["--help", "-h"]) {
    const run = await runPanto(["acp", help]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Usage: panto acp /);
    assert.match(run.stdout, /-m, --model MODEL/);
    for (const chatOnly of ["--print", "--mode", "--continue", "--resume", "--fork"]) {
      assert.doesNotMatch(run.stdout, new RegExp(`${chatOnly}\\b`), `lists ${chatOnly}`);
    }
  }
});

Deno.test("panto -h is panto --help, there and after other flags", async () => {
  const long = await runPanto(["--help"]);
  for (const argv of [["-h"], ["-p", "-h"]]) {
    const short = await runPanto(argv);
    assert.deepEqual(short, long, JSON.stringify(argv));
  }
  const sessions = await runPanto(["sessions", "-h"]);
  assert.deepEqual(sessions, await runPanto(["sessions", "--help"]));
});

Deno.test("panto -v and -V are panto --version, in the program and in the launcher", async () => {
  const long = await runPanto(["--version"]);
  assert.equal(long.code, 0, long.stderr);
  assert.match(long.stdout, /^\d+\.\d+\.\d+\n$/);
  // Alone they are answered before the parser loads; after a flag, by the parser.
  for (const argv of [["-v"], ["-V"], ["-p", "-v"], ["-p", "-V"]]) {
    assert.deepEqual(await runPanto(argv), long, JSON.stringify(argv));
  }
  // The launcher answers itself: without --allow-run it could not start the program.
  const flags = LAUNCHER_FLAGS.filter((flag) => flag !== "--allow-run");
  const home = await Deno.makeTempDir({ prefix: "panto-home-" });
  try {
    for (const flag of ["-v", "-V", "--version"]) {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", ...flags, LAUNCHER, flag],
        clearEnv: true,
        env: childEnv(home),
        stdin: "null",
      }).output();
      const stdout = new TextDecoder().decode(out.stdout);
      assert.deepEqual({ code: out.code, stdout }, { code: 0, stdout: long.stdout }, flag);
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("panto sessions --help names its actions and --all", async () => {
  const run = await runPanto(["sessions", "--help"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /ACTION .*\(choices: list, show, rm, rename, export, import, repair/);
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
  assert.deepEqual(await complete(["--thinking", ""]), [
    "off",
    "minimal",
    "low",
    "medium",
    "high",
    "xhigh",
  ]);
  assert.deepEqual(await complete(["--thinking", "m"]), ["minimal", "medium"]);
  assert.deepEqual(await complete(["--store", ""]), ["jsonl", "sqlite", "postgres"]);
  const first = await complete([""]);
  assert.ok(first.includes("sessions") && first.includes("acp"), `${first}`);
  const later = await complete(["-p", ""]);
  assert.ok(!later.includes("sessions") && !later.includes("acp"), `${later}`);
  const acp = await complete(["acp", "--"]);
  assert.ok(acp.includes("--model") && !acp.includes("--print"), `${acp}`);
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
