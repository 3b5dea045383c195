/**
 * Process signals and job control, hiding `Deno.addSignalListener`,
 * `Deno.kill` and `Deno.exit`.
 *
 * @module
 */

/** A signal the terminal layer listens to. */
export type TerminalSignal = "SIGWINCH" | "SIGCONT" | "SIGTERM" | "SIGHUP" | "SIGINT";

/** Conventional numbers, for the `128 + n` exit status after a fatal signal. */
export const SIGNAL_NUMBERS: Readonly<Record<TerminalSignal, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGTERM: 15,
  SIGCONT: 18,
  SIGWINCH: 28,
};

/**
 * Listens to `signal`; returns a function that removes the listener. Note
 * that a listener replaces the signal's default action.
 *
 * @example
 * ```ts ignore
 * import { onSignal } from "./signals.ts";
 * const off = onSignal("SIGWINCH", () => console.log("resized"));
 * off();
 * ```
 */
export function onSignal(signal: TerminalSignal, handler: () => void): () => void {
  Deno.addSignalListener(signal, handler);
  return () => Deno.removeSignalListener(signal, handler);
}

/**
 * Stops this process's whole job (ctrl+z) until the shell's `fg`; returns
 * `false`, doing nothing, when there is no job control to resume it.
 *
 * The whole process group, because under `deno task` the task runner is
 * in our group: stopped alone, we leave it running, the shell keeps waiting
 * for it and never prints its prompt. SIGSTOP, because `deno task` catches
 * SIGTSTP (and the kernel drops SIGTSTP for orphaned groups).
 *
 * @example
 * ```ts ignore
 * import { stopJob } from "./signals.ts";
 * stopJob(); // returns after the shell's `fg`
 * ```
 */
export function stopJob(): boolean {
  if (!hasJobControl()) return false;
  Deno.kill(0, "SIGSTOP");
  return true;
}

/**
 * Whether a job-control shell put us in a job: our process group is not
 * the session's own. When it is (e.g. `sh -c` as a session leader), no one
 * could send SIGCONT and a stop would hang for good. Asked of /proc or of
 * `ps`, whichever we may use without a permission prompt; when neither
 * can tell, assume a shell.
 */
function hasJobControl(): boolean {
  const ids = processGroupAndSession();
  return ids === null || ids.group !== ids.session;
}

function processGroupAndSession(): { group: string; session: string } | null {
  const stat = "/proc/self/stat";
  try {
    if (Deno.permissions.querySync({ name: "read", path: stat }).state === "granted") {
      const text = Deno.readTextFileSync(stat);
      // After "pid (name) ": state, ppid, pgrp, session.
      const [, , group, session] = text.slice(text.lastIndexOf(")") + 2).split(" ");
      if (group !== undefined && session !== undefined) return { group, session };
    }
    if (Deno.permissions.querySync({ name: "run", command: "ps" }).state === "granted") {
      const { stdout } = new Deno.Command("ps", {
        args: ["-o", "pgid=,sess=", "-p", String(Deno.pid)],
        stderr: "null",
      }).outputSync();
      const [group, session] = new TextDecoder().decode(stdout).trim().split(/\s+/);
      if (group && session) return { group, session };
    }
  } catch {
    // No /proc, no ps: cannot tell.
  }
  return null;
}

/**
 * Exits the process with `code`.
 *
 * @example
 * ```ts ignore
 * import { exitProcess } from "./signals.ts";
 * exitProcess(143);
 * ```
 */
export function exitProcess(code: number): never {
  Deno.exit(code);
}

/**
 * Calls `handler` on an uncaught error or unhandled rejection (without
 * swallowing it: Deno still reports it and exits). Returns a remover.
 *
 * @example
 * ```ts ignore
 * import { onFatalError } from "./signals.ts";
 * const off = onFatalError(() => console.log("restoring the terminal"));
 * off();
 * ```
 */
export function onFatalError(handler: () => void): () => void {
  globalThis.addEventListener("error", handler);
  globalThis.addEventListener("unhandledrejection", handler);
  return () => {
    globalThis.removeEventListener("error", handler);
    globalThis.removeEventListener("unhandledrejection", handler);
  };
}
