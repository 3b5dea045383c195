import type { AgentEvent } from "./events.ts";

/**
 * Where a run is: streaming a model response, running tools, or finished
 * (done, failed, aborted).
 */
export type StreamState = "streaming" | "dispatching_tools" | "done" | "failed" | "aborted";

/**
 * The events of one agent run, pulled by the consumer. Events are buffered,
 * so a slow consumer loses none; the run goes on (and persists) whether or
 * not anyone reads. Leaving a `for await` loop over it early cancels the
 * run (once it has ended and saved, the loop is left); to stop reading but
 * let the run go on, pull with `next()` instead.
 *
 * @example Consume a run
 * ```ts ignore
 * const stream = agent.run("Summarise README.md");
 * for await (const event of stream) {
 *   if (event.type === "content_delta" && event.kind === "text") console.log(event.text);
 * }
 * console.log(stream.state); // "done"
 * ```
 */
export interface Stream extends AsyncIterable<AgentEvent> {
  /** The run's state machine. */
  readonly state: StreamState;
  /**
   * The next event, or `null` once the run has ended and every event was
   * read. When the run failed, its last event is `run_error` and the call
   * after it rejects with the error itself.
   */
  next(): Promise<AgentEvent | null>;
  /** Aborts the run; the partial answer is kept and persisted. */
  cancel(): void;
}

/** The producer side of a {@linkcode Stream}; internal to the agent. */
export class EventChannel implements Stream {
  #queue: AgentEvent[] = [];
  #head = 0;
  /** Readers waiting for the next event (several may wait at once). */
  #waiters: (() => void)[] = [];
  #closed = false;
  #error: unknown = undefined;
  #failed = false;
  #state: StreamState = "streaming";
  #abort: AbortController;

  /** @param abort Aborted by {@linkcode EventChannel.cancel}; the run listens to its signal. */
  constructor(abort: AbortController) {
    this.#abort = abort;
  }

  /** The run's state machine. */
  get state(): StreamState {
    return this.#state;
  }

  /** Moves the state machine (the agent calls this as the run advances). */
  setState(state: StreamState): void {
    this.#state = state;
  }

  /** Queues an event for the consumer. */
  push(event: AgentEvent): void {
    this.#queue.push(event);
    this.#wake();
  }

  /** Ends the stream: `next` returns `null` once the queued events are read. */
  close(): void {
    this.#closed = true;
    this.#wake();
  }

  /** Ends the stream with an error, thrown by `next` after the queued events. */
  fail(error: unknown): void {
    this.#failed = true;
    this.#error = error;
    this.#state = "failed";
    this.close();
  }

  /** Aborts the run; the partial answer is kept and persisted. */
  cancel(): void {
    this.#abort.abort(new DOMException("The run was cancelled", "AbortError"));
  }

  /** The next event, or `null` once the run has ended and every event was read. */
  async next(): Promise<AgentEvent | null> {
    while (this.#head >= this.#queue.length && !this.#closed) {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
    if (this.#head < this.#queue.length) {
      const event = this.#queue[this.#head]!;
      this.#queue[this.#head++] = undefined as never; // let delivered events be collected
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head);
        this.#head = 0;
      }
      return event;
    }
    if (this.#failed) {
      this.#failed = false; // report the error once
      throw this.#error;
    }
    return null;
  }

  /**
   * Iterates the events until the run ends (throws when it failed).
   * Leaving the loop early (`break`, `return`, a throw in its body) cancels
   * the run and waits, reading the events left, until it has ended and
   * saved its partial answer: the agent is idle when the loop is left.
   */
  async *[Symbol.asyncIterator](): AsyncIterator<AgentEvent> {
    let ended = false;
    try {
      while (true) {
        const event = await this.next();
        if (event === null) break;
        yield event;
      }
      ended = true;
    } catch (error) {
      ended = true;
      throw error;
    } finally {
      if (!ended) await this.#abandon();
    }
  }

  /** Cancels the run and reads its remaining events until it has ended. */
  async #abandon(): Promise<void> {
    this.cancel();
    while (await this.next().catch(() => null) !== null) {
      // No one reads the events of an abandoned run.
    }
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}
