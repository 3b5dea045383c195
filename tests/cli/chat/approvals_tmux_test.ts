/**
 * Approvals in the chat, under the installed `panto` command in a real pty
 * (tmux) against the fake LLM server: a `write` of `tools.requireApproval`
 * opens a dialog under the transcript with the diff it would make (nothing
 * written yet) and the footer says the chat waits; y runs it; n opens a
 * reason box and the reason reaches the model with the rejection; ctrl+c
 * stops the run.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { withChatPane } from "../../support/chat_pane.ts";
import { withInstalledPanto } from "../../support/installed_panto.ts";
import { shellQuote, tmuxAvailable } from "../../support/tmux.ts";

if (!tmuxAvailable) {
  console.log("skipped: approvals_tmux_test needs tmux on PATH (apt-get install -y tmux)");
}

Deno.test({
  name:
    "installed panto in tmux: a write waits in a dialog with its diff; y runs it, n + reason tells the model",
  ignore: !tmuxAvailable,
  fn: () =>
    withInstalledPanto((panto) =>
      withChatPane({
        command: shellQuote(panto),
        files: { "notes.txt": "alpha\ngamma\n" },
        config: { tools: { requireApproval: ["write"] } },
      }, async ({ server, tmux, project }) => {
        await tmux.waitFor(/fast · thinking off/);
        server.enqueue({
          kind: "turn",
          blocks: [{
            type: "tool_use",
            id: "call_1",
            name: "write",
            input: { path: "notes.txt", content: "alpha\nbeta\ngamma\n" },
          }],
        });
        server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Added beta." }] });
        await tmux.type("add beta");
        await tmux.keys("Enter");
        const dialog = (await tmux.waitFor(/Allow write notes\.txt/)).join("\n");
        // The diff as the edit tool draws it: line numbers, the added line marked.
        assert.match(dialog, /│\s+1\s+alpha\s+│\n│\s+2 \+ beta\s+│\n│\s+2\s+gamma\s+│/);
        assert.doesNotMatch(
          dialog,
          /esc to cancel/,
          "esc rejects here: the loader's hint is hidden",
        );
        assert.match(dialog, /y allow · a always allow every write call · n reject \+ reason/);
        assert.match(dialog, /waiting for approval of write/);
        assert.equal(await Deno.readTextFile(join(project, "notes.txt")), "alpha\ngamma\n");
        await tmux.keys("y");
        const done = (await tmux.waitFor(/Added beta\./)).join("\n");
        assert.doesNotMatch(
          done,
          /Allow write|waiting for approval/,
          "the dialog and the wait are gone",
        );
        assert.equal(await Deno.readTextFile(join(project, "notes.txt")), "alpha\nbeta\ngamma\n");

        server.enqueue({
          kind: "turn",
          blocks: [{
            type: "tool_use",
            id: "call_2",
            name: "write",
            input: { path: "extra.txt", content: "more\n" },
          }],
        });
        server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "I will not." }] });
        await tmux.type("make extra.txt");
        await tmux.keys("Enter");
        await tmux.waitFor(/Allow write extra\.txt/);
        await tmux.keys("n");
        await tmux.waitFor(/Reject write: why\?/);
        await tmux.type("no new files please");
        await tmux.keys("Enter");
        await tmux.waitFor(/I will not\./);
        await assert.rejects(Deno.stat(join(project, "extra.txt")), Deno.errors.NotFound);
        const sent = JSON.stringify(server.requests.at(-1)!.body);
        assert.match(
          sent,
          /write was denied: the user rejected this call and said: no new files please/,
        );

        // ctrl+c in the dialog stops the run: nothing written, the editor back for the next prompt.
        server.enqueue({
          kind: "turn",
          blocks: [{
            type: "tool_use",
            id: "call_3",
            name: "write",
            input: { path: "notes.txt", content: "overwritten\n" },
          }],
        });
        await tmux.type("overwrite the notes");
        await tmux.keys("Enter");
        await tmux.waitFor(/Allow write notes\.txt \(1 line\)/);
        await tmux.keys("C-c");
        const stopped = (await tmux.waitFor(/Interrupted\./)).join("\n");
        assert.doesNotMatch(stopped, /Allow write|waiting for approval/);
        assert.equal(await Deno.readTextFile(join(project, "notes.txt")), "alpha\nbeta\ngamma\n");
        server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Still here." }] });
        await tmux.type("hello again");
        await tmux.keys("Enter");
        await tmux.waitFor(/Still here\./);
      })
    ),
});
