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

/** Generous: a machine saturated by other work may take this long for a few frames. */
const DEADLINE_MS = 30_000;

/** Waits for `condition`, checking every few milliseconds, failing after {@linkcode DEADLINE_MS}. */
async function until(what: string, condition: () => boolean): Promise<void> {
  const deadline = performance.now() + DEADLINE_MS;
  while (!condition()) {
    assert.ok(performance.now() < deadline, `timed out waiting for ${what}`);
    await sleep(2);
  }
}

/** The frames the engine writes from now on: when each was written (ms) and its text. */
function recordFrames(terminal: VirtualTerminal): { at: number; text: string }[] {
  const frames: { at: number; text: string }[] = [];
  const write = terminal.write.bind(terminal);
  terminal.write = (data: string) => {
    frames.push({ at: performance.now(), text: stripAnsi(data) });
    write(data);
  };
  return frames;
}

Deno.test("pacing: a burst of requests draws at most one frame per 16 ms", async () => {
  await using t = startTui(40, 10);
  const body = new Lines(["0"]);
  t.tui.addChild(body);
  await sleep(0);
  const frames = recordFrames(t.terminal);
  let deltas = 0;
  // Ten requests per turn of the event loop: however slow the machine, they must merge.
  for (let turn = 0; turn < 40; turn++) {
    for (let i = 0; i < 10; i++) {
      body.set([String(++deltas)]);
      t.tui.requestRender();
    }
    await sleep(1);
  }
  await until(
    "the last delta's frame",
    () => frames.at(-1)?.text.includes(String(deltas)) ?? false,
  );
  assert.ok(frames.length <= 40, `${deltas} deltas in 40 turns drew ${frames.length} frames`);
  // A busy machine only spreads frames further apart, so this lower bound holds under any load
  // (1 ms of slack: a timer may fire up to a millisecond early).
  const gaps = frames.slice(1).map((frame, i) => frame.at - frames[i]!.at);
  assert.ok(gaps.every((gap) => gap >= 15), `frame gaps (ms): ${gaps.map((g) => g.toFixed(1))}`);
  await t.terminal.flush();
  assert.equal(t.terminal.screenLines()[0], String(deltas), "the last delta is drawn");
});

Deno.test("pacing: a keystroke after a quiet moment is drawn at once, not after the interval", async () => {
  await using t = startTui(40, 10);
  const editor = new Lines(["> "]);
  t.tui.addChild(editor);
  t.tui.setFocus(editor);
  const frames = recordFrames(t.terminal);
  const startedAt = performance.now();
  await until("the first frame", () => t.tui.stats.frames > 0);
  // Quiet for longer than a frame interval since the last frame (or the start).
  const lastAt = () => frames.at(-1)?.at ?? startedAt;
  await until("a quiet moment", () => performance.now() - lastAt() > 20);
  const framesBefore = t.tui.stats.frames;
  editor.handleInput = (data) => editor.set([`> ${data}`]);
  t.terminal.feed("a");
  await new Promise<void>((resolve) => queueMicrotask(resolve));
  assert.equal(t.tui.stats.frames, framesBefore + 1, "drawn in the same tick");
  await t.terminal.flush();
  assert.equal(t.terminal.screenLines()[0], "> a");
});

Deno.test("pacing: a keystroke during streaming is drawn in the next frame", async () => {
  await using t = startTui(40, 10);
  const body = new Lines(["stream 0"]);
  const editor = new Lines(["> "]);
  t.tui.addChild(body);
  t.tui.addChild(editor);
  t.tui.setFocus(editor);
  editor.handleInput = (data) => editor.set([`> ${data}`]);
  await sleep(0);
  const frames = recordFrames(t.terminal);
  let streaming = true;
  const stream = (async () => {
    for (let i = 1; streaming; i++) {
      body.set([`stream ${i}`]);
      t.tui.requestRender();
      await sleep(2);
    }
  })();
  await until("streaming frames", () => frames.length >= 3);
  const framesAtKey = frames.length;
  t.terminal.feed("k");
  await until("a frame after the key", () => frames.length > framesAtKey);
  streaming = false;
  await stream;
  // Only the editor's line has a "k" ("stream N" has none): the very next frame drew the key.
  // How soon that frame comes under load is measured by bench/tui_bench.ts, not asserted here.
  assert.ok(frames[framesAtKey]!.text.includes("k"), `next frame: ${frames[framesAtKey]!.text}`);
  await t.terminal.flush();
  assert.ok(t.terminal.screenLines().includes("> k"), "the key is on screen");
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
