/**
 * `deno task install` puts a `panto` command on PATH (here under a temporary
 * DENO_INSTALL_ROOT) that works from any directory, with a Deno of its own
 * that outlives the one that installed it (npx's, in npm's cache); `deno
 * task uninstall` removes both.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { childEnv } from "../../support/child_env.ts";
import { withFakeHome } from "../../support/fake_config.ts";
import { install, LAUNCHER_FLAGS, ownedDenoPath } from "../../../cli/launcher/install.ts";

const CONFIG = fileURLToPath(new URL("../../../deno.json", import.meta.url));
const CHECKOUT = fileURLToPath(new URL("../../..", import.meta.url)).replace(/\/$/, "");
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

/** Runs `deno task NAME` of the checkout with the given Deno. */
function task(deno: string, name: string, root: string, env: Record<string, string>) {
  return run(deno, ["task", "--quiet", "--config", CONFIG, name], root, env);
}

/**
 * Runs `deno task NAME` of the checkout with a copy of Deno in `<root>/npx`,
 * as `npx -y deno@… task NAME` runs it from npm's cache, then deletes the copy.
 */
async function taskFromCopy(name: string, root: string, env: Record<string, string>) {
  const copy = join(root, "npx", "deno");
  await Deno.mkdir(join(root, "npx"), { recursive: true });
  await Deno.copyFile(Deno.execPath(), copy);
  await Deno.chmod(copy, 0o755);
  try {
    return await task(copy, name, root, env);
  } finally {
    // The cache is cleaned: the installed command must not need this Deno.
    await Deno.remove(join(root, "npx"), { recursive: true });
  }
}

/** A temporary root with a project, a home and an empty PATH directory, and its environment. */
async function installSite(pantoHome: string) {
  const root = await Deno.makeTempDir({ prefix: "panto-install-" });
  await Deno.mkdir(join(root, "project"));
  await Deno.mkdir(join(root, "home"));
  await Deno.mkdir(join(root, "empty-path"));
  const env = {
    ...childEnv(join(root, "home")),
    // No Deno on PATH (as when it came from npx): the command runs the Deno it owns.
    PATH: join(root, "empty-path"),
    DENO_INSTALL_ROOT: join(root, "install"),
    PANTO_HOME: pantoHome,
    NO_COLOR: "1",
  };
  const owned = ownedDenoPath(join(root, "install"), Deno.version.deno);
  return {
    root,
    project: join(root, "project"),
    env,
    panto: join(root, "install", "bin", "panto"),
    owned,
  };
}

Deno.test("deno task install: a panto command that runs from any directory; uninstall removes it", async () => {
  await withFakeHome(async (server, pantoHome) => {
    const { root, project, env, panto, owned } = await installSite(pantoHome);
    try {
      // The Deno an earlier install (another Deno version) owned.
      const stale = ownedDenoPath(join(root, "install"), "0.0.1");
      await Deno.mkdir(join(stale, ".."), { recursive: true });
      await Deno.writeTextFile(stale, "");
      const installed = await taskFromCopy("install", root, env);
      assert.equal(installed.code, 0, installed.stderr);
      assert.equal(((await Deno.stat(owned)).mode ?? 0) & 0o777, 0o755, "the owned Deno runs");
      await assert.rejects(Deno.stat(stale), Deno.errors.NotFound, "no longer run: removed");

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

      const removed = await task(Deno.execPath(), "uninstall", root, env);
      assert.equal(removed.code, 0, removed.stderr);
      await assert.rejects(Deno.stat(panto), Deno.errors.NotFound);
      await assert.rejects(Deno.stat(owned), Deno.errors.NotFound, "the owned Deno goes too");
      await assert.rejects(Deno.stat(join(root, "install", "lib", "panto")), Deno.errors.NotFound);

      await Deno.writeTextFile(panto, "#!/bin/sh\necho another panto\n");
      const refused = await task(Deno.execPath(), "uninstall", root, env);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /was not written by deno task install/);
      assert.ok((await Deno.stat(panto)).isFile, "a command it did not write is left alone");
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  });
});

Deno.test("installed panto without its Deno: deno on PATH, else one line naming the re-install and 127", async () => {
  await withFakeHome(async (_server, pantoHome) => {
    const { root, project, env, panto, owned } = await installSite(pantoHome);
    try {
      const installed = await taskFromCopy("install", root, env);
      assert.equal(installed.code, 0, installed.stderr);
      await Deno.remove(owned);

      const withPath = join(root, "with-deno");
      await Deno.mkdir(withPath);
      await Deno.symlink(Deno.execPath(), join(withPath, "deno"));
      const fallback = await run(panto, ["--version"], project, { ...env, PATH: withPath });
      assert.equal(fallback.code, 0, fallback.stderr);
      assert.match(fallback.stdout, /^\d+\.\d+\.\d+\n$/);

      const missing = await run(panto, ["--version"], project, env);
      assert.equal(missing.code, 127);
      assert.equal(missing.stdout, "");
      assert.equal(
        missing.stderr,
        `panto: no Deno to run: ${owned} is missing and there is no deno on PATH; ` +
          `re-install with: cd ${CHECKOUT} && npx -y deno@${Deno.version.deno} task install\n`,
      );

      const removed = await task(Deno.execPath(), "uninstall", root, env);
      assert.equal(removed.code, 0, removed.stderr);
      await assert.rejects(Deno.stat(panto), Deno.errors.NotFound);
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

Deno.test("deno task install: a panto it did not write, or a symbolic link there, is refused and left as it was; the PATH hint is quoted", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "panto-install-" }));
  try {
    const bin = join(root, "with space", "bin");
    await Deno.mkdir(bin, { recursive: true });
    const env = (name: string) =>
      name === "DENO_INSTALL_ROOT" ? join(root, "with space") : undefined;
    const target = join(root, "target");
    await Deno.writeTextFile(target, "the user's file\n");
    await Deno.symlink(target, join(bin, "panto"));
    await assert.rejects(
      install(env),
      /not written by deno task install \(it is a symbolic link\)/,
    );
    assert.equal(await Deno.readTextFile(target), "the user's file\n", "the link was followed");
    await Deno.remove(join(bin, "panto"));
    await Deno.writeTextFile(join(bin, "panto"), "#!/bin/sh\necho another panto\n");
    await assert.rejects(install(env), /it is another program/);
    await Deno.remove(join(bin, "panto"));
    const said = await install(env);
    assert.ok(said.includes(`export PATH='${bin}':"$PATH"`), said);
    assert.match(await install(env), /^Installed/, "its own script is replaced");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
