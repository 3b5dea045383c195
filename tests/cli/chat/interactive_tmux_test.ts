/**
 * The interactive mode end to end in a real pty (tmux) against the fake
 * LLM server: answers on screen, ctrl+o, esc, scrollback, /model, /compact,
 * a resize, and the terminal restored after quitting and after SIGTERM.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { writeFakeConfig } from "../../support/fake_config.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import {
  PANTO_SH_COMMAND,
  pantoPaneEnv,
  shellQuote,
  tmuxAvailable,
  TmuxSession,
} from "../../support/tmux.ts";

if (!tmuxAvailable) {
  console.log("skipped: interactive_tmux_test needs tmux on PATH (apt-get install -y tmux)");
}

interface Fixture {
  server: FakeLlmServer;
  project: string;
  home: string;
  status: string;
  tmux: TmuxSession;
}

async function start(): Promise<Fixture> {
  const server = await FakeLlmServer.start();
  const project = await Deno.makeTempDir({ prefix: "panto-project-" });
  const home = await Deno.makeTempDir({ prefix: "panto-home-" });
  const status = join(project, ".status");
  const notes = Array.from(
    { length: 20 },
    (_, i) => (i === 14 ? "secret-line-42" : `note ${i + 1}`),
  );
  await Deno.writeTextFile(join(project, "notes.txt"), notes.join("\n") + "\n");
  await writeFakeConfig(home, server, { retry: { maxRetries: 0 } });
  const command = `${PANTO_SH_COMMAND}; echo exit=$? > ${shellQuote(status)}; ` +
    `stty -a >> ${shellQuote(status)}; sleep 60`;
  const tmux = await TmuxSession.start(command, {
    cols: 100,
    rows: 30,
    cwd: project,
    env: pantoPaneEnv(home),
  });
  return { server, project, home, status, tmux };
}

async function stop(f: Fixture): Promise<void> {
  await f.tmux.close();
  await f.server.close();
  await Deno.remove(f.project, { recursive: true });
  await Deno.remove(f.home, { recursive: true });
}

async function waitForStatus(path: string): Promise<string> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const text = await Deno.readTextFile(path).catch(() => "");
    if (text.includes("exit=") && text.includes("speed")) return text;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`panto did not exit: no status in ${path}`);
}

/** Waits until no turn runs: the loader line ("… · esc to cancel") is gone from the screen. */
async function waitUntilIdle(tmux: TmuxSession): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await tmux.screen()).join("\n").includes("esc to cancel")) {
    if (Date.now() > deadline) throw new Error("panto stayed busy for 20 s");
    await new Promise((r) => setTimeout(r, 50));
  }
}

function assertRestored(status: string): void {
  assert.match(status, /(^|\s)icanon(\s|$)/, "canonical mode restored");
  assert.match(status, /(^|\s)echo(\s|$)/, "echo restored");
  assert.match(status, /(^|\s)isig(\s|$)/, "signals restored");
}

