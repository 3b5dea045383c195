/**
 * The chat in a real pty (tmux), quit while a long answer streams: SIGTERM,
 * SIGHUP and a double ctrl+c save the prompt and the partial answer (as
 * aborted), exit with 128 + the signal's number (0 for ctrl+c), and leave
 * the terminal restored.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeFakeConfig } from "../../support/fake_config.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { savedMessages } from "../../support/saved_session.ts";
import { shellQuote, tmuxAvailable, TmuxSession } from "../../support/tmux.ts";

const MAIN = fileURLToPath(new URL("../../../cli/main.ts", import.meta.url));
if (!tmuxAvailable) {
  console.log("skipped: interactive_interrupt_tmux_test needs tmux on PATH");
}

/**
 * How long the ctrl+c case streams first (ms), with every garbage
 * collection a full one: that is what makes Deno's fetch lose its abort.
 */
const LONG_RUN_MS = 3_000;

/** How the chat is quit, the exit code expected, and how long the answer streams first. */
const QUITS: [string, (tmux: TmuxSession) => Promise<void>, number, number][] = [
  ["SIGTERM", (tmux) => killPanto(tmux, "SIGTERM"), 143, 0],
  ["SIGHUP", (tmux) => killPanto(tmux, "SIGHUP"), 129, 0],
  ["a double ctrl+c", (tmux) => tmux.keys("C-c", "C-c"), 0, LONG_RUN_MS],
];

async function killPanto(tmux: TmuxSession, signal: Deno.Signal): Promise<void> {
  const shell = await tmux.panePid();
  const { stdout } = await new Deno.Command("pgrep", { args: ["-P", String(shell)] }).output();
  const pid = Number(new TextDecoder().decode(stdout).trim().split("\n")[0]);
  assert.ok(pid > 0, "found panto's pid");
  Deno.kill(pid, signal);
}

async function waitForStatus(path: string): Promise<string> {
  // Generous for a busy machine: the answer never ends, so any exit shows the quit stopped it.
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const text = await Deno.readTextFile(path).catch(() => "");
    if (text.includes("exit=") && text.includes("speed")) return text;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`panto did not exit: no status in ${path}`);
}

for (const [how, quit, code, runMs] of QUITS) {
  Deno.test({
    name: `interactive: ${how} during a long answer saves it as aborted and exits ${code}`,
    ignore: !tmuxAvailable,
    async fn() {
      const server = await FakeLlmServer.start();
      const home = await Deno.makeTempDir({ prefix: "panto-home-" });
      const status = join(home, ".status");
      await writeFakeConfig(home, server, { retry: { maxRetries: 0 } });
      const command = `${shellQuote(Deno.execPath())} run -A ${shellQuote(MAIN)}; ` +
        `echo exit=$? > ${shellQuote(status)}; stty -a >> ${shellQuote(status)}; sleep 60`;
      const tmux = await TmuxSession.start(command, {
        cwd: home,
        env: {
          PANTO_HOME: home,
          HOME: home,
          DENO_DIR: Deno.env.get("DENO_DIR") ??
            join(Deno.env.get("HOME") ?? "/root", ".cache", "deno"),
          TERM: "xterm-256color",
          NO_COLOR: "1",
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
          ...(runMs > 0 ? { DENO_V8_FLAGS: "--gc-global" } : {}),
        },
      });
      try {
        await tmux.waitFor(/fast/);
        server.enqueue({ kind: "long", deltas: Number.POSITIVE_INFINITY });
        await tmux.type("count forever");
        await tmux.keys("Enter");
        const started = performance.now();
        // More than 10,000 events read: a five-digit line is on screen.
        await tmux.waitFor(/line \d{5}/);
        await new Promise((resolve) => setTimeout(resolve, runMs - (performance.now() - started)));
        await quit(tmux);
        const exit = await waitForStatus(status);
        assert.match(exit, new RegExp(`exit=${code}\\n`));
        assert.match(exit, /(^|\s)icanon(\s|$)/, "canonical mode restored");
        assert.match(exit, /(^|\s)echo(\s|$)/, "echo restored");
        const [user, assistant, ...rest] = await savedMessages(home);
        assert.equal(rest.length, 0);
        assert.match(JSON.stringify(user?.content), /count forever/);
        assert.equal(assistant?.stopReason, "aborted");
        assert.match(JSON.stringify(assistant?.content), /line 0\\nline 1\\n.*line 9999\\n/);
      } finally {
        await tmux.close();
        await server.close();
        await Deno.remove(home, { recursive: true });
      }
    },
  });
}
