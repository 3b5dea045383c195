/**
 * Frame pacing and streaming cost: at most one frame per 16 ms under a
 * burst, a keystroke drawn in the next frame, and a line that only grew
 * updated by writing what was appended.
 */
import stripAnsi from "strip-ansi";
import assert from "node:assert/strict";
import { sgrStateAt } from "../../tui/sgr_state.ts";
import { TUI } from "../../tui/tui.ts";
import { startTui } from "../support/tui_screen.ts";
import { VirtualTerminal } from "../support/virtual_terminal.ts";
import { frame, Lines } from "./test_lines.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("pacing: a burst of requests draws at most one frame per 16 ms", async () => {
  await using t = startTui(40, 10);
  const body = new Lines(["0"]);
  t.tui.addChild(body);
  await sleep(0);
  const framesBefore = t.tui.stats.frames;
  const startedAt = performance.now();
  let deltas = 0;
  while (performance.now() - startedAt < 200) {
    body.set([String(++deltas)]);
    t.tui.requestRender();
    await sleep(1);
  }
  const elapsed = performance.now() - startedAt;
  await sleep(20);
  const frames = t.tui.stats.frames - framesBefore;
  assert.ok(frames <= Math.ceil(elapsed / 16) + 1, `${frames} frames in ${elapsed} ms`);
  assert.ok(frames < deltas, `${deltas} deltas merged into ${frames} frames`);
  await t.terminal.flush();
  assert.equal(t.terminal.screenLines()[0], String(deltas), "the last delta is drawn");
});

Deno.test("pacing: a keystroke after a quiet moment is drawn at once, not after the interval", async () => {
  await using t = startTui(40, 10);
  const editor = new Lines(["> "]);
  t.tui.addChild(editor);
  t.tui.setFocus(editor);
  await sleep(0);
  await sleep(20); // longer than a frame since the last one
  const framesBefore = t.tui.stats.frames;
  editor.handleInput = (data) => editor.set([`> ${data}`]);
  t.terminal.feed("a");
  await new Promise<void>((resolve) => queueMicrotask(resolve));
  assert.equal(t.tui.stats.frames, framesBefore + 1, "drawn in the same tick");
  await t.terminal.flush();
  assert.equal(t.terminal.screenLines()[0], "> a");
});

Deno.test("pacing: a keystroke during streaming waits at most one frame", async () => {
  await using t = startTui(40, 10);
  const body = new Lines(["stream 0"]);
  const editor = new Lines(["> "]);
  t.tui.addChild(body);
  t.tui.addChild(editor);
  t.tui.setFocus(editor);
  editor.handleInput = (data) => editor.set([`> ${data}`]);
  await sleep(0);
  let streaming = true;
  const stream = (async () => {
    for (let i = 1; streaming; i++) {
      body.set([`stream ${i}`]);
      t.tui.requestRender();
      await sleep(2);
    }
  })();
  await sleep(50);
  const typedAt = performance.now();
  t.terminal.feed("k");
  const framesAtKey = t.tui.stats.frames;
  while (t.tui.stats.frames === framesAtKey) await sleep(1);
  const latency = performance.now() - typedAt;
  streaming = false;
  await stream;
  await t.terminal.flush();
  assert.ok(t.terminal.screenLines().includes("> k"), "the key is in the next frame");
  // One frame interval, plus the timer slack of a loaded machine.
  assert.ok(latency <= 16 + 25, `keystroke drawn after ${latency.toFixed(1)} ms`);
});

/** Bytes of the last frame, and the screen it produced beside a full redraw of the same lines. */
async function appendDelta(before: string, after: string) {
  await using t = startTui(100, 6);
  const body = new Lines(["a transcript line above", before]);
  t.tui.addChild(body);
  await frame(t.tui, t.terminal);
  body.edit(1, after);
  await frame(t.tui, t.terminal);
  const write = t.terminal.writes.at(-1)!;
  const fresh = new VirtualTerminal(100, 6);
  const redraw = new TUI(fresh);
  redraw.addChild(new Lines(["a transcript line above", after]));
  redraw.start();
  await frame(redraw, fresh);
  const screens = { delta: t.terminal.screenLines(), full: fresh.screenLines() };
  const cells = Array.from({ length: 100 }, (_, x) => [t.terminal.cell(x, 1), fresh.cell(x, 1)]);
  redraw.stop();
  fresh.dispose();
  return { write, screens, cells };
}

