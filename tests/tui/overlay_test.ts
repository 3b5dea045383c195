import assert from "node:assert/strict";
import stripAnsi from "strip-ansi";
import { CURSOR_MARKER } from "../../tui/component.ts";
import { compositeLine, layoutOverlay, overlayWidth } from "../../tui/overlay.ts";
import { startTui } from "../support/tui_screen.ts";
import { frame, Lines } from "./test_lines.ts";

Deno.test("layoutOverlay: anchors, sizes and margins", () => {
  assert.deepEqual(layoutOverlay({ width: 20 }, 4, 80, 24), {
    row: 10,
    col: 30,
    width: 20,
    height: 4,
  });
  assert.deepEqual(layoutOverlay({ anchor: "top-left", width: 10, margin: 2 }, 3, 80, 24), {
    row: 2,
    col: 2,
    width: 10,
    height: 3,
  });
  assert.deepEqual(
    layoutOverlay({ anchor: "bottom", width: "50%", margin: { bottom: 1 } }, 5, 80, 24),
    { row: 18, col: 20, width: 40, height: 5 },
  );
  assert.deepEqual(layoutOverlay({ anchor: "right", width: 10 }, 2, 80, 24), {
    row: 11,
    col: 70,
    width: 10,
    height: 2,
  });
  const tall = layoutOverlay({ maxHeight: "50%" }, 100, 80, 24);
  assert.equal(tall.height, 12, "cut to the maximum height");
  assert.equal(overlayWidth({}, 200), 80, "default width is capped at 80");
  assert.equal(overlayWidth({ width: 500 }, 40), 40, "never wider than the screen");
  assert.throws(
    () => overlayWidth({ width: "wide%" as `${number}%` }, 40),
    /Invalid overlay size "wide%"/,
  );
});

Deno.test("compositeLine: keeps base text and styles on both sides", () => {
  assert.equal(compositeLine("abcdefgh", "XY", 2, 3, 8), "ab\x1b[0mXY \x1b[0mfgh");
  const styled = compositeLine("\x1b[31mredredred\x1b[0m", "O", 3, 1, 9);
  assert.equal(styled, "\x1b[31mred\x1b[0mO\x1b[0m\x1b[31medred\x1b[0m\x1b[0m");
  assert.equal(
    compositeLine("漢字漢字", "O", 1, 2, 8),
    " \x1b[0mO \x1b[0m 漢字",
    "cut wide clusters",
  );
  assert.equal(compositeLine("ab", "O", 4, 1, 8), "ab  \x1b[0mO\x1b[0m", "pads short base lines");
});

Deno.test("overlay: composited over the visible content, restored when closed", async () => {
  await using t = startTui(20, 6);
  const body = new Lines(Array.from({ length: 10 }, (_, i) => `${i}`.repeat(20)));
  t.tui.addChild(body);
  await frame(t.tui, t.terminal);
  const before = t.terminal.screenLines();
  const scrollback = t.terminal.scrollbackLines();
  const handle = t.tui.showOverlay(new Lines(["\x1b[7mpick\x1b[0m", "one"]), { width: 6 });
  await frame(t.tui, t.terminal);
  const screen = t.terminal.screenLines();
  assert.equal(screen[2], "6666666pick  6666666");
  assert.equal(screen[3], "7777777one   7777777");
  assert.equal(t.terminal.cell(7, 2).inverse, true);
  assert.equal(t.terminal.cell(13, 2).inverse, false, "the overlay style does not leak right");
  assert.deepEqual(t.terminal.scrollbackLines(), scrollback);
  handle.close();
  await frame(t.tui, t.terminal);
  assert.deepEqual(t.terminal.screenLines(), before);
});

Deno.test("overlay: content keeps streaming underneath", async () => {
  await using t = startTui(20, 6);
  const body = new Lines(["a", "b"]);
  t.tui.addChild(body);
  t.tui.showOverlay(new Lines(["OVER"]), { anchor: "top-left", width: 4 });
  await frame(t.tui, t.terminal);
  assert.equal(t.terminal.screenLines()[0], "OVER");
  for (let i = 0; i < 10; i++) body.append(`line ${i}`);
  await frame(t.tui, t.terminal);
  const screen = t.terminal.screenLines();
  assert.equal(screen[0], "OVER 4", "the overlay stays on the top row");
  assert.equal(screen[5], "line 9");
});

