/**
 * Print mode stopped from outside, as a real process: SIGINT, SIGTERM and
 * SIGHUP after more than 10,000 streamed events stop it with 128 + the
 * signal's number, the partial answer saved as aborted; a reader that
 * closes the pipe (`| head -1`) ends it quietly. The answer never ends, so
 * an exit at all shows the signal stopped it; the deadline for it is
 * generous, as a busy machine needs.
 */
import assert from "node:assert/strict";
import type { ApiStyle } from "@panto/lib";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { savedMessages } from "../../support/saved_session.ts";

const MAIN = new URL("../../../cli/main.ts", import.meta.url).pathname;
const KEY = "sk-test-SECRET-interrupt-7";
/** Events streamed before the signal. */
const SIGNAL_AFTER = 10_500;
/** The longest a stopped panto may take to exit before it counts as still running. */
const EXIT_DEADLINE_MS = 60_000;
/**
 * For the SIGINT cases, how long the answer streams first (ms), with every
 * garbage collection a full one: that is what makes Deno's fetch lose its
 * abort (V8 runs one now and then on its own; the bug showed after 30 s).
 */
const LONG_RUN_MS = 3_000;

interface Fixture {
  server: FakeLlmServer;
  home: string;
}

async function withFixture(body: (fixture: Fixture) => Promise<void>): Promise<void> {
  const server = await FakeLlmServer.start();
  const home = await Deno.makeTempDir({ prefix: "panto-home-" });
  try {
    await body({ server, home });
  } finally {
    await server.close();
    await Deno.remove(home, { recursive: true });
  }
}

/** `panto -p` against the fake server, with a temporary home (never ~/.panto). */
function pantoArgs(fixture: Fixture, api: ApiStyle, extra: readonly string[]): string[] {
  const baseUrl = api === "anthropic-messages"
    ? fixture.server.anthropicBaseUrl
    : fixture.server.openaiBaseUrl;
  return ["-p", ...extra, "--api", api, "--base-url", baseUrl, "-m", "m1"];
}

function pantoEnv(home: string, v8Flags = ""): Record<string, string> {
  const realHome = Deno.env.get("HOME") ?? "/root";
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    DENO_DIR: Deno.env.get("DENO_DIR") ?? `${realHome}/.cache/deno`,
    HOME: home,
    PANTO_HOME: home,
    NO_COLOR: "1",
    ANTHROPIC_API_KEY: KEY,
    OPENAI_API_KEY: KEY,
    ...(v8Flags ? { DENO_V8_FLAGS: v8Flags } : {}),
  };
}

function spawnPanto(fixture: Fixture, args: readonly string[], v8Flags = ""): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", MAIN, ...args],
    clearEnv: true,
    env: pantoEnv(fixture.home, v8Flags),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Reads stdout line by line until `enough` holds for the text deltas so far; returns their count. */
async function readLinesUntil(
  lines: AsyncIterator<string>,
  enough: (deltas: number) => boolean,
): Promise<number> {
  let count = 0;
  while (!enough(count)) {
    const next = await lines.next();
    if (next.done) throw new Error(`stdout ended after ${count} lines`);
    if (next.value.includes('"type":"content_delta"')) count++;
  }
  return count;
}

async function* linesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let rest = "";
  for await (const chunk of stream) {
    const parts = (rest + decoder.decode(chunk, { stream: true })).split("\n");
    rest = parts.pop() ?? "";
    yield* parts;
  }
  if (rest) yield rest;
}

/** Waits for the process to exit; kills it and fails when it is still running after `ms`. */
async function exitWithin(child: Deno.ChildProcess, ms: number): Promise<Deno.CommandStatus> {
  const timer = setTimeout(() => child.kill("SIGKILL"), ms);
  try {
    const status = await child.status;
    assert.notEqual(status.signal, "SIGKILL", `still running ${ms} ms after the signal`);
    return status;
  } finally {
    clearTimeout(timer);
  }
}

async function textOf(stream: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(stream).text();
}

