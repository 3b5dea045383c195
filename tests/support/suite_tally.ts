/**
 * Reads `deno test`'s plain output (no colours) line by line and keeps what
 * the suite runner reports at the end: each test's result and time, the
 * files that failed, `deno test`'s own summary, and the reasons tests gave
 * for skipping (they print `skipped: <why>`).
 *
 * @module
 */

/** One test's time. */
export interface TestDuration {
  /** Its file, as `deno test` names it (`./tests/x_test.ts`). */
  file: string;
  /** Its name. */
  name: string;
  /** How long it ran, in milliseconds. */
  ms: number;
}

/** What has been read so far. */
export interface SuiteTally {
  /** Each finished test's time. */
  durations: TestDuration[];
  /** Files with a failed test, in the order their failures were reported. */
  failedFiles: string[];
  /** `deno test`'s summary counts, once it printed them. */
  passed: number;
  /** Failed tests. */
  failed: number;
  /** Ignored (skipped) tests. */
  ignored: number;
  /** Whether the summary line was seen. */
  finished: boolean;
  /** Why tests skipped, and how many said so. */
  skipReasons: Map<string, number>;
  /** The file whose block is being read (one-file runs name it above its tests). */
  currentFile: string;
}

/**
 * An empty tally.
 *
 * @returns The tally.
 */
export function tallySuite(): SuiteTally {
  return {
    durations: [],
    failedFiles: [],
    passed: 0,
    failed: 0,
    ignored: 0,
    finished: false,
    skipReasons: new Map(),
    currentFile: "",
  };
}

const RUNNING = /^running \d+ tests? from (\S+)/;
const RESULT =
  /^(?:(\S+\.[cm]?[jt]sx?(?:\$[\d-]+\.[jt]sx?)?) => )?(.+) \.\.\. (ok|FAILED|ignored) \(([^)]+)\)$/;
const FAILURE = / => (\S+?):\d+:\d+$/;
const SUMMARY = /^(ok|FAILED) \| (\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed/;
const IGNORED = /\| (\d+) ignored/;
const SKIPPED = /(?:^|\s)skipped: (.+)$/;

/**
 * Takes one output line into the tally.
 *
 * @param tally The tally, updated.
 * @param line One line, without its line break.
 */
export function parseTestLine(tally: SuiteTally, line: string): void {
  const text = line.replace(/\r$/, "");
  const running = RUNNING.exec(text);
  if (running) {
    tally.currentFile = running[1]!;
    return;
  }
  const summary = SUMMARY.exec(text);
  if (summary) {
    tally.passed = Number(summary[2]);
    tally.failed = Number(summary[3]);
    tally.ignored = Number(IGNORED.exec(text)?.[1] ?? 0);
    tally.finished = true;
    return;
  }
  const result = RESULT.exec(text);
  // Steps are indented (after the file's name, in a parallel run): their parents are the tests.
  if (result && !text.startsWith(" ") && !result[2]!.startsWith(" ")) {
    const ms = durationMs(result[4]!);
    const file = result[1] ?? tally.currentFile;
    if (ms !== undefined) tally.durations.push({ file, name: result[2]!, ms });
    if (result[3] === "FAILED") addFailedFile(tally, file);
    return;
  }
  // A failure's location names where the test was declared, which may be a shared helper module:
  // only a file that ran tests is one to rerun.
  const failure = FAILURE.exec(text);
  if (failure && tally.durations.some((test) => test.file === failure[1])) {
    addFailedFile(tally, failure[1]!);
  }
  const skipped = SKIPPED.exec(text);
  if (skipped) {
    const reason = skipped[1]!.trim();
    tally.skipReasons.set(reason, (tally.skipReasons.get(reason) ?? 0) + 1);
  }
}

function addFailedFile(tally: SuiteTally, file: string): void {
  if (file && !tally.failedFiles.includes(file)) tally.failedFiles.push(file);
}

/**
 * `deno test`'s time as milliseconds: `610µs`, `12ms`, `3s`, `1m 5s`.
 *
 * @param text The time as printed.
 * @returns Milliseconds, or `undefined` when it is not a time.
 */
export function durationMs(text: string): number | undefined {
  let total = 0;
  let matched = false;
  for (const part of text.trim().split(/\s+/)) {
    const found = /^([\d.]+)(µs|ms|s|m|h)$/.exec(part);
    if (!found) return undefined;
    const unit = { µs: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[found[2]!]!;
    total += Number(found[1]) * unit;
    matched = true;
  }
  return matched ? total : undefined;
}

/**
 * The runner's last line: `N passed, N failed, N skipped` and why they
 * skipped; a run that ended before `deno test`'s summary (a type error, a
 * crash) counts as failed and says so.
 *
 * @param tally What was read.
 * @param exitCode `deno test`'s exit code.
 * @returns The line.
 */
export function summaryLine(tally: SuiteTally, exitCode: number): string {
  if (!tally.finished) {
    return `${tally.passed} passed, 1 failed, 0 skipped (deno test stopped with code ${exitCode} before its summary: see above)`;
  }
  const failed = exitCode !== 0 && tally.failed === 0 ? 1 : tally.failed;
  const reasons = [...tally.skipReasons].map(([reason, count]) =>
    count > 1 ? `${reason} (${count}x)` : reason
  );
  const why = tally.ignored > 0
    ? ` (${reasons.length > 0 ? reasons.join("; ") : "no reason printed"})`
    : "";
  return `${tally.passed} passed, ${failed} failed, ${tally.ignored} skipped${why}`;
}
