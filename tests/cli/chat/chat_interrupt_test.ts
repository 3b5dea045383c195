/**
 * Interrupting a long answer in the chat: esc (or a double ctrl+c) after
 * more than 10,000 streamed events ends the turn at once, for both
 * protocols, and the partial answer is saved as aborted, also when `fetch`
 * no longer listens to its signal (as Deno's may on a long stream).
 */
import assert from "node:assert/strict";
import { type ChatHarness, KEYS, withChat } from "./chat_harness.ts";

/** Text deltas the chat has read before the key is pressed. */
const READ_BEFORE_KEY = 10_500;

/**
 * Runs `body` with a `fetch` that ignores its signal (what Deno's does to a
 * long body) and counts the text deltas read from its bodies.
 */
async function withFetchIgnoringItsSignal(
  body: (deltasRead: () => number) => Promise<void>,
): Promise<void> {
  const realFetch = globalThis.fetch;
  let deltas = 0;
  globalThis.fetch = async (input, init) => {
    const response = await realFetch(input, { ...init, signal: null });
    const decoder = new TextDecoder();
    const counted = response.body?.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          deltas += decoder.decode(chunk, { stream: true }).split("line ").length - 1;
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: response.status, headers: response.headers });
  };
  try {
    await body(() => deltas);
  } finally {
    globalThis.fetch = realFetch;
  }
}

/** Starts an endless answer and waits until the chat has read plenty of it. */
async function startEndlessAnswer(
  chat: ChatHarness,
  prompt: string,
  deltasRead: () => number,
): Promise<void> {
  chat.fixture.server.enqueue({ kind: "long", deltas: Number.POSITIVE_INFINITY });
  await chat.send(prompt);
  const deadline = Date.now() + 30_000;
  while (deltasRead() < READ_BEFORE_KEY) {
    assert.ok(Date.now() < deadline, `only ${deltasRead()} deltas read`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function assertSavedAborted(chat: ChatHarness, prompt: string): Promise<void> {
  const saved = await chat.controller.store.load(chat.chat.agent.sessionId);
  const messages = saved?.messages.filter((m) => m.role !== "system") ?? [];
  assert.deepEqual(messages.map((m) => m.role), ["user", "assistant"]);
  assert.match(JSON.stringify(messages[0]?.content), new RegExp(prompt));
  const last = messages[1];
  assert.equal(last?.stopReason, "aborted");
  const text = JSON.stringify(last?.content);
  assert.ok(text.includes("line 0\\n") && text.includes("line 9999\\n"), "the partial answer");
}

for (const [model, api] of [["fast", "openai-chat"], ["smart", "anthropic-messages"]] as const) {
  Deno.test(`chat (${api}): esc after 10,000+ streamed events stops the turn at once`, async () => {
    await withFetchIgnoringItsSignal(async (deltasRead) => {
      await withChat(async (chat) => {
        await chat.send(`/model ${model}`);
        await chat.waitFor(`Model: ${model}`);
        await startEndlessAnswer(chat, "count forever", deltasRead);
        // The answer never ends and fetch ignores its signal: only esc can end the turn.
        await chat.press(KEYS.escape);
        await chat.waitIdle();
        await chat.waitFor("Interrupted. The partial answer was kept.");
        await assertSavedAborted(chat, "count forever");
      });
    });
  });
}

Deno.test("chat: a double ctrl+c after 10,000+ streamed events quits and saves the partial answer", async () => {
  await withFetchIgnoringItsSignal(async (deltasRead) => {
    await withChat(async (chat) => {
      await startEndlessAnswer(chat, "count on", deltasRead);
      await chat.press(KEYS.ctrlC, KEYS.ctrlC);
      assert.equal(chat.quitCount, 1);
      // The answer never ends: settling at all means the quit stopped it.
      await chat.chat.settled();
      await assertSavedAborted(chat, "count on");
    });
  });
});
