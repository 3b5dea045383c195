/**
 * Screen tests of pi's daily keys in the chat on a virtual terminal, where
 * the time between two keys is the test's to choose: esc twice within
 * 500 ms on an empty editor opens /tree, further apart or on a draft it
 * does not; a `!!command` typed while a turn runs is queued as `!!` and its
 * output stays out of the next prompt. (The pty tests are in keys_tmux_test.)
 */
// The harness comes first: it must load the terminal emulator before @panto/lib (see there).
import { type ChatHarness, KEYS, withChat } from "./chat_harness.ts";
import assert from "node:assert/strict";

const PANEL = /╰─ ↑↓ move/;

async function ask(chat: ChatHarness, prompt: string, reply: string): Promise<void> {
  chat.fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text: reply }] });
  await chat.send(prompt);
  await chat.waitFor(reply);
  await chat.waitIdle();
}

/** Waits past pi's double-esc window (a lower bound: waiting longer changes nothing). */
function pastTheWindow(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 600));
}

Deno.test("chat: esc twice quickly on an empty editor opens /tree; apart, or on a draft, it does not", async () => {
  await withChat(async (chat) => {
    await ask(chat, "first question", "Answer one.");

    await chat.press(KEYS.escape);
    await pastTheWindow();
    await chat.press(KEYS.escape);
    await chat.type("probe");
    // The editor took the probe: no picker (which would take typed keys) opened.
    assert.doesNotMatch(await chat.waitFor(/^probe$/m), PANEL, "two esc 600 ms apart");

    await chat.press(KEYS.escape, KEYS.escape);
    await chat.type("-more");
    assert.doesNotMatch(await chat.waitFor(/^probe-more$/m), PANEL, "esc twice on a draft");
    await chat.press("\x15"); // ctrl+u: the editor empty again

    await pastTheWindow();
    await chat.press(KEYS.escape, KEYS.escape);
    const tree = await chat.waitFor(PANEL);
    assert.match(tree, /first question/);
    await chat.press(KEYS.escape);
    await chat.waitFor((screen) => !PANEL.test(screen));
  });
});

Deno.test("chat: !!command typed during a turn is queued as !! and its output is not sent", async () => {
  await withChat(async (chat) => {
    chat.fixture.server.enqueue(
      { kind: "turn", blocks: [{ type: "text", text: "Slow answer." }], headerDelayMs: 300 },
      { kind: "turn", blocks: [{ type: "text", text: "Next answer." }] },
    );
    await chat.send("slow question");
    await chat.send("!!echo hidden-output");
    await chat.waitFor(/!!echo hidden-output/);
    assert.deepEqual(chat.controller.queue.followUp, ["!!echo hidden-output"]);
    await chat.waitFor(
      /\$ echo hidden-output\n\s*hidden-output\n\s*exit 0 · .* · not sent to the model/,
    );
    await chat.waitIdle();
    await chat.send("next question");
    await chat.waitFor("Next answer.");
    assert.doesNotMatch(JSON.stringify(chat.fixture.server.requests.at(-1)!.body), /hidden-output/);
  });
});
