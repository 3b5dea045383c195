/**
 * An aborted request leaves no rejected promise behind. Deno's fetch can
 * answer after the abort with a body the abort has already errored (about
 * one aborted compaction in six under load); cancelling that body rejects,
 * and an unhandled rejection ends the process. The stub below answers that
 * way every time, so the case is reproduced on each run.
 */
import assert from "node:assert/strict";
import { Agent, Conversation } from "@panto/lib";
import { isAbortError, streamSse } from "../../../lib/providers/http.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { MemoryStore } from "../../support/memory_store.ts";

/** Collects unhandled rejections while `body` runs (and a little after: they are reported late). */
async function unhandledDuring(body: () => Promise<void>): Promise<unknown[]> {
  const reasons: unknown[] = [];
  const record = (event: PromiseRejectionEvent) => {
    event.preventDefault();
    reasons.push(event.reason);
  };
  globalThis.addEventListener("unhandledrejection", record);
  try {
    await body();
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    globalThis.removeEventListener("unhandledrejection", record);
  }
  return reasons;
}

/** A body errored by an abort, as Deno's fetch leaves it. */
function abortedBody(): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start: (controller) =>
      controller.error(new DOMException("The signal has been aborted", "AbortError")),
  });
}

/** Runs `body` with a `fetch` that answers only after its signal aborted, with an errored body. */
async function withLateFetch(body: () => Promise<void>): Promise<void> {
  const realFetch = globalThis.fetch;
  globalThis.fetch = (_input, init) =>
    new Promise((resolve) => {
      init?.signal?.addEventListener("abort", () => {
        setTimeout(() => resolve(new Response(abortedBody())), 0);
      }, { once: true });
    });
  try {
    await body();
  } finally {
    globalThis.fetch = realFetch;
  }
}

/** Streams from `url` and aborts after `abortAfterMs`; returns what the stream threw. */
async function abortedStream(url: string, abortAfterMs: number): Promise<unknown> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), abortAfterMs);
  try {
    for await (
      const _batch of streamSse({
        url,
        headers: {},
        body: {},
        signal: controller.signal,
        idleTimeoutMs: 10_000,
      })
    ) {
      // Read until the abort.
    }
    return undefined;
  } catch (error) {
    return error;
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("streamSse: a reply that comes after the abort, its body errored, leaves no unhandled rejection", async () => {
  const unhandled = await unhandledDuring(() =>
    withLateFetch(async () => {
      for (let i = 0; i < 50; i++) {
        const error = await abortedStream("http://127.0.0.1:9/v1/messages", i % 3);
        assert.ok(isAbortError(error), `request ${i} ended with ${String(error)}, not an abort`);
      }
    })
  );
  assert.deepEqual(unhandled, []);
});

Deno.test("streamSse: requests aborted at any point of a stalled reply leave no unhandled rejection", async () => {
  const server = await FakeLlmServer.start();
  try {
    const unhandled = await unhandledDuring(async () => {
      for (let i = 0; i < 60; i++) {
        server.enqueue({
          kind: "stall",
          afterBytes: 40,
          source: { kind: "turn", blocks: [{ type: "text", text: "SUMMARY-START and more" }] },
        });
        const error = await abortedStream(`${server.anthropicBaseUrl}/v1/messages`, i % 6);
        assert.ok(isAbortError(error), `request ${i} ended with ${String(error)}, not an abort`);
      }
    });
    assert.deepEqual(unhandled, []);
  } finally {
    await server.close();
  }
});

Deno.test("Agent.compact: aborted compactions whose replies come after the abort leave no unhandled rejection", async () => {
  const conversation = new Conversation();
  for (let i = 0; i < 4; i++) {
    conversation.addUserMessage(`question ${i}`);
    conversation.addAssistantMessage([{ type: "text", text: `answer ${i}` }]);
  }
  const agent = new Agent({
    config: {
      provider: {
        api: "anthropic-messages",
        baseUrl: "http://127.0.0.1:9",
        model: "m",
        reasoning: "off",
        apiKey: "k",
      },
      retry: { maxRetries: 0 },
      compaction: { keepRecentTokens: 0 },
    },
    session: new MemoryStore().create(),
    conversation,
  });
  const unhandled = await unhandledDuring(() =>
    withLateFetch(async () => {
      for (let i = 0; i < 30; i++) {
        const controller = new AbortController();
        const compacting = agent.compact({ signal: controller.signal });
        setTimeout(() => controller.abort(), i % 3);
        await assert.rejects(compacting, { name: "AbortError" }, `compaction ${i}`);
      }
    })
  );
  assert.deepEqual(unhandled, []);
  assert.equal(conversation.messages.length, 8, "an aborted compaction changes nothing");
});
