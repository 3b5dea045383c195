import type { Agent, CompactionResult, CompactOptions, UserMessage } from "./agent.ts";
import type { Config } from "./config.ts";
import type { AgentEvent } from "./events.ts";

/** How a prompt's run ended; a failure is an outcome, not a rejection. */
export interface PromptOutcome {
  /** `done` (answered, or stopped at `maxTurns`), `aborted`, or `failed`. */
  status: "done" | "aborted" | "failed";
  /** The run stopped at the config's `maxTurns` requests. */
  turnLimitReached: boolean;
  /** Why it failed (`status: "failed"`): the error the run's stream rejected with. */
  error?: unknown;
}

/** What is waiting: steering (sent into the running run) and follow-ups (each a run of its own). */
export interface QueueState {
  /** Messages for the running run's next tool boundary. */
  steering: readonly UserMessage[];
  /** Prompts that run after the current run, in order. */
  followUp: readonly UserMessage[];
}

/**
 * What an {@linkcode AgentSession} reports: every event of its runs, then
 * its own: `prompt` (a run starts with this message), `run_end`, `queue`
 * (the queue changed), `config_changed`, `compaction_start` and
 * `compaction_end`.
 */
export type AgentSessionEvent =
  | AgentEvent
  | { type: "prompt"; message: UserMessage; followUp: boolean }
  | { type: "run_end"; outcome: PromptOutcome }
  | { type: "queue"; queue: QueueState }
  | { type: "config_changed"; config: Config }
  | { type: "compaction_start" }
  | { type: "compaction_end"; result: CompactionResult | null; failure?: unknown };

/** What the session is busy with. */
type Activity = "running" | "compacting";

/** Thrown when a prompt, a model switch or a compaction is asked for while something runs. */
export class AgentSessionBusyError extends Error {
  /**
   * The error for `action` asked for while `activity` runs.
   *
   * @param action What was asked for, e.g. "switching models".
   * @param activity What runs.
   */
  constructor(action: string, activity: Activity) {
    super(
      `The session is ${activity}: wait for it (await session.idle()) or abort it before ${action}, or queue the prompt with steer() or followUp()`,
    );
    this.name = "AgentSessionBusyError";
  }
}

/** A queued follow-up and the promise its caller awaits. */
interface FollowUp {
  message: UserMessage;
  settle: (outcome: PromptOutcome) => void;
}

/**
 * An {@linkcode Agent} driven like a chat: one thing runs at a time (a
 * prompt's run or a compaction), prompts sent meanwhile are queued —
 * {@linkcode AgentSession.steer} into the running run at its next tool
 * boundary, {@linkcode AgentSession.followUp} as runs of their own
 * afterwards — and every prompt can be awaited for its outcome. The model
 * is switched between runs ({@linkcode AgentSession.setModel}). Everything
 * is reported to subscribers as {@linkcode AgentSessionEvent}s. It holds
 * no terminal, file or process logic, so it runs wherever the agent does.
 *
 * @example Queue a follow-up while a prompt runs, and await both
 * ```ts
 * import { Agent, AgentSession, scriptedProvider } from "@panto/lib";
 *
 * const provider = scriptedProvider(["Paris.", "About 2.1 million."]);
 * const agent = new Agent({
 *   config: { provider: { api: "openai-chat", baseUrl: "http://localhost/v1", model: "m", reasoning: "off" } },
 *   provider,
 * });
 * const chat = new AgentSession(agent);
 * const first = chat.prompt("What is the capital of France?");
 * const second = chat.followUp("How many people live there?"); // runs after the first
 * console.assert((await first).status === "done" && (await second).status === "done");
 * console.assert(agent.conversation.messages.length === 4);
 * ```
 */
export class AgentSession {
  /** The agent it drives. */
  readonly agent: Agent;
  readonly #listeners = new Set<(event: AgentSessionEvent) => void>();
  #activity: { kind: Activity; abort: AbortController; end: () => void } | undefined;
  #steering: UserMessage[] = [];
  #followUp: FollowUp[] = [];
  #closed = false;
  #work: Promise<unknown> = Promise.resolve();

