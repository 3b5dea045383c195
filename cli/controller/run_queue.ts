import type { UserMessage } from "@panto/lib";
import { type ActivityKind, ControllerBusyError } from "./controller_busy_error.ts";
import type { QueueState } from "./controller_events.ts";

/** The one thing in progress. */
export interface Activity {
  kind: ActivityKind;
  abort: AbortController;
  /** Marks it done (the caller's signal no longer aborts it). */
  end(): void;
}

/** A queued prompt, or a `!shell` (`!!shell`) command queued behind prompts. */
export interface Queued {
  text: string;
  shell?: boolean;
  /** A `!!shell` command: its output is shown, not sent. */
  excluded?: boolean;
  /** Queue order across both lists, for taking the latest back. */
  seq: number;
}

/** How the queue shows an item: a shell command with its `!` (or `!!`). */
function shown(item: Queued): string {
  return item.shell ? `${item.excluded ? "!!" : "!"}${item.text}` : item.text;
}

/** What the queue asks of the controller. */
export interface RunQueueHooks {
  /** Starts a queued item (a run, or a shell command). */
  start(item: Queued): Promise<unknown>;
  /** The queue changed (tell the views). */
  changed(): void;
}

/**
 * The controller's one activity at a time, and the prompts and `!shell`
 * commands waiting for it: steering first, then follow-ups in order, each
 * started once nothing runs. It tracks all work for `idle()`.
 */
export class RunQueue {
  readonly #hooks: RunQueueHooks;
  #activity: Activity | undefined;
  #steering: Queued[] = [];
  #followUp: Queued[] = [];
  #queued = 0;
  /** Runs, compactions, shell commands and scheduled queue drains not yet settled. */
  readonly #work = new Set<Promise<unknown>>();
  #closed = false;

  /**
   * Creates the queue.
   *
   * @param hooks Starts items; hears of changes.
   */
  constructor(hooks: RunQueueHooks) {
    this.#hooks = hooks;
  }

  /** What runs, if anything. */
  get activity(): ActivityKind | undefined {
    return this.#activity?.kind;
  }

  /** The prompts waiting (copies; shell commands with their `!`). */
  get state(): QueueState {
    return { steering: this.#steering.map(shown), followUp: this.#followUp.map(shown) };
  }

  /**
   * Throws unless nothing runs.
   *
   * @param action What was asked, for the error.
   * @throws {ControllerBusyError} While something runs.
   */
  assertIdle(action: string): void {
    if (this.#activity) throw new ControllerBusyError(action, this.#activity.kind);
  }

  /**
   * Marks `kind` as running (synchronously: a second command sees the
   * controller busy); end it with `end()`, then {@linkcode RunQueue.schedule}.
   *
   * @param kind What runs.
   * @param signal The caller's: aborts it.
   * @returns The activity.
   */
  begin(kind: ActivityKind, signal: AbortSignal | undefined): Activity {
    const abort = new AbortController();
    const forward = () => abort.abort(signal?.reason);
    if (signal?.aborted) forward();
    signal?.addEventListener("abort", forward, { once: true });
    const activity: Activity = {
      kind,
      abort,
      end: () => {
        signal?.removeEventListener("abort", forward);
        if (this.#activity === activity) this.#activity = undefined;
      },
    };
    this.#activity = activity;
    return activity;
  }

  /**
   * Runs `task` as the one thing in progress, tracked, then sends queued prompts.
   *
   * @param kind What it is.
   * @param action What was asked, for the busy error.
   * @param signal The caller's: aborts it.
   * @param task The work, given the activity's signal.
   * @returns What `task` returns.
   * @throws {ControllerBusyError} While something runs (as a rejection).
   */
  exclusive<T>(
    kind: ActivityKind,
    action: string,
    signal: AbortSignal | undefined,
    task: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    try {
      this.assertIdle(action);
    } catch (error) {
      return Promise.reject(error);
    }
    const activity = this.begin(kind, signal);
    return this.track(
      task(activity.abort.signal).finally(() => {
        activity.end();
        this.schedule();
      }),
    );
  }

  /**
   * Keeps `task` in {@linkcode RunQueue.idle}'s sight until it settles.
   *
   * @param task The work.
   * @returns `task`.
   */
  track<T>(task: Promise<T>): Promise<T> {
    const settled: Promise<unknown> = task.then(() => {}, () => {}).finally(() =>
      this.#work.delete(settled)
    );
    this.#work.add(settled);
    return task;
  }

  /**
   * Queues steering for the running run (sent at once when idle).
   *
   * @param text The message.
   */
  steer(text: string): void {
    this.#enqueue(this.#steering, { text, seq: this.#queued++ });
  }

  /**
   * Queues a prompt, or a shell command, as work of its own after what
   * runs (started at once when idle).
   *
   * @param text The prompt or command line.
   * @param shell Given for a shell command: whether its output stays out of context.
   */
  followUp(text: string, shell?: { excluded: boolean }): void {
    const item = shell ? { text, shell: true, excluded: shell.excluded } : { text };
    this.#enqueue(this.#followUp, { ...item, seq: this.#queued++ });
  }

  /**
   * Takes the steering for the running run's tool boundary.
   *
   * @returns The messages.
   */
  takeSteering(): UserMessage[] {
    const taken = this.#steering.splice(0);
    if (taken.length) this.#hooks.changed();
    return taken.map(({ text }) => ({ text }));
  }

  /**
   * Empties the queue (steering first, then follow-ups).
   *
   * @returns The items as shown.
   */
  take(): string[] {
    const taken = [...this.#steering.splice(0), ...this.#followUp.splice(0)].map(shown);
    if (taken.length) this.#hooks.changed();
    return taken;
  }

  /**
   * Takes the most recently queued item out of the queue.
   *
   * @returns It as shown, or `undefined` when nothing is queued.
   */
  takeLast(): string | undefined {
    const steer = this.#steering.at(-1);
    const follow = this.#followUp.at(-1);
    const queue = (steer?.seq ?? -1) > (follow?.seq ?? -1) ? this.#steering : this.#followUp;
    const item = queue.pop();
    if (item === undefined) return undefined;
    this.#hooks.changed();
    return shown(item);
  }

  /** Aborts what runs; the queue stays. */
  abort(): void {
    this.#activity?.abort.abort();
  }

  /** Drops the queue and aborts what runs, for good: nothing queued starts again. */
  close(): void {
    this.#closed = true;
    this.take();
    this.abort();
  }

  /** Resolves once nothing runs and the queue is empty (queued prompts are sent first). */
  async idle(): Promise<void> {
    while (this.#work.size > 0) await Promise.allSettled([...this.#work]);
  }

  /**
   * Sends the next queued prompt on a later task, so that whoever awaited
   * the work that just ended sees its result before the next run's events.
   */
  schedule(): void {
    if (this.#closed || (this.#steering.length === 0 && this.#followUp.length === 0)) return;
    void this.track(
      new Promise((resolve) => setTimeout(resolve, 0)).then(() => {
        if (this.#activity || this.#closed) return;
        const item = this.#steering.shift() ?? this.#followUp.shift();
        if (item === undefined) return;
        this.#hooks.changed();
        return this.#hooks.start(item);
      }),
    );
  }

  #enqueue(queue: Queued[], item: Queued): void {
    const waiting = this.#steering.length + this.#followUp.length;
    if (!this.#activity && !this.#closed && waiting === 0) {
      void this.#hooks.start(item);
      return;
    }
    queue.push(item);
    this.#hooks.changed();
    // Idle with prompts waiting for their scheduled start: this one goes after them.
    if (!this.#activity) this.schedule();
  }
}
