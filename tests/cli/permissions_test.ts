/**
 * `deno task panto`, as a user runs it: scoped permissions, the working
 * directory passed through, paths outside it refused, and a missing
 * permission reported as a message (never a prompt that hangs).
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { childEnv } from "../support/child_env.ts";
import { FakeLlmServer } from "../support/fake_llm_server.ts";

const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));
const decoder = new TextDecoder();

async function task(cwd: string, home: string, args: string[], env: Record<string, string> = {}) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "--config", CONFIG, "panto", ...args],
    cwd,
    clearEnv: true,
    env: { ...childEnv(home), NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  }).output();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

Deno.test("deno task panto: works in the invoking directory, confined to it, sessions under ~/.panto", async () => {
  const root = await Deno.makeTempDir({ prefix: "panto-perm-" });
  const project = join(root, "project");
  const home = join(root, "home");
  await Deno.mkdir(project);
  await Deno.mkdir(home);
  await Deno.writeTextFile(join(project, "inside.txt"), "inside-content\n");
  await Deno.writeTextFile(join(root, "outside.txt"), "outside-content\n");
  const server = await FakeLlmServer.start();
  try {
    server.enqueue({
      kind: "turn",
      blocks: [
        { type: "tool_use", id: "c1", name: "read", input: { path: "inside.txt" } },
        { type: "tool_use", id: "c2", name: "read", input: { path: "../outside.txt" } },
      ],
    });
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "done" }] });
    const run = await task(project, home, [
      "-p",
      "read both",
      "-m",
      "m",
      "--base-url",
      server.openaiBaseUrl,
      "--api",
      "openai-chat",
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "done\n");
    const followUp = JSON.stringify(server.requests[1]!.body);
    assert.match(
      followUp,
      /inside-content/,
      "the project file was read from the invoking directory",
    );
    assert.ok(!followUp.includes("outside-content"), "the file outside was not read");
    assert.match(followUp, /outside the working directory/);
    const sessions = (await Array.fromAsync(Deno.readDir(join(home, ".panto", "sessions")))).filter(
      (e) => e.name.endsWith(".jsonl"),
    );
    assert.equal(sessions.length, 1, "the session was saved under ~/.panto");
  } finally {
    await server.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("deno task panto: a variable it may not read is a clear message, not a prompt", async () => {
  const home = await Deno.makeTempDir({ prefix: "panto-perm-" });
  try {
    const run = await task(dirname(CONFIG), home, [
      "-p",
      "hi",
      "-m",
      "m",
      "--base-url",
      "http://127.0.0.1:9/v1",
      "--api-key-env",
      "MY_SECRET_KEY",
    ], { MY_SECRET_KEY: "sk-should-not-be-read" });
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /panto may not read the environment variable MY_SECRET_KEY: run it with --allow-env=MY_SECRET_KEY/,
    );
    assert.ok(!run.stderr.includes("sk-should-not-be-read"));
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
