/**
 * Runs a reader script: a vendor SDK (pinned by bench's lock, not the
 * workspace's) reading from a fake server in a child process, told what to
 * read as JSON on stdin and answering as JSON on stdout.
 *
 * @module
 */
import { basename } from "node:path";

const BENCH_LOCK = new URL("../../bench/bench.lock", import.meta.url).pathname;

/**
 * Runs `reader` with `input` and returns what it printed, parsed.
 *
 * @param reader The script's path.
 * @param input What it reads from stdin.
 * @returns Its stdout as JSON.
 * @throws {Error} Naming the script and quoting its stderr when it fails.
 */
export async function runSdkReader<T>(reader: string, input: unknown): Promise<T> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--frozen=false", `--lock=${BENCH_LOCK}`, reader],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify(input)));
  await writer.close();
  const out = await child.output();
  const stderr = new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`${basename(reader)} failed (exit ${out.code}): ${stderr}`);
  return JSON.parse(new TextDecoder().decode(out.stdout)) as T;
}
