/**
 * The transcript viewer in the chat on a virtual terminal: ctrl+o expands a
 * tool call still on screen in place and opens the viewer once the call
 * scrolled away; alt+o opens it at the end; ctrl+c there closes it without
 * counting towards quitting. (The pty test is transcript_viewer_tmux_test.)
 */
// The harness comes first: it must load the terminal emulator before @panto/lib (see there).
import { type ChatHarness, KEYS, withChat } from "./chat_harness.ts";
import assert from "node:assert/strict";
import type { ChatArgs } from "../../../cli/setup/args.ts";
import { installApprovals } from "../../../cli/approvals/install_approvals.ts";

const STATUS = /transcript · lines \d+-\d+ of \d+/;
const ALT_O = "\x1bo";

async function runTool(chat: ChatHarness, count: number): Promise<void> {
  const command = `seq -f 'out %g' ${count}`;
  chat.fixture.server.enqueue({
    kind: "turn",
    blocks: [{ type: "tool_use", id: "call_1", name: "bash", input: { command } }],
  });
  chat.fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Listed." }] });
  await chat.send("list them");
  await chat.waitFor("Listed.");
  await chat.waitIdle();
}

async function longAnswer(chat: ChatHarness, label: string): Promise<void> {
  const text = Array.from({ length: 20 }, (_, i) => `${label} ${i + 1}.`).join("\n\n");
  chat.fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text }] });
  await chat.send(`more ${label}`);
  await chat.waitFor(`${label} 20.`);
  await chat.waitIdle();
  // The frame after the turn (loader gone, footer counts) is drawn before the screen is read.
  await chat.waitFor((screen) => !/Working/.test(screen));
}

Deno.test("chat: ctrl+o expands a tool call on screen in place; scrolled away, it opens the viewer", async () => {
  await withChat(async (chat) => {
    await runTool(chat, 20);
    assert.doesNotMatch(await chat.screen(), /^\s+out 10$/m, "collapsed: the last lines only");
    await chat.press(KEYS.ctrlO);
    await chat.waitFor(/^\s+out 10$/m);
    assert.doesNotMatch(await chat.screen(), STATUS, "expanded in place, no viewer");
    await chat.press(KEYS.ctrlO);
    await chat.waitFor((screen) => !/^\s+out 10$/m.test(screen));

    await longAnswer(chat, "First");
    await longAnswer(chat, "Second");
    const before = chat.terminal.allLines();
    assert.doesNotMatch(await chat.screen(), /bash \$ seq/, "the call scrolled away");
    await chat.press(KEYS.ctrlO);
    const viewer = await chat.waitFor(STATUS);
    assert.match(viewer.split("\n")[0]!, /✓ bash \$ seq -f 'out %g' 20/, "at the tool call");
    assert.match(viewer, /^\s+out 1\n(\s+out \d+\n){18}\s+out 20$/m, "expanded in full");

    // ctrl+c closes the viewer: no "press again to quit", nothing cleared.
    await chat.type("j");
    await chat.press(KEYS.ctrlC);
    await chat.waitFor((screen) => !STATUS.test(screen));
    assert.equal(chat.quitCount, 0);
    assert.deepEqual(chat.terminal.allLines(), before, "the chat as it was");
    assert.doesNotMatch(await chat.screen(), /ctrl\+c again/);

    await chat.press(ALT_O);
    const atEnd = await chat.waitFor(STATUS);
    assert.match(atEnd, /\(100%\)/);
    assert.match(atEnd, /Second 20\./);
    await chat.press(ALT_O); // the key that opened it closes it
    await chat.waitFor((screen) => !STATUS.test(screen));
    assert.deepEqual(chat.terminal.allLines(), before);
  }, { rows: 30 });
});

Deno.test("chat: an approval asked while the viewer is open closes it, the dialog on screen", async () => {
  await withChat(async (chat) => {
    const server = chat.fixture.server;
    installApprovals(
      chat.controller,
      { autoApprove: false } as ChatArgs,
      (request, signal) => chat.chat.askApproval(request, signal),
    );
    // The viewer is opened while the first call runs (5 s: ample time to open it first).
    server.enqueue({
      kind: "turn",
      blocks: [{ type: "tool_use", id: "c1", name: "bash", input: { command: "sleep 5" } }],
    });
    server.enqueue({
      kind: "turn",
      blocks: [{
        type: "tool_use",
        id: "c2",
        name: "write",
        input: { path: "note.txt", content: "hi\n" },
      }],
    });
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Not written." }] });
    await chat.send("write a note");
    await chat.waitFor(/bash \$ sleep 5/);
    await chat.press(ALT_O);
    await chat.waitFor(STATUS);
    const dialog = await chat.waitFor(/Allow write/, { timeoutMs: 30_000 });
    assert.doesNotMatch(dialog, STATUS, "the viewer gave way");
    await chat.press(KEYS.escape);
    await chat.waitFor("Not written.");
  }, { rows: 30, config: { retry: { maxRetries: 0 }, tools: { requireApproval: ["write"] } } });
});
