import type {
  ContentBlock,
  ImageBlock,
  ResultPart,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
} from "./content.ts";
import { downsizeImage, ImageError } from "./image.ts";
import type { ApiName, Config } from "./config.ts";
import {
  DEFAULT_COMPACTION_PROMPT,
  DEFAULT_KEEP_RECENT_TOKENS,
  DEFAULT_RESERVE_TOKENS,
  estimateContextTokens,
  planCompaction,
  summarise,
} from "./compaction.ts";
import { prepareContext } from "./context.ts";
import { Conversation } from "./conversation.ts";
import { errorMessage } from "./error_message.ts";
import { ProviderError, type ProviderErrorKind, ToolSourceError } from "./errors.ts";
import type { RunErrorEvent, RunErrorKind } from "./events.ts";
import type { Message, StopReason } from "./message.ts";
import { streamForApi } from "./providers/registry.ts";
import type {
  AssistantResult,
  ProviderRequest,
  ProviderStreamEvent,
  StreamMessage,
} from "./providers/provider.ts";
import { isAbortError } from "./providers/http.ts";
import { retryDelayMs, sleep } from "./providers/retry.ts";
import { tooDeepArguments } from "./providers/tool_arguments.ts";
import { wireIdentity } from "./session/session_models.ts";
import { SessionStoreError } from "./session/errors.ts";
import { NullStore } from "./session/null_store.ts";
import type { Session } from "./session/session.ts";
import type { PersistentMessage } from "./session/types.ts";
import { EventChannel, type Stream } from "./stream.ts";
import type { Tool, ToolHooks, ToolSource } from "./tool.ts";
import { type Dispatched, type ExecuteOptions, ToolRegistry } from "./tool_registry.ts";
import { addUsage, emptyUsage, type Usage } from "./usage.ts";

const DEFAULT_MAX_TURNS = 50;
const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

/** Options for {@linkcode Agent}. */
export interface AgentOptions {
  /** Provider, model and policies. */
  config: Config;
  /** Where the conversation is persisted; a `NullStore` session when absent. */
  session?: Session;
  /** The conversation to continue (e.g. `await session.load()`); a new one when absent. */
  conversation?: Conversation;
  /** Hooks around every tool call; replace them later with {@linkcode Agent.setHooks}. */
  hooks?: ToolHooks;
  /**
   * Streams the model's replies instead of the provider registered for
   * `config.provider.api` (kept across {@linkcode Agent.setConfig}): a test
   * double, or a wire protocol of the embedder's own. `config.provider`
   * still names the model in the session and is passed to it.
   */
  provider?: StreamMessage;
}

/**
 * A user message: text plus optional images, attachments and metadata. It
 * is stored as blocks in that order — the text first, then the images, then
 * the attachments — so the text and images stay recognisable as what the
 * user typed and pasted.
 */
export interface UserMessage {
  /** The text. */
  text: string;
  /** Images attached by the user. */
  images?: ImageBlock[];
  /**
   * What came with the text but is not the user's words (a file's contents
   * and its image, command output), each its own block after the images;
   * starting with text (e.g. the file's name before its image) keeps them
   * from being taken for the user's images.
   */
  attachments?: (TextBlock | ImageBlock)[];
  /** Opaque JSON kept with the message. */
  metadata?: string;
  /**
   * What writing its attachments used (a branch summary's request): stored
   * as the message's `usage`, `api` and `model`, so the session's cost counts it.
   */
  spent?: SummarySpend;
}

/**
 * What a summarising request used, and the model that answered it: what its cost is counted at.
 *
 * @example
 * ```ts
 * import { emptyUsage, type SummarySpend } from "@panto/lib";
 * const spent: SummarySpend = { usage: emptyUsage(), api: "anthropic-messages", model: "m" };
 * console.assert(spent.usage.outputTokens === 0);
 * ```
 */
export interface SummarySpend {
  /** Tokens the provider reported. */
  usage: Usage;
  /** The wire protocol of the request. */
  api: ApiName;
  /** The model that wrote the summary. */
  model: string;
}

/**
 * What {@linkcode Agent.summariseBranch} returns.
 *
 * @example Send the summary with the next prompt, its cost stored with it
 * ```ts
 * import type { Agent, BranchSummary } from "@panto/lib";
 * function continueWith(agent: Agent, text: string, branch: BranchSummary) {
 *   return agent.run({
 *     text,
 *     attachments: [{ type: "text", text: branch.summary }],
 *     spent: branch.spent,
 *   });
 * }
 * ```
 */
