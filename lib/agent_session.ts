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
  /** Prompts that run after the current run, in order (a queued task as the message it was queued with). */
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

/**
 * What the session is busy with: a prompt's run, a compaction, or work of
 * the caller's ({@linkcode AgentSession.exclusive}) named by `Work`.
 */
export type AgentSessionActivity<Work extends string = never> = "running" | "compacting" | Work;

/**
 * What a caller adds to every run of an {@linkcode AgentSession}.
 *
 * @example Attach a note to every prompt when its run starts
 * ```ts
 * import type { AgentSessionHooks } from "@panto/lib";
 *
 * const hooks: AgentSessionHooks = {
 *   prepare: (message) =>
 *     Promise.resolve({ ...message, attachments: [{ type: "text", text: "Be brief." }] }),
 * };
 * console.assert(typeof hooks.prepare === "function");
 * ```
 */
export interface AgentSessionHooks {
  /**
   * Turns a prompt into the message sent, when its run starts (after its
   * `prompt` event): files read then, context gathered since it was
   * queued. A rejection fails the run (`status: "failed"`). Steering sent
   * into a running run is not prepared.
   */
  prepare?(message: UserMessage, signal: AbortSignal): Promise<UserMessage>;
  /**
   * Called once a run ended, while the session is still busy (nothing else
   * can start in between), before `run_end`. A rejection fails the run
   * (`status: "failed"`) unless it failed already.
   */
  settle?(outcome: PromptOutcome): Promise<void>;
}

/** Thrown when a prompt, a model switch or a compaction is asked for while something runs. */
export class AgentSessionBusyError extends Error {
  /**
   * The error for `action` asked for while `activity` runs.
   *
   * @param action What was asked for, e.g. "switching models".
   * @param activity What runs.
   */
  constructor(action: string, activity: string) {
    super(
      `The session is ${activity}: wait for it (await session.idle()) or abort it before ${action}, or queue the prompt with steer() or followUp()`,
    );
    this.name = "AgentSessionBusyError";
  }
}

/** A queued message: steering, a follow-up prompt, or a task's. */
interface Queued<Work extends string> {
  message: UserMessage;
  /** Queue order across both lists, for taking the latest back. */
  seq: number;
  /** Resolves a follow-up's promise. */
  settle?: (outcome: PromptOutcome) => void;
  /** Work of the caller's queued in place of a prompt. */
  task?: { kind: Work; run: (signal: AbortSignal) => Promise<unknown> };
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
 * A program with more to do between runs adds it: work of its own that
 * must not overlap a run ({@linkcode AgentSession.exclusive}, queued with
 * {@linkcode AgentSession.queueTask}), named by `Work`; what each prompt
 * carries when its run starts ({@linkcode AgentSessionHooks}); another
 * agent for another conversation ({@linkcode AgentSession.replaceAgent}).
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
export class AgentSession<Work extends string = never> {
  #agent: Agent;
  readonly #hooks: AgentSessionHooks;
  readonly #listeners = new Set<(event: AgentSessionEvent) => void>();
  #activity:
    | { kind: AgentSessionActivity<Work>; abort: AbortController; end: () => void }
    | undefined;
  #steering: Queued<Work>[] = [];
  #followUp: Queued<Work>[] = [];
  #queued = 0;
  #closed = false;
  #work: Promise<unknown> = Promise.resolve();

  /**
   * Drives `agent`.
   *
   * @param agent The agent; the session assumes it is the only one running it.
   * @param hooks What every run adds (see {@linkcode AgentSessionHooks}).
   */
  constructor(agent: Agent, hooks: AgentSessionHooks = {}) {
    this.#agent = agent;
    this.#hooks = hooks;
  }

  /** The agent it drives. */
  get agent(): Agent {
    return this.#agent;
  }

  /** Whether a run, a compaction or exclusive work is in progress. */
  get busy(): boolean {
    return this.#activity !== undefined;
  }

  /** What is in progress, if anything. */
  get activity(): AgentSessionActivity<Work> | undefined {
    return this.#activity?.kind;
  }

  /** What is queued (copies). */
  get queue(): QueueState {
    return {
      steering: this.#steering.map((q) => q.message),
      followUp: this.#followUp.map((q) => q.message),
    };
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
   * that ends before then gets it as the next run. When idle with nothing
   * queued, it is sent at once (its outcome is reported by `run_end`).
   *
   * @param message The message.
   */
  steer(message: string | UserMessage): void {
    this.#enqueue(this.#steering, { message: asMessage(message), seq: this.#queued++ });
  }

  /**
   * Sends the prompt as a run of its own once what runs and what was
   * queued before it ended; when idle with nothing queued, at once.
   *
   * @param message The prompt.
   * @returns Its run's outcome; `aborted` without a run when the queue is
   *   dropped first ({@linkcode AgentSession.takeQueue},
   *   {@linkcode AgentSession.close}).
   */
  followUp(message: string | UserMessage): Promise<PromptOutcome> {
    const { promise, resolve } = Promise.withResolvers<PromptOutcome>();
    this.#enqueue(this.#followUp, {
      message: asMessage(message),
      seq: this.#queued++,
      settle: resolve,
    });
    return promise;
  }

