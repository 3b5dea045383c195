/**
 * The request guard's idle timeout counts only the current wait, from its
 * start, although one timer serves the whole stream.
 */
import assert from "node:assert/strict";
import { RequestGuard } from "../../../lib/providers/request_guard.ts";

const IDLE_MS = 200;

function after<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms));
}

Deno.test("RequestGuard: a wait begun late in the timer's period still gets the whole idle timeout", async () => {
  const guard = new RequestGuard(new AbortController().signal, IDLE_MS);
  try {
    assert.equal(await guard.wait(Promise.resolve("first")), "first");
    // The consumer's time: the stream's timer runs on, but nothing is awaited.
    await after(150, undefined);
    // The timer comes due 50 ms into this wait, which lasts 120 ms: under the timeout.
    assert.equal(await guard.wait(after(120, "second")), "second");
    assert.deepEqual([guard.timedOut, guard.stopped], [false, false]);
  } finally {
    guard.dispose();
  }
});

Deno.test("RequestGuard: a wait that lasts the idle timeout stops the request, counted from its start", async () => {
  const guard = new RequestGuard(new AbortController().signal, IDLE_MS);
  try {
    await guard.wait(Promise.resolve());
    await after(150, undefined);
    const started = performance.now();
    await assert.rejects(guard.wait(new Promise(() => {})), { name: "AbortError" });
    const waited = performance.now() - started;
    assert.ok(waited >= IDLE_MS - 5, `stopped after ${waited.toFixed(0)} ms, before the timeout`);
    assert.deepEqual([guard.timedOut, guard.stopped, guard.signal.aborted], [true, true, true]);
  } finally {
    guard.dispose();
  }
});

Deno.test("RequestGuard: the caller's abort stops a wait at once, without a timeout", async () => {
  const caller = new AbortController();
  const guard = new RequestGuard(caller.signal, IDLE_MS);
  try {
    const waiting = guard.wait(new Promise(() => {}));
    caller.abort();
    await assert.rejects(waiting, { name: "AbortError" });
    assert.deepEqual([guard.timedOut, guard.stopped], [false, true]);
  } finally {
    guard.dispose();
  }
});