  /**
   * Drives `agent`.
   *
   * @param agent The agent; the session assumes it is the only one running it.
   */
  constructor(agent: Agent) {
    this.agent = agent;
  }

  /** Whether a run or a compaction is in progress. */
  get busy(): boolean {
    return this.#activity !== undefined;
  }

  /** What is queued (copies). */
  get queue(): QueueState {
    return { steering: [...this.#steering], followUp: this.#followUp.map((f) => f.message) };
  }

  /**
   * Calls `listener` with every event from now on. A listener that throws
   * does not stop the others or the run.
   *
   * @param listener Gets each event.
   * @returns Unsubscribes.
   */
  subscribe(listener: (event: AgentSessionEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Runs one prompt to its end (tools included). Follow-ups queued
   * meanwhile start after it, on their own.
   *
   * @param message The text, or a user message with images and attachments.
   * @param options `signal` aborts the run (it keeps its partial answer).
   * @returns How the run ended.
   * @throws {AgentSessionBusyError} While something runs (as a rejection).
   */
  prompt(
    message: string | UserMessage,
    options: { signal?: AbortSignal } = {},
  ): Promise<PromptOutcome> {
    if (this.#activity) {
      return Promise.reject(new AgentSessionBusyError("sending a prompt", this.#activity.kind));
    }
    return this.#track(this.#run(asMessage(message), false, options.signal));
  }

  /**
   * Adds a message to the running run at its next tool boundary; a run
   * that ends before then gets it as the next run. When idle, it is sent
   * at once (its outcome is reported by `run_end`).
   *
   * @param message The message.
   */
  steer(message: string | UserMessage): void {
    if (!this.#activity && this.#followUp.length === 0) {
      void this.#track(this.#run(asMessage(message), true));
      return;
    }
    this.#steering.push(asMessage(message));
    this.#emitQueue();
  }

  /**
   * Sends the prompt as a run of its own once what runs and what was
   * queued before it ended; when idle, at once.
   *
   * @param message The prompt.
   * @returns Its run's outcome; `aborted` without a run when the queue is
   *   dropped first ({@linkcode AgentSession.takeQueue},
   *   {@linkcode AgentSession.close}).
   */
  followUp(message: string | UserMessage): Promise<PromptOutcome> {
    const { promise, resolve } = Promise.withResolvers<PromptOutcome>();
    this.#followUp.push({ message: asMessage(message), settle: resolve });
    this.#emitQueue();
    this.#next();
    return promise;
  }

  /**
   * Empties the queue (steering first, then follow-ups), e.g. to put the
   * prompts back in an editor. The follow-ups' promises resolve `aborted`.
   *
   * @returns The messages taken.
   */
  takeQueue(): UserMessage[] {
    const follow = this.#followUp.splice(0);
    for (const { settle } of follow) settle({ status: "aborted", turnLimitReached: false });
    const taken = [...this.#steering.splice(0), ...follow.map((f) => f.message)];
    if (taken.length) this.#emitQueue();
    return taken;
  }

  /** Aborts what runs (a run keeps its partial answer); the queue stays. */
  abort(): void {
    this.#activity?.abort.abort();
  }

  /**
   * Switches the model (or any other setting) for the next run.
   *
   * @param provider The new `config.provider`; the rest of the config is kept.
   * @throws {AgentSessionBusyError} While something runs.
   */
  setModel(provider: Config["provider"]): void {
    this.setConfig({ ...this.agent.config, provider });
  }

  /**
   * Replaces the agent's config for the next run.
   *
   * @param config The config.
   * @throws {AgentSessionBusyError} While something runs.
   */
  setConfig(config: Config): void {
    if (this.#activity) throw new AgentSessionBusyError("switching models", this.#activity.kind);
    this.agent.setConfig(config);
    this.#emit({ type: "config_changed", config });
  }

  /**
   * Summarises older messages to free context. Prompts queued meanwhile are
   * sent after it.
   *
   * @param options Instructions for the summary, its system prompt, an abort signal.
   * @returns What was done; `undefined` when there was nothing to compact.
   * @throws {AgentSessionBusyError} While something runs (as a rejection);
   *   else what the summarising request threw.
   */
  compact(options: CompactOptions = {}): Promise<CompactionResult | undefined> {
    if (this.#activity) {
      return Promise.reject(new AgentSessionBusyError("compacting", this.#activity.kind));
    }
    const abort = this.#begin("compacting", options.signal);
    this.#emit({ type: "compaction_start" });
    const task = this.agent.compact({ ...options, signal: abort.signal }).then(
      (result) => {
        this.#emit({ type: "compaction_end", result });
        return result ?? undefined;
      },
      (failure: unknown) => {
        this.#emit({ type: "compaction_end", result: null, failure });
        throw failure;
      },
    ).finally(() => this.#end());
    return this.#track(task);
  }

  /** Resolves once nothing runs and nothing is queued. */
  async idle(): Promise<void> {
    let seen: Promise<unknown> | undefined;
    while (seen !== this.#work) {
      seen = this.#work;
      await seen.catch(() => {});
    }
  }

  /**
   * Drops the queue, aborts what runs and waits for it to save what it
   * has. The agent's session store stays open (it is the caller's).
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.takeQueue();
    this.abort();
    await this.idle();
  }

  async #run(
    message: UserMessage,
    followUp: boolean,
    signal?: AbortSignal,
  ): Promise<PromptOutcome> {
    const abort = this.#begin("running", signal);
    this.#emit({ type: "prompt", message, followUp });
    let outcome: PromptOutcome = { status: "done", turnLimitReached: false };
    try {
      const steering = () => this.#takeSteering();
      const stream = this.agent.run(message, { signal: abort.signal, steering });
      for await (const event of stream) {
        if (event.type === "run_complete") outcome.turnLimitReached = event.turnLimitReached;
        this.#emit(event);
      }
      if (stream.state === "aborted") outcome.status = "aborted";
    } catch (error) {
      outcome = { status: "failed", turnLimitReached: false, error };
    } finally {
      this.#end();
    }
    this.#emit({ type: "run_end", outcome });
    return outcome;
  }

  #takeSteering(): UserMessage[] {
    const taken = this.#steering.splice(0);
    if (taken.length) this.#emitQueue();
    return taken;
  }

  /** Marks `kind` as running (synchronously: a second call sees the session busy). */
  #begin(kind: Activity, signal: AbortSignal | undefined): AbortController {
    const abort = new AbortController();
    const forward = () => abort.abort(signal?.reason);
    if (signal?.aborted) forward();
    signal?.addEventListener("abort", forward, { once: true });
    this.#activity = { kind, abort, end: () => signal?.removeEventListener("abort", forward) };
    return abort;
  }

  /**
   * Ends the activity, then starts what is queued on a later task, so that
   * whoever awaited the work that just ended sees its result before the
   * next run's events.
   */
  #end(): void {
    this.#activity?.end();
    this.#activity = undefined;
    if (this.#steering.length === 0 && this.#followUp.length === 0) return;
    const later = new Promise((resolve) => setTimeout(resolve, 0));
    void this.#track(later.then(() => this.#next()));
  }

  /** Starts the next queued prompt when idle: steering left over first, then follow-ups. */
  #next(): void {
    if (this.#activity || this.#closed) return;
    const steer = this.#steering.shift();
    if (steer) {
      this.#emitQueue();
      void this.#track(this.#run(steer, true));
      return;
    }
    const follow = this.#followUp.shift();
    if (!follow) return;
    this.#emitQueue();
    void this.#track(this.#run(follow.message, true)).then(follow.settle);
  }

  #track<T>(task: Promise<T>): Promise<T> {
    this.#work = Promise.allSettled([this.#work, task]);
    return task;
  }

  #emitQueue(): void {
    this.#emit({ type: "queue", queue: this.queue });
  }

  #emit(event: AgentSessionEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own: the run and the other listeners go on.
      }
    }
  }
}

/** A prompt given as text, as a user message. */
function asMessage(message: string | UserMessage): UserMessage {
  return typeof message === "string" ? { text: message } : message;
}
