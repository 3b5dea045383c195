import assert from "node:assert/strict";
import { formatDuration } from "../../../tui/components/format_duration.ts";
import { Loader } from "../../../tui/components/loader.ts";
import { assertFits, PLAIN } from "./helpers.ts";

Deno.test("loader: tick advances the spinner and elapsed time from the injected clock", () => {
  let now = 1_000;
  const loader = new Loader({ theme: PLAIN, now: () => now, message: "Thinking…" });
  assert.equal(loader.render(80)[0], "⠋ Thinking… 0s · esc to cancel");
  assert.equal(loader.firstLineChanged(), null);
  now = 66_000;
  loader.tick();
  assert.equal(loader.firstLineChanged(), 0);
  assert.equal(loader.render(80)[0], "⠙ Thinking… 1m 05s · esc to cancel");
  assertFits(loader.render(10), 10);
  const quiet = new Loader({ theme: PLAIN, now: () => 0, cancelHint: false });
  assert.equal(quiet.render(80)[0], "⠋ Working… 0s");
});

Deno.test("loader: start ticks through requestRender; stop leaves no timer", async () => {
  let renders = 0;
  const loader = new Loader({ theme: PLAIN, intervalMs: 5, requestRender: () => renders++ });
  loader.start();
  loader.start(); // a second start is a no-op, not a second timer
  assert.ok(loader.running);
  await new Promise((resolve) => setTimeout(resolve, 40));
  loader.stop();
  loader.stop();
  assert.ok(!loader.running);
  assert.ok(renders >= 2, `rendered ${renders} times`);
  const after = renders;
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(renders, after, "no ticks after stop");
  {
    using disposable = new Loader({ theme: PLAIN, intervalMs: 5 });
    disposable.start();
  } // disposed here; the op sanitizer fails the test if the interval leaked
});

Deno.test("format: durations", () => {
  assert.deepEqual([0, 7_900, 65_000, 7_380_000].map(formatDuration), [
    "0s",
    "7s",
    "1m 05s",
    "2h 03m",
  ]);
});
