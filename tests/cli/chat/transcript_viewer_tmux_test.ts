/**
 * The transcript viewer end to end in a real pty (tmux) against the fake
 * LLM server: a 200-line bash output that scrolled away is read whole with
 * ctrl+o, and q brings the chat back with its history byte for byte.
 */
import assert from "node:assert/strict";
import { withChatPane } from "../../support/chat_pane.ts";
import { tmuxAvailable } from "../../support/tmux.ts";
import type { TmuxSession } from "../../support/tmux.ts";

if (!tmuxAvailable) {
  console.log("skipped: transcript_viewer_tmux_test needs tmux on PATH (apt-get install -y tmux)");
}

/** The viewer's status line: "transcript · lines 12-40 of 300 (13%) · …". */
const STATUS = /transcript · lines (\d+)-(\d+) of (\d+) \((\d+)%\)/;

/** The status line's first shown line number, from a screen. */
function firstShown(screen: readonly string[]): number {
  const match = STATUS.exec(screen.join("\n"));
  if (match === null) throw new Error(`No status line on:\n${screen.join("\n")}`);
  return Number(match[1]);
}

/** Pages from the top to the end with space; returns every row seen. */
async function readAll(tmux: TmuxSession): Promise<Set<string>> {
  await tmux.keys("g");
  let screen = await tmux.waitFor(/transcript · lines 1-/);
  const seen = new Set<string>();
  for (let pages = 0; pages < 100; pages++) {
    for (const row of screen) seen.add(row.trim());
    if (/\(100%\)/.test(screen.join("\n"))) return seen;
    const before = firstShown(screen);
    await tmux.keys("Space");
    const deadline = Date.now() + 20_000;
    do {
      screen = await tmux.waitFor(STATUS);
      if (firstShown(screen) > before) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    } while (Date.now() < deadline);
    assert.ok(firstShown(screen) > before, "space moved the view down");
  }
  throw new Error("the end was not reached in 100 pages");
}

Deno.test({
  name:
    "interactive: ctrl+o on a bash output that scrolled away opens the transcript viewer; q restores the chat exactly",
  ignore: !tmuxAvailable,
  async fn() {
    await withChatPane({}, async ({ server, tmux }) => {
      await tmux.waitFor(/fast · thinking off/);
      const command = "seq -f 'out %g' 200";
      server.enqueue({
        kind: "turn",
        blocks: [{ type: "tool_use", id: "call_1", name: "bash", input: { command } }],
      });
      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Listed them." }] });
      await tmux.type("list them");
      await tmux.keys("Enter");
      await tmux.waitFor(/Listed them\./);
      for (let answer = 1; answer <= 3; answer++) {
        const text = Array.from({ length: 30 }, (_, i) => `Answer ${answer}, point ${i + 1}.`)
          .join("\n\n");
        server.enqueue({ kind: "turn", blocks: [{ type: "text", text }] });
        await tmux.type(`tell me more ${answer}`);
        await tmux.keys("Enter");
        await tmux.waitFor(new RegExp(`Answer ${answer}, point 30\\.`));
      }
      const screenBefore = await tmux.screen();
      const historyBefore = await tmux.history();
      assert.doesNotMatch(screenBefore.join("\n"), /bash \$ seq/, "the call scrolled away");
      assert.ok(historyBefore.some((row) => /bash \$ seq/.test(row)), "it is in the history");
      assert.ok(!historyBefore.some((row) => /^\s+out 100$/.test(row)), "collapsed there");

      await tmux.keys("C-o");
      const opened = await tmux.waitFor(STATUS);
      assert.match(opened[0]!, /✓ bash \$ seq -f 'out %g' 200/, "opened at the tool call");
      assert.match(opened.join("\n"), /^\s+out 1\n\s+out 2$/m, "its output expanded");
      assert.match(opened[29]!, STATUS, "the status line on the last row (of 30)");

      const seen = await readAll(tmux);
      const missing = Array.from({ length: 200 }, (_, i) => `out ${i + 1}`)
        .filter((line) => !seen.has(line));
      assert.deepEqual(missing, [], "every output line reachable by paging");
      assert.ok(seen.has("Answer 3, point 30."), "the whole session is there");

      await tmux.keys("g", "/");
      await tmux.type("out 137");
      await tmux.keys("Enter");
      const found = await tmux.waitFor(/match 1\/1 "out 137"/);
      assert.ok(found.some((row) => /^\s+out 137$/.test(row)), "the match is on screen");
      await tmux.keys("T");
      const call = await tmux.waitFor(/^✓ bash \$ seq/m);
      assert.match(call[0]!, /bash \$ seq/, "T went back to the tool call");

      await tmux.keys("q");
      await tmux.waitUntilGone(STATUS);
      const back = await tmux.screenOnceEqual(screenBefore);
      assert.deepEqual(back, screenBefore, "the screen as before, the editor on the last rows");
      assert.deepEqual(await tmux.history(), historyBefore, "history byte-identical");

      // alt+o opens it at the end, whatever is on screen; esc closes it.
      await tmux.keys("M-o");
      const atEnd = await tmux.waitFor(STATUS);
      assert.match(atEnd.join("\n"), /\(100%\)/);
      assert.match(atEnd.join("\n"), /Answer 3, point 30\./);
      await tmux.keys("Escape");
      await tmux.waitUntilGone(STATUS);
      assert.deepEqual(await tmux.history(), historyBefore, "again byte-identical");

      // A resize while it is open redraws it at the new size; the chat is drawn again after.
      await tmux.keys("M-o");
      await tmux.waitFor(STATUS);
      await tmux.resize(80, 20);
      const resized = await tmux.waitFor(/^transcript · lines \d+-\d+ of \d+ \(100%\)/m);
      assert.match(resized[19]!, STATUS, "the status line on the last of 20 rows");
      assert.ok(resized.every((row) => row.length <= 80));
      await tmux.keys("q");
      await tmux.waitUntilGone(STATUS);
      // The chat is drawn again after the viewer is gone: wait for its footer, then check where it is.
      const chat = await tmux.waitFor(/fast · thinking off/);
      assert.match(chat[19]!, /fast · thinking off/, "the footer on the last row");
      assert.match(chat.join("\n"), /Answer 3, point 30\./);
    });
  },
});
