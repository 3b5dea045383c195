/** A search stopped because matching used up its time budget. */
export class MatchTimeout extends Error {
  /** The budget, in milliseconds. */
  readonly budgetMs: number;

  /**
   * Creates the error.
   *
   * @param budgetMs The budget that was used up.
   */
  constructor(budgetMs: number) {
    super(`matching took longer than ${budgetMs} ms`);
    this.name = "MatchTimeout";
    this.budgetMs = budgetMs;
  }
}

/**
 * The worker's code, loaded from a blob so that it survives `deno bundle`
 * and `deno compile`, which do not follow a worker's file URL. It answers
 * each batch of lines with the indexes of those the regex matches.
 */
const WORKER_SOURCE = `
let regex;
self.onmessage = ({ data }) => {
  if (data.source !== undefined) {
    regex = new RegExp(data.source, data.flags);
    return;
  }
  const hits = [];
  for (let i = 0; i < data.lines.length && hits.length < data.max; i++) {
    if (regex.test(data.lines[i])) hits.push(i);
  }
  self.postMessage(hits);
};
`;

/**
 * Matches lines against a regular expression in a worker, so that a pattern
 * that backtracks without end (`(a+)+$`) can be stopped: by the abort signal,
 * or when the matching of all batches together exceeds the time budget. The
 * worker starts on the first batch; {@linkcode LineMatcher.close} ends it.
 *
 * @example
 * ```ts
 * import { LineMatcher } from "./line_matcher.ts";
 * const matcher = new LineMatcher(/b/, 1000, new AbortController().signal);
 * try {
 *   console.assert((await matcher.matchingLines(["a", "b"], 10)).join() === "1");
 * } finally {
 *   matcher.close();
 * }
 * ```
 */
export class LineMatcher {
  #regex: RegExp;
  #budgetMs: number;
  #remainingMs: number;
  #signal: AbortSignal;
  #worker: Worker | undefined;

  /**
   * Prepares a matcher (no worker yet).
   *
   * @param regex The pattern (its `g` and `y` flags are dropped: each line is tested alone).
   * @param budgetMs Time all batches together may take.
   * @param signal Stops the matching.
   */
  constructor(regex: RegExp, budgetMs: number, signal: AbortSignal) {
    this.#regex = regex;
    this.#budgetMs = budgetMs;
    this.#remainingMs = budgetMs;
    this.#signal = signal;
  }

  /**
   * The indexes of the lines that match, at most `max`.
   *
   * @param lines The lines.
   * @param max The most indexes wanted.
   * @returns The indexes, in order.
   * @throws {MatchTimeout} When the budget is used up (the worker is then ended).
   * @throws The signal's reason when aborted.
   */
  async matchingLines(lines: readonly string[], max: number): Promise<number[]> {
    this.#signal.throwIfAborted();
    const worker = this.#worker ??= this.#start();
    const started = performance.now();
    const { promise, resolve, reject } = Promise.withResolvers<number[]>();
    const timer = setTimeout(() => reject(new MatchTimeout(this.#budgetMs)), this.#remainingMs);
    const onAbort = () => reject(this.#signal.reason);
    this.#signal.addEventListener("abort", onAbort, { once: true });
    worker.onmessage = (event: MessageEvent<number[]>) => resolve(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(`grep's matcher failed: ${event.message}`));
    };
    worker.postMessage({ lines, max });
    try {
      return await promise;
    } catch (error) {
      this.close();
      throw error;
    } finally {
      clearTimeout(timer);
      this.#signal.removeEventListener("abort", onAbort);
      this.#remainingMs = Math.max(0, this.#remainingMs - (performance.now() - started));
    }
  }

  /** Ends the worker (safe to call more than once). */
  close(): void {
    this.#worker?.terminate();
    this.#worker = undefined;
  }

  #start(): Worker {
    const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "text/javascript" }));
    try {
      const worker = new Worker(url, { type: "module" });
      const flags = this.#regex.flags.replace(/[gy]/g, "");
      worker.postMessage({ source: this.#regex.source, flags });
      return worker;
    } finally {
      URL.revokeObjectURL(url);
    }
  }
}
