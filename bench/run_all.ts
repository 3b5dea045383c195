/**
 * Runs every `*_bench.ts` in this directory, one after another, each as its
 * own `deno run -A --lock=bench/bench.lock` subprocess (so no bench inherits another's caches or
 * heap). Prints a header per bench, keeps going past failures, and exits 1
 * if any bench failed.
 *
 * Run: `deno task bench` (or `deno run -A --lock=bench/bench.lock bench/run_all.ts [NAME…]`, where
 * each NAME keeps only the benches whose file name contains it, e.g. `cli`).
 *
 * @module
 */
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));

/** The bench files to run, by name, filtered by the command-line words. */
async function benchFiles(filters: readonly string[]): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(BENCH_DIR)) {
    if (entry.isFile && entry.name.endsWith("_bench.ts")) names.push(entry.name);
  }
  return names
    .filter((name) => filters.length === 0 || filters.some((word) => name.includes(word)))
    .sort();
}

/** Runs one bench with inherited output; returns whether it succeeded, and how long it took. */
async function runBench(name: string): Promise<{ success: boolean; seconds: number }> {
  const start = performance.now();
  const status = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--frozen=false",
      `--lock=${join(BENCH_DIR, "bench.lock")}`,
      join(BENCH_DIR, name),
    ],
    cwd: dirname(BENCH_DIR),
    stdin: "null",
  }).spawn().status;
  return { success: status.success, seconds: (performance.now() - start) / 1000 };
}

async function main(filters: readonly string[]): Promise<number> {
  const names = await benchFiles(filters);
  if (names.length === 0) {
    console.error(`no bench file in ${BENCH_DIR} matches ${JSON.stringify(filters)}`);
    return 1;
  }
  const failed: string[] = [];
  for (const name of names) {
    console.log(`\n=== ${basename(name, ".ts")} ${"=".repeat(Math.max(3, 70 - name.length))}`);
    const { success, seconds } = await runBench(name).catch((error) => {
      console.error(`could not start ${name}: ${error}`);
      return { success: false, seconds: 0 };
    });
    console.log(`--- ${name}: ${success ? "ok" : "FAILED"} in ${seconds.toFixed(1)} s`);
    if (!success) failed.push(name);
  }
  console.log(
    failed.length === 0
      ? `\nall ${names.length} benches ran`
      : `\n${failed.length} of ${names.length} benches failed: ${failed.join(", ")}`,
  );
  return failed.length === 0 ? 0 : 1;
}

Deno.exit(await main(Deno.args));
