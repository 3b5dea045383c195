import assert from "node:assert/strict";
import { UserMessage } from "../../../../cli/chat/components/user_message.ts";
import { startTui } from "../../../support/tui_screen.ts";
import { COLOR } from "../../../tui/components/helpers.ts";

const BAND = 236; // the default theme's userMessage background

Deno.test("user message: every cell of every wrapped row has the background band", async () => {
  await using t = startTui(20, 5);
  t.tui.addChild(new UserMessage("a long message that wraps onto three rows", COLOR));
  await t.frame();
  assert.deepEqual(t.terminal.screenLines().slice(0, 4), [
    "› a long message",
    "  that wraps onto",
    "  three rows",
    "",
  ]);
  for (let y = 0; y < 3; y++) {
    for (let x = 0; x < 20; x++) {
      assert.equal(t.terminal.cell(x, y).bg, BAND, `cell ${x},${y} has no band`);
    }
  }
  assert.equal(t.terminal.cell(0, 3).bg, -1, "the band ends with the message");
});
