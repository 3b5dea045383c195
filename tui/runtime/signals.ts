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
 * Stops this process (job control). SIGSTOP rather than SIGTSTP, because a
 * self-sent SIGTSTP can be dropped for orphaned process groups.
 *
 * @example
 * ```ts ignore
 * import { stopSelf } from "./signals.ts";
 * stopSelf(); // returns after the shell's `fg`
 * ```
 */
export function stopSelf(): void {
  Deno.kill(Deno.pid, "SIGSTOP");
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
