/**
 * Whether processes are gone, read from `/proc` (Linux): the MCP stop tests
 * need it to see that nothing of a server is left.
 *
 * @module
 */

/** Whether `/proc` can tell (Linux); the tests that need it are skipped elsewhere. */
export const HAS_PROC: boolean = await Deno.stat("/proc/self/stat").then(() => true, () => false);

/**
 * True when the process no longer runs: absent, or a zombie nobody reaped
 * (an orphan waits for init, which in some containers never comes).
 *
 * @param pid The process.
 * @returns Whether it is gone.
 *
 * @example
 * ```ts ignore
 * import { isGone } from "./processes.ts";
 * console.assert(!await isGone(Deno.pid));
 * ```
 */
export async function isGone(pid: number): Promise<boolean> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/**
 * Waits until `pid` is gone ({@linkcode isGone}); throws after `ms`.
 *
 * @param pid The process.
 * @param what What it is, for the error.
 * @param ms The longest wait.
 *
 * @example
 * ```ts ignore
 * import { waitUntilGone } from "./processes.ts";
 * await waitUntilGone(1234, "the server");
 * ```
 */
export async function waitUntilGone(pid: number, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!await isGone(pid)) {
    if (Date.now() > deadline) throw new Error(`${what} (pid ${pid}) is still running`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The pid written to `path`, or `undefined` while it is missing or empty.
 *
 * @param path The pid file.
 * @returns The pid.
 *
 * @example
 * ```ts ignore
 * import { readPid } from "./processes.ts";
 * console.log(await readPid("/tmp/server.pid"));
 * ```
 */
export async function readPid(path: string): Promise<number | undefined> {
  const text = await Deno.readTextFile(path).catch(() => "");
  return text.trim() ? Number(text.trim()) : undefined;
}
