/**
 * The library examples run as programs and print what they promise; the
 * core one also runs under Node, bundled, since the core imports no store,
 * codec or Deno API.
 */
import assert from "node:assert/strict";
import { STDIO_SERVER_COMMAND } from "../support/mcp_test_server.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const CONFIG = `--config=${ROOT}deno.json`;

/** Runs a command to its end; its stdout, or a failure naming its stderr. */
async function run(command: string, args: string[], env: Record<string, string> = {}) {
  const output = await new Deno.Command(command, {
    args,
    cwd: ROOT,
    env,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const decoder = new TextDecoder();
  const stdout = decoder.decode(output.stdout);
  assert.ok(
    output.success,
    `${command} ${args.join(" ")} failed:\n${stdout}${decoder.decode(output.stderr)}`,
  );
  return stdout;
}

/** Whether `command --version` runs; when not, says which tests skip and why. */
async function runtimeIsThere(command: string): Promise<boolean> {
  const there = await run(command, ["--version"]).then(() => true, () => false);
  if (!there) {
    console.log(`skipped: ${command} is not on PATH, so the core cannot be tried under ${command}`);
  }
  return there;
}

const NODE = await runtimeIsThere("node");
const BUN = await runtimeIsThere("bun");

const example = (name: string, ...args: string[]) =>
  run(Deno.execPath(), ["run", "-A", "--quiet", CONFIG, `examples/${name}`, ...args]);

Deno.test("core_agent: a tool call and an answer from the scripted model", async () => {
  assert.equal(await example("core_agent.ts"), "tool add → 5\nanswer: 2 + 3 = 5\n");
});

for (const [runtime, available] of [["node", NODE], ["bun", BUN]] as const) {
  Deno.test({
    name: `core_agent runs under ${runtime} once bundled`,
    ignore: !available,
    fn: async () => {
      const dir = await Deno.makeTempDir({ prefix: `panto_${runtime}_` });
      try {
        const bundle = `${dir}/core_agent.mjs`;
        await run(Deno.execPath(), [
          "bundle",
          "--quiet",
          CONFIG,
          "--platform=node",
          "-o",
          bundle,
          "examples/core_agent.ts",
        ]);
        assert.doesNotMatch(
          await Deno.readTextFile(bundle),
          /\bDeno\.(?!land)\w/,
          "no Deno API in the bundle",
        );
        assert.equal(await run(runtime, [bundle]), "tool add → 5\nanswer: 2 + 3 = 5\n");
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}

Deno.test({
  name: "every value of the core loads under Node once bundled",
  ignore: !NODE,
  fn: async () => {
    // Inside the repository, so that the workspace resolves `@panto/lib`.
    const probe = await Deno.makeTempFile({
      dir: `${ROOT}tests`,
      prefix: ".core_probe_",
      suffix: ".ts",
    });
    const bundle = `${probe}.mjs`;
    try {
      await Deno.writeTextFile(
        probe,
        'import * as lib from "@panto/lib";\nconsole.log(typeof lib.Agent, typeof lib.AgentSession);\n',
      );
      await run(Deno.execPath(), [
        "bundle",
        "--quiet",
        CONFIG,
        "--platform=node",
        "-o",
        bundle,
        probe,
      ]);
      assert.equal(await run("node", [bundle]), "function function\n");
    } finally {
      await Deno.remove(probe);
      await Deno.remove(bundle).catch(() => {});
    }
  },
});

Deno.test("builtin_tools: writes and reads inside its directory, refuses outside", async () => {
  const dir = await Deno.makeTempDir({ prefix: "panto_tools_" });
  try {
    const out = await example("builtin_tools.ts", dir);
    assert.match(out, /^tools: read, write, edit, bash, ls, grep, find$/m);
    assert.match(out, /^write ok: /m);
    assert.match(out, /^read ok: .*Hello from the write tool$/m);
    assert.match(out, /^read refused: .*outside the working directory/m);
    assert.equal(await Deno.readTextFile(`${dir}/hello.txt`), "Hello from the write tool\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcp_tools: lists a stdio server's tools and calls one", async () => {
  const { command, args } = STDIO_SERVER_COMMAND;
  const out = await example(
    "mcp_tools.ts",
    "--call=demo__echo",
    '--input={"text":"hi"}',
    "--",
    command,
    ...args,
  );
  assert.match(out, /^tools: demo__echo, demo__picture, /m);
  assert.match(out, /^demo__echo ok: echo: hi$/m);
});

Deno.test("chat_session: steering, a queued follow-up, a model switch and a compaction", async () => {
  const out = await example("chat_session.ts");
  assert.match(out, /\(steering applied\)\nassistant: The room has a lamp\./);
  assert.match(out, /^first: done, second: done$/m);
  assert.match(out, /^compacted: \d+ → \d+ tokens$/m);
  assert.match(out, /^models asked: small, small, small, large, large, large$/m);
});
