/**
 * The chat: a prompt interrupted by esc before any answer goes back in the
 * editor and is not sent with the next prompt.
 */
import assert from "node:assert/strict";
import type { FakeReply } from "../../support/fake_llm_server.ts";
import { requestMessages, textReply } from "../../support/fake_replies.ts";
import { KEYS, withChat } from "./chat_harness.ts";

/** A reply that sends nothing at all until the client leaves. */
const SILENT: FakeReply = { kind: "stall", afterBytes: 0, source: { kind: "sse", body: "" } };

/** Generous: the machine may be busy. */
const TIMEOUT_MS = 60_000;

Deno.test("chat: esc before any answer puts the prompt back in the editor; the next request leaves it out", async () => {
  await withChat(async (chat) => {
    const { server } = chat.fixture;
    server.enqueue(textReply("Hello."));
    await chat.send("hi");
    await chat.waitFor("Hello.", { timeoutMs: TIMEOUT_MS });
    await chat.waitIdle();

    server.enqueue(SILENT);
    await chat.send("hang DELETE EVERYTHING");
    const deadline = Date.now() + TIMEOUT_MS;
    while (server.requests.length < 2) {
      assert.ok(Date.now() < deadline, "the request reached the server");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await chat.press(KEYS.escape);
    await chat.waitIdle();
    await chat.waitFor(
      "Interrupted before any answer: the prompt will not be sent again; it is back in the editor",
      { timeoutMs: TIMEOUT_MS },
    );
    assert.equal(chat.chat.editor.getText(), "hang DELETE EVERYTHING", "back in the editor");

    // The user asks something else instead.
    await chat.press(KEYS.ctrlC);
    server.enqueue(textReply("4"));
    await chat.send("what is 2+2");
    await chat.waitFor(/^\s*4\s*$/m, { timeoutMs: TIMEOUT_MS });
    await chat.waitIdle();
    const sent = requestMessages(server, 2);
    assert.doesNotMatch(sent, /DELETE EVERYTHING/);
    assert.match(sent, /what is 2\+2/);
  });
});