Deno.test({
  name: "interactive: prompt, tool call, ctrl+o, scrollback, esc, /model, /compact, resize, quit",
  ignore: !tmuxAvailable,
  async fn() {
    const f = await start();
    try {
      const { tmux, server } = f;
      await tmux.waitFor(/panto/);
      await tmux.waitFor(/fast/);

      // A prompt answered on screen, through a tool call.
      server.enqueue({
        kind: "turn",
        blocks: [{ type: "tool_use", id: "call_1", name: "read", input: { path: "notes.txt" } }],
      });
      server.enqueue({
        kind: "turn",
        blocks: [{ type: "text", text: "The notes mention a secret line." }],
      });
      await tmux.type("what is in notes.txt?");
      await tmux.keys("Enter");
      await tmux.waitFor(/The notes mention a secret line\./);
      assert.ok(
        !(await tmux.screen()).join("\n").includes("secret-line-42"),
        "tool output starts collapsed",
      );
      await tmux.keys("C-o");
      await tmux.waitFor(/secret-line-42/);
      await tmux.keys("C-o");

      // A long answer pushes the start of the conversation into scrollback, which keeps it.
      const long = Array.from({ length: 80 }, (_, i) => `Line ${i + 1} of the long answer.`).join(
        "\n\n",
      );
      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: long }] });
      await tmux.type("tell me a lot");
      await tmux.keys("Enter");
      await tmux.waitFor(/Line 80 of the long answer\./);
      await waitUntilIdle(tmux);
      const history = (await tmux.history()).join("\n");
      assert.match(
        history,
        /what is in notes\.txt\?/,
        "the first prompt is still in the scrollback",
      );
      assert.match(history, /Line 1 of the long answer\./);
      assert.ok(
        !(await tmux.screen()).join("\n").includes("what is in notes.txt?"),
        "…and no longer on screen",
      );

      // Esc aborts a slow answer; the partial answer stays.
      const slow = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ");
      server.enqueue({
        kind: "slow",
        delayMs: 150,
        source: { kind: "turn", blocks: [{ type: "text", text: slow }] },
      });
      await tmux.type("go slowly");
      await tmux.keys("Enter");
      await tmux.waitFor(/word2\b/);
      await tmux.keys("Escape");
      await tmux.waitFor(/Interrupted/);
      assert.ok(!(await tmux.history()).join("\n").includes("word59"), "the answer stopped");

      // /model switches provider and protocol.
      await tmux.type("/model smart");
      await tmux.keys("Enter");
      await tmux.waitFor(/Model: smart/);
      server.enqueue({
        kind: "turn",
        blocks: [{ type: "text", text: "Answer from the smart model." }],
      });
      await tmux.type("hello smart");
      await tmux.keys("Enter");
      await tmux.waitFor(/Answer from the smart model\./);
      assert.equal(server.requests.at(-1)!.path, "/v1/messages");
      // The answer is on screen a moment before the turn ends; /compact waits for idle.
      await waitUntilIdle(tmux);

      // /compact summarises with the model and shows the summary.
      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "SUMMARY-OF-EVERYTHING" }] });
      await tmux.type("/compact");
      await tmux.keys("Enter");
      await tmux.waitFor(/Context compacted/);
      const compactRequest = JSON.stringify(server.requests.at(-1)!.body);
      assert.match(compactRequest, /Summarise the conversation/);
      await tmux.keys("C-o");
      await tmux.waitFor(/SUMMARY-OF-EVERYTHING/);
      await tmux.keys("C-o");

      // A resize repaints the visible screen at the new width.
      await tmux.resize(60, 20);
      await tmux.type("after resize");
      await tmux.waitFor(/after resize/);
      const screen = await tmux.screen();
      assert.ok(screen.every((line) => line.length <= 60), "no line wider than the new width");

      // ctrl+c clears the input; ctrl+d on an empty input quits and restores the terminal.
      await tmux.keys("C-c");
      await tmux.keys("C-d");
      const status = await waitForStatus(f.status);
      assert.match(status, /exit=0/);
      assertRestored(status);
    } finally {
      await stop(f);
    }
  },
});

Deno.test({
  name: "interactive: the terminal is restored after kill -TERM",
  ignore: !tmuxAvailable,
  async fn() {
    const f = await start();
    try {
      await f.tmux.waitFor(/panto/);
      const shell = await f.tmux.panePid();
      const { stdout } = await new Deno.Command("pgrep", { args: ["-P", String(shell)] }).output();
      const pid = Number(new TextDecoder().decode(stdout).trim().split("\n")[0]);
      assert.ok(pid > 0, "found panto's pid");
      Deno.kill(pid, "SIGTERM");
      const status = await waitForStatus(f.status);
      assert.match(status, /exit=143/);
      assertRestored(status);
    } finally {
      await stop(f);
    }
  },
});
