/**
 * Stopping stdio servers: each runs in its own process group, which closing
 * stops whole (stdin's end, SIGTERM, SIGKILL) without waiting for pipes a
 * process outside the group still holds; a `Deno.exit` that skips closing
 * still kills the groups.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { McpServerSettings } from "../../../cli/config/panto_config.ts";
import { McpServers } from "../../../lib/mcp/mcp_servers.ts";
import { childEnv } from "../../support/child_env.ts";
import { wrappedServerCommand } from "../../support/mcp_test_server.ts";
import { HAS_PROC, isGone, readPid, waitUntilGone } from "../../support/processes.ts";

const DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;
/**
 * The longest close() may take: generous for a machine saturated by other
 * work, and far below the `sleep 1000` of the processes it must stop (the
 * issue asks for 3 s; the measured time is printed, not asserted).
 */
const CLOSE_DEADLINE_MS = 60_000;
const EXIT_WITHOUT_CLOSE = new URL("../../support/mcp_exit_without_close.ts", import.meta.url)
  .pathname;

function wrapped(pidDir: string, options: { escapee?: boolean } = {}): McpServerSettings {
  const { command, args, env } = wrappedServerCommand(pidDir, options);
  return { command, args, env: { ...env, DENO_DIR }, source: "test config" };
}

/** Starts `settings` and waits (generously) until every server is connected. */
async function connected(settings: Record<string, McpServerSettings>): Promise<McpServers> {
  const reports: string[] = [];
  const servers = McpServers.start(settings, {
    cwd: Deno.cwd(),
    report: (message) => reports.push(message),
  });
  const deadline = Date.now() + 60_000;
  while (!servers.status().every((s) => s.state === "connected")) {
    if (reports.length > 0 || Date.now() > deadline) {
      await servers.close();
      throw new Error(`the servers did not connect: ${reports.join("\n") || "timed out"}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return servers;
}

/** Closes `servers`, failing rather than hanging if it takes past {@linkcode CLOSE_DEADLINE_MS}. */
async function timedClose(servers: McpServers, what: string): Promise<void> {
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`close() did not return within ${CLOSE_DEADLINE_MS} ms`)),
      CLOSE_DEADLINE_MS,
    );
  });
  try {
    await Promise.race([servers.close(), hung]);
  } finally {
    clearTimeout(timer);
  }
  console.log(`close() took ${Math.round(performance.now() - started)} ms ${what}`);
}

async function pids(pidDir: string, names: readonly string[]): Promise<Record<string, number>> {
  const found: Record<string, number> = {};
  for (const name of names) {
    const pid = await readPid(join(pidDir, `${name}.pid`));
    assert.ok(pid !== undefined, `${name}.pid was written`);
    found[name] = pid;
  }
  return found;
}

Deno.test({
  name: "closing stops a wrapper script's whole group, though it ignores stdin's end and SIGTERM",
  ignore: !HAS_PROC,
  async fn() {
    const pidDir = await Deno.makeTempDir({ prefix: "panto-mcp-stop-" });
    try {
      const servers = await connected({ stubborn: wrapped(pidDir) });
      const running = await pids(pidDir, ["wrapper", "server"]);
      for (const pid of Object.values(running)) assert.ok(!await isGone(pid), "it runs");
      await timedClose(servers, "with a server ignoring stdin's end and SIGTERM");
      for (const [name, pid] of Object.entries(running)) await waitUntilGone(pid, name);
    } finally {
      await Deno.remove(pidDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "closing does not wait for pipes held by a process that left the group",
  ignore: !HAS_PROC,
  async fn() {
    const pidDir = await Deno.makeTempDir({ prefix: "panto-mcp-stop-" });
    let escapee: number | undefined;
    try {
      const servers = await connected({ stubborn: wrapped(pidDir, { escapee: true }) });
      const running = await pids(pidDir, ["wrapper", "server", "escapee"]);
      escapee = running.escapee;
      await timedClose(servers, "with the pipes still held");
      await waitUntilGone(running.wrapper!, "wrapper");
      await waitUntilGone(running.server!, "server");
      assert.ok(!await isGone(escapee!), "the escapee (its own session) is out of reach");
    } finally {
      if (escapee !== undefined) Deno.kill(escapee, "SIGKILL");
      await Deno.remove(pidDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "a Deno.exit that skips closing (a second ctrl+c) still kills the servers' groups",
  ignore: !HAS_PROC,
  async fn() {
    const pidDir = await Deno.makeTempDir({ prefix: "panto-mcp-stop-" });
    try {
      const settings = { stubborn: wrapped(pidDir) };
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--quiet", EXIT_WITHOUT_CLOSE, JSON.stringify(settings)],
        clearEnv: true,
        env: childEnv(pidDir),
        stdin: "null",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      const running = await pids(pidDir, ["wrapper", "server"]);
      for (const [name, pid] of Object.entries(running)) await waitUntilGone(pid, name);
    } finally {
      await Deno.remove(pidDir, { recursive: true });
    }
  },
});
