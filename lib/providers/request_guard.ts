/**
 * Stops a streaming request at once when the caller aborts or the server
 * stays silent too long.
 *
 * @module
 */

/**
 * Ends a request from outside: the caller's abort, or the idle timeout of a
 * network wait. Aborting `fetch`'s signal is not enough: Deno's fetch ends
 * the body through the request's own signal, which follows ours only
 * through a weak reference; once the headers have arrived nothing else
 * keeps it, and after a full garbage collection the body streams on to its
 * end whatever was aborted. So a stop also cancels the body's reader and
 * makes the pending wait reject at once.
 */
export class RequestGuard {
  /** The signal to give `fetch`; aborted on a stop. */
  readonly signal: AbortSignal;
  /** Whether the idle timeout fired. */
  timedOut = false;
  readonly #controller = new AbortController();
  /**
   * How to reject each wait in progress. Not one promise raced against
   * every step: a never-settled promise keeps a reaction, and with it the
   * step's result (a body chunk), for each wait of the stream (a 10 MB
   * stream in 100-byte chunks held gigabytes).
   */
  readonly #waits = new Set<(error: unknown) => void>();
  readonly #caller: AbortSignal;
  readonly #idleTimeoutMs: number;
  readonly #onAbort = () => this.#stop();
  #reader: { cancel(): Promise<void> } | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the current wait began (`performance.now()`), or `undefined` between waits. */
  #waitingSince: number | undefined;

  /**
   * @param caller The caller's signal: its abort stops the request.
   * @param idleTimeoutMs How long one network wait may last (ms).
   */
  constructor(caller: AbortSignal, idleTimeoutMs: number) {
    this.signal = this.#controller.signal;
    this.#caller = caller;
    this.#idleTimeoutMs = idleTimeoutMs;
    caller.addEventListener("abort", this.#onAbort, { once: true });
  }

  /** Whether the request was stopped (caller abort or idle timeout). */
  get stopped(): boolean {
    return this.#controller.signal.aborted;
  }

  /**
   * Cancels `reader` when the request stops (at once if it has).
   *
   * @param reader The response body's reader.
   */
  watch(reader: { cancel(): Promise<void> }): void {
    this.#reader = reader;
    if (this.stopped) void reader.cancel().catch(() => {});
  }

  /**
   * Waits for a network step; rejects as soon as the request stops, and
   * stops it when the step takes longer than the idle timeout. Time spent
   * outside these waits (the consumer's) does not count.
   *
   * @param step The network step (headers, a body read).
   * @returns What the step resolved to.
   */
  async wait<T>(step: Promise<T>): Promise<T> {
    const { promise, resolve, reject } = Promise.withResolvers<T>();
    step.then(resolve, reject);
    if (this.stopped) reject(stoppedError());
    this.#waits.add(reject);
    // One timer for the whole stream, checked against the current wait's
    // start: a timer set and cleared per read more than doubled the wait's
    // own cost (one read per event on a fast stream).
    this.#waitingSince = performance.now();
    this.#timer ??= setTimeout(this.#onTimer, this.#idleTimeoutMs);
    try {
      return await promise;
    } finally {
      this.#waits.delete(reject);
      this.#waitingSince = undefined;
    }
  }

  /** Clears the timer and stops listening to the caller's signal. */
  dispose(): void {
    this.#clearTimer();
    this.#caller.removeEventListener("abort", this.#onAbort);
  }

  #stop(): void {
    if (this.stopped) return;
    this.#controller.abort();
    if (this.#reader) void this.#reader.cancel().catch(() => {});
    for (const reject of this.#waits) reject(stoppedError());
  }

  /** Stops the request when the current wait has lasted the idle timeout, else checks again when it would. */
  readonly #onTimer = () => {
    this.#timer = undefined;
    // Between waits the timer lapses: the next wait sets it again.
    if (this.#waitingSince === undefined || this.stopped) return;
    const left = this.#waitingSince + this.#idleTimeoutMs - performance.now();
    if (left > 0) {
      this.#timer = setTimeout(this.#onTimer, left);
      return;
    }
    this.timedOut = true;
    this.#stop();
  };

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

function stoppedError(): DOMException {
  return new DOMException("The request was stopped", "AbortError");
}
