/**
 * Tools on screen end to end in a real pty (tmux) against the fake LLM
 * server: bash output appears while the command still runs, and an edit's
 * diff lines are on screen without ctrl+o.
 */
import assert from "node:assert/strict";
import { withChatPane } from "../../support/chat_pane.ts";
import { tmuxAvailable } from "../../support/tmux.ts";

if (!tmuxAvailable) {
  console.log("skipped: tools_tmux_test needs tmux on PATH (apt-get install -y tmux)");
}

Deno.test({
  name:
    "interactive: bash output is on screen before the command ends; an edit's diff without ctrl+o",
  ignore: !tmuxAvailable,
  async fn() {
    const lines = Array.from({ length: 30 }, (_, i) => `entry ${i + 1}`);
    const files = { "list.txt": lines.join("\n") + "\n" };
    await withChatPane({ files }, async ({ server, tmux }) => {
      await tmux.waitFor(/fast · thinking off/);
      const command = "echo early-output; sleep 3; echo late-output";
      server.enqueue({
        kind: "turn",
        blocks: [{ type: "tool_use", id: "call_1", name: "bash", input: { command } }],
      });
      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "The command ran." }] });
      await tmux.type("run it");
      await tmux.keys("Enter");
      // The header names both words: the output rows are the indented lines holding one alone.
      const live = (await tmux.waitFor(/^\s+early-output$/m)).join("\n");
      assert.doesNotMatch(
        live,
        /^\s+late-output$/m,
        "the first line shows while the command sleeps",
      );
      assert.match(live, /◐ bash \$ echo early-output; sleep 3/);
      assert.equal(server.requests.length, 1, "the tool has not returned yet");
      await tmux.waitFor(/^\s+early-output\n\s+[12]\.\ds$/m); // the elapsed time ticks under it
      const done = (await tmux.waitFor(/The command ran\./)).join("\n");
      assert.match(
        done,
        /✓ bash \$ echo early-output[^\n]*\n\s+early-output\n\s+late-output\n\s+exit 0 · \d+\.\ds/,
      );

      server.enqueue({
        kind: "turn",
        blocks: [{
          type: "tool_use",
          id: "call_2",
          name: "edit",
          input: { path: "list.txt", oldText: "entry 17\n", newText: "entry seventeen\n" },
        }],
      });
      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Renamed the entry." }] });
      await tmux.type("rename entry 17");
      await tmux.keys("Enter");
      const edited = (await tmux.waitFor(/Renamed the entry\./)).join("\n");
      assert.match(edited, /✓ edit list\.txt \+1 -1/);
      assert.match(
        edited,
        /\n\s+16\s+entry 16\n\s+17 - entry 17\n\s+17 \+ entry seventeen\n\s+18\s+entry 18/,
      );
      assert.doesNotMatch(edited, /oldText/, "no argument listing");

      // esc during a command: what it printed stays on screen and reaches the model.
      server.enqueue({
        kind: "turn",
        blocks: [{
          type: "tool_use",
          id: "call_3",
          name: "bash",
          input: { command: "echo before-abort; sleep 30" },
        }],
      });
      await tmux.type("wait a while");
      await tmux.keys("Enter");
      await tmux.waitFor(/^\s+before-abort$/m);
      await tmux.keys("Escape");
      const aborted = (await tmux.waitFor(/Interrupted\./)).join("\n");
      assert.match(aborted, /✗ bash \$ echo before-abort[^\n]*\n\s+before-abort\n\s+aborted · \d/);
      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Seen." }] });
      await tmux.type("what did it print?");
      await tmux.keys("Enter");
      await tmux.waitFor(/Seen\./);
      const sent = JSON.stringify(server.requests.at(-1)!.body);
      assert.match(sent, /before-abort\\n\\nThe command was aborted and killed\./);
    });
  },
});
