/**
 * The launcher as a process: the program's exit code comes back, and SIGTERM
 * sent to the launcher reaches the program (which saves its partial answer
 * and exits 143).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { childEnv } from "../../support/child_env.ts";
import { withFakeHome } from "../../support/fake_config.ts";
import { savedMessages } from "../../support/saved_session.ts";
import { LAUNCHER_FLAGS } from "../../../cli/launcher/install.ts";
import { modeFlags } from "../../../cli/launcher/launch.ts";

const LAUNCHER = new URL("../../../cli/launcher/launch.ts", import.meta.url).pathname;

function spawnLauncher(
  args: string[],
  cwd: string,
  pantoHome: string,
  stdin: "null" | "piped" = "null",
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...LAUNCHER_FLAGS, LAUNCHER, ...args],
    cwd,
    clearEnv: true,
    env: { ...childEnv(join(cwd, "home")), PANTO_HOME: pantoHome, NO_COLOR: "1" },
    stdin,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Runs the launcher with `input` as its whole stdin; its exit code, stdout lines and stderr. */
async function launchWithInput(
  args: string[],
  pantoHome: string,
  input: string,
): Promise<{ code: number; lines: string[]; stderr: string }> {
  const child = spawnLauncher(args, pantoHome, pantoHome, "piped");
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input));
  await writer.close();
  const out = await child.output();
  const decoder = new TextDecoder();
  const lines = decoder.decode(out.stdout).split("\n").filter((line) => line !== "");
  return { code: out.code, lines, stderr: decoder.decode(out.stderr) };
}

Deno.test("launcher: a usage error's exit code 2 comes back", async () => {
  await withFakeHome(async (_server, pantoHome) => {
    const child = spawnLauncher(["--no-such-flag"], pantoHome, pantoHome);
    const out = await child.output();
    assert.equal(out.code, 2);
    assert.match(new TextDecoder().decode(out.stderr), /no-such-flag/);
  });
});

Deno.test("launcher: print mode reads the modules it imports as it runs (optique for a line it words an error for)", async () => {
  await withFakeHome(async (_server, pantoHome) => {
    const child = spawnLauncher(["-p", "--no-such-flag", "hi"], pantoHome, pantoHome);
    const out = await child.output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 2, stderr);
    assert.match(stderr, /no-such-flag/);
    assert.doesNotMatch(stderr, /read access/);
  });
});

Deno.test("launcher: the chat reads the modules it imports as it runs (the terminal UI, which then asks for a terminal)", async () => {
  await withFakeHome(async (_server, pantoHome) => {
    const out = await spawnLauncher([], pantoHome, pantoHome).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 2, stderr);
    assert.match(stderr, /interactive mode needs a terminal/);
    assert.doesNotMatch(stderr, /read access/);
  });
});

Deno.test("launcher: RPC mode reads the modules it imports as it runs and answers get_state", async () => {
  await withFakeHome(async (_server, pantoHome) => {
    const run = await launchWithInput(["--mode", "rpc"], pantoHome, '{"type":"get_state"}\n');
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /read access/);
    const answer = JSON.parse(run.lines[0] ?? "null");
    assert.equal(answer?.command, "get_state", run.lines.join("\n"));
    assert.equal(answer?.success, true);
    assert.equal(answer?.data?.model?.alias, "fast");
  });
});

Deno.test("launcher: ACP mode reads the modules it imports as it runs and answers initialize", async () => {
  await withFakeHome(async (_server, pantoHome) => {
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: 1 },
    };
    // stdin stays open until the answer: an editor that closes it has left, and the SDK then
    // drops what is in flight.
    const child = spawnLauncher(["acp"], pantoHome, pantoHome, "piped");
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(JSON.stringify(initialize) + "\n"));
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!seen.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
    }
    await writer.close();
    await reader.cancel();
    const { code } = await child.status;
    const stderr = await new Response(child.stderr).text();
    assert.doesNotMatch(stderr, /read access/);
    const answer = JSON.parse(seen.split("\n")[0] || "null");
    assert.equal(answer?.id, 1, seen + stderr);
    assert.equal(answer?.result?.protocolVersion, 1);
    assert.equal(code, 0, stderr);
  });
});

