import assert from "node:assert/strict";
import { durationMs, parseTestLine, summaryLine, tallySuite } from "./support/suite_tally.ts";

function tallyOf(output: string) {
  const tally = tallySuite();
  for (const line of output.split("\n")) parseTestLine(tally, line);
  return tally;
}

Deno.test("suite tally: a parallel run's results, failures, skips and summary", () => {
  const tally = tallyOf([
    "./tests/a_test.ts => first ... ok (12ms)",
    "skipped: needs tmux on PATH (apt-get install -y tmux)",
    "./tests/b_test.ts => second ... FAILED (1s)",
    "./tests/c_test.ts => third ... ignored (0ms)",
    "./tests/c_test.ts => fourth ... ignored (0ms)",
    "skipped: needs tmux on PATH (apt-get install -y tmux)",
    " ERRORS ",
    "second => ./tests/b_test.ts:10:6",
    "error: AssertionError",
    " FAILURES ",
    "second => ./tests/b_test.ts:10:6",
    "FAILED | 1 passed | 1 failed | 2 ignored (3s)",
  ].join("\n"));
  assert.deepEqual(tally.durations.map((d) => [d.file, d.ms]), [
    ["./tests/a_test.ts", 12],
    ["./tests/b_test.ts", 1000],
    ["./tests/c_test.ts", 0],
    ["./tests/c_test.ts", 0],
  ]);
  assert.deepEqual(tally.failedFiles, ["./tests/b_test.ts"]);
  assert.equal(
    summaryLine(tally, 1),
    "1 passed, 1 failed, 2 skipped (needs tmux on PATH (apt-get install -y tmux) (2x))",
  );
});

Deno.test("suite tally: a test declared in a shared module is rerun through the file that ran it", () => {
  const tally = tallyOf([
    "./tests/lib/session/sqlite_store_test.ts => SQLiteStore conformance ... keeps order ... FAILED (178ms)",
    "./tests/lib/session/sqlite_store_test.ts => SQLiteStore conformance ... FAILED (due to 1 failed step) (6s)",
    " ERRORS ",
    "SQLiteStore conformance ... keeps order => ./tests/lib/session/conformance.ts:46:13",
    " FAILURES ",
    "SQLiteStore conformance ... keeps order => ./tests/lib/session/conformance.ts:46:13",
    "FAILED | 0 passed | 1 failed (6s)",
  ].join("\n"));
  assert.deepEqual(tally.failedFiles, ["./tests/lib/session/sqlite_store_test.ts"]);
});

Deno.test("suite tally: a one-file run names the file above its tests; steps are not tests", () => {
  const tally = tallyOf([
    "running 2 tests from ./tests/one_test.ts",
    "outer ...",
    "  inner ... ok (5ms)",
    "outer ... ok (7ms)",
    "ok | 1 passed (1 step) | 0 failed (9ms)",
  ].join("\n"));
  assert.deepEqual(tally.durations, [{ file: "./tests/one_test.ts", name: "outer", ms: 7 }]);
  assert.equal(summaryLine(tally, 0), "1 passed, 0 failed, 0 skipped");
});

Deno.test("suite tally: a run that stops before its summary is a failure that says so", () => {
  const tally = tallyOf("error: Type checking failed.");
  assert.match(
    summaryLine(tally, 1),
    /^0 passed, 1 failed, 0 skipped \(deno test stopped with code 1/,
  );
  const skippedSilently = tallyOf("ok | 3 passed | 0 failed | 1 ignored (1s)");
  assert.equal(
    summaryLine(skippedSilently, 0),
    "3 passed, 0 failed, 1 skipped (no reason printed)",
  );
});

Deno.test("suite tally: deno's times in every unit", () => {
  assert.equal(durationMs("610µs"), 0.61);
  assert.equal(durationMs("12ms"), 12);
  assert.equal(durationMs("3s"), 3000);
  assert.equal(durationMs("1m 5s"), 65_000);
  assert.equal(durationMs("soon"), undefined);
});
