/**
 * The signals that interrupt panto (ctrl+c, `kill`, a closed terminal) and
 * the exit codes they end it with.
 *
 * @module
 */

/** Exit code per interrupting signal: 128 + the signal's number, as a shell reports a kill. */
const EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

/** A signal that interrupts panto. */
export type InterruptSignal = keyof typeof EXIT_CODES;

/** Exit code of a run stopped without a signal (the user's abort key): as for SIGINT. */
const ABORTED_EXIT_CODE = EXIT_CODES.SIGINT;

/** Exit code when standard output was closed by its reader (128 + SIGPIPE, as for `yes | head -1`). */
export const BROKEN_PIPE_EXIT_CODE = 141;

/**
 * Calls `onSignal` for each SIGINT, SIGTERM and SIGHUP (only SIGINT on
 * Windows, which has no others) until the returned function is called.
 * While listened to, these signals no longer end the process by
 * themselves: `onSignal` decides.
 *
 * @param onSignal Called with the signal's name.
 * @returns Stops listening.
 */
export function listenForInterrupts(onSignal: (signal: InterruptSignal) => void): () => void {
  const signals: InterruptSignal[] = Deno.build.os === "windows"
    ? ["SIGINT"]
    : ["SIGINT", "SIGTERM", "SIGHUP"];
  const listeners = signals.map((signal) => [signal, () => onSignal(signal)] as const);
  for (const [signal, listener] of listeners) Deno.addSignalListener(signal, listener);
  return () => {
    for (const [signal, listener] of listeners) Deno.removeSignalListener(signal, listener);
  };
}

/**
 * The exit code for a run stopped by `reason`: 128 + the signal's number
 * when the reason is an interrupting signal's name, else that of SIGINT.
 *
 * @param reason The abort reason (a signal's name, when a signal aborted).
 * @returns The exit code.
 */
export function interruptExitCode(reason: unknown): number {
  return typeof reason === "string" && Object.hasOwn(EXIT_CODES, reason)
    ? EXIT_CODES[reason as InterruptSignal]
    : ABORTED_EXIT_CODE;
}
