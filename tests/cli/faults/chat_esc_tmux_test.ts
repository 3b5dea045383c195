/**
 * Fault suite, chat: the installed `panto` in a real pty (tmux), one
 * project holding every hostile input (`tests/support/hostile_inputs.ts`).
 * For each, the model calls the tools on it; esc, pressed once the tool's
 * line is on screen, brings the chat back to idle — no turn running (the
 * "esc to cancel" line gone) and the editor taking keys (a probe typed
 * then is echoed in it). Printed for each: esc to idle (from sending esc to
 * the screen read without the line, read every 25 ms), and the probe's echo.
 * Afterwards a plain prompt still gets its answer.
 *
 * The reply after each hostile call never ends (a stalled stream), so esc
 * always finds a turn running: the tool, or the request that sends its
 * result; each turn must end "Interrupted." (a turn that failed on its own,
 * or a stack trace on screen, is a failure). What went wrong is gathered
 * and asserted at the end, so that every input is tried.
 */
import assert from "node:assert/strict";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import {
  dropPendingReplies,
  HOSTILE_INPUTS,
  MCP_SERVER_NAME,
  STALLED_REPLY,
  textReply,
  writeHostileConfig,
  writeHostileProject,
} from "../../support/hostile_inputs.ts";
import { withInstalledPanto } from "../../support/installed_panto.ts";
import { pantoPaneEnv, shellQuote, tmuxAvailable, TmuxSession } from "../../support/tmux.ts";

if (!tmuxAvailable) {
  console.log("skipped: chat_esc_tmux_test needs tmux on PATH (apt-get install -y tmux)");
}

/** The longest wait for anything on screen (start, a tool line, idle again). */
const DEADLINE_MS = 60_000;
/** The longest esc may take to bring the chat back to idle (the target is 1 s). */
const IDLE_BOUND_MS = 10_000;

/** The editor's lines: those between the last two horizontal rules. */
function editorText(screen: readonly string[]): string | undefined {
  const rules = screen.flatMap((line, i) => (/^─{20,}$/.test(line) ? [i] : []));
  const [above, below] = rules.slice(-2);
  if (above === undefined || below === undefined) return undefined;
  return screen.slice(above + 1, below).join("\n").trim();
}

/** Tool lines (`◐ read bomb/bomb.png`, `✓ find …`) of `tools` in `lines`. */
function toolLines(lines: readonly string[], tools: readonly string[]): number {
  const names = tools.map((tool) => tool.replace(/[^\w]/g, "\\$&")).join("|");
  const header = new RegExp(`^[○◐✓✗] (${names})(\\s|$)`);
  return lines.filter((line) => header.test(line)).length;
}

/** The lines from the last one showing `prompt` as sent (none before it is sent). */
function afterPrompt(lines: readonly string[], prompt: string): string[] {
  const at = lines.lastIndexOf(`› ${prompt}`);
  return at < 0 ? [] : lines.slice(at);
}

