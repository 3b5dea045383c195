/**
 * The README's test command: runs the whole suite with `deno test` (its
 * output passed through as it comes) and ends with what it did — one line
 * `N passed, N failed, N skipped`, the skips' reasons beside it, and above
 * it the command that reruns each failed file. With `--slow` it also lists
 * the slowest tests and files, so growth is visible.
 *
 * Run: `deno task test` (or `deno task test:slow`); any other arguments
 * (files, `--filter`) go to `deno test` in place of the whole tree.
 *
 * @module
 */
import { parseTestLine, type SuiteTally, summaryLine, tallySuite } from "./support/suite_tally.ts";

/** The tests; the packages' doc examples run in `tests/doc_examples_test.ts`, all in one process. */
const DEFAULT_TARGETS = ["tests/"];
const SLOWEST = 20;

async function main(args: string[]): Promise<number> {
  const slow = args.includes("--slow");
  const rest = args.filter((arg) => arg !== "--slow");
  const targets = rest.some((arg) => !arg.startsWith("-")) ? rest : [...rest, ...DEFAULT_TARGETS];
  const child = new Deno.Command(Deno.execPath(), {
    args: ["test", "--allow-all", "--parallel", ...targets],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", DENO_JOBS: Deno.env.get("DENO_JOBS") ?? String(jobs()) },
  }).spawn();
  const tally = tallySuite();
  await Promise.all([
    relay(child.stdout, Deno.stdout, tally),
    relay(child.stderr, Deno.stderr, tally),
  ]);
  const { code } = await child.status;
  if (slow) printSlowest(tally);
  for (const file of tally.failedFiles) console.log(`rerun: deno test --allow-all ${file}`);
  console.log(summaryLine(tally, code));
  return code === 0 && tally.failed === 0 ? 0 : 1;
}

/**
 * Test files at once: twice the cores, because many files spend most of their time waiting on a
 * terminal, a server or a child process rather than computing (measured on 2 cores: 5m42s with 2
 * at once, 4m28s with 4).
 */
function jobs(): number {
  return 2 * navigator.hardwareConcurrency;
}

/** Copies a stream to `out` as it comes while feeding its lines to the tally. */
async function relay(
  stream: ReadableStream<Uint8Array>,
  out: { write(bytes: Uint8Array): Promise<number> },
  tally: SuiteTally,
): Promise<void> {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of stream) {
    await writeAll(out, chunk);
    pending += decoder.decode(chunk, { stream: true });
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) parseTestLine(tally, line);
  }
  if (pending) parseTestLine(tally, pending);
}

async function writeAll(
  out: { write(bytes: Uint8Array): Promise<number> },
  bytes: Uint8Array,
): Promise<void> {
  for (let done = 0; done < bytes.length;) done += await out.write(bytes.subarray(done));
}

function printSlowest(tally: SuiteTally): void {
  const tests = [...tally.durations].sort((a, b) => b.ms - a.ms).slice(0, SLOWEST);
  console.log(`\nslowest ${tests.length} tests:`);
  for (const test of tests) console.log(`${seconds(test.ms)}  ${test.file} => ${test.name}`);
  const byFile = new Map<string, number>();
  for (const test of tally.durations) {
    byFile.set(test.file, (byFile.get(test.file) ?? 0) + test.ms);
  }
  const files = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST);
  console.log(`\nslowest ${files.length} files (their tests' time added up):`);
  for (const [file, ms] of files) console.log(`${seconds(ms)}  ${file}`);
  console.log();
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1).padStart(6)} s`;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
