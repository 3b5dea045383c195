/**
 * ctrl+v in the chat: the clipboard's image (from a fake `xclip` on the
 * `PATH` the chat gives clipboard tools) is listed above the editor and sent
 * with the next prompt; without a clipboard tool a notice names the tools.
 */
// The harness comes first: it must load the terminal emulator before @panto/lib (see there).
import { type ChatHarness, KEYS, projectPath, withChat } from "./chat_harness.ts";
import assert from "node:assert/strict";
import { fakeTool, TINY_PNG, XCLIP_WITH_PNG } from "./clipboard_fakes.ts";

const CTRL_V = "\x16";

/** The environment of a fake `xclip` in `dir` on an X display. */
function xclipEnv(dir: string): Record<string, string> {
  return { PATH: dir, DISPLAY: ":0" };
}

function lastUserMessage(chat: ChatHarness): string {
  const body = chat.fixture.server.requests.at(-1)?.body as { messages: { role: string }[] };
  return JSON.stringify(body.messages.findLast((message) => message.role === "user"));
}

Deno.test("chat: ctrl+v attaches the clipboard's image to the next prompt", async () => {
  const dir = await fakeTool("xclip", XCLIP_WITH_PNG);
  try {
    await withChat(async (chat) => {
      await chat.press(CTRL_V);
      await chat.waitFor(`[image 1: ${TINY_PNG.length} B png] · sent with the next prompt`);
      chat.fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "A dot." }] });
      await chat.send("what is this?");
      const screen = await chat.waitFor("A dot.");
      assert.match(screen, /Attached \[image 1: \d+ B png\]/);
      assert.doesNotMatch(screen, /sent with the next prompt/, "the image line is gone");
      const user = lastUserMessage(chat);
      assert.ok(user.includes(TINY_PNG.toBase64()), `the image is in the request: ${user}`);
      assert.ok(user.includes("what is this?"));

      // The next prompt goes without it.
      chat.fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Ok." }] });
      await chat.send("thanks");
      await chat.waitFor("Ok.");
      assert.ok(!lastUserMessage(chat).includes(TINY_PNG.toBase64()));
    }, { externalEnv: xclipEnv(dir) });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Presses ctrl+v and waits for the image line. */
async function pasteImage(chat: ChatHarness): Promise<void> {
  await chat.press(CTRL_V);
  await chat.waitFor("[image 1:");
}

Deno.test("chat: a pasted image and an @file go together, the file's text not shown", async () => {
  const dir = await fakeTool("xclip", XCLIP_WITH_PNG);
  try {
    await withChat(async (chat) => {
      await Deno.writeTextFile(projectPath(chat, "notes.txt"), "NOTE-CONTENT-123\n");
      await pasteImage(chat);
      chat.fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Both." }] });
      await chat.send("compare with @notes.txt");
      const screen = await chat.waitFor("Both.");
      assert.match(screen, /Attached notes\.txt/);
      assert.doesNotMatch(screen, /NOTE-CONTENT-123/, "the transcript shows the prompt as typed");
      const user = lastUserMessage(chat);
      assert.ok(user.includes(TINY_PNG.toBase64()) && user.includes("NOTE-CONTENT-123"), user);
    }, { externalEnv: xclipEnv(dir) });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("chat: enter during a turn steers with the text; the image waits for the next prompt", async () => {
  const dir = await fakeTool("xclip", XCLIP_WITH_PNG);
  try {
    await withChat(async (chat) => {
      chat.fixture.server.enqueue({
        kind: "turn",
        blocks: [{ type: "text", text: "First." }],
        headerDelayMs: 400,
      });
      chat.fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Second." }] });
      chat.fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Third." }] });
      await chat.send("one");
      await pasteImage(chat);
      await chat.send("two");
      await chat.waitFor("Pasted images wait for the next prompt sent when idle.");
      await chat.waitFor("Second.");
      await chat.waitIdle();
      assert.ok(
        !JSON.stringify(chat.fixture.server.requests.map((r) => r.body)).includes(
          TINY_PNG.toBase64(),
        ),
      );
      assert.match(await chat.screen(), /\[image 1: \d+ B png\] · sent with the next prompt/);
      await chat.send("three");
      await chat.waitFor("Third.");
      assert.ok(lastUserMessage(chat).includes(TINY_PNG.toBase64()));
    }, { externalEnv: xclipEnv(dir) });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("chat: ctrl+c drops pasted images with the input", async () => {
  const dir = await fakeTool("xclip", XCLIP_WITH_PNG);
  try {
    await withChat(async (chat) => {
      await pasteImage(chat);
      await chat.press(KEYS.ctrlC);
      await chat.waitFor((screen) => !screen.includes("[image 1:"));
      assert.equal(chat.quitCount, 0);
      chat.fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Hi." }] });
      await chat.send("hello");
      await chat.waitFor("Hi.");
      assert.ok(!lastUserMessage(chat).includes(TINY_PNG.toBase64()));
    }, { externalEnv: xclipEnv(dir) });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("chat: ctrl+v without a clipboard tool names the tools", async () => {
  const empty = await Deno.makeTempDir();
  try {
    await withChat(async (chat) => {
      await chat.press(CTRL_V);
      await chat.waitFor("Pasting an image needs wl-paste or xclip on PATH");
      assert.equal(chat.fixture.server.requests.length, 0);
    }, { externalEnv: { PATH: empty, DISPLAY: ":0", WAYLAND_DISPLAY: "wayland-0" } });
  } finally {
    await Deno.remove(empty);
  }
});