export interface BranchSummary {
  /** The summary. */
  summary: string;
  /** What its request used (give it as the prompt's `spent` to have it stored). */
  spent: SummarySpend;
}

/** Options for {@linkcode Agent.compact}. */
export interface CompactOptions {
  /** System prompt of the summarising request (default: the config's, else the built-in one). */
  systemPrompt?: string;
  /** Extra instructions for the summary, e.g. "keep the API decisions". */
  instructions?: string;
  /** Aborts the summarising request. */
  signal?: AbortSignal;
}

/** What a compaction did. */
export interface CompactionResult {
  /** The summary now standing in for older messages. */
  summary: string;
  /** Estimated context tokens before. */
  tokensBefore: number;
  /** Estimated context tokens after. */
  tokensAfter: number;
  /** Recent messages kept verbatim. */
  keptMessages: number;
}

/**
 * Options for {@linkcode Agent.run}.
 *
 * @example Steer a run while its tools work
 * ```ts
 * import { Agent, ResultParts, scriptedProvider, type UserMessage } from "@panto/lib";
 * const provider = scriptedProvider([[{ type: "tool_use", id: "c1", name: "ls", input: {} }], "Done."]);
 * const agent = new Agent({
 *   config: { provider: { api: "openai-chat", baseUrl: "http://localhost:8080/v1", model: "any", reasoning: "off" } },
 *   provider,
 * });
 * const queue: UserMessage[] = [];
 * agent.registerTool({
 *   decl: { name: "ls", description: "List files", inputSchema: { type: "object" } },
 *   execute: () => {
 *     queue.push({ text: "Only the top level, please." }); // e.g. typed by the user meanwhile
 *     return ResultParts.fromText("a.ts b.ts");
 *   },
 * });
 * for await (const _ of agent.run("What is here?", { steering: () => queue.splice(0) }));
 * // The second request carries the tool result, then the steering message.
 * const sent = provider.requests[1]?.messages.at(-1);
 * if (sent?.role !== "user") throw new Error("the steering message was not sent");
 * ```
 */
export interface RunOptions {
  /** Aborts the run (same as `stream.cancel()`). */
  signal?: AbortSignal;
  /**
   * Messages to steer the run while it works: called after each batch of
   * tool results, before the next model request. Each message it returns is
   * added to the conversation as a user message (persisted, images
   * downsized) and reported by a `steer_applied` event; the model sees them
   * with the next request. Not called when the run ends instead (final
   * answer, abort, `maxTurns`): messages still queued then are the caller's
   * to send, e.g. as the next run. A callback that throws fails the run.
   */
  steering?: () => UserMessage[];
}

/**
 * An agent: a conversation, a session that persists it, a tool set, and a
 * provider configuration. `run` submits a user message and loops — model
 * request, tool calls, results back — until the model gives a final answer
 * or `maxTurns` model requests were made. That whole loop is a *run*; each
 * call to the model within it is a *request*. Everything a run adds to the
 * conversation is persisted as it happens; the embedder never calls a
 * persist function. An append the store refuses is taken back out of the
 * conversation before the run fails, so memory stays what is stored.
 *
 * @example A run with a tool call: two requests (offline, against a scripted provider)
 * ```ts
 * import { Agent, NullStore, ResultParts, scriptedProvider } from "@panto/lib";
 * // The model's replies, one per request: a call to `now`, then an answer.
 * const provider = scriptedProvider([
 *   [{ type: "tool_use", id: "call_1", name: "now", input: {} }],
 *   "It is late.",
 * ]);
 * const agent = new Agent({
 *   config: { provider: { api: "anthropic-messages", baseUrl: "https://api.anthropic.com", model: "claude-sonnet-4-5", reasoning: "off" } },
 *   session: new NullStore().create(), // or e.g. new FileSystemJSONLStore({ dir: "./sessions" }).create()
 *   provider, // omit it to use the provider `config.provider.api` names (then set `apiKey`)
 * });
 * agent.registerTool({
 *   decl: { name: "now", description: "The current time", inputSchema: { type: "object", properties: {} } },
 *   execute: () => ResultParts.fromText(new Date().toISOString()),
 * });
 * let answer = "";
 * for await (const event of agent.run("What time is it?")) {
 *   if (event.type === "content_delta" && event.kind === "text") answer += event.text;
 * }
 * if (answer !== "It is late.") throw new Error(`unexpected answer ${answer}`);
 * // The tool result went back to the model with the second request.
 * if (provider.requests[1]?.messages.at(-1)?.role !== "tool") throw new Error("no tool result sent");
 * ```
 */
