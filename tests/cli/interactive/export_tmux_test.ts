/**
 * `/export` and `/import` in the chat under the installed `panto` command
 * (a real pty, tmux): an export inside the project is written as HTML; a
 * path outside the project, which the chat was not granted, is refused
 * with a message naming it, and so is a file to import from there.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { withChatPane } from "../../support/chat_pane.ts";
import { withInstalledPanto } from "../../support/installed_panto.ts";
import { shellQuote, tmuxAvailable } from "../../support/tmux.ts";

if (!tmuxAvailable) {
  console.log("skipped: export_tmux_test needs tmux on PATH (apt-get install -y tmux)");
}

Deno.test({
  name:
    "installed panto in tmux: /export writes in the project; outside it, the path is named as not permitted",
  ignore: !tmuxAvailable,
  async fn() {
    const outside = await Deno.makeTempDir({ prefix: "px-" });
    try {
      await withInstalledPanto((panto) =>
        withChatPane({ command: shellQuote(panto) }, async ({ server, tmux, project }) => {
          await tmux.waitFor(/fast · thinking off/);
          server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Sixteen loaves." }] });
          await tmux.type("count the loaves");
          await tmux.keys("Enter");
          await tmux.waitFor(/Sixteen loaves\./);
          await tmux.waitFor(/^─+$/m);

          await tmux.type("/export page.html");
          await tmux.keys("Enter");
          await tmux.waitFor(/Exported to \S*page\.html \(html\)/);
          assert.match(await Deno.readTextFile(join(project, "page.html")), /Sixteen loaves\./);

          const denied = join(outside, "page.html");
          await tmux.type(`/export ${denied}`);
          await tmux.keys("Enter");
          await tmux.waitFor(new RegExp(`panto may not write ${denied}: the panto command`));
          await assert.rejects(Deno.stat(denied), Deno.errors.NotFound);

          const foreign = join(outside, "pi.jsonl");
          await Deno.writeTextFile(foreign, "{}\n");
          await tmux.type(`/import ${foreign}`);
          await tmux.keys("Enter");
          await tmux.waitFor(new RegExp(`panto may not read ${foreign}: the panto command`));
        })
      );
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  },
});
