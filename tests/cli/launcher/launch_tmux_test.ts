/**
 * The chat started by the launcher in a real pty (tmux): with the launcher's
 * flags (every dynamic import read when it runs) and grants, the terminal UI
 * paints and a turn runs a tool whose modules load on first use (edit, and
 * the `diff` package it imports then).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { withChatPane } from "../../support/chat_pane.ts";
import { shellQuote, tmuxAvailable } from "../../support/tmux.ts";
import { LAUNCHER_FLAGS } from "../../../cli/launcher/install.ts";

if (!tmuxAvailable) {
  console.log("skipped: launch_tmux_test needs tmux on PATH (apt-get install -y tmux)");
}

const LAUNCHER = new URL("../../../cli/launcher/launch.ts", import.meta.url).pathname;

const LAUNCHER_COMMAND = [Deno.execPath(), "run", ...LAUNCHER_FLAGS, LAUNCHER].map(shellQuote)
  .join(" ");

Deno.test({
  name: "launcher: the chat paints, and an edit loads its modules as it runs and shows its diff",
  ignore: !tmuxAvailable,
  async fn() {
    const files = { "list.txt": "one\ntwo\nthree\n" };
    await withChatPane({ files, command: LAUNCHER_COMMAND }, async ({ server, tmux, project }) => {
      await tmux.waitFor(/fast · thinking off/);
      server.enqueue({
        kind: "turn",
        blocks: [{
          type: "tool_use",
          id: "call_1",
          name: "edit",
          input: { path: "list.txt", oldText: "two\n", newText: "deux\n" },
        }],
      });
      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Renamed it." }] });
      await tmux.type("rename two");
      await tmux.keys("Enter");
      const screen = (await tmux.waitFor(/Renamed it\./)).join("\n");
      assert.match(screen, /✓ edit list\.txt \+1 -1/);
      assert.match(screen, /2 - two\n\s+2 \+ deux/);
      assert.doesNotMatch(screen, /read access/);
      assert.equal(await Deno.readTextFile(join(project, "list.txt")), "one\ndeux\nthree\n");
    });
  },
});