Deno.test("streaming: a line that grew is updated by writing only the appended text", async () => {
  const start = "The answer streams in word by word, then more words, ";
  for (const delta of ["and more", "and a much longer delta of several words"]) {
    const { write, screens, cells } = await appendDelta(start, start + delta);
    assert.deepEqual(screens.delta, screens.full, "same screen as a full redraw");
    assert.deepEqual(cells.map(([a]) => a), cells.map(([, b]) => b), "same cells and styles");
    // (The space before it is new on screen too: trailing spaces are not drawn.)
    assert.equal(stripAnsi(write).replace(/[\r\n]/g, ""), ` ${delta}`, "only the delta is text");
    // Synchronized-output brackets and the cursor move: a fixed overhead.
    assert.ok(write.length <= delta.length + 40, `${write.length} bytes for ${delta.length}`);
  }
});

Deno.test("streaming: an appended delta in a styled line re-applies the style, not the line", async () => {
  const bold = "\x1b[1m";
  const start = `${bold}bold streamed text in a long enough line`;
  const delta = " and its continuation";
  const { write, screens, cells } = await appendDelta(
    `${start}\x1b[0m`,
    `${start}${delta}\x1b[0m`,
  );
  assert.deepEqual(screens.delta, screens.full);
  assert.deepEqual(cells.map(([a]) => a), cells.map(([, b]) => b), "bold carries over");
  assert.equal(stripAnsi(write).replace(/[\r\n]/g, ""), delta);
  assert.ok(write.length <= delta.length + 50, `${write.length} bytes`);
});

Deno.test("streaming: wide characters before the change fall back to rewriting the line", async () => {
  const start = "漢字 and then some more text";
  const { write, screens, cells } = await appendDelta(start, `${start} appended`);
  assert.deepEqual(screens.delta, screens.full);
  assert.deepEqual(cells.map(([a]) => a), cells.map(([, b]) => b));
  assert.ok(stripAnsi(write).includes("漢字"), "the whole line is rewritten from column 0");
});

Deno.test("streaming: a table row filling its cells rewrites only from the first change", async () => {
  // Box-drawing borders before the change are kept: every terminal draws them one column wide.
  const border = (text: string) => `\x1b[38;5;240m${text}\x1b[39m`;
  const row = (cells: string[]) =>
    border("│ ") + cells.map((cell) => cell.padEnd(10)).join(border(" │ ")) + border(" │");
  const before = row(["Q00193", "service-1", "running", "", ""]);
  const after = row(["Q00193", "service-1", "running", "289.5 MiB", "owner-6"]);
  const { write, screens, cells } = await appendDelta(before, after);
  assert.deepEqual(screens.delta, screens.full);
  assert.deepEqual(cells.map(([a]) => a), cells.map(([, b]) => b), "borders and cells as drawn");
  assert.ok(!stripAnsi(write).includes("running"), "the cells before the change are not resent");
  assert.ok(stripAnsi(write).includes("289.5 MiB"));
});

Deno.test("streaming: a highlighted line's delta re-sends only the style active at its end", async () => {
  // Syntax highlighting: a colour change around every token before the cut.
  const token = (color: number, text: string) => `\x1b[38;5;${color}m${text}\x1b[39m`;
  const start = `\x1b[1m${token(176, "export")} ${token(75, "function")} ${token(180, "step")}(` +
    `${token(73, "input")}: ${token(73, "string")}) ${token(215, "{")}`;
  const delta = token(176, " return") + " input.length; }";
  const { write, screens, cells } = await appendDelta(`${start}\x1b[0m`, `${start}${delta}\x1b[0m`);
  assert.deepEqual(screens.delta, screens.full);
  assert.deepEqual(cells.map(([a]) => a), cells.map(([, b]) => b), "bold and colours as drawn");
  assert.equal(stripAnsi(write).replace(/[\r\n]/g, ""), stripAnsi(delta));
  assert.ok(
    write.length <= delta.length + 50,
    `${write.length} bytes for a ${delta.length}-byte delta`,
  );
});

Deno.test("sgrStateAt: the style at the end of a text, or null when unsure", () => {
  assert.equal(sgrStateAt("plain"), "");
  assert.equal(sgrStateAt("\x1b[1mbold \x1b[31mred\x1b[39m"), "\x1b[1m");
  assert.equal(sgrStateAt("\x1b[1;3;38;5;200mx\x1b[22m"), "\x1b[3;38;5;200m");
  assert.equal(sgrStateAt("\x1b[48;2;1;2;3m\x1b[7mx"), "\x1b[7;48;2;1;2;3m");
  assert.equal(sgrStateAt("\x1b[4;31mx\x1b[0m"), "");
  assert.equal(sgrStateAt("\x1b[4:3mcurly"), null, "sub-parameters are not tracked");
  assert.equal(sgrStateAt("\x1b]8;;https://x\x07link"), null, "an open hyperlink is not SGR");
  assert.equal(sgrStateAt("\x1b[38;5mx"), null, "a cut-short colour");
});
