/**
 * What the chat keeps on screen across a session's life: passing notices
 * (ctrl+t, retries) share one line that the next prompt clears; a resumed
 * transcript shows the interrupted markers and tool durations the live one
 * showed.
 */
// The harness comes first: it must load the terminal emulator before @panto/lib (see there).
import { type ChatHarness, createChatFixture, KEYS, openChat, withChat } from "./chat_harness.ts";
import assert from "node:assert/strict";
import { rateLimitReply } from "../../support/fake_llm_server.ts";
import { toolCallReply } from "../../support/fake_replies.ts";

function answer(chat: ChatHarness, text: string): void {
  chat.fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text }] });
}

/** The screen's lines matching `pattern`. */
function linesMatching(screen: string, pattern: RegExp): string[] {
  return screen.split("\n").filter((line) => pattern.test(line));
}

Deno.test("chat: ctrl+t pressed again and again leaves one notice line; the next prompt clears it", async () => {
  await withChat(async (chat) => {
    answer(chat, "First answer.");
    await chat.send("hello");
    await chat.waitFor("First answer.");
    await chat.waitIdle();
    for (let i = 0; i < 3; i++) await chat.press(KEYS.ctrlT);
    const screen = await chat.waitFor("Thinking hidden.");
    assert.deepEqual(linesMatching(await chat.everything(), /Thinking (shown|hidden)\./), [
      "Thinking hidden.",
    ], screen);
    await chat.press(KEYS.ctrlT);
    await chat.waitFor("Thinking shown.");
    assert.equal(linesMatching(await chat.everything(), /Thinking (shown|hidden)\./).length, 1);

    answer(chat, "Second answer.");
    await chat.send("again");
    await chat.waitFor("Second answer.");
    assert.doesNotMatch(await chat.everything(), /Thinking (shown|hidden)\./, "cleared");
  });
});

Deno.test("chat: retries count up on one line; the next prompt clears it", async () => {
  await withChat(async (chat) => {
    chat.fixture.server.enqueue(rateLimitReply(0, "openai"));
    chat.fixture.server.enqueue(rateLimitReply(0, "openai"));
    answer(chat, "Answer after two retries.");
    await chat.send("hello");
    const screen = await chat.waitFor("Answer after two retries.");
    const retries = linesMatching(screen, /Retrying|Rate limit/);
    assert.equal(retries.length, 1, screen);
    assert.match(retries[0]!, /^Retrying \(2\/4\) in 0s: .*429/);
    assert.equal(chat.fixture.server.requests.length, 3);

    answer(chat, "Next answer.");
    await chat.send("next");
    await chat.waitFor("Next answer.");
    assert.doesNotMatch(await chat.everything(), /Retrying/, "cleared by the next prompt");
  }, { config: { retry: { maxRetries: 4, baseDelayMs: 0 } } });
});

Deno.test("chat: a resumed transcript shows the interrupted runs and the tools' durations", async () => {
  const fixture = await createChatFixture();
  try {
    const live = await openChat(fixture);
    let liveScreen: string;
    try {
      fixture.server.enqueue(toolCallReply("call_1", "bash", { command: "sleep 0.4; echo slept" }));
      answer(live, "It slept.");
      await live.send("sleep a little");
      await live.waitFor("It slept.");
      await live.waitIdle();
      // Interrupted while its tool runs: the tool's results end the run.
      fixture.server.enqueue(toolCallReply("call_2", "bash", { command: "sleep 30" }));
      await live.send("sleep long");
      await live.waitFor("$ sleep 30");
      await live.press(KEYS.escape);
      await live.waitIdle();
      // Interrupted before any answer: a reply that never comes.
      fixture.server.enqueue({
        kind: "turn",
        blocks: [{ type: "text", text: "too late" }],
        headerDelayMs: 20_000,
      });
      await live.send("never answered");
      await live.waitFor("never answered");
      await live.press(KEYS.escape);
      await live.waitIdle();
      liveScreen = await live.waitFor("Interrupted before any answer");
    } finally {
      await live.close();
    }
    // The duration is wall time (how long is the machine's business); resumed shows the same one.
    const liveDuration = /exit 0 · \d+\.\ds/.exec(liveScreen)?.[0];
    assert.ok(liveDuration, `no duration in:\n${liveScreen}`);
    assert.match(liveScreen, /Interrupted\. The partial answer was kept\./);

    const resumed = await openChat(fixture, { argv: ["-c"] });
    try {
      const screen = await resumed.waitFor("Resumed session");
      const order = [
        /› sleep a little/,
        new RegExp(liveDuration.replaceAll(".", "\\.")),
        /It slept\./,
        /› sleep long/,
        /Interrupted\. The partial answer was kept\./,
        /› never answered/,
        /Interrupted before any answer\./,
      ];
      let from = 0;
      for (const pattern of order) {
        const at = screen.slice(from).search(pattern);
        assert.ok(at >= 0, `${pattern} after position ${from} in:\n${screen}`);
        from += at + 1;
      }
    } finally {
      await resumed.close();
    }
  } finally {
    await fixture.close();
  }
});
