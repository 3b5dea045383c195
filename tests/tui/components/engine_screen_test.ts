/**
 * Components driven through the engine onto the emulator, as the app does:
 * a streamed answer with an open code fence, a focused editor (hardware
 * cursor at the marker), and typing routed to the editor.
 */
import assert from "node:assert/strict";
import { Editor } from "../../../tui/components/editor.ts";
import { Markdown } from "../../../tui/components/markdown.ts";
import { SelectList } from "../../../tui/components/select_list.ts";
import { Text } from "../../../tui/components/text.ts";
import { startTui } from "../../support/tui_screen.ts";
import { COLOR, plain } from "./helpers.ts";

Deno.test("engine screen: a streamed answer with an open fence matches a fresh render", async () => {
  await using t = startTui(40, 30);
  const answer = new Markdown("", { theme: COLOR });
  t.tui.addChild(answer);
  const text = "Here is code 中文:\n\n```ts\nconst a = 1;\nconst b = 'two';\n```\n\nDone **now**.";
  for (let i = 0; i < text.length; i += 6) {
    answer.append(text.slice(i, i + 6));
    await t.frame();
  }
  const expected = new Markdown(text, { theme: COLOR }).render(40).map((line) =>
    plain(line).trimEnd()
  );
  assert.deepEqual(t.terminal.screenLines().slice(0, expected.length), expected);
  assert.ok(expected.includes("  const b = 'two';"));
});

Deno.test("engine screen: the focused editor puts the hardware cursor at its marker; keys reach it", async () => {
  await using t = startTui(30, 10);
  const above = new Text("$ ls");
  const sent: string[] = [];
  const editor = new Editor({ theme: COLOR, onSubmit: (text) => sent.push(text) });
  t.tui.addChild(above);
  t.tui.addChild(editor);
  t.tui.setFocus(editor);
  t.terminal.feed("héllo 你好");
  await t.frame();
  const screen = t.terminal.screenLines();
  assert.equal(screen[0], "$ ls");
  assert.equal(screen[2], "héllo 你好");
  assert.deepEqual(t.terminal.cursor(), { x: 10, y: 2 }, "after 'héllo 你好' (10 columns)");
  t.terminal.feed("\r");
  await t.frame();
  assert.deepEqual(sent, ["héllo 你好"]);
});

Deno.test("engine screen: a select list as an overlay picker takes the keys and closes", async () => {
  await using t = startTui(40, 12);
  const editor = new Editor({ theme: COLOR });
  t.tui.addChild(editor);
  t.tui.setFocus(editor);
  let chosen = "";
  const picker = new SelectList(
    [{ value: "sonnet", label: "claude-sonnet" }, { value: "gpt", label: "gpt-5" }],
    { theme: COLOR, title: "Model", onSelect: (item) => (chosen = item.value) },
  );
  const overlay = t.tui.showOverlay(picker, { anchor: "center", width: 30 });
  await t.frame();
  const screen = t.terminal.screenLines().join("\n");
  assert.match(screen, /Model/);
  assert.match(screen, /› claude-sonnet/);
  t.terminal.feed("gpt");
  t.terminal.feed("\r");
  overlay.close();
  await t.frame();
  assert.equal(chosen, "gpt");
  assert.equal(editor.getText(), "", "the editor under the overlay got no keys");
  assert.doesNotMatch(t.terminal.screenLines().join("\n"), /claude-sonnet/);
});