  /**
   * Queues work of the caller's behind what runs and what was queued, as
   * a follow-up does; it then runs as {@linkcode AgentSession.exclusive}
   * work of `kind`. The queue shows it as `shown` (and gives that back
   * when it is taken). Its failure is the task's to report.
   *
   * @example Queue a shell command behind a running prompt
   * ```ts
   * import { Agent, AgentSession, scriptedProvider } from "@panto/lib";
   *
   * const agent = new Agent({
   *   config: { provider: { api: "openai-chat", baseUrl: "http://localhost/v1", model: "m", reasoning: "off" } },
   *   provider: scriptedProvider(["Hello."]),
   * });
   * const chat = new AgentSession<"shell">(agent);
   * const ran: string[] = [];
   * const prompt = chat.prompt("Hi");
   * chat.queueTask({ text: "!ls" }, "shell", () => Promise.resolve(ran.push("ls")));
   * console.assert(chat.queue.followUp[0]?.text === "!ls");
   * await prompt;
   * await chat.idle();
   * console.assert(ran.length === 1);
   * ```
   *
   * @param shown How the queue shows it.
   * @param kind What it is, while it runs.
   * @param task The work, given its abort signal.
   */
  queueTask(
    shown: UserMessage,
    kind: Work,
    task: (signal: AbortSignal) => Promise<unknown>,
  ): void {
    this.#enqueue(this.#followUp, {
      message: shown,
      seq: this.#queued++,
      task: { kind, run: task },
    });
  }

  /**
   * Empties the queue (steering first, then follow-ups), e.g. to put the
   * prompts back in an editor. The follow-ups' promises resolve `aborted`.
   *
   * @returns The messages taken.
   */
  takeQueue(): UserMessage[] {
    const taken = [...this.#steering.splice(0), ...this.#followUp.splice(0)];
    for (const { settle } of taken) settle?.({ status: "aborted", turnLimitReached: false });
    if (taken.length) this.#emitQueue();
    return taken.map((q) => q.message);
  }

  /**
   * Takes the most recently queued message (steering or follow-up) out of
   * the queue, e.g. to edit it again; a follow-up's promise resolves
   * `aborted`.
   *
   * @example
   * ```ts
   * import { Agent, AgentSession, scriptedProvider } from "@panto/lib";
   *
   * const agent = new Agent({
   *   config: { provider: { api: "openai-chat", baseUrl: "http://localhost/v1", model: "m", reasoning: "off" } },
   *   provider: scriptedProvider(["Hello."]),
   * });
   * const chat = new AgentSession(agent);
   * const first = chat.prompt("Hi");
   * void chat.followUp("one");
   * chat.steer("two");
   * console.assert(chat.takeLastQueued()?.text === "two");
   * await first;
   * await chat.idle();
   * ```
   *
   * @returns It, or `undefined` when nothing is queued.
   */
  takeLastQueued(): UserMessage | undefined {
    const steer = this.#steering.at(-1);
    const follow = this.#followUp.at(-1);
    const queue = (steer?.seq ?? -1) > (follow?.seq ?? -1) ? this.#steering : this.#followUp;
    const item = queue.pop();
    if (item === undefined) return undefined;
    item.settle?.({ status: "aborted", turnLimitReached: false });
    this.#emitQueue();
    return item.message;
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
   * Drives another agent from now on (another conversation, e.g. another
   * saved session), keeping the queue: what is queued goes to it. Call it
   * between runs, or from {@linkcode AgentSession.exclusive} work that
   * switches conversations.
   *
   * @example
   * ```ts
   * import { Agent, AgentSession, scriptedProvider } from "@panto/lib";
   *
   * const config = { provider: { api: "openai-chat", baseUrl: "http://localhost/v1", model: "m", reasoning: "off" } } as const;
   * const chat = new AgentSession(new Agent({ config, provider: scriptedProvider(["One."]) }));
   * await chat.prompt("first conversation");
   * const next = new Agent({ config, provider: scriptedProvider(["Two."]) });
   * chat.replaceAgent(next);
   * await chat.prompt("second conversation");
   * console.assert(chat.agent === next && next.conversation.messages.length === 2);
   * ```
   *
   * @param agent The agent.
   * @throws {AgentSessionBusyError} While a run or a compaction uses the current agent.
   */
  replaceAgent(agent: Agent): void {
    const kind = this.#activity?.kind;
    if (kind === "running" || kind === "compacting") {
      throw new AgentSessionBusyError("replacing the agent", kind);
    }
    this.#agent = agent;
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
    return this.#exclusive("compacting", "compacting", options.signal, async (signal) => {
      this.#emit({ type: "compaction_start" });
      try {
        const result = await this.agent.compact({ ...options, signal });
        this.#emit({ type: "compaction_end", result });
        return result ?? undefined;
      } catch (failure) {
        this.#emit({ type: "compaction_end", result: null, failure });
        throw failure;
      }
    });
  }

  /**
   * Runs work of the caller's as the one thing in progress (a shell
   * command, a switch to another conversation): prompts sent meanwhile
   * are refused or queued as during a run, and sent after it.
   *
   * @example
   * ```ts
   * import { Agent, AgentSession, scriptedProvider } from "@panto/lib";
   *
   * const agent = new Agent({
   *   config: { provider: { api: "openai-chat", baseUrl: "http://localhost/v1", model: "m", reasoning: "off" } },
   *   provider: scriptedProvider(["Hello."]),
   * });
   * const chat = new AgentSession<"shell">(agent);
   * const output = await chat.exclusive("shell", () => Promise.resolve("README.md"));
   * console.assert(output === "README.md" && chat.activity === undefined);
   * ```
   *
   * @param kind What it is ({@linkcode AgentSession.activity} meanwhile).
   * @param task The work, given a signal that {@linkcode AgentSession.abort} (or `signal`) aborts.
   * @param signal Aborts it too.
   * @returns What `task` returns.
   * @throws {AgentSessionBusyError} While something runs (as a rejection).
   */
  exclusive<T>(
    kind: Work,
    task: (signal: AbortSignal) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    return this.#exclusive(kind, kind, signal, task);
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

  #exclusive<T>(
    kind: AgentSessionActivity<Work>,
    action: string,
    signal: AbortSignal | undefined,
    task: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    if (this.#activity) {
      return Promise.reject(new AgentSessionBusyError(action, this.#activity.kind));
    }
    const abort = this.#begin(kind, signal);
    return this.#track(task(abort.signal).finally(() => this.#end()));
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
      const sent = this.#hooks.prepare ? await this.#hooks.prepare(message, abort.signal) : message;
      const steering = () => this.#takeSteering();
      const stream = this.agent.run(sent, { signal: abort.signal, steering });
      for await (const event of stream) {
        if (event.type === "run_complete") outcome.turnLimitReached = event.turnLimitReached;
        this.#emit(event);
      }
      if (stream.state === "aborted") outcome.status = "aborted";
    } catch (error) {
      outcome = { status: "failed", turnLimitReached: false, error };
    }
    try {
      await this.#hooks.settle?.(outcome);
    } catch (error) {
      if (outcome.status !== "failed") {
        outcome = { status: "failed", turnLimitReached: false, error };
      }
    }
    this.#end();
    this.#emit({ type: "run_end", outcome });
    return outcome;
  }

  #takeSteering(): UserMessage[] {
    const taken = this.#steering.splice(0);
    if (taken.length) this.#emitQueue();
    return taken.map((q) => q.message);
  }

  /** Starts `item` at once when idle with nothing queued; else queues it. */
  #enqueue(queue: Queued<Work>[], item: Queued<Work>): void {
    const waiting = this.#steering.length + this.#followUp.length;
    if (!this.#activity && !this.#closed && waiting === 0) {
      this.#start(item);
      return;
    }
    queue.push(item);
    this.#emitQueue();
    // Idle with prompts waiting for their scheduled start: this one goes after them.
    if (!this.#activity) this.#schedule();
  }

  /** Marks `kind` as running (synchronously: a second call sees the session busy). */
  #begin(kind: AgentSessionActivity<Work>, signal: AbortSignal | undefined): AbortController {
    const abort = new AbortController();
    const forward = () => abort.abort(signal?.reason);
    if (signal?.aborted) forward();
    signal?.addEventListener("abort", forward, { once: true });
    this.#activity = { kind, abort, end: () => signal?.removeEventListener("abort", forward) };
    return abort;
  }

  /** Ends the activity, then starts what is queued. */
  #end(): void {
    this.#activity?.end();
    this.#activity = undefined;
    this.#schedule();
  }

  /**
   * Starts the next queued item on a later task, so that whoever awaited
   * the work that just ended sees its result before the next run's events.
   */
  #schedule(): void {
    if (this.#closed || (this.#steering.length === 0 && this.#followUp.length === 0)) return;
    const later = new Promise((resolve) => setTimeout(resolve, 0));
    void this.#track(later.then(() => this.#next()));
  }

  /** Starts the next queued item when idle: steering left over first, then follow-ups. */
  #next(): void {
    if (this.#activity || this.#closed) return;
    const item = this.#steering.shift() ?? this.#followUp.shift();
    if (!item) return;
    this.#emitQueue();
    this.#start(item);
  }

  /** Starts a queued item: its task, else its prompt's run (settling a follow-up's promise). */
  #start(item: Queued<Work>): void {
    const { task, settle } = item;
    if (task) {
      // The task reports its own failure.
      this.#exclusive(task.kind, task.kind, undefined, task.run).catch(() => {});
      return;
    }
    const run = this.#track(this.#run(item.message, true));
    if (settle) void run.then(settle);
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
