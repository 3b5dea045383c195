/**
 * Whether a program the tests need can run here, so that a test file can
 * skip (saying why) instead of failing where it is not installed.
 */

/**
 * Runs `program` with `args`, output discarded, and says whether it
 * succeeded; `false` when it is not on PATH. (Spawning a missing program
 * throws at once instead of rejecting, so a `.then(…, () => false)` on
 * `output()` does not catch it and the whole test file fails.)
 *
 * @example
 * ```ts ignore
 * const tmuxAvailable = await commandRuns("tmux", ["-V"]);
 * if (!tmuxAvailable) console.log("skipped: needs tmux on PATH (apt-get install -y tmux)");
 * ```
 *
 * @param program The program's name, looked up on PATH.
 * @param args Its arguments: a harmless run such as `--version`.
 * @returns Whether it ran and exited 0.
 */
export async function commandRuns(program: string, args: readonly string[]): Promise<boolean> {
  try {
    const out = await new Deno.Command(program, {
      args: [...args],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    return out.success;
  } catch {
    return false;
  }
}
