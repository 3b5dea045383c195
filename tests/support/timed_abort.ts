/**
 * An abort sent later, remembering when: for measuring how soon work stops
 * after its signal fires.
 *
 * @module
 */

/** A signal that fires after a delay, and when it fired. */
export interface TimedAbort {
  signal: AbortSignal;
  /** When it fired (`performance.now()`), 0 before. */
  firedAt(): number;
}

/**
 * Aborts after `delayMs` with `reason`.
 *
 * @param delayMs The delay (0: once the event loop runs timers).
 * @param reason The abort's reason.
 * @returns The signal and when it fired.
 */
export function abortAfter(delayMs: number, reason: Error): TimedAbort {
  const controller = new AbortController();
  let firedAt = 0;
  setTimeout(() => {
    firedAt = performance.now();
    controller.abort(reason);
  }, delayMs);
  return { signal: controller.signal, firedAt: () => firedAt };
}