export class Agent {
  #config: Config;
  #session: Session;
  #conversation: Conversation;
  #tools = new ToolRegistry();
  #hooks: ToolHooks;
  #provider: StreamMessage | undefined;
  #running: EventChannel | undefined;
  #compacting = false;

  /**
   * Creates an agent.
   *
   * @param options Config, session, conversation, tool hooks and provider.
   */
  constructor(options: AgentOptions) {
    this.#hooks = options.hooks ?? {};
    this.#provider = options.provider;
    this.#config = options.config;
    this.#session = options.session ?? new NullStore().create();
    this.#conversation = options.conversation ?? new Conversation();
  }

  /**
   * The live conversation (borrowed). Editing it between runs (context
   * surgery) changes what the next request sends, but in memory only: the
   * session keeps what was persisted, so a reloaded session has none of the
   * edits. To keep them, also call
   * `agent.session.replaceConversation(agent.conversation.messages)`.
   */
  get conversation(): Conversation {
    return this.#conversation;
  }

  /** The session's id. */
  get sessionId(): string {
    return this.#session.id;
  }

  /** The session the agent persists to. */
  get session(): Session {
    return this.#session;
  }

  /** The current configuration. */
  get config(): Config {
    return this.#config;
  }

  /** Whether a run is in progress. */
  get running(): boolean {
    return this.#running !== undefined;
  }

  /**
   * Adds a tool the model can call.
   *
   * @param tool The tool.
   * @throws {ToolRegistrationError} When its name is invalid or taken.
   */
  registerTool(tool: Tool): void {
    this.#tools.register(tool);
  }

  /**
   * Removes a tool. A call the model makes to it afterwards (even in the
   * current run) gets an error result saying it is not available.
   *
   * @param name The tool's registered name.
   * @returns Whether a tool of that name was registered.
   */
  unregisterTool(name: string): boolean {
    return this.#tools.unregister(name);
  }

  /**
   * The registered tools, in registration order (a copy). Tools of a
   * source appear once a run has listed them.
   */
  get tools(): readonly Tool[] {
    return this.#tools.tools();
  }

  /** The hooks around tool calls. */
  get hooks(): ToolHooks {
    return this.#hooks;
  }

  /**
   * Replaces the hooks around tool calls (`{}` removes them). Allowed during
   * a run: calls that have not started yet use the new hooks.
   *
   * @param hooks `beforeToolCall` and `afterToolCall`.
   */
  setHooks(hooks: ToolHooks): void {
    this.#hooks = hooks;
  }

  /**
   * Adds a source of tools, listed at the start of the next run.
   *
   * @param source The source.
   */
  registerToolSource(source: ToolSource): void {
    this.#tools.registerSource(source);
  }

  /**
   * Swaps provider, model or policies between runs; tools are untouched.
   *
   * @param config The new configuration.
   * @throws {Error} While a run or a compaction is in progress (its
   *   messages would be recorded under the new model).
   */
  setConfig(config: Config): void {
    this.#assertIdle("change the configuration");
    this.#config = config;
  }

  /**
   * Appends to the system prompt and persists the entry.
   *
   * @param text The text to append.
   */
  async addSystemMessage(text: string): Promise<void> {
    this.#assertIdle("add a system message");
    await this.#persist([this.#conversation.addSystemMessage(text)]);
  }

  /**
   * Replaces the system prompt and persists the entry.
   *
   * @param text The new system prompt.
   */
  async setSystemPrompt(text: string): Promise<void> {
    this.#assertIdle("set the system prompt");
    await this.#persist([this.#conversation.replaceSystemMessage(text)]);
  }

