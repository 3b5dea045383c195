/**
 * `/export` and `/import` in the chat under the installed `panto` command
 * (a real pty, tmux): an export inside the project is written as HTML; a
 * path outside the project, which panto's own code was not granted, is
 * the user's choice: written with the user's rights (its directory
 * created, an existing file kept until the user says overwrite), and a
 * session file there is imported the same way. A path the user may not
 * write is named.
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
    "installed panto in tmux: /export and /import in the project and, with the user's rights, outside it",
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

          const elsewhere = join(outside, "new dir", "page.html");
          await tmux.type(`/export ${elsewhere}`);
          await tmux.keys("Enter");
          await tmux.waitFor(/Exported to .*new dir\/page\.html \(html\)/);
          assert.match(await Deno.readTextFile(elsewhere), /Sixteen loaves\./);

          await Deno.writeTextFile(elsewhere, "mine");
          await tmux.type(`/export ${elsewhere}`);
          await tmux.keys("Enter");
          await tmux.waitFor(/exists: overwrite it\?/);
          await tmux.keys("Enter"); // "No, keep it"
          await tmux.waitFor(/Not exported: .*page\.html is left as it was\./);
          assert.equal(await Deno.readTextFile(elsewhere), "mine");

          await tmux.type("/export /proc/panto-cannot-write-here/page.html");
          await tmux.keys("Enter");
          await tmux.waitFor(/Could not export to \/proc\/panto-cannot-write-here\/page\.html: /);

          const jsonl = join(outside, "session.jsonl");
          await tmux.type(`/export ${jsonl}`);
          await tmux.keys("Enter");
          await tmux.waitFor(/Exported to .*session\.jsonl \(jsonl\)/);
          await tmux.type(`/import ${jsonl}`);
          await tmux.keys("Enter");
          await tmux.waitFor(/Imported .*session\.jsonl \(panto session\) as session/);
        })
      );
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  },
});
