/** Retry policy (backoff, jitter, caps, retry-after) and the abortable sleep. */
import assert from "node:assert/strict";
import { ProviderError, type ProviderErrorKind } from "../../../lib/errors.ts";
import { isAbortError } from "../../../lib/providers/http.ts";
import { retryDelayMs, sleep } from "../../../lib/providers/retry.ts";

const MIDDLE = () => 0.5; // no jitter
const overloaded = (retryAfterMs?: number) =>
  new ProviderError("overloaded", "busy", retryAfterMs === undefined ? {} : { retryAfterMs });

Deno.test("retryDelayMs: non-retryable kinds are never retried", () => {
  const kinds: ProviderErrorKind[] = ["auth", "context_overflow", "invalid_request", "stream"];
  for (const kind of kinds) {
    assert.equal(retryDelayMs(1, undefined, new ProviderError(kind, "no")), null, kind);
  }
  const retryable: ProviderErrorKind[] = [
    "rate_limit",
    "overloaded",
    "server",
    "network",
    "timeout",
  ];
  for (const kind of retryable) {
    assert.notEqual(retryDelayMs(1, undefined, new ProviderError(kind, "yes")), null, kind);
  }
});

Deno.test("retryDelayMs: doubles from 1 s by default, four retries", () => {
  const delays = [1, 2, 3, 4, 5].map((attempt) =>
    retryDelayMs(attempt, undefined, overloaded(), MIDDLE)
  );
  assert.deepEqual(delays, [1000, 2000, 4000, 8000, null]);
});

Deno.test("retryDelayMs: config sets the base, the cap and the number of retries", () => {
  const config = { baseDelayMs: 100, maxDelayMs: 500, maxRetries: 6 };
  const delays = [1, 2, 3, 4, 5, 6, 7].map((attempt) =>
    retryDelayMs(attempt, config, overloaded(), MIDDLE)
  );
  assert.deepEqual(delays, [100, 200, 400, 500, 500, 500, null]);
  assert.equal(retryDelayMs(1, { maxRetries: 0 }, overloaded(), MIDDLE), null);
  assert.equal(retryDelayMs(0, undefined, overloaded(), MIDDLE), null);
});

Deno.test("retryDelayMs: jitter stays within ±20 % and varies", () => {
  assert.equal(retryDelayMs(2, undefined, overloaded(), () => 0), 1600);
  assert.equal(retryDelayMs(2, undefined, overloaded(), () => 0.999999), 2400);
  const samples = new Set<number>();
  for (let i = 0; i < 200; i++) {
    const delay = retryDelayMs(3, undefined, overloaded())!;
    assert.ok(delay >= 3200 && delay <= 4800, String(delay));
    samples.add(delay);
  }
  assert.ok(samples.size > 20, "Math.random jitter gives different delays");
});

Deno.test("retryDelayMs: honours retry-after exactly, up to the cap", () => {
  assert.equal(retryDelayMs(1, undefined, overloaded(1500), MIDDLE), 1500);
  assert.equal(retryDelayMs(3, undefined, overloaded(0), MIDDLE), 0);
  assert.equal(retryDelayMs(1, undefined, overloaded(60_000), MIDDLE), 60_000);
  // An hour-long retry-after is not slept through: the caller fails with the server's message.
  assert.equal(retryDelayMs(1, undefined, overloaded(3_600_000), MIDDLE), null);
  assert.equal(retryDelayMs(1, { maxDelayMs: 1000 }, overloaded(1001), MIDDLE), null);
  assert.equal(retryDelayMs(5, undefined, overloaded(10), MIDDLE), null, "attempts still count");
});

Deno.test("sleep: resolves after the delay", async () => {
  const start = performance.now();
  await sleep(50, new AbortController().signal);
  assert.ok(performance.now() - start >= 45);
});

Deno.test("sleep: an aborted signal rejects at once with an abort error", async () => {
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(sleep(10_000, controller.signal), (error) => isAbortError(error));
});

Deno.test("sleep: aborting mid-wait rejects promptly and clears the timer", async () => {
  const controller = new AbortController();
  const start = performance.now();
  const waiting = sleep(120_000, controller.signal);
  setTimeout(() => controller.abort("stop"), 20);
  await assert.rejects(
    waiting,
    (error) => isAbortError(error) && (error as Error).cause === "stop",
  );
  // Generous for a busy machine, and long before the sleep would end.
  assert.ok(performance.now() - start < 60_000, "rejected before the sleep ended");
  // A timer left behind would fail this test under the op sanitizer.
});