Deno.test("launcher: SIGTERM reaches the program, which exits 143 and saves the session", async () => {
  await withFakeHome(async (server, pantoHome) => {
    server.enqueue({ kind: "long", deltas: Infinity });
    const child = spawnLauncher(["-p", "go on forever", "--mode", "json"], pantoHome, pantoHome);
    const decoder = new TextDecoder();
    let seen = "";
    let started!: () => void;
    const streaming = new Promise<void>((resolve) => started = resolve);
    // Drained to the end, so the program never blocks on a full pipe.
    const drained = child.stdout.pipeTo(
      new WritableStream({
        write(chunk) {
          seen += decoder.decode(chunk, { stream: true });
          if (seen.includes('"content_delta"')) started();
        },
      }),
    );
    // A program that cannot start exits instead of streaming: fail then, not wait forever.
    const first = await Promise.race([streaming.then(() => null), child.status]);
    assert.equal(first, null, `the program exited (${first?.code}) before it streamed: ${seen}`);
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    const status = await child.status;
    clearTimeout(timer);
    assert.equal(status.code, 143, "the program's exit code for SIGTERM");
    // Only the program itself, stopped by the signal, saves the answer as aborted.
    const messages = await savedMessages(pantoHome);
    assert.equal(messages.at(-1)?.stopReason, "aborted");
    await drained;
    await child.stderr.cancel();
  });
});

Deno.test("launcher: every mode reads dynamic imports when they run and gets a small young generation, print mode the smallest", () => {
  const lazy = "--unstable-lazy-dynamic-imports";
  const print = [lazy, "--v8-flags=--max-semi-space-size=1"];
  const others = [lazy, "--v8-flags=--max-semi-space-size=2,--expose-gc"];
  assert.deepEqual(modeFlags(["-p", "hello"]), print);
  assert.deepEqual(modeFlags(["--mode", "json", "--print", "hello"]), print);
  assert.deepEqual(modeFlags(["hello"]), others);
  assert.deepEqual(modeFlags([]), others);
  assert.deepEqual(modeFlags(["--mode", "rpc"]), others);
  assert.deepEqual(modeFlags(["acp"]), others);
});

Deno.test("launcher: started by an older panto script (it may read only HOME, PANTO_HOME, PANTO_CWD), it passes its environment on as before and the keys still work", async () => {
  await withFakeHome(async (server, pantoHome) => {
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "still fine" }] });
    const config = JSON.parse(await Deno.readTextFile(join(pantoHome, "config.json")));
    config.providers.fakeopenai.apiKeyEnv = "FAKE_KEY";
    await Deno.writeTextFile(join(pantoHome, "config.json"), JSON.stringify(config));
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--no-prompt",
        "--allow-read",
        "--allow-env=HOME,PANTO_HOME,PANTO_CWD",
        "--allow-run",
        LAUNCHER,
        "-p",
        "hi",
      ],
      cwd: pantoHome,
      clearEnv: true,
      env: {
        ...childEnv(join(pantoHome, "home")),
        PANTO_HOME: pantoHome,
        NO_COLOR: "1",
        FAKE_KEY: "sk-old-script",
      },
      stdin: "null",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.equal(new TextDecoder().decode(out.stdout).trim(), "still fine");
    assert.equal(server.requests[0]?.headers.authorization, "Bearer sk-old-script");
  });
});

Deno.test("launcher: a project whose path has a comma (which Deno's flags cannot name) stops the start with what to do, exit 2", async () => {
  await withFakeHome(async (_server, pantoHome) => {
    const project = join(pantoHome, "a,b");
    await Deno.mkdir(project);
    const out = await spawnLauncher(["-p", "hi"], project, pantoHome).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 2, stderr);
    assert.match(
      stderr,
      /the project's path has a comma.*start panto in a directory whose path has none \(.*a,b\)/,
    );
  });
});
