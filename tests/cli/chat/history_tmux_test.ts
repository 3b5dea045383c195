/**
 * The terminal's history after a session in tmux with default options
 * (`scroll-on-clear` on): a long answer, a tool call, two resizes, ctrl+o
 * twice, the model picker opened and closed, and /new. Every line of the
 * conversation is in the history exactly once (no screen copies, no losses).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { writeFakeConfig } from "../../support/fake_config.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { PANTO_SH_COMMAND, pantoPaneEnv, tmuxAvailable, TmuxSession } from "../../support/tmux.ts";

if (!tmuxAvailable) {
  console.log("skipped: history_tmux_test needs tmux on PATH (apt-get install -y tmux)");
}

/** Lines drawn only with box-drawing characters (rules, editor borders) repeat by design. */
const CHROME = /^[\s\u2500-\u257f]*$/;

/** The non-chrome lines that occur more than once, with their counts. */
function duplicates(lines: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of lines.map((l) => l.trim())) {
    if (!CHROME.test(line)) counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  return new Map([...counts].filter(([, count]) => count > 1));
}

/**
 * Waits until the screen stops changing (a resize or a key was drawn): the
 * same for half a second, longer than the chat waits before repainting a
 * resize (300 ms).
 */
async function settle(tmux: TmuxSession): Promise<void> {
  let last = "";
  let same = 0;
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const screen = (await tmux.screen()).join("\n");
    same = screen === last && !screen.includes("esc to cancel") ? same + 1 : 0;
    if (same >= 5) return;
    last = screen;
  }
}

Deno.test({
  name: "history: a long answer, a tool call, resizes, ctrl+o, a picker and /new leave no copies",
  ignore: !tmuxAvailable,
  async fn() {
    const server = await FakeLlmServer.start();
    const project = await Deno.makeTempDir({ prefix: "panto-project-" });
    const home = await Deno.makeTempDir({ prefix: "panto-home-" });
    const notes = Array.from({ length: 20 }, (_, i) => `note ${i + 1}`);
    await Deno.writeTextFile(join(project, "notes.txt"), notes.join("\n") + "\n");
    await writeFakeConfig(home, server, { retry: { maxRetries: 0 } });
    const tmux = await TmuxSession.start(PANTO_SH_COMMAND, {
      cols: 100,
      rows: 30,
      cwd: project,
      env: pantoPaneEnv(home),
    });
    try {
      assert.equal(
        (await tmux.tmux("show-options", "-g", "-w", "scroll-on-clear")).trim(),
        "scroll-on-clear on",
        "tmux's default: erasing a full screen pushes it into history",
      );
      await tmux.waitFor(/fast/);

      const long = Array.from({ length: 80 }, (_, i) => `Line ${i + 1} of the long answer.`);
      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: long.join("\n\n") }] });
      await tmux.type("tell me a lot");
      await tmux.keys("Enter");
      await tmux.waitFor(/Line 80 of the long answer\./);
      await settle(tmux);

      server.enqueue(
        {
          kind: "turn",
          blocks: [{ type: "tool_use", id: "call_1", name: "read", input: { path: "notes.txt" } }],
        },
        { kind: "turn", blocks: [{ type: "text", text: "The notes are numbered." }] },
      );
      await tmux.type("what is in notes.txt?");
      await tmux.keys("Enter");
      await tmux.waitFor(/The notes are numbered\./);
      await settle(tmux);

      await tmux.resize(90, 26);
      await settle(tmux);
      await tmux.resize(100, 30);
      await settle(tmux);

      await tmux.keys("C-o");
      await tmux.waitFor(/note 20/);
      await tmux.keys("C-o");
      await settle(tmux);

      await tmux.type("/model");
      await tmux.keys("Enter");
      await tmux.waitFor(/smart-model/);
      await tmux.keys("Escape");
      await settle(tmux);

      await tmux.type("/new");
      await tmux.keys("Enter");
      await settle(tmux);

      const history = await tmux.history();
      const dump = history.map((l, i) => `${i}: ${l}`).join("\n");
      // The new session starts with its own welcome: new output, not a copy.
      const newSession = history.findLastIndex((line) => /^panto \d/.test(line));
      assert.ok(newSession > 0, `the new session's welcome is drawn:\n${dump}`);
      const before = history.slice(0, newSession);
      assert.deepEqual([...duplicates(before)], [], `lines repeated in the history:\n${dump}`);
      assert.ok(
        !history.slice(newSession).some((line) => long.includes(line.trim())),
        `the old answer is not drawn again:\n${dump}`,
      );
      // …and none lost: the resizes found where tmux moved each line (cursor report).
      for (const line of [...long, "› tell me a lot", "The notes are numbered."]) {
        const count = before.filter((row) => row.trim() === line).length;
        assert.equal(count, 1, `${line} is in the history ${count} times`);
      }
    } finally {
      await tmux.close();
      await server.close();
      await Deno.remove(project, { recursive: true });
      await Deno.remove(home, { recursive: true });
    }
  },
});
