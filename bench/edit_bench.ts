/**
 * The edit tool on big files, the figures `tests/lib/tools/edit_test.ts`
 * used to assert as time bounds (which failed on a busy machine): a
 * `replaceAll` on every line of a 50,000-line file (it took minutes when
 * the whole file was diffed), two misses in a 9 MB file (the
 * whitespace-blind hint took a minute at 1 MB), and how soon an abort stops
 * a `replaceAll` on 400,000 lines once the diff has begun. Each run checks
 * its result, so a run that did less would fail, not look fast. panto only:
 * pi's edit has no `replaceAll` nor a whitespace-blind hint to set beside
 * these. Targets: under 1 s for each edit, and stopped within 100 ms of the
 * abort, on the 2-core development machine.
 *
 * Run: `deno run -A --lock=bench/bench.lock bench/edit_bench.ts`. Knob:
 * `BENCH_EDIT_RUNS` (runs of each row, 5).
 *
 * @module
 */
import { editTool } from "../lib/tools/edit.ts";
import { abortAfter } from "../tests/support/timed_abort.ts";
import { knob, loadAverage, median } from "./cli_harness.ts";

const RUNS = knob("BENCH_EDIT_RUNS", 5);

/** Runs the edit tool once; throws with its message when it failed. */
async function edit(root: string, args: Record<string, unknown>, signal?: AbortSignal) {
  const output = await editTool({ root }).execute(args, {
    signal: signal ?? new AbortController().signal,
    callId: "bench",
  });
  const parts = Array.isArray(output) ? output : output.parts;
  return parts.map((part) => part.type === "text" ? part.text : "").join("");
}

/** Milliseconds `fn` takes. */
async function timed(fn: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

async function replaceAllRun(root: string): Promise<number> {
  const lines = Array.from({ length: 50_000 }, (_, i) => `line ${i} foo\n`).join("");
  await Deno.writeTextFile(`${root}/big.txt`, lines);
  return await timed(async () => {
    const text = await edit(root, {
      path: "big.txt",
      oldText: "foo",
      newText: "bar",
      replaceAll: true,
    });
    if (!text.startsWith("Edited big.txt: replaced 50000")) throw new Error(text);
  });
}

async function missesRun(root: string): Promise<number> {
  await Deno.writeTextFile(`${root}/big.txt`, "word  and\tmore words here\n".repeat(350_000));
  return await timed(async () => {
    for (const oldText of ["nothing like it", "words here\nword and more"]) {
      const text = await edit(root, { path: "big.txt", oldText, newText: "x" }).then(
        () => "",
        (error: Error) => error.message,
      );
      if (!text.startsWith("oldText was not found")) throw new Error(`not a miss: ${text}`);
    }
  });
}

/** From the abort (sent once the file has had time to be read) to the tool's return. */
async function abortRun(root: string): Promise<number> {
  const content = Array.from({ length: 400_000 }, (_, i) => `${i} foo\n`).join("");
  await Deno.writeTextFile(`${root}/big.txt`, content);
  const abort = abortAfter(100, new Error("stopped"));
  const args = { path: "big.txt", oldText: "foo", newText: "bar", replaceAll: true };
  const outcome = await edit(root, args, abort.signal).then(() => "finished", () => "stopped");
  if (outcome !== "stopped") throw new Error("the edit finished before the abort");
  return performance.now() - abort.firedAt();
}

const root = await Deno.makeTempDir({ prefix: "panto_edit_bench_" });
try {
  console.log(`edit tool, median of ${RUNS} runs (load average ${await loadAverage()})`);
  const rows: [string, (root: string) => Promise<number>][] = [
    ["replaceAll on 50,000 lines", replaceAllRun],
    ["two misses in a 9 MB file", missesRun],
    ["abort to stop, 400,000 lines", abortRun],
  ];
  for (const [name, run] of rows) {
    const samples: number[] = [];
    for (let i = 0; i < RUNS; i++) samples.push(await run(root));
    console.log(`${name.padEnd(30)} ${median(samples).toFixed(0).padStart(6)} ms`);
  }
} finally {
  await Deno.remove(root, { recursive: true });
}
