/**
 * collectGarbageSoon: one full collection a moment after the last call
 * (calls in between move it), with V8's `gc` when the launcher exposed it,
 * nothing without, and nothing when the resident memory did not grow much
 * since.
 */
import assert from "node:assert/strict";
import { collectGarbageSoon } from "../../../cli/chat/idle_gc.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const holder = globalThis as { gc?: unknown };

/** Waits until `condition` holds; the deadline is generous for a busy machine. */
async function until(condition: () => boolean): Promise<void> {
  const deadline = performance.now() + 30_000;
  while (!condition()) {
    assert.ok(performance.now() < deadline, "timed out");
    await sleep(20);
  }
}

Deno.test("collectGarbageSoon: calls close together make one last-resort collection, after them", async () => {
  // The process made no collection yet: all of its memory grew since, worth one.
  const calls: unknown[] = [];
  const exposed = holder.gc;
  // A resident figure of the test's own: the process's moves with the other tests in it.
  let resident = 500 * 1024 * 1024;
  const residentBytes = () => resident;
  holder.gc = (options: unknown) => calls.push(options);
  try {
    collectGarbageSoon(residentBytes);
    collectGarbageSoon(residentBytes);
    assert.equal(calls.length, 0, "not at once: the burst's last frames go first");
    await until(() => calls.length > 0);
    await sleep(400);
    assert.deepEqual(calls, [{ type: "major", execution: "sync", flavor: "last-resort" }]);
    // Right after a collection the memory has not grown: a short turn costs no collection.
    resident += 1024 * 1024;
    collectGarbageSoon(residentBytes);
    await sleep(600);
    assert.equal(calls.length, 1);
    // Grown by more than the threshold: worth one more.
    resident += 8 * 1024 * 1024;
    collectGarbageSoon(residentBytes);
    await until(() => calls.length === 2);
  } finally {
    holder.gc = exposed;
  }
});

Deno.test("collectGarbageSoon: without an exposed gc it does nothing", () => {
  const exposed = holder.gc;
  delete holder.gc;
  try {
    collectGarbageSoon(); // no timer left behind: the op sanitizer would fail the test
  } finally {
    holder.gc = exposed;
  }
});
