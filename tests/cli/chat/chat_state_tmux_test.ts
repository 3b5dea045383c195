/**
 * The chat's state in a real pty (tmux): ctrl+t and retries leave one
 * notice line in the whole history, not one per press or attempt; after
 * a restart with `-c`, the transcript shows the interrupted run and the
 * tool's duration the live one showed.
 */
import assert from "node:assert/strict";
import { writeFakeConfig } from "../../support/fake_config.ts";
import { FakeLlmServer, rateLimitReply } from "../../support/fake_llm_server.ts";
import { toolCallReply } from "../../support/fake_replies.ts";
import {
  PANTO_SH_COMMAND,
  pantoPaneEnv,
  shellQuote,
  tmuxAvailable,
  TmuxSession,
} from "../../support/tmux.ts";

if (!tmuxAvailable) {
  console.log("skipped: chat_state_tmux_test needs tmux on PATH (apt-get install -y tmux)");
}

interface Pane {
  server: FakeLlmServer;
  home: string;
  project: string;
}

/** A fake server, a home with a config for it, and a project; removed after `body`. */
async function withPane(
  config: Record<string, unknown>,
  body: (pane: Pane) => Promise<void>,
): Promise<void> {
  const server = await FakeLlmServer.start();
  const project = await Deno.makeTempDir({ prefix: "panto-project-" });
  const home = await Deno.makeTempDir({ prefix: "panto-home-" });
  try {
    await writeFakeConfig(home, server, config);
    await body({ server, home, project });
  } finally {
    await server.close();
    await Deno.remove(project, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
}

/** panto (with `args`) in its own tmux server. */
function startPanto(pane: Pane, ...args: string[]): Promise<TmuxSession> {
  const command = `${PANTO_SH_COMMAND} ${
    args.map(shellQuote).join(" ")
  }; echo panto exited; sleep 60`;
  return TmuxSession.start(command, {
    cols: 100,
    rows: 30,
    cwd: pane.project,
    env: pantoPaneEnv(pane.home),
  });
}

async function send(tmux: TmuxSession, text: string): Promise<void> {
  await tmux.type(text);
  await tmux.keys("Enter");
}

/** The history's lines matching `pattern`. */
async function historyLines(tmux: TmuxSession, pattern: RegExp): Promise<string[]> {
  return (await tmux.history()).filter((line) => pattern.test(line));
}

/** Waits until no loader says a turn runs. */
function waitIdle(tmux: TmuxSession): Promise<string[]> {
  return tmux.waitUntilGone(/esc to cancel/);
}

Deno.test({
  name: "tmux: ctrl+t and retries leave one notice line in the history; the next prompt clears it",
  ignore: !tmuxAvailable,
  async fn() {
    await withPane({ retry: { maxRetries: 4, baseDelayMs: 0 } }, async (pane) => {
      const tmux = await startPanto(pane);
      try {
        await tmux.waitFor(/fast/);
        pane.server.enqueue(rateLimitReply(0, "openai"), rateLimitReply(0, "openai"), {
          kind: "turn",
          blocks: [{ type: "text", text: "Answer after two retries." }],
        });
        await send(tmux, "hello");
        await tmux.waitFor(/Answer after two retries\./);
        await waitIdle(tmux);
        const retries = await historyLines(tmux, /Retrying|Rate limit/);
        assert.equal(retries.length, 1, retries.join("\n"));
        assert.match(retries[0]!, /^Retrying \(2\/4\) in 0s: /);

        for (let i = 0; i < 3; i++) await tmux.keys("C-t");
        await tmux.waitFor(/Thinking hidden\./);
        // The newest passing state takes the one line: the retry's is gone.
        const notices = await historyLines(tmux, /Thinking (shown|hidden)\.|Retrying/);
        assert.deepEqual(notices, ["Thinking hidden."]);

        pane.server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Next answer." }] });
        await send(tmux, "next");
        await tmux.waitFor(/Next answer\./);
        assert.deepEqual(await historyLines(tmux, /Thinking (shown|hidden)|Retrying/), []);
      } finally {
        await tmux.close();
      }
    });
  },
});

Deno.test({
  name: "tmux: after a restart with -c, the interrupted run and the tool's duration are shown",
  ignore: !tmuxAvailable,
  async fn() {
    await withPane({ retry: { maxRetries: 0 } }, async (pane) => {
      const live = await startPanto(pane);
      try {
        await live.waitFor(/fast/);
        pane.server.enqueue(
          toolCallReply("call_1", "bash", { command: "sleep 0.4; echo slept" }),
          { kind: "turn", blocks: [{ type: "text", text: "It slept." }] },
        );
        await send(live, "sleep a little");
        await live.waitFor(/It slept\./);
        await waitIdle(live);
        pane.server.enqueue(toolCallReply("call_2", "bash", { command: "sleep 30" }));
        await send(live, "sleep long");
        await live.waitFor(/\$ sleep 30/);
        await live.keys("Escape");
        await live.waitFor(/Interrupted\. The partial answer was kept\./);
        await waitIdle(live);
        const screen = (await live.screen()).join("\n");
        assert.match(screen, /exit 0 · \d+\.\ds/);
        await live.keys("C-d");
        await live.waitFor(/panto exited/);
      } finally {
        await live.close();
      }

      const resumed = await startPanto(pane, "-c");
      try {
        const lines = await resumed.waitFor(/Resumed session/);
        const screen = lines.join("\n");
        const order = [
          /› sleep a little/,
          /exit 0 · \d+\.\ds/,
          /It slept\./,
          /› sleep long/,
          /aborted · \d+\.\ds/,
          /Interrupted\. The partial answer was kept\./,
          /Resumed session/,
        ];
        let from = 0;
        for (const pattern of order) {
          const at = screen.slice(from).search(pattern);
          assert.ok(at >= 0, `${pattern} after position ${from} in:\n${screen}`);
          from += at + 1;
        }
      } finally {
        await resumed.close();
      }
    });
  },
});
