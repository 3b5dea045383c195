/**
 * `deno task panto`, as a user runs it: permissions that follow the user
 * (the project above a subdirectory, PANTO_HOME elsewhere, key variables the
 * config and flags name) yet stay scoped (paths outside refused).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
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

/** A directory tree for one test, removed afterwards. */
async function withTree(fn: (root: string, server: FakeLlmServer) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "panto-perm-" });
  const server = await FakeLlmServer.start();
  try {
    await fn(root, server);
  } finally {
    await server.close();
    await Deno.remove(root, { recursive: true });
  }
}

const FAKE_MODEL_ARGS = (server: FakeLlmServer) => [
  "-m",
  "m",
  "--base-url",
  server.openaiBaseUrl,
  "--api",
  "openai-chat",
];

Deno.test("deno task panto: started in a subdirectory, the project's AGENTS.md files and the one above it are read", async () => {
  await withTree(async (root, server) => {
    const project = join(root, "project");
    const sub = join(project, "src", "deep");
    const home = join(root, "home");
    await Deno.mkdir(join(project, ".git"), { recursive: true });
    await Deno.mkdir(sub, { recursive: true });
    await Deno.mkdir(home);
    await Deno.writeTextFile(join(root, "AGENTS.md"), "ABOVE-THE-PROJECT-RULE\n");
    await Deno.writeTextFile(join(project, "AGENTS.md"), "PROJECT-ROOT-RULE\n");
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "ok" }] });
    const run = await task(sub, home, ["-p", "hi", ...FAKE_MODEL_ARGS(server)]);
    assert.equal(run.code, 0, run.stderr);
    const request = JSON.stringify(server.requests[0]!.body);
    assert.match(request, /ABOVE-THE-PROJECT-RULE/);
    assert.match(request, /PROJECT-ROOT-RULE/);
  });
});

Deno.test("deno task panto: PANTO_HOME elsewhere holds the config and sessions; its apiKeyEnv is read", async () => {
  await withTree(async (root, server) => {
    const project = join(root, "project");
    const home = join(root, "home");
    const pantoHome = join(root, "elsewhere", "panto");
    await Deno.mkdir(project);
    await Deno.mkdir(home);
    await Deno.mkdir(pantoHome, { recursive: true });
    await Deno.writeTextFile(
      join(pantoHome, "config.json"),
      JSON.stringify({
        defaultModel: "together",
        providers: {
          together: {
            api: "openai-chat",
            baseUrl: server.openaiBaseUrl,
            apiKeyEnv: "TOGETHER_API_KEY",
          },
        },
        models: { together: { provider: "together", model: "t-model" } },
      }),
    );
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "from together" }] });
    const run = await task(project, home, ["-p", "hi"], {
      PANTO_HOME: pantoHome,
      TOGETHER_API_KEY: "test-together-key",
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "from together\n");
    assert.equal(server.requests[0]!.headers.authorization, "Bearer test-together-key");
    const saved = await Array.fromAsync(Deno.readDir(join(pantoHome, "sessions")));
    assert.equal(saved.filter((e) => e.name.endsWith(".jsonl")).length, 1);
  });
});

Deno.test("deno task panto: the variable --api-key-env names is granted, and its key sent", async () => {
  await withTree(async (root, server) => {
    await Deno.mkdir(join(root, "home"));
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "keyed" }] });
    const run = await task(
      root,
      join(root, "home"),
      ["-p", "hi", ...FAKE_MODEL_ARGS(server), "--api-key-env", "MY_SECRET_KEY"],
      { MY_SECRET_KEY: "test-secret-key" },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(server.requests[0]!.headers.authorization, "Bearer test-secret-key");
  });
});
