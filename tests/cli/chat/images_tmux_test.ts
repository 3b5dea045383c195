/**
 * Images under the installed `panto` command in tmux, a real terminal
 * multiplexer: by default tmux passes no image sequence on (its
 * `allow-passthrough` is off), so a read image is its one-line placeholder
 * and nothing else appears. With passthrough on in a tmux started from
 * Kitty (`KITTY_WINDOW_ID`), the image's rows are left blank for the outer
 * terminal to draw on (this detached tmux has none): still no placeholder
 * and no garbage on the pane.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { withChatPane } from "../../support/chat_pane.ts";
import { craftPng } from "../../support/crafted_png.ts";
import { withInstalledPanto } from "../../support/installed_panto.ts";
import { shellQuote, tmuxAvailable, type TmuxSession } from "../../support/tmux.ts";
import type { FakeLlmServer } from "../../support/fake_llm_server.ts";

if (!tmuxAvailable) {
  console.log("skipped: images_tmux_test needs tmux on PATH (apt-get install -y tmux)");
}

const PLACEHOLDER = "[image: screenshot.png 1280x720 PNG]";

/** Writes the screenshot, has the model read it, and returns the pane's lines once answered. */
async function readScreenshot(
  tmux: TmuxSession,
  server: FakeLlmServer,
  project: string,
): Promise<string[]> {
  const png = await craftPng({ width: 1280, height: 720, depth: 1, colorType: 0 });
  await Deno.writeFile(join(project, "screenshot.png"), png);
  server.enqueue({
    kind: "turn",
    blocks: [{ type: "tool_use", id: "call_1", name: "read", input: { path: "screenshot.png" } }],
  });
  server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "A screen." }] });
  await tmux.waitFor(/thinking off/, { timeoutMs: 60_000 });
  await tmux.type("look at screenshot.png");
  await tmux.keys("Enter");
  await tmux.waitFor(/A screen\./, { timeoutMs: 60_000 });
  return await tmux.history();
}

/** Nothing of an escape sequence shows: no sequence text, no base64 runs. */
function assertNoGarbage(lines: readonly string[]): void {
  const text = lines.join("\n");
  assert.doesNotMatch(text, /_G|1337|File=|a=T|tmux;|\\|[A-Za-z0-9+/]{40}/, text);
}

Deno.test({
  name: "installed panto in default tmux: a read image is its placeholder, no garbage",
  ignore: !tmuxAvailable,
  fn: () =>
    withInstalledPanto((panto) =>
      withChatPane({ command: shellQuote(panto) }, async ({ tmux, server, project }) => {
        const lines = await readScreenshot(tmux, server, project);
        const read = lines.findIndex((line) => line.startsWith("✓ read screenshot.png"));
        assert.ok(read >= 0, lines.join("\n"));
        assert.equal(lines[read + 1], `  ${PLACEHOLDER}`);
        assertNoGarbage(lines);
      })
    ),
});

Deno.test({
  name: "installed panto in tmux with passthrough on, from Kitty: the image's rows, no garbage",
  ignore: !tmuxAvailable,
  fn: () =>
    withInstalledPanto((panto) =>
      withChatPane(
        // panto starts once the option is set (the line read is the signal).
        { command: `read _ && ${shellQuote(panto)}`, env: { KITTY_WINDOW_ID: "1" } },
        async ({ tmux, server, project }) => {
          await tmux.tmux("set-option", "-g", "allow-passthrough", "on");
          await tmux.keys("Enter");
          const lines = await readScreenshot(tmux, server, project);
          assert.ok(!lines.join("\n").includes(PLACEHOLDER), lines.join("\n"));
          const read = lines.findIndex((line) => line.startsWith("✓ read screenshot.png"));
          const answer = lines.findIndex((line) => line === "A screen.");
          assert.ok(read >= 0 && answer > read, lines.join("\n"));
          // 1280×720 in at most 16 rows: the rows between the call and the answer are blank.
          const between = lines.slice(read + 1, answer);
          assert.ok(between.length >= 16, `${between.length} rows for the image`);
          assert.ok(between.every((line) => line === ""), between.join("\n"));
          assertNoGarbage(lines);
        },
      )
    ),
});