Deno.test("overlay: focus stack and restoring focus", async () => {
  await using t = startTui(30, 8);
  const editor = new Lines(["> "]);
  t.tui.addChild(editor);
  t.tui.setFocus(editor);
  const first = new Lines(["first"]);
  const second = new Lines(["second"]);
  const firstHandle = t.tui.showOverlay(first);
  const secondHandle = t.tui.showOverlay(second, { anchor: "bottom" });
  assert.equal(t.tui.focusedComponent, second);
  assert.equal(first.focused, false);
  t.terminal.feed("x");
  assert.deepEqual(second.inputs, ["x"], "the top overlay gets the input");
  secondHandle.setHidden(true);
  assert.equal(t.tui.focusedComponent, first);
  assert.equal(secondHandle.hidden, true);
  secondHandle.setHidden(false);
  assert.equal(t.tui.focusedComponent, second);
  firstHandle.close();
  assert.equal(t.tui.focusedComponent, second, "closing a background overlay keeps focus");
  secondHandle.close();
  assert.equal(t.tui.focusedComponent, editor, "focus returns through the closed overlay");
  assert.equal(editor.focused, true);
  t.terminal.feed("y");
  assert.deepEqual(editor.inputs, ["y"]);
  await frame(t.tui, t.terminal);
});

Deno.test("overlay: one hidden and shown again is drawn on top, where its input goes", async () => {
  await using t = startTui(20, 4);
  t.tui.addChild(new Lines(["base"]));
  const first = new Lines(["first"]);
  const second = new Lines(["second"]);
  const firstHandle = t.tui.showOverlay(first, { anchor: "top-left", width: 8 });
  t.tui.showOverlay(second, { anchor: "top-left", width: 8 });
  await frame(t.tui, t.terminal);
  assert.equal(t.terminal.screenLines()[0], "second");
  firstHandle.setHidden(true);
  firstHandle.setHidden(false);
  await frame(t.tui, t.terminal);
  assert.equal(t.tui.focusedComponent, first);
  assert.equal(t.terminal.screenLines()[0], "first", "the focused overlay is the visible one");
  t.terminal.feed("x");
  assert.deepEqual(first.inputs, ["x"]);
});

Deno.test("overlay: its cursor marker positions the hardware cursor", async () => {
  await using t = startTui(30, 8);
  t.tui.addChild(new Lines(["base"]));
  t.tui.showOverlay(new Lines([`> ab${CURSOR_MARKER}`]), {
    anchor: "top-left",
    width: 10,
    margin: 1,
  });
  await frame(t.tui, t.terminal);
  assert.deepEqual(t.terminal.cursor(), { x: 5, y: 1 });
  assert.equal(t.terminal.cursorVisible, true);
});

Deno.test("overlay: tabs and control bytes in its lines cannot move the cursor", async () => {
  await using t = startTui(20, 4);
  t.tui.addChild(new Lines(["a".repeat(20), "b".repeat(20), "c".repeat(20), "d".repeat(20)]));
  t.tui.showOverlay(new Lines(["x\ty\x08z", "\x1b[2Kq"]), { width: 8, anchor: "top-left" });
  await frame(t.tui, t.terminal);
  assert.deepEqual(t.terminal.screenLines(), [
    "x   yz  aaaaaaaaaaaa",
    "q       bbbbbbbbbbbb",
    "c".repeat(20),
    "d".repeat(20),
  ]);
});

Deno.test("overlay: a margin past the screen edge never makes a line wider than the screen", async () => {
  await using t = startTui(10, 3);
  t.tui.addChild(new Lines(["0123456789", "abcdefghij"]));
  t.tui.showOverlay(new Lines(["XY"]), { anchor: "top-left", margin: { left: 30 } });
  await frame(t.tui, t.terminal);
  const written = t.terminal.writes.join("");
  // deno-lint-ignore no-control-regex
  for (const line of written.split(/\r\n?|\x1b\[\d*[ABG]/)) {
    assert.ok(stripAnsi(line).length <= 10, `over-wide write: ${JSON.stringify(line)}`);
  }
  assert.deepEqual(t.terminal.screenLines().slice(0, 2), ["012345678X", "abcdefghij"]);
});