  /**
   * Summarises the older part of the conversation with the model and keeps
   * the recent part; the result is persisted. Returns `null` when the
   * conversation is too short to compact.
   *
   * @param options Prompt, instructions and an abort signal.
   * @returns What was done.
   */
  async compact(options: CompactOptions = {}): Promise<CompactionResult | null> {
    this.#assertIdle("compact");
    this.#compacting = true;
    try {
      return await this.#compact("manual", options.signal ?? new AbortController().signal, options);
    } finally {
      this.#compacting = false;
    }
  }

  /**
   * Asks the model for a summary of a branch of the conversation the user
   * left (e.g. before continuing from an earlier point), as compaction
   * would write it; nothing is added to the conversation or persisted.
   *
   * @param messages The branch's messages.
   * @param options Prompt, instructions and an abort signal.
   * @returns The summary, and what its request used.
   * @throws {Error} When the request failed or the model returned no text.
   */
  async summariseBranch(
    messages: readonly Message[],
    options: CompactOptions = {},
  ): Promise<BranchSummary> {
    const signal = options.signal ?? new AbortController().signal;
    const reply = await summarise(messages, {
      ...this.#summaryRequest(options, signal),
      kind: "branch",
    });
    return { summary: reply.text, spent: { usage: reply.usage, ...this.#producer() } };
  }

  /** What every summarising request (compaction, branch summary) is made with, but its kind. */
  #summaryRequest(options: CompactOptions, signal: AbortSignal) {
    return {
      provider: this.#config.provider,
      systemPrompt: options.systemPrompt ?? this.#config.compaction?.prompt ??
        DEFAULT_COMPACTION_PROMPT,
      instructions: options.instructions,
      signal,
      idleTimeoutMs: this.#config.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
      stream: this.#streamMessage(),
    };
  }

  /**
   * Submits a user message and starts a run: model requests and tool calls
   * until a final answer, an abort or `maxTurns` requests. A failed run
   * ends with a `run_error` event, then the stream's `next()` rejects.
   *
   * @param message The user's text, or text with images and metadata.
   * @param options An abort signal and a steering callback.
   * @returns The stream of events.
   * @throws {Error} While another run or a compaction is in progress.
   */
  run(message: string | UserMessage, options: RunOptions = {}): Stream {
    this.#assertIdle("start a run");
    const user = typeof message === "string" ? { text: message } : message;
    return this.#start((signal) => this.#addUserMessage(user, signal), options);
  }

  /**
   * Starts a run that answers the conversation as it stands, adding no user
   * message: for a prompt already stored but never answered (put the
   * `danglingUser` of `session.loadWithDangling()` back onto the
   * conversation first), or tool results the model has not seen yet.
   * `run_start` carries that last message.
   *
   * @param options An abort signal and a steering callback.
   * @returns The stream of events.
   * @throws {Error} While another run or a compaction is in progress, or
   *   when the conversation does not end with a user or tool message.
   */
  continue(options: RunOptions = {}): Stream {
    this.#assertIdle("continue");
    const last = this.#conversation.messages.at(-1);
    if (last?.role !== "user" && last?.role !== "tool") {
      throw new Error(
        `Nothing to continue: the conversation ends with ${
          last ? `${last.role === "assistant" ? "an" : "a"} ${last.role} message` : "no message"
        }; continue() answers a trailing user or tool message (use run(prompt) to ask something new)`,
      );
    }
    // Nothing is appended before the first request: ask the store now, before tokens are spent.
    return this.#start(async () => {
      await this.#session.checkAppend();
      return last;
    }, options);
  }

  /**
   * Takes another conversation between runs, keeping tools, hooks and
   * configuration: a {@linkcode Session}'s (the agent then persists to it,
   * and its stored conversation is loaded as `session.load()` gives it), or
   * a {@linkcode Conversation} for the current session, e.g. the one
   * `session.branchFrom(entryId)` returned.
   *
   * @example Continue from an earlier entry without rebuilding the agent
   * ```ts
   * import { Agent, scriptedProvider } from "@panto/lib";
   * import { SQLiteStore } from "@panto/lib/sqlite";
   * const store = new SQLiteStore({ path: ":memory:" });
   * const agent = new Agent({
   *   config: { provider: { api: "openai-chat", baseUrl: "http://localhost:8080/v1", model: "any", reasoning: "off" } },
   *   session: store.create(),
   *   provider: scriptedProvider(["One.", "Two."]),
   * });
   * for await (const _ of agent.run("first"));
   * const { conversation } = await agent.session.branchFrom(null); // a new root
   * await agent.adopt(conversation);
   * for await (const _ of agent.run("second"));
   * if (agent.conversation.messages.length !== 2) throw new Error("the branch was not adopted");
   * await store.close();
   * ```
   *
   * @param source The session to switch to, or the conversation to continue.
   * @throws {Error} While a run or a compaction is in progress.
   */
  async adopt(source: Session | Conversation): Promise<void> {
    this.#assertIdle("adopt a conversation");
    if (source instanceof Conversation) {
      this.#conversation = source;
      return;
    }
    const conversation = await source.load();
    this.#assertIdle("adopt a session"); // a run may have started while it loaded
    this.#session = source;
    this.#conversation = conversation;
  }

  /** Runs the loop after `first` yields the message the run starts from. */
  #start(first: (signal: AbortSignal) => Promise<Message>, options: RunOptions): Stream {
    const abort = new AbortController();
    const channel = new EventChannel(abort);
    const onAbort = () => abort.abort(options.signal?.reason);
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    this.#running = channel;
    // Idle before the stream ends, so a consumer that saw the end may start the next run at once.
    const settle = () => {
      options.signal?.removeEventListener("abort", onAbort);
      this.#running = undefined;
    };
    this.#loop(first, channel, abort.signal, options.steering)
      .then(() => {
        settle();
        channel.close();
      }, (error) => {
        settle();
        channel.push({ type: "run_error", error: runErrorSummary(error) });
        channel.fail(error);
      });
    return channel;
  }

  async #loop(
    first: (signal: AbortSignal) => Promise<Message>,
    channel: EventChannel,
    signal: AbortSignal,
    steering: (() => UserMessage[]) | undefined,
  ): Promise<void> {
    channel.push({ type: "run_start", message: await first(signal) });
    await this.#tools.loadSources();
    const maxTurns = this.#config.maxTurns ?? DEFAULT_MAX_TURNS;
    for (let requests = 1;; requests++) {
      channel.setState("streaming");
      await this.#compactIfNearWindow(channel, signal);
      const message = await this.#respond(channel, signal, requests);
      const calls = message.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
      const stopReason = message.stopReason ?? "end_turn";
      if (stopReason === "aborted" || calls.length === 0) {
        return this.#finish(channel, stopReason, requests, false);
      }
      channel.setState("dispatching_tools");
      const last = requests >= maxTurns;
      if (await this.#dispatch(calls, channel, signal, last)) {
        return this.#finish(channel, "aborted", requests, false);
      }
      if (last) return this.#finish(channel, stopReason, requests, true);
      for (const steer of steering?.() ?? []) {
        channel.push({
          type: "steer_applied",
          message: await this.#addUserMessage(steer, signal),
        });
      }
    }
  }

  /** Adds a user message (images downsized; an unreadable one fails the run) and persists it. */
  async #addUserMessage(user: UserMessage, signal: AbortSignal): Promise<Message> {
    const parts = [...user.images ?? [], ...user.attachments ?? []];
    const after = await this.#downsize(parts, signal, true);
    const blocks: ContentBlock[] = [{ type: "text", text: user.text }, ...after];
    const message = this.#conversation.addUserMessage(blocks, user.metadata);
    if (user.spent) Object.assign(message, structuredClone(user.spent));
    await this.#persist([message]);
    return message;
  }

  #finish(channel: EventChannel, stopReason: StopReason, requests: number, limit: boolean): void {
    channel.setState(stopReason === "aborted" ? "aborted" : "done");
    channel.push({ type: "run_complete", stopReason, requests, turnLimitReached: limit });
  }

  /** One model request, retried on retryable errors; its reply is added to the conversation and persisted. */
  async #respond(channel: EventChannel, signal: AbortSignal, request: number): Promise<Message> {
    let compactedForOverflow = false;
    for (let attempt = 1;; attempt++) {
      let streamed = false;
      try {
        channel.push({ type: "message_start", request });
        const result = await this.#stream(channel, signal, () => (streamed = true));
        return await this.#commitAssistant(channel, result);
      } catch (error) {
        if (signal.aborted && isAbortError(error)) {
          return await this.#commitAborted(
            channel,
            error instanceof ProviderError ? error.partial?.content ?? [] : [],
          );
        }
        if (!(error instanceof ProviderError)) throw error;
        if (
          error.kind === "context_overflow" && !compactedForOverflow && this.#compactionEnabled()
        ) {
          compactedForOverflow = true;
          const compacted = await this.#compactDuringRun("overflow", channel, signal);
          if (signal.aborted) return await this.#commitAborted(channel, []);
          if (compacted) continue;
        }
        const delay = retryDelayMs(attempt, this.#config.retry, error);
        if (delay === null) {
          await this.#commitFailure(error);
          throw error;
        }
        channel.push({
          type: "provider_retry",
          attempt,
          delayMs: delay,
          error: errorSummary(error),
          discardedPartial: streamed,
        });
        await sleep(delay, signal).catch(() => {});
        if (signal.aborted) return await this.#commitAborted(channel, []);
      }
    }
  }

  async #stream(
    channel: EventChannel,
    signal: AbortSignal,
    onEvent: () => void,
  ): Promise<AssistantResult> {
    const request: ProviderRequest = {
      config: this.#config.provider,
      system: this.#conversation.systemPrompt(),
      messages: prepareContext(this.#conversation.messages, this.#config.provider),
      tools: this.#tools.wireDecls(),
      signal,
      idleTimeoutMs: this.#config.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    };
    const generator = this.#streamMessage()(request);
    while (true) {
      const step = await generator.next();
      if (step.done) return step.value;
      for (const event of step.value) {
        onEvent();
        this.#pushStreamEvent(channel, event);
      }
    }
  }

  /** Forwards a provider event with tool names decoded from their wire form. */
  #pushStreamEvent(channel: EventChannel, event: ProviderStreamEvent): void {
    if (event.type === "block_start" && event.toolUse) {
      channel.push({
        ...event,
        toolUse: { ...event.toolUse, name: this.#tools.decodeName(event.toolUse.name) },
      });
    } else if (event.type === "block_complete") {
      channel.push({ ...event, block: this.#decodeBlock(event.block) });
    } else {
      channel.push(event);
    }
  }

  async #commitAssistant(channel: EventChannel, result: AssistantResult): Promise<Message> {
    const message = this.#conversation.addAssistantMessage(
      result.content.map((block) => this.#decodeBlock(block)),
      result.usage,
      { stopReason: result.stopReason, ...this.#producer() },
    );
    await this.#persist([message]);
    channel.push({
      type: "message_complete",
      message,
      usage: result.usage,
      stopReason: result.stopReason,
      ...(result.unrecognised?.length ? { unrecognised: result.unrecognised } : {}),
    });
    return message;
  }

  /** Keeps what an aborted request produced, marked as aborted. */
  async #commitAborted(channel: EventChannel, content: ContentBlock[]): Promise<Message> {
    return await this.#commitAssistant(channel, {
      content,
      usage: emptyUsage(),
      stopReason: "aborted",
    });
  }

  /** Keeps what a failed request produced, marked as an error, so nothing is lost. */
  async #commitFailure(error: ProviderError): Promise<void> {
    const content = (error.partial?.content ?? []).filter((b) => b.type !== "tool_use");
    const message = this.#conversation.addAssistantMessage(
      content.map((block) => this.#decodeBlock(block)),
      error.partial?.usage ?? emptyUsage(),
      { stopReason: "error", errorMessage: error.message, ...this.#producer() },
    );
    await this.#persist([message]);
  }

  /** The protocol and model an assistant message is stamped with (for cross-model hand-off). */
  #producer(): { api: ApiName; model: string } {
    return { api: this.#config.provider.api, model: this.#config.provider.model };
  }

  /**
   * Runs the calls and stores their results, each with how long its tool
   * ran (so a resumed transcript shows the durations the live one did).
   *
   * @param last Whether the run stops after these results (its turn limit): they say so.
   * @returns Whether the run was aborted meanwhile (the stored results say so too).
   */
  async #dispatch(
    calls: ToolUseBlock[],
    channel: EventChannel,
    signal: AbortSignal,
    last: boolean,
  ): Promise<boolean> {
    const runOne = async (modelCall: ToolUseBlock): Promise<ToolResultBlock> => {
      let startedAt: number | undefined;
      const { call, result } = await this.#execute(modelCall, channel, {
        signal,
        hooks: this.#hooks,
        onStart: (final) => {
          startedAt = Date.now();
          channel.push({ type: "tool_dispatch_start", call: final });
        },
        onProgress: (final, partial) =>
          channel.push({ type: "tool_progress", call: final, partial }),
      });
      const parts = await this.#downsize(result.parts, signal);
      const block: ToolResultBlock = {
        type: "tool_result",
        toolUseId: call.id,
        toolName: call.name,
        content: parts,
        isError: result.isError,
      };
      if (startedAt !== undefined) block.durationMs = Date.now() - startedAt;
      channel.push({
        type: "tool_dispatch_complete",
        call,
        result: parts,
        isError: result.isError,
      });
      return block;
    };
    const results: ToolResultBlock[] = [];
    if (this.#config.parallelTools) {
      results.push(...await Promise.all(calls.map(runOne)));
    } else {
      for (const call of calls) results.push(await runOne(call));
    }
    // Decided once: the stored mark and the run's end must agree.
    const aborted = signal.aborted;
    const ended = aborted ? "aborted" : last ? "max_turns" : undefined;
    await this.#persist([this.#conversation.addToolResults(results, ended)]);
    return aborted;
  }

  /**
   * Runs one call through the tool set; arguments nested too deep to be read
   * safely (see `parseToolArguments`) are answered with an error instead.
   */
  async #execute(
    call: ToolUseBlock,
    channel: EventChannel,
    options: ExecuteOptions,
  ): Promise<Dispatched> {
    const tooDeep = tooDeepArguments(call);
    if (tooDeep === null) return await this.#tools.execute(call, options);
    channel.push({ type: "tool_dispatch_start", call });
    return { call, result: { parts: [{ type: "text", text: tooDeep }], isError: true } };
  }

  /**
   * Downsizes images to the configured longest side. A user's unreadable
   * image fails the run with a clear error (strict); a tool's becomes a note
   * the model can read. An abort stops the resizing: the image becomes a note
   * (a user's too), and the run then ends as aborted, as after a tool's abort.
   * A model that takes text only gets a note in place of every image.
   */
  async #downsize<T extends ResultPart | ImageBlock>(
    parts: readonly T[],
    signal: AbortSignal,
    strict = false,
  ): Promise<T[]> {
    const maxSide = this.#config.imageMaxSide;
    const { input, model } = this.#config.provider;
    const takesImages = input?.includes("image") ?? true;
    return await Promise.all(parts.map(async (part): Promise<T> => {
      if (part.type !== "image") return part;
      if (!takesImages) {
        return { type: "text", text: `[image omitted: ${model} takes text only]` } as T;
      }
      try {
        const image = await downsizeImage(
          part,
          maxSide === undefined ? { signal } : { maxSide, signal },
        );
        return { ...part, mediaType: image.mediaType, data: image.data };
      } catch (error) {
        if (signal.aborted) {
          return {
            type: "text",
            text: "[image omitted: the run was aborted while it was being resized]",
          } as T;
        }
        if (strict) throw error;
        return { type: "text", text: `[image omitted: ${(error as Error).message}]` } as T;
      }
    }));
  }

  #compactionEnabled(): boolean {
    return this.#config.compaction?.enabled ?? true;
  }

  async #compactIfNearWindow(channel: EventChannel, signal: AbortSignal): Promise<void> {
    const window = this.#config.provider.contextWindow;
    if (!window || !this.#compactionEnabled()) return;
    const reserve = this.#config.compaction?.reserveTokens ?? DEFAULT_RESERVE_TOKENS;
    if (estimateContextTokens(this.#conversation.messages) <= window - reserve) return;
    // When aborted, the request that follows ends the run as aborted.
    await this.#compactDuringRun("threshold", channel, signal);
  }

  /** A compaction inside a run: an abort ends it quietly (`null`), like any other request. */
  async #compactDuringRun(
    reason: "threshold" | "overflow",
    channel: EventChannel,
    signal: AbortSignal,
  ): Promise<CompactionResult | null> {
    try {
      return await this.#compact(reason, signal, {}, channel);
    } catch (error) {
      if (signal.aborted && isAbortError(error)) return null;
      throw error;
    }
  }

  async #compact(
    reason: "manual" | "threshold" | "overflow",
    signal: AbortSignal,
    options: CompactOptions,
    channel?: EventChannel,
  ): Promise<CompactionResult | null> {
    const settings = this.#config.compaction ?? {};
    const messages = this.#conversation.messages;
    const plan = planCompaction(messages, settings.keepRecentTokens ?? DEFAULT_KEEP_RECENT_TOKENS);
    if (!plan) return null;
    const tokensBefore = estimateContextTokens(messages);
    const base = this.#summaryRequest(options, signal);
    const parts: string[] = [];
    let usage = emptyUsage();
    if (plan.summarise.length) {
      const reply = await summarise(plan.summarise, { ...base, kind: "history" });
      parts.push(reply.text);
      usage = addUsage(usage, reply.usage);
    }
    if (plan.turnPrefix.length) {
      const reply = await summarise(plan.turnPrefix, { ...base, kind: "turn_prefix" });
      parts.push(`## Current turn so far\n${reply.text}`);
      usage = addUsage(usage, reply.usage);
    }
    const summary = parts.join("\n\n");
    const summaryMessage = this.#conversation.addCompactionSummary(
      summary,
      tokensBefore,
      plan.keep.length,
    );
    // What the summary cost is stored with it, so the session's total counts it.
    Object.assign(summaryMessage, { usage, ...this.#producer() });
    // Copies carry no usage: it was counted once on the original, and a stale
    // figure would make the context look as large as before compaction.
    const copies = plan.keep.map(({ usage: _spent, ...rest }) => structuredClone(rest));
    this.#conversation.messages.push(...copies);
    await this.#persist([summaryMessage, ...copies]);
    const result = {
      summary,
      tokensBefore,
      tokensAfter: estimateContextTokens(this.#conversation.messages),
      keptMessages: copies.length,
    };
    channel?.push({ type: "compaction", summary, tokensBefore, reason });
    return result;
  }

  /** The injected provider, else the one registered for the configured protocol. */
  #streamMessage(): StreamMessage {
    return this.#provider ?? streamForApi(this.#config.provider.api);
  }

  #decodeBlock(block: ContentBlock): ContentBlock {
    if (block.type !== "tool_use") return block;
    return { ...block, name: this.#tools.decodeName(block.name) };
  }

  async #persist(messages: Message[]): Promise<void> {
    const wire = wireIdentity(this.#config.provider);
    const conversation = this.#conversation.messages.slice();
    const toolsAvailable = this.#tools.decls();
    const entries: PersistentMessage[] = messages.map((message) => {
      const entry: PersistentMessage = { message, conversation, toolsAvailable };
      if (message.role === "assistant") {
        entry.wire = wire;
        if (message.usage) entry.usage = message.usage;
      }
      return entry;
    });
    try {
      await this.#session.append(entries);
    } catch (error) {
      this.#forget(messages);
      throw error;
    }
  }

  /**
   * Takes messages the store refused back out of the conversation, so memory
   * stays what is stored and the next request sends no unsaved context. A
   * rejected append wrote nothing (the built-in stores write a batch all or
   * nothing), and the messages are the newest of the conversation.
   */
  #forget(messages: readonly Message[]): void {
    const held = this.#conversation.messages;
    for (const message of messages.toReversed()) {
      const index = held.lastIndexOf(message);
      if (index >= 0) held.splice(index, 1);
    }
  }

  #assertIdle(action: string): void {
    if (this.#running) {
      throw new Error(
        `Cannot ${action} while a run is in progress: wait for run_complete or cancel the stream`,
      );
    }
    if (this.#compacting) {
      throw new Error(
        `Cannot ${action} while a compaction is in progress: await compact() or abort its signal`,
      );
    }
  }
}

function errorSummary(
  error: ProviderError,
): { kind: ProviderErrorKind; message: string; status?: number } {
  const summary: { kind: ProviderErrorKind; message: string; status?: number } = {
    kind: error.kind,
    message: error.message,
  };
  if (error.status !== undefined) summary.status = error.status;
  return summary;
}

/** What a failed run reports in its `run_error` event. */
function runErrorSummary(error: unknown): RunErrorEvent["error"] {
  if (error instanceof ProviderError) return errorSummary(error);
  return { kind: runErrorKind(error), message: errorMessage(error) };
}

function runErrorKind(error: unknown): RunErrorKind {
  if (error instanceof SessionStoreError) return "session";
  if (error instanceof ImageError) return "image";
  if (error instanceof ToolSourceError) return "tool_source";
  return "other";
}
