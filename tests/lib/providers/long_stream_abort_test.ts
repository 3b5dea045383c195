/**
 * An abort stops a provider stream at once however much it has streamed,
 * for both protocols. Deno's fetch can lose its abort on a long stream:
 * the request's own signal, which it listens to, is held only weakly by
 * the caller's, so a full garbage collection a while after the headers
 * arrived leaves the body streaming whatever is aborted. The tests force
 * those collections, and also run with a `fetch` that ignores its signal.
 */
import assert from "node:assert/strict";
import v8 from "node:v8";
import vm from "node:vm";
import type { ApiStyle } from "../../../lib/config.ts";
import type { AssistantResult, ProviderRequest } from "../../../lib/providers/provider.ts";
import { streamForApi } from "../../../lib/providers/registry.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";

v8.setFlagsFromString("--expose-gc");
/** A full garbage collection, as V8 runs one on its own now and then. */
const fullGc = vm.runInNewContext("gc") as () => void;

const APIS: readonly ApiStyle[] = ["anthropic-messages", "openai-chat"];
/** Text deltas read before the abort. */
const ABORT_AFTER = 12_000;
/** Enough deltas when the fetch ignores its signal anyway (no need to wait for Deno to lose it). */
const SHORT_ABORT_AFTER = 2_000;
/** How long the stream runs before the abort (ms): Deno loses the abort after about 2 s. */
const STREAM_FOR_MS = 3_000;

function requestFor(server: FakeLlmServer, api: ApiStyle, signal: AbortSignal): ProviderRequest {
  return {
    config: {
      api,
      baseUrl: api === "anthropic-messages" ? server.anthropicBaseUrl : server.openaiBaseUrl,
      model: "fake-model",
      reasoning: "off",
      apiKey: "sk-test-long-stream",
    },
    system: "",
    messages: [],
    tools: [],
    signal,
    idleTimeoutMs: 10_000,
  };
}

interface Outcome {
  result: AssistantResult;
  deltasBefore: number;
  msAfterAbort: number;
}

/**
 * Streams an endless reply for `streamForMs` and at least
 * {@linkcode ABORT_AFTER} text deltas, collecting garbage every 200 ms, then
 * aborts from a timer (as a signal handler or a key press would) while the
 * stream keeps being read.
 */
async function abortLongStream(
  server: FakeLlmServer,
  api: ApiStyle,
  streamForMs = STREAM_FOR_MS,
  abortAfter = ABORT_AFTER,
): Promise<Outcome> {
  server.enqueue({ kind: "long", deltas: Number.POSITIVE_INFINITY });
  const controller = new AbortController();
  const stream = streamForApi(api)(requestFor(server, api, controller.signal));
  const started = performance.now();
  let collected = started;
  let deltas = 0;
  let abortedAt: number | undefined;
  let deltasAtAbort = 0;
  for (;;) {
    const step = await stream.next();
    if (step.done) {
      assert.ok(abortedAt !== undefined, "the endless stream ended before the abort");
      return {
        result: step.value,
        deltasBefore: deltas,
        msAfterAbort: performance.now() - abortedAt,
      };
    }
    deltas += step.value.filter((event) => event.type === "content_delta").length;
    const now = performance.now();
    if (abortedAt === undefined && now - collected > 200) {
      fullGc();
      collected = now;
    }
    if (abortedAt === undefined && deltas >= abortAfter && now - started > streamForMs) {
      abortedAt = now;
      deltasAtAbort = deltas;
      setTimeout(() => controller.abort(), 0);
    }
    const after = deltas - deltasAtAbort;
    assert.ok(abortedAt === undefined || after < 20_000, `${after} deltas after the abort`);
  }
}

/**
 * The stream stopped soon after the abort: its deltas after it are bounded while reading (an
 * endless stream that kept going would pass 20,000), and the time is a generous deadline for a
 * busy machine, not a speed figure.
 */
async function assertStoppedAtOnce(
  outcome: Outcome,
  server: FakeLlmServer,
  abortAfter = ABORT_AFTER,
): Promise<void> {
  assert.equal(outcome.result.stopReason, "aborted");
  assert.ok(outcome.msAfterAbort < 15_000, `stopped ${outcome.msAfterAbort} ms after the abort`);
  const [block] = outcome.result.content;
  assert.equal(block?.type, "text");
  const text = block.type === "text" ? block.text : "";
  assert.ok(text.startsWith("line 0\nline 1\n"), "the partial answer is kept");
  assert.ok(text.includes(`line ${abortAfter - 1}\n`));
  // The connection is closed: the server stops producing (two equal counts 100 ms apart).
  const deadline = performance.now() + 30_000;
  for (let sent = -1; sent !== server.longDeltasSent;) {
    assert.ok(performance.now() < deadline, "the server is still streaming");
    sent = server.longDeltasSent;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs `body` with a `fetch` that ignores its signal (what Deno's does to a long body). */
async function withFetchIgnoringItsSignal(body: () => Promise<void>): Promise<void> {
  const realFetch = globalThis.fetch;
  globalThis.fetch = (input, init) => realFetch(input, { ...init, signal: null });
  try {
    await body();
  } finally {
    globalThis.fetch = realFetch;
  }
}

for (const api of APIS) {
  Deno.test(`${api}: an abort after ${ABORT_AFTER} streamed deltas stops the stream at once`, async () => {
    const server = await FakeLlmServer.start();
    try {
      const outcome = await abortLongStream(server, api);
      await assertStoppedAtOnce(outcome, server);
      assert.ok(outcome.deltasBefore >= ABORT_AFTER);
    } finally {
      await server.close();
    }
  });

  Deno.test(`${api}: the abort stops the body even when fetch no longer listens to it`, async () => {
    const server = await FakeLlmServer.start();
    try {
      await withFetchIgnoringItsSignal(async () => {
        const outcome = await abortLongStream(server, api, 0, SHORT_ABORT_AFTER);
        await assertStoppedAtOnce(outcome, server, SHORT_ABORT_AFTER);
      });
      // Sanitizers: the body was released, no timer is left.
    } finally {
      await server.close();
    }
  });
}