async function assertSavedAborted(home: string, prompt: string): Promise<void> {
  const messages = await savedMessages(home);
  assert.deepEqual(messages.map((m) => m.role), ["user", "assistant"]);
  const [user, assistant] = messages;
  assert.match(JSON.stringify(user?.content), new RegExp(prompt));
  assert.equal(assistant?.stopReason, "aborted");
  const text = JSON.stringify(assistant?.content);
  assert.ok(text.includes("line 0\\n") && text.includes("line 9999\\n"), "the partial answer");
}

const SIGNAL_CASES: [ApiStyle, Deno.Signal, number, number][] = [
  ["anthropic-messages", "SIGINT", 130, LONG_RUN_MS],
  ["openai-chat", "SIGINT", 130, LONG_RUN_MS],
  ["anthropic-messages", "SIGTERM", 143, 0],
  ["openai-chat", "SIGHUP", 129, 0],
];

for (const [api, signal, code, runMs] of SIGNAL_CASES) {
  Deno.test(`panto -p --mode json (${api}): ${signal} after ${SIGNAL_AFTER} events exits ${code}, partial answer saved`, async () => {
    await withFixture(async (fixture) => {
      fixture.server.enqueue({ kind: "long", deltas: Number.POSITIVE_INFINITY });
      const args = pantoArgs(fixture, api, ["--mode", "json", "count forever"]);
      const child = spawnPanto(fixture, args, runMs > 0 ? "--gc-global" : "");
      const stderr = textOf(child.stderr);
      const lines = linesOf(child.stdout);
      const started = performance.now();
      await readLinesUntil(
        lines,
        (deltas) => deltas >= SIGNAL_AFTER && performance.now() - started >= runMs,
      );
      child.kill(signal);
      const drained = readLinesUntil(lines, () => false).catch(() => {});
      const status = await exitWithin(child, EXIT_DEADLINE_MS);
      await drained;
      assert.equal(status.code, code, await stderr);
      assert.equal(await stderr, "panto: aborted\n");
      await assertSavedAborted(fixture.home, "count forever");
    });
  });
}

Deno.test("panto -p (anthropic-messages): SIGINT in text mode prints and saves the partial answer", async () => {
  await withFixture(async (fixture) => {
    const { server } = fixture;
    server.enqueue({ kind: "long", deltas: Number.POSITIVE_INFINITY });
    const child = spawnPanto(fixture, pantoArgs(fixture, "anthropic-messages", ["count on"]));
    const [stdout, stderr] = [textOf(child.stdout), textOf(child.stderr)];
    // The server runs ahead of what panto has read by the buffers between them.
    while (server.longDeltasSent < 8 * SIGNAL_AFTER) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill("SIGINT");
    const status = await exitWithin(child, EXIT_DEADLINE_MS);
    assert.equal(status.code, 130, await stderr);
    assert.ok((await stdout).startsWith("line 0\nline 1\n"));
    await assertSavedAborted(fixture.home, "count on");
  });
});

for (const mode of ["text", "json"] as const) {
  Deno.test(`panto -p --mode ${mode} | head -1: a closed pipe ends it quietly`, async () => {
    await withFixture(async (fixture) => {
      // Text mode writes the whole answer at the end: make it larger than a pipe's buffer.
      const deltas = mode === "text" ? 40_000 : Number.POSITIVE_INFINITY;
      fixture.server.enqueue({ kind: "long", deltas });
      const panto = [Deno.execPath(), "run", "-A", "--quiet", MAIN].concat(
        pantoArgs(fixture, "openai-chat", ["--mode", mode, "piped"]),
      ).map((word) => `'${word}'`).join(" ");
      const output = await new Deno.Command("bash", {
        args: ["-c", panto + ' 2>"$PANTO_HOME/stderr" | head -1; echo "${PIPESTATUS[0]}"'],
        clearEnv: true,
        env: pantoEnv(fixture.home),
        stdout: "piped",
        stderr: "piped",
      }).output();
      const [first, status] = new TextDecoder().decode(output.stdout).split("\n");
      assert.ok(first?.includes(mode === "text" ? "line 0" : '"type":'), String(first));
      assert.equal(status, "141", "the exit code of a process whose reader left");
      assert.equal(await Deno.readTextFile(`${fixture.home}/stderr`), "", "nothing reported");
    });
  });
}
