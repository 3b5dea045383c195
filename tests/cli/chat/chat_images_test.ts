/**
 * Images in the chat where the terminal draws none (the emulated terminal
 * answers no image query): a read image and a pasted one each show as one
 * placeholder line under their call or message, with no escape sequence.
 */
// The harness comes first: it must load the terminal emulator before @panto/lib (see there).
import { projectPath, withChat } from "./chat_harness.ts";
import assert from "node:assert/strict";
import { craftPng } from "../../support/crafted_png.ts";
import { fakeTool, XCLIP_WITH_PNG } from "./clipboard_fakes.ts";

const CTRL_V = "\x16";

/** No image sequence reached the terminal. */
function assertNoImageSequences(writes: readonly string[]): void {
  const written = writes.join("");
  // deno-lint-ignore no-control-regex
  assert.ok(!/\x1b_G|\x1b\]1337|\x1bPtmux/.test(written), "no image escape sequence written");
}

Deno.test("chat: a read image shows as a placeholder line under its call", async () => {
  await withChat(async (chat) => {
    const png = await craftPng({ width: 1280, height: 720, depth: 1, colorType: 0 });
    await Deno.writeFile(projectPath(chat, "screenshot.png"), png);
    chat.fixture.server.enqueue({
      kind: "turn",
      blocks: [{ type: "tool_use", id: "call_1", name: "read", input: { path: "screenshot.png" } }],
    });
    chat.fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "A screen." }] });
    await chat.send("look at screenshot.png");
    const screen = await chat.waitFor("A screen.");
    assert.match(
      screen,
      /✓ read screenshot\.png\n(?:.*\n)*? {2}\[image: screenshot\.png 1280x720 PNG\]/,
    );
    assertNoImageSequences(chat.terminal.writes);
  });
});

Deno.test("chat: a pasted image shows as a placeholder line under the prompt", async () => {
  const dir = await fakeTool("xclip", XCLIP_WITH_PNG);
  try {
    await withChat(async (chat) => {
      await chat.press(CTRL_V);
      await chat.waitFor("[image 1:");
      chat.fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "A dot." }] });
      await chat.send("what is this?");
      const screen = await chat.waitFor("A dot.");
      assert.match(screen, /› what is this\?\s*\n {2}\[image: 1x1 PNG\]/);
      assertNoImageSequences(chat.terminal.writes);
    }, { externalEnv: { PATH: dir, DISPLAY: ":0" } });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("chat: where the terminal draws Kitty images, the read image is drawn, no placeholder", async () => {
  const kitty = { protocol: "kitty", cellSize: { width: 10, height: 20 }, tmux: false } as const;
  await withChat(async (chat) => {
    const png = await craftPng({ width: 1280, height: 720, depth: 1, colorType: 0 });
    await Deno.writeFile(projectPath(chat, "screenshot.png"), png);
    chat.fixture.server.enqueue({
      kind: "turn",
      blocks: [{ type: "tool_use", id: "call_1", name: "read", input: { path: "screenshot.png" } }],
    });
    chat.fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "A screen." }] });
    await chat.send("look at screenshot.png");
    const screen = await chat.waitFor("A screen.");
    assert.doesNotMatch(screen, /\[image:/);
    // 1280×720 at most 60 columns of 10 px: 60×17 cells, at most 16 rows → 16 rows, 57 columns.
    const placed = chat.terminal.writes.join("").match(
      // deno-lint-ignore no-control-regex
      /\x1b_Ga=T,f=100,q=2,C=1,i=\d+,c=(\d+),r=(\d+)/,
    );
    assert.deepEqual(placed?.slice(1), ["57", "16"]);
    const lines = screen.split("\n");
    const read = lines.findIndex((line) => line.startsWith("✓ read screenshot.png"));
    assert.deepEqual(lines.slice(read + 1, read + 17), Array(16).fill(""), "the image's rows");
  }, { imageSupport: kitty });
});
