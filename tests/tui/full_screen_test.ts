import assert from "node:assert/strict";
import type { Component } from "../../tui/component.ts";
import { startTui } from "../support/tui_screen.ts";
import { Lines } from "./test_lines.ts";

function numbered(count: number, prefix: string): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix} ${i}`);
}

/** A full-screen component showing `label` and the keys it got, one row each. */
function screenful(label: string) {
  const keys: string[] = [];
  const component: Component = {
    render: () => [label, ...keys],
    firstLineChanged: () => 0,
    invalidate: () => {},
    handleInput: (data) => void keys.push(data),
  };
  return { component, keys };
}

Deno.test("full screen: shown on the alternate screen; closing brings back the screen and history unchanged", async () => {
  await using t = startTui(30, 6);
  const body = new Lines(numbered(20, "chat"));
  const editor = new Lines(["> draft"]);
  t.tui.addChild(body);
  t.tui.addChild(editor);
  await t.frame();
  const before = t.terminal.allLines();
  const cursor = t.terminal.cursor();
  const shown = screenful("viewer");
  const handle = t.tui.showFullScreen(shown.component);
  await t.frame();
  assert.deepEqual(t.terminal.screenLines(), ["viewer", "", "", "", "", ""]);
  assert.deepEqual(t.terminal.scrollbackLines(), [], "the alternate screen has no history");
  assert.equal(t.terminal.cursorVisible, false);
  t.terminal.feed("j");
  await t.frame();
  assert.deepEqual(shown.keys, ["j"], "the keys go to it");
  handle.close();
  await t.frame();
  assert.deepEqual(t.terminal.allLines(), before, "history and screen as before, byte for byte");
  assert.deepEqual(t.terminal.cursor(), cursor);
  handle.close(); // a second close does nothing
  await t.frame();
  assert.deepEqual(t.terminal.allLines(), before);
});

Deno.test("full screen: what changes meanwhile is drawn on the normal screen only after it closes", async () => {
  await using t = startTui(30, 6);
  const body = new Lines(numbered(20, "chat"));
  const editor = new Lines(["> draft"]);
  t.tui.addChild(body);
  t.tui.addChild(editor);
  await t.frame();
  const history = t.terminal.scrollbackLines();
  const handle = t.tui.showFullScreen(screenful("viewer").component);
  await t.frame();
  const writes = t.terminal.writes.length;
  body.append("chat new 1", "chat new 2");
  await t.frame();
  assert.equal(t.terminal.writes.length, writes, "nothing written: the full screen is unchanged");
  assert.deepEqual(t.terminal.screenLines()[0], "viewer");
  handle.close();
  await t.frame();
  assert.deepEqual(
    t.terminal.scrollbackLines().slice(0, history.length),
    history,
    "the old history is untouched",
  );
  assert.deepEqual(t.terminal.screenLines().slice(-3), ["chat new 1", "chat new 2", "> draft"]);
  const all = t.terminal.allLines();
  assert.equal(all.filter((line) => line === "chat 19").length, 1, "no line drawn twice");
});

Deno.test("full screen: only changed rows are rewritten; a resize redraws it, then the chat", async () => {
  await using t = startTui(30, 6);
  t.tui.addChild(new Lines(numbered(10, "chat")));
  await t.frame();
  const shown = screenful("viewer");
  const handle = t.tui.showFullScreen(shown.component);
  await t.frame();
  t.terminal.feed("x");
  await t.frame();
  const write = t.terminal.writes.at(-1)!;
  assert.ok(write.includes("x") && !write.includes("viewer"), JSON.stringify(write));
  t.terminal.resize(20, 4);
  await t.frame();
  assert.deepEqual(t.terminal.screenLines(), ["viewer", "x", "", ""]);
  handle.close();
  // The resize is handled once the normal screen is back (its cursor position asked then).
  for (let tries = 0; tries < 50 && !t.terminal.screenLines().includes("chat 9"); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    await t.frame();
  }
  assert.deepEqual(t.terminal.screenLines().slice(-4), ["chat 6", "chat 7", "chat 8", "chat 9"]);
});

Deno.test("full screen: stopping the engine leaves the alternate screen first", async () => {
  const t = startTui(30, 6);
  t.tui.addChild(new Lines(["chat"]));
  await t.frame();
  t.tui.showFullScreen(screenful("viewer").component);
  await t.frame();
  await t[Symbol.asyncDispose]();
  const all = t.terminal.writes.join("");
  assert.ok(all.lastIndexOf("\x1b[?1049l") > all.lastIndexOf("\x1b[?1049h"));
});
