/**
 * `deno task install` puts a `panto` command on PATH (here under a temporary
 * DENO_INSTALL_ROOT) that works from any directory; `deno task uninstall`
 * removes it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { childEnv } from "../../support/child_env.ts";
import { withFakeHome } from "../../support/fake_config.ts";
import { LAUNCHER_FLAGS } from "../../../cli/launcher/install.ts";

const CONFIG = fileURLToPath(new URL("../../../deno.json", import.meta.url));
const decoder = new TextDecoder();

async function run(command: string, args: string[], cwd: string, env: Record<string, string>) {
  const out = await new Deno.Command(command, {
    args,
    cwd,
    clearEnv: true,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  }).output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

Deno.test("deno task install: a panto command that runs from any directory; uninstall removes it", async () => {
  await withFakeHome(async (server, pantoHome) => {
    const root = await Deno.makeTempDir({ prefix: "panto-install-" });
    try {
      const project = join(root, "project");
      await Deno.mkdir(join(root, "home"));
      await Deno.mkdir(project);
      const env = {
        ...childEnv(join(root, "home")),
        // No Deno on PATH (as when it came from npx): the command names it by absolute path.
        PATH: join(root, "empty-path"),
        DENO_INSTALL_ROOT: join(root, "install"),
        PANTO_HOME: pantoHome,
        NO_COLOR: "1",
      };
      const task = (name: string) =>
        run(Deno.execPath(), ["task", "--quiet", "--config", CONFIG, name], root, env);
      const installed = await task("install");
      assert.equal(installed.code, 0, installed.stderr);
      const panto = join(root, "install", "bin", "panto");

      const version = await run(panto, ["--version"], project, env);
      assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/, version.stderr);

      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "installed answer" }] });
      const answer = await run(panto, ["-p", "hi"], project, env);
      assert.equal(answer.code, 0, answer.stderr);
      assert.equal(answer.stdout, "installed answer\n");
      assert.equal(answer.stderr, "", "a quiet start: nothing but the answer");

      const sessions = await run(panto, ["sessions"], project, env);
      assert.equal(sessions.code, 0, sessions.stderr);
      assert.match(sessions.stdout, /\bhi\b/);

      const completion = await run(panto, ["completion", "bash"], project, env);
      assert.match(completion.stdout, /_panto/);

      const removed = await task("uninstall");
      assert.equal(removed.code, 0, removed.stderr);
      await assert.rejects(Deno.stat(panto), Deno.errors.NotFound);

      await Deno.writeTextFile(panto, "#!/bin/sh\necho another panto\n");
      const refused = await task("uninstall");
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /was not written by deno task install/);
      assert.ok((await Deno.stat(panto)).isFile, "a command it did not write is left alone");
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  });
});

Deno.test("deno task panto starts the launcher with the same flags as the installed command", async () => {
  const tasks = JSON.parse(await Deno.readTextFile(CONFIG)).tasks;
  const words: string[] = tasks.panto.split(/\s+/);
  for (const flag of LAUNCHER_FLAGS) assert.ok(words.includes(flag), `panto task lacks ${flag}`);
  assert.ok(words.includes("cli/launcher/launch.ts"));
});