/** Polls the screen every 25 ms until `done` holds; the screen then, or throws after `ms`. */
async function poll(
  tmux: TmuxSession,
  what: string,
  done: (screen: string[]) => boolean,
  ms = DEADLINE_MS,
  inHistory = false,
): Promise<string[]> {
  const deadline = Date.now() + ms;
  let last: string[] = [];
  while (Date.now() < deadline) {
    last = inHistory ? await tmux.history() : await tmux.screen();
    if (done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no ${what} within ${ms} ms; the screen:\n${(await tmux.screen()).join("\n")}`);
}

/** The states `/mcp` reported for the MCP input's server, oldest first. */
function mcpStates(lines: readonly string[]): string[] {
  const status = new RegExp(`^${MCP_SERVER_NAME} \\(stdio[^)]*\\): (\\w+)`);
  return lines.flatMap((line) => line.match(status)?.[1] ?? []);
}

/**
 * Asks `/mcp` until it reports the MCP input's server connected (servers
 * connect in the background; `/mcp` shows the state of the moment).
 */
async function mcpServerConnected(tmux: TmuxSession): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (true) {
    const asked = mcpStates(await tmux.history()).length;
    await tmux.type("/mcp");
    await tmux.keys("Enter");
    const lines = await poll(
      tmux,
      "/mcp's answer",
      (h) => mcpStates(h).length > asked,
      DEADLINE_MS,
      true,
    );
    const state = mcpStates(lines).at(-1);
    if (state === "connected") return;
    if (Date.now() > deadline) throw new Error(`the MCP server is still ${state}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

Deno.test({
  name:
    "fault suite, chat: esc during each hostile tool call brings the chat back to idle at once; a plain prompt still gets its answer",
  ignore: !tmuxAvailable,
  async fn() {
    await withInstalledPanto(async (panto) => {
      const server = await FakeLlmServer.start();
      const project = await Deno.makeTempDir({ prefix: "panto-fault-" });
      const home = await Deno.makeTempDir({ prefix: "panto-fault-home-" });
      const figures: string[] = [];
      /** What went wrong, gathered so that every input is tried. */
      const problems: string[] = [];
      try {
        await writeHostileProject(project);
        await writeHostileConfig(home, server, true);
        const tmux = await TmuxSession.start(`${shellQuote(panto)}; sleep 60`, {
          cols: 100,
          rows: 30,
          cwd: project,
          env: pantoPaneEnv(home),
        });
        try {
          await tmux.waitFor(/fast · thinking off/, { timeoutMs: DEADLINE_MS });
          await mcpServerConnected(tmux);

          for (const [index, input] of HOSTILE_INPUTS.entries()) {
            const before = toolLines(await tmux.history(), input.tools);
            server.enqueue(input.reply, STALLED_REPLY);
            await tmux.type(`hostile: ${input.name}`);
            await tmux.keys("Enter");
            await poll(
              tmux,
              `tool line of ${input.tools.join(" or ")}`,
              (lines) => toolLines(lines, input.tools) > before,
              DEADLINE_MS,
              true,
            );
            const pressed = performance.now();
            await tmux.keys("Escape");
            const idle = await poll(
              tmux,
              `the end of the turn after esc (${input.name})`,
              (lines) => !lines.slice(-30).some((line) => line.includes("esc to cancel")),
              DEADLINE_MS,
              true,
            );
            const idleMs = performance.now() - pressed;
            // After a space: a key typed right after esc may be read with it as alt+key
            // (alt+space does nothing; the editor's text is compared trimmed).
            const probe = `probe${index}`;
            const typed = performance.now();
            await tmux.type(` ${probe}`);
            await poll(tmux, `${probe} echoed in the editor`, (s) => editorText(s) === probe);
            const echoMs = performance.now() - typed;
            const turn = afterPrompt(idle, `hostile: ${input.name}`);
            const ending = turn.find((line) => /^(Interrupted\.|The run failed)/.test(line)) ??
              "(no end line)";
            figures.push(
              `${input.name} | ${idleMs.toFixed(0)} ms | ${echoMs.toFixed(0)} ms | ${ending}`,
            );
            console.log(
              `${input.name} esc: idle after ${idleMs.toFixed(0)} ms; ` +
                `a key echoed ${echoMs.toFixed(0)} ms after it was typed; ${ending}`,
            );
            if (idleMs > IDLE_BOUND_MS) {
              problems.push(`${input.name}: idle ${idleMs.toFixed(0)} ms after esc`);
            }
            if (!ending.startsWith("Interrupted.")) {
              problems.push(`${input.name}: the turn ended with ${ending}:\n${turn.join("\n")}`);
            }
            if (/\bat .*\.(ts|js):\d+:\d+/.test(turn.join("\n"))) {
              problems.push(`${input.name}: a stack trace on screen:\n${turn.join("\n")}`);
            }

            for (let i = 0; i <= probe.length; i++) await tmux.keys("BSpace");
            await poll(tmux, "an empty editor", (screen) => editorText(screen) === "");
            await dropPendingReplies(server);
          }

          server.enqueue(textReply("Still answering after all that."));
          await tmux.type("hi");
          await tmux.keys("Enter");
          const answered = await poll(
            tmux,
            "the answer to a plain prompt",
            (lines) =>
              afterPrompt(lines, "hi").some((line) =>
                /Still answering after all that\.|^The run failed/.test(line)
              ),
            DEADLINE_MS,
            true,
          );
          const last = afterPrompt(answered, "hi");
          if (last.some((line) => line.includes("Still answering after all that."))) {
            const sent = JSON.stringify(server.requests.at(-1)?.body);
            assert.ok(sent.includes("hostile: deep arguments"), "the same conversation went on");
          } else {
            problems.push(`a plain prompt afterwards got no answer:\n${last.join("\n")}`);
          }
          assert.deepEqual(problems, [], "each turn was interrupted by esc, at once");
        } finally {
          await tmux.close();
        }
      } finally {
        console.log(
          ["input | esc to idle | then a key echoed | how the turn ended", ...figures].join("\n"),
        );
        await server.close();
        await Deno.remove(project, { recursive: true });
        await Deno.remove(home, { recursive: true });
      }
    });
  },
});
