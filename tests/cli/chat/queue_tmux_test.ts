/**
 * The queue and the model keys end to end in a real pty (tmux) against the
 * fake LLM server: prompts queued during a turn are shown above the editor,
 * esc puts them back in the editor unsent, and ctrl+p switches the model of
 * the next request.
 */
import assert from "node:assert/strict";
import { withChatPane } from "../../support/chat_pane.ts";
import { tmuxAvailable } from "../../support/tmux.ts";

if (!tmuxAvailable) {
  console.log("skipped: queue_tmux_test needs tmux on PATH (apt-get install -y tmux)");
}

Deno.test({
  name:
    "interactive: esc gives queued prompts back to the editor; ctrl+p switches the next request's model",
  ignore: !tmuxAvailable,
  async fn() {
    await withChatPane({}, async ({ server, tmux }) => {
      await tmux.waitFor(/fast · thinking off/);
      server.enqueue({ kind: "long", deltas: Number.POSITIVE_INFINITY });
      await tmux.type("keep talking");
      await tmux.keys("Enter");
      await tmux.waitFor(/esc to cancel/);
      await tmux.type("steer-words");
      await tmux.keys("Enter");
      await tmux.waitFor(/steer › steer-words/);
      await tmux.type("follow-words");
      await tmux.keys("M-Enter");
      await tmux.waitFor(/follow-up › follow-words/);

      await tmux.keys("Escape");
      await tmux.waitFor(/Interrupted\./);
      const screen = (await tmux.screen()).join("\n");
      assert.doesNotMatch(screen, /steer ›|follow-up ›/, "the pending area is empty");
      // Back in the editor (under its top rule), in queue order.
      assert.match(screen, /─+\n\s*steer-words\s*\n\s*\n\s*follow-words/);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(server.requests.length, 1, "nothing queued was sent");

      await tmux.keys("C-c"); // clears the editor
      await tmux.keys("C-p");
      await tmux.waitFor(/smart · thinking off/);
      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Smart answer." }] });
      await tmux.type("which model now?");
      await tmux.keys("Enter");
      await tmux.waitFor(/Smart answer\./);
      assert.equal(server.requests.length, 2);
      assert.equal(server.requests[1]!.protocol, "anthropic");
      assert.equal((server.requests[1]!.body as { model: string }).model, "smart-model");
    });
  },
});

Deno.test({
  name:
    "interactive: ctrl+g hands the terminal to $VISUAL (every key typed there) and reads the input back",
  ignore: !tmuxAvailable,
  async fn() {
    // An "editor" that reads one line from the terminal and writes it into the file.
    const visual = `sh -c 'printf "EDITOR> "; read line; printf "%s" "$line" > "$0"'`;
    await withChatPane({ env: { VISUAL: visual } }, async ({ server, tmux }) => {
      await tmux.waitFor(/fast · thinking off/);
      await tmux.type("old text");
      await tmux.keys("C-g");
      await tmux.waitFor(/EDITOR>/);
      await tmux.type("abc typed in the editor");
      await tmux.keys("Enter");
      await tmux.waitFor(/fast · thinking off/);
      await tmux.waitFor(/^\s*abc typed in the editor\s*$/m);
      const screen = (await tmux.screen()).join("\n");
      assert.doesNotMatch(screen, /old text/);
      // The chat reads keys again.
      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Edited answer." }] });
      await tmux.keys("Enter");
      await tmux.waitFor(/Edited answer\./);
      assert.match(JSON.stringify(server.requests[0]!.body), /abc typed in the editor/);
    });
  },
});
