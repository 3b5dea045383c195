/**
 * The session controller: one agent on one session at a time, the model,
 * the queue of prompts (steer, follow-up), compaction, `!shell` context and
 * extensions, behind commands and an event stream. The chat, print mode
 * and RPC mode are views over it; it never loads the terminal UI.
 *
 * @module
 */
import {
  expandPromptCommand,
  type PromptCommand,
  promptCommands,
  type PromptResources,
} from "../skills/prompt_commands.ts";
import {
  addUsage,
  type Agent,
  type BranchSummary,
  type CompactionResult,
  Conversation,
  emptyUsage,
  type ImageBlock,
  type Message,
  messageText,
  Pricing,
  PricingRegistry,
  type ReasoningLevel,
  runContinuesAfter,
  type RunOptions,
  type Session,
  type SessionInfo,
  type SessionStore,
  type TextBlock,
  type Tool,
  type ToolHooks,
  type TreeNode,
  type UserMessage,
} from "@panto/lib";
import { loadStartup, type SetupOptions, type Startup } from "../setup/app_setup.ts";
import type { ChatArgs } from "../setup/args.ts";
import { expandAttachments } from "./attachments.ts";
import { optionalEnv, withholdFromCommands } from "../shared/env.ts";
import { agentConfig } from "../config/agent_config.ts";
import { cycleChoices } from "../models/model_choices.ts";
import {
  DEFAULT_THINKING_LEVELS,
  type ModelSelection,
  resolveModel,
} from "../config/model_registry.ts";
import type { PantoConfig } from "../config/panto_config.ts";
import type { UntrustedProjectPolicy } from "../config/project_trust.ts";
import { errorMessage } from "../shared/error_message.ts";
import { CliError, UsageError } from "../shared/errors.ts";
import type { ExtensionHost } from "../extensions/extension_host.ts";
import { extensionsToLoad, type ExtensionSurface, loadExtensions } from "./load_extensions.ts";
import type { McpServers } from "@panto/lib/mcp";
import type { McpServerStatus } from "@panto/lib/mcp";
import { startMcpServers } from "../mcp/start_mcp_servers.ts";
import type {
  ControllerEvent,
  ControllerState,
  QueueState,
  RunOutcome,
} from "./controller_events.ts";
import { buildAgent } from "./build_agent.ts";
import { contextTextsByName } from "./context_file_texts.ts";
import type { ReloadPlan } from "./reload_plan.ts";
import type { ReloadSnapshot } from "./reload_summary.ts";
import { withheldVariables } from "../tools/child_env.ts";
import { abandonedEntries } from "./abandoned_branch.ts";
import { forkEntries } from "./fork_entries.ts";
import { entryOfMessage } from "./fork_point.ts";
import { runFailure } from "./run_failure.ts";
import { runShellCommand, type ShellOptions, type ShellResult } from "./shell_command.ts";
import { type TypedPrompt, typedPrompt } from "./typed_prompt.ts";

export type { SetupOptions } from "../setup/app_setup.ts";

/**
 * What the controller is doing: a run, a compaction, a `!shell` command, a
 * branch summary, or a switch to another session or point of the tree.
 */
interface Activity {
  kind: Exclude<ControllerState["activity"], "idle">;
  abort: AbortController;
  /** Marks it done (the caller's signal no longer aborts it). */
  end(): void;
}

/** Options for {@linkcode SessionController.branch}. */
export interface BranchOptions {
  /** Summarise the branch left; the summary goes with the next prompt. */
  summarise?: boolean;
  /** What the summary should keep. */
  instructions?: string;
}

/** A queued prompt, or a `!shell` (`!!shell`) command queued behind prompts. */
interface Queued {
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

/** A branch summary as it follows the next prompt. */
function branchSummaryText(summary: string): string {
  return "<branch_summary>\nBefore this prompt the user left a branch of this conversation " +
    `to continue from here. What happened on that branch:\n${summary}\n</branch_summary>`;
}

/** Tokens spent, and on which model (a message, or a summary's request). */
type Spend = Pick<Message, "usage" | "api" | "model">;

/**
 * The session's messages off its active path, for its total usage. A tree
 * that cannot be read (a damaged branch) counts as none: the total is a
 * figure in the footer, not a reason to refuse the session.
 */
async function messagesOffPath(session: Session): Promise<Message[]> {
  try {
    return await session.messagesOffPath();
  } catch {
    return [];
  }
}

/** An unanswered prompt as the user wrote it, if any. */
function danglingPrompt(message: Message | undefined): TypedPrompt | undefined {
  return message ? typedPrompt(message) : undefined;
}

/**
 * The prompt the conversation ends with when it got no answer: nothing
 * after it, or only an aborted or failed answer without text. Requests
 * leave such a prompt out from then on (lib's `prepareContext`), so it is
 * offered to the user instead.
 */
function unansweredPrompt(messages: readonly Message[]): Message | undefined {
  const context = messages.filter((message) => message.role !== "system");
  let at = context.length - 1;
  const last = context[at];
  if (last?.role === "assistant") {
    const interrupted = last.stopReason === "aborted" || last.stopReason === "error";
    if (!interrupted || messageText(last).trim() !== "") return undefined;
    at--;
  }
  const prompt = context[at];
  // A user message after tool results steered the run: the run's prompt was answered.
  if (prompt?.role !== "user" || runContinuesAfter(context[at - 1])) return undefined;
  return prompt.content.some((block) => block.type === "compaction_summary") ? undefined : prompt;
}

function textBlock(text: string): TextBlock {
  return { type: "text", text };
}

/** What each activity is called in a busy error. */
const BUSY_WITH: Record<Activity["kind"], string> = {
  running: "run",
  compacting: "compaction",
  shell: "shell command",
  summarising: "branch summary",
  switching: "switch of session",
};

/** Thrown by commands that need the controller idle, naming what to do instead. */
export class ControllerBusyError extends CliError {
  /**
   * Creates the error.
   *
   * @param action What was asked, e.g. "switching models".
   * @param activity What runs.
   */
  constructor(action: string, activity: Activity["kind"]) {
    const what = BUSY_WITH[activity];
    super(`Wait for the current ${what} to finish (or abort it) before ${action}`);
    this.name = "ControllerBusyError";
  }
}

/**
 * Owns the agent, its session, the model selection, the prompt queue,
 * compaction and extension wiring for one panto process, and reports
 * everything it does as {@linkcode ControllerEvent}s.
 *
 * One thing runs at a time (a run, a compaction, a `!shell` command, a
 * branch summary or a switch of session or tree point):
 * {@linkcode SessionController.prompt} and the commands that change the
 * session or model throw a {@linkcode ControllerBusyError} meanwhile;
 * {@linkcode SessionController.steer} and
 * {@linkcode SessionController.followUp} queue instead. Queued prompts are
 * sent once the controller is idle, steering first.
 *
 * `@path` words of text prompts (`prompt` with a string, `followUp`) are
 * expanded here (files attached, reported in a `notice`); a
 * {@linkcode UserMessage} is sent as given, and steering is sent as plain
 * text.
 *
 * @example Run a prompt and print the answer
 * ```ts ignore
 * import { type ChatArgs, parseArgs } from "../setup/args.ts";
 * import { SessionController } from "./session_controller.ts";
 * const controller = await SessionController.open(parseArgs(["-m", "fast"]) as ChatArgs);
 * controller.subscribe((event) => {
 *   if (event.type === "content_delta" && event.kind === "text") console.log(event.text);
 * });
 * const outcome = await controller.prompt("What is in README.md?");
 * console.log(outcome.status); // "done"
 * await controller.close();
 * ```
 */
export class SessionController {
  /** The working directory. */
  readonly cwd: string;
  /** panto's home directory. */
  readonly pantoHome: string;
  /** The session store (closed by {@linkcode SessionController.close}). */
  readonly store: SessionStore;
  /** What the user must be told at the start (ignored settings, skipped files). */
  readonly notices: string[];
  /** Whether the first session was resumed (`-c`, `-r`) rather than created. */
  readonly resumed: boolean;
  readonly #args: ChatArgs;
  #config: PantoConfig;
  #contextFiles: readonly string[];
  /** Their texts when the prompt was built, for `/reload` to tell which changed. */
  #contextTexts: Record<string, string> = {};
  #resources: PromptResources;
  #tools: Tool[];
  readonly #extensionTools: Tool[] = [];
  #systemPrompt: string;
  /** Key actions the config may rebind, for `/reload`'s config check. */
  #keybindingActions: readonly string[] | undefined;
  /** What the view lent the extensions, to load them again on `/reload`. */
  #extensionSurface: ExtensionSurface | undefined;
  /** Aborts when the extensions loaded last are unloaded (their error listeners go). */
  #extensionsLoaded: AbortController | undefined;
  #extensionLoads = 0;
  readonly #untrustedProject: UntrustedProjectPolicy;
  readonly #listeners = new Set<(event: ControllerEvent) => void>();
  /** Runs, compactions, shell commands and scheduled queue drains not yet settled. */
  readonly #work = new Set<Promise<unknown>>();
  readonly #defaultPrices = PricingRegistry.withDefaults();
  #agent: Agent;
  #selection: ModelSelection;
  /** The first model's name: the one --api/--base-url describe, when they were given. */
  readonly #adHocAlias: string;
  #activity: Activity | undefined;
  #steering: Queued[] = [];
  #followUp: Queued[] = [];
  #queued = 0;
  /** Context for the next prompt (`!shell` output). */
  #context: string[] = [];
  /** The summary of the branch left by the last move in the tree, for the next prompt of this session. */
  #branchSummary: BranchSummary | undefined;
  /** The session's messages on other branches than the active one: their usage counts in its total. */
  #offPath: readonly Message[] = [];
  #pendingName: string | undefined;
  #name: string | undefined;
  #dangling: TypedPrompt | undefined;
  #extensions: ExtensionHost | undefined;
  #mcp: McpServers | undefined;
  /** MCP failures reported before anyone subscribed, for the first subscriber. */
  #earlyNotices: string[] = [];
  #closed = false;
  /** The hooks around tool calls, kept across the agents of every session (approvals). */
  #toolHooks: ToolHooks = {};

  private constructor(startup: Startup, args: ChatArgs, agent: Agent) {
    this.cwd = startup.cwd;
    this.pantoHome = startup.pantoHome;
    this.#config = startup.config;
    this.store = startup.store;
    this.notices = startup.notices;
    this.resumed = startup.resumed;
    this.#contextFiles = startup.contextFiles;
    this.#resources = startup.resources;
    this.#args = args;
    this.#tools = startup.tools;
    this.#systemPrompt = startup.systemPrompt;
    this.#untrustedProject = startup.untrustedProject;
    this.#selection = startup.selection;
    this.#adHocAlias = startup.selection.alias;
    this.#agent = agent;
    this.#name = startup.session.info.name;
    this.#dangling = danglingPrompt(startup.danglingUser);
  }

  /**
   * Loads config, opens the store (checking that it can be written),
   * resolves the session (`-c`, `-r`, else a new one) and the model, and
   * builds the agent with the built-in tools and the system prompt.
   *
   * @param args The parsed command line.
   * @param options A session picker (bare `-r`), key actions, directories,
   *   the untrusted-project policy.
   * @returns The controller; close it.
   */
  static async open(args: ChatArgs, options: SetupOptions = {}): Promise<SessionController> {
    const startup = await loadStartup(args, options);
    try {
      const agent = await buildAgent(
        {
          config: agentConfig(startup.config, startup.selection, args.maxTurns),
          tools: startup.tools,
          systemPrompt: startup.systemPrompt,
        },
        startup.session,
        startup.conversation,
      );
      const controller = new SessionController(startup, args, agent);
      controller.#offPath = await messagesOffPath(startup.session);
      controller.#keybindingActions = options.keybindingActions;
      controller.#contextTexts = contextTextsByName(
        startup.contextFiles,
        startup.contextTexts,
        startup.cwd,
      );
      controller.#mcp = await startMcpServers(
        startup.config,
        args,
        startup.cwd,
        (text) => controller.#mcpNotice(text),
      );
      return controller;
    } catch (error) {
      await startup.store.close();
      throw error;
    }
  }

  /** The current agent (replaced when the session changes). */
  get agent(): Agent {
    return this.#agent;
  }

  /** The current session. */
  get session(): Session {
    return this.#agent.session;
  }

  /** The model in use. */
  get model(): ModelSelection {
    return this.#selection;
  }

  /** Whether a run, compaction or shell command is in progress. */
  get busy(): boolean {
    return this.#activity !== undefined;
  }

  /**
   * The current session's last prompt when it got no answer (a crash or a
   * quit right after it was sent, a run interrupted or failed before any
   * answer, or a prompt chosen by `branch` or `forkAt`): not sent again
   * (an interrupted one stays in the conversation, but requests leave it
   * out); a view may offer it for editing. It is the text as typed,
   * `@path` words included (their files are attached again when it is
   * sent), without what was sent with it (the files' contents, `!shell`
   * output, a branch summary); the images pasted with it are
   * {@linkcode SessionController.danglingImages}. Cleared by the next prompt.
   */
  get danglingPrompt(): string | undefined {
    return this.#dangling?.text;
  }

  /**
   * The images sent with {@linkcode SessionController.danglingPrompt} (the
   * `images` of `prompt`, not those of its `@path` files), to offer with it;
   * empty when there is none.
   */
  get danglingImages(): readonly ImageBlock[] {
    return this.#dangling?.images ?? [];
  }

  /** The prompts waiting (copies). */
  get queue(): QueueState {
    return { steering: this.#steering.map(shown), followUp: this.#followUp.map(shown) };
  }

  /** The loaded configuration (read again by {@linkcode SessionController.applyReload}). */
  get config(): PantoConfig {
    return this.#config;
  }

  /** The AGENTS.md (or similar) files the system prompt includes. */
  get contextFiles(): readonly string[] {
    return this.#contextFiles;
  }

  /** The skills and prompt templates: `/skill:name` and `/template` commands. */
  get resources(): PromptResources {
    return this.#resources;
  }

  /** The extensions' host, once {@linkcode SessionController.loadExtensions} found any. */
  get extensions(): ExtensionHost | undefined {
    return this.#extensions;
  }

  /**
   * Sets the hooks around tool calls (an approval prompt) on the agent, and
   * on the agent of every session opened later (`new`, `switch`, `fork`).
   *
   * @param hooks `beforeToolCall` and `afterToolCall`.
   */
  setToolHooks(hooks: ToolHooks): void {
    this.#toolHooks = hooks;
    this.#agent.setHooks(hooks);
  }

  /**
   * Calls `listener` with every event from now on. A listener must not
   * throw: its error would end the run it came from as failed.
   *
   * @param listener Gets each event.
   * @returns Unsubscribes.
   */
  subscribe(listener: (event: ControllerEvent) => void): () => void {
    this.#listeners.add(listener);
    for (const text of this.#earlyNotices.splice(0)) this.#mcpNotice(text);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Runs one prompt to its end (tools included). Queued follow-ups start
   * after it, on their own.
   *
   * @param message Text (`@path` words attach files) or a user message sent as is.
   * @param options Aborts the run; `images` go with a text prompt, before its files' (pasted ones).
   * @returns How the run ended (a failure is an outcome, not a rejection).
   * @throws {ControllerBusyError} While something runs: steer or follow up instead.
   */
  prompt(
    message: string | UserMessage,
    options: { signal?: AbortSignal; images?: readonly ImageBlock[] } = {},
  ): Promise<RunOutcome> {
    try {
      this.#assertIdle("sending a prompt (steer or follow up instead)");
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#track(this.#run(message, false, options.signal, options.images));
  }

  /**
   * Steers the running run: the text is added as a user message at its next
   * tool boundary; a run that ends before then gets it as the next run.
   * When idle, it is sent at once.
   *
   * @param text The message.
   */
  steer(text: string): void {
    this.#enqueue(this.#steering, { text, seq: this.#queued++ });
  }

  /**
   * Sends the text as a new run after the current one (and earlier queued
   * prompts) ended; when idle, at once.
   *
   * @param text The prompt (`@path` words attach files).
   */
  followUp(text: string): void {
    this.#enqueue(this.#followUp, { text, seq: this.#queued++ });
  }

  /**
   * Runs a `!shell` command (see {@linkcode SessionController.runShell})
   * after what runs and what was queued before it; when idle, at once. The
   * queue shows it with its `!` (`!!` when excluded).
   *
   * @param command The command line.
   * @param options `excludeFromContext`: a `!!command`, its output shown only.
   */
  queueShell(command: string, options: ShellOptions = {}): void {
    const excluded = options.excludeFromContext === true;
    this.#enqueue(this.#followUp, { text: command, shell: true, excluded, seq: this.#queued++ });
  }

  /**
   * Empties the queue (steering first, then follow-ups; shell commands
   * with their `!`), e.g. to put the prompts back in the editor.
   *
   * @returns The prompts taken.
   */
  takeQueue(): string[] {
    const taken = [...this.#steering.splice(0), ...this.#followUp.splice(0)].map(shown);
    if (taken.length) this.#emitQueue();
    return taken;
  }

  /**
   * Takes the most recently queued prompt (steering or follow-up) out of
   * the queue, e.g. to edit it again.
   *
   * @returns Its text (a shell command with its `!`), or `undefined` when
   *   nothing is queued.
   */
  takeLastQueued(): string | undefined {
    const steer = this.#steering.at(-1);
    const follow = this.#followUp.at(-1);
    const queue = (steer?.seq ?? -1) > (follow?.seq ?? -1) ? this.#steering : this.#followUp;
    const item = queue.pop();
    if (item === undefined) return undefined;
    this.#emitQueue();
    return shown(item);
  }

  /** Aborts what runs (a run keeps its partial answer); the queue stays. */
  abort(): void {
    this.#activity?.abort.abort();
  }

  /**
   * Switches the model.
   *
   * @param alias A configured alias or `provider/model`.
   * @param reasoning The reasoning level (default: the alias's configured
   *   one, else the `--thinking` flag's, else off).
   * @throws {ControllerBusyError} While something runs.
   * @throws {UsageError} For an unknown model or a missing key.
   */
  setModel(alias: string, reasoning?: ReasoningLevel): void {
    this.#assertIdle("switching models");
    const configured = Object.hasOwn(this.config.models, alias)
      ? this.config.models[alias]!.reasoning
      : undefined;
    const thinking = reasoning ?? configured ?? this.#args.thinking;
    const { api, baseUrl, apiKeyEnv } = this.#args;
    // The model given with --api/--base-url is not in the config: it keeps its flags.
    const adHoc = (api !== undefined || baseUrl !== undefined) && alias === this.#adHocAlias;
    const selection = resolveModel(
      this.config,
      alias,
      adHoc ? { api, baseUrl, apiKeyEnv, thinking } : { thinking },
    );
    this.#agent.setConfig(agentConfig(this.config, selection, this.#args.maxTurns));
    this.#selection = selection;
    const { model } = selection.provider;
    this.#emit({
      type: "model_changed",
      alias: selection.alias,
      model,
      reasoning: selection.provider.reasoning,
    });
  }

  /**
   * Switches to the next (or previous) model of the config's `cycleModels`
   * (default: every alias, in config order), at its configured reasoning
   * level.
   *
   * @param direction 1 for the next, -1 for the previous.
   * @returns The new selection.
   * @throws {UsageError} When the config has no models.
   */
  cycleModel(direction: 1 | -1 = 1): ModelSelection {
    const choices = cycleChoices(this.config, this.#args.models);
    if (choices.length === 0) {
      throw new UsageError(
        'No models to cycle through: set a provider\'s key (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, …: panto models --all lists them), or add models under "models" in config.json',
      );
    }
    const at = choices.indexOf(this.#selection.alias);
    const next = at < 0
      ? (direction === 1 ? 0 : choices.length - 1)
      : (at + direction + choices.length) % choices.length;
    this.setModel(choices[next]!);
    return this.#selection;
  }

  /**
   * Gives the agent the settings of {@linkcode SessionController.config}
   * again (compaction, retries, tool concurrency), after a change to them.
   */
  applyConfig(): void {
    this.#agent.setConfig(agentConfig(this.config, this.#selection, this.#args.maxTurns));
  }

  /**
   * Sets the reasoning level of the current model.
   *
   * @param level The level.
   */
  setThinkingLevel(level: ReasoningLevel): void {
    this.setModel(this.#selection.alias, level);
  }

  /** The reasoning levels the current model takes, least first (what shift+tab cycles through). */
  get thinkingLevels(): readonly ReasoningLevel[] {
    return this.#selection.thinkingLevels ?? DEFAULT_THINKING_LEVELS;
  }

  /**
   * Summarises older messages to free context. Prompts queued meanwhile are
   * sent after it.
   *
   * @param instructions What the summary should keep.
   * @param signal Aborts it.
   * @returns What was done; `undefined` when there was nothing to compact.
   * @throws {ControllerBusyError} While something runs; else what the
   *   summarising request threw.
   */
  compact(instructions?: string, signal?: AbortSignal): Promise<CompactionResult | undefined> {
    return this.#exclusive("compacting", "compacting", signal, async (abort) => {
      this.#emit({ type: "compaction_start" });
      try {
        const result = await this.#agent.compact({
          ...(instructions ? { instructions } : {}),
          signal: abort,
        });
        this.#emit({ type: "compaction_end", result });
        return result ?? undefined;
      } catch (error) {
        this.#emit({ type: "compaction_end", result: null, failure: errorMessage(error) });
        throw error;
      }
    });
  }

  /**
   * Runs a shell command the user typed (`!command`) and adds its output to
   * the next prompt; with `excludeFromContext` (`!!command`, as pi) the
   * output is only shown, never sent. Reported by `shell_start` and
   * `shell_end`.
   *
   * @param command The command line.
   * @param signal Kills it.
   * @param options Whether the output stays out of the model's context.
   * @returns Its output and whether it failed.
   * @throws {ControllerBusyError} While something runs.
   */
  runShell(
    command: string,
    signal?: AbortSignal,
    options: ShellOptions = {},
  ): Promise<ShellResult> {
    const excluded = options.excludeFromContext === true;
    return this.#exclusive("shell", "running a shell command", signal, async (abort) => {
      this.#emit({ type: "shell_start", command, excluded });
      let result: ShellResult;
      try {
        result = await runShellCommand(
          command,
          this.cwd,
          this.config.tools.bashTimeoutSeconds,
          abort,
        );
      } catch (error) {
        this.#emit({
          type: "shell_end",
          command,
          output: errorMessage(error),
          failed: true,
          excluded,
        });
        throw error;
      }
      if (!excluded) {
        this.#context.push(
          `The user ran \`${command}\`:\n<shell_output>\n${result.output}\n</shell_output>`,
        );
      }
      this.#emit({ type: "shell_end", command, ...result, excluded });
      return result;
    });
  }

  /**
   * Starts a new, empty session (saved after its first answer).
   *
   * @throws {ControllerBusyError} While something runs.
   */
  newSession(): Promise<void> {
    return this.#exclusive("switching", "starting a new session", undefined, async () => {
      await this.#switchTo(this.store.create({ cwd: this.cwd }), "new");
    });
  }

  /**
   * Switches to a saved session.
   *
   * @param id Its id or a unique prefix.
   * @throws {UsageError} When no session matches.
   * @throws {ControllerBusyError} While something runs.
   */
  switchSession(id: string): Promise<void> {
    return this.#exclusive(
      "switching",
      "switching sessions",
      undefined,
      () => this.#switchById(id),
    );
  }

  async #switchById(id: string): Promise<void> {
    const session = await this.store.resolve(id);
    if (!session) {
      throw new UsageError(
        `No session matches ${
          JSON.stringify(id)
        }: list them with listSessions (or \`panto sessions\`)`,
      );
    }
    await this.#switchTo(session, "switch");
  }

  /**
   * Copies the conversation up to (not including) a message into a new
   * session that records this one as its parent, and switches to it; the
   * current session is left as it is. A saved session is forked by its
   * store (`store.fork`, entry ids kept).
   *
   * @param atMessageIndex How many messages to keep (default: all).
   * @returns The new session's id.
   * @throws {UsageError} For an index outside 0…message count.
   */
  fork(atMessageIndex?: number): Promise<string> {
    return this.#exclusive(
      "switching",
      "forking the session",
      undefined,
      () => this.#forkMessages(atMessageIndex),
    );
  }

  async #forkMessages(atMessageIndex: number | undefined): Promise<string> {
    const source = this.#agent.conversation;
    const end = atMessageIndex ?? source.messages.length;
    if (!Number.isInteger(end) || end < 0 || end > source.messages.length) {
      throw new UsageError(
        `Cannot fork at message ${end}: use a whole number from 0 to ${source.messages.length}`,
      );
    }
    const stored = await this.#storeFork(end);
    if (stored) {
      await this.#switchTo(stored, "fork");
      return stored.id;
    }
    const messages = source.messages.slice(0, end);
    const session = this.store.create({
      cwd: this.cwd,
      ...(source.metadata === undefined ? {} : { metadata: source.metadata }),
      ...(this.session.persisted ? { parentSessionId: this.session.id } : {}),
    });
    const toolsAvailable = this.#agent.tools.map((tool) => tool.decl);
    await session.append(forkEntries(messages, toolsAvailable, this.session.info.wire));
    // Adopted as copied: a store that keeps nothing (--no-session) could not give it back.
    this.#pendingName = undefined;
    await this.#adopt(
      session,
      new Conversation(structuredClone(messages), source.metadata),
      undefined,
      "fork",
    );
    return session.id;
  }

  /**
   * Forks the saved session at an entry of its tree (any branch): a new
   * session holding the path from a root to the entry, recording this one
   * as its parent, becomes current; this one is left as it is. A prompt
   * chosen has no answer there, so it is offered for editing
   * (`danglingPrompt`).
   *
   * @param entryId An entry of {@linkcode SessionController.sessionTree}.
   * @returns The new session's id.
   * @throws {UsageError} When the session is not saved yet or its store cannot fork.
   * @throws {ControllerBusyError} While something runs.
   * @throws {Error} When the entry is not in the session.
   */
  forkAt(entryId: string): Promise<string> {
    return this.#exclusive("switching", "forking the session", undefined, async () => {
      if (!this.store.fork || !this.session.persisted) {
        throw new UsageError(
          "Only a saved session can be forked at an entry: fork the whole conversation instead",
        );
      }
      const stored = await this.store.fork(this.session.id, entryId);
      await this.#switchTo(stored, "fork");
      return stored.id;
    });
  }

  /**
   * The session's tree: every entry on every branch, the active path marked.
   *
   * @returns The roots, the active leaf and the ids from a root to it.
   */
  sessionTree(): Promise<{ roots: TreeNode[]; leafId: string | null; path: string[] }> {
    return this.session.tree();
  }

  /**
   * Continues the session from an earlier entry: the next prompt starts a
   * new branch there, and the entries after it stay in the tree. Choosing
   * a prompt branches from just before it and offers its text for editing
   * (`danglingPrompt`), so sending it, edited or not, makes a sibling.
   *
   * With `summarise`, the model first summarises the entries the move
   * leaves behind (the old path after the point it shares with the new
   * one), and the summary goes with the next prompt (after its text), so
   * the new branch knows what was tried; the controller is busy
   * (`summarising`) meanwhile, and when the summary fails or is aborted
   * (`abort()`) the session stays where it was.
   *
   * @param entryId An entry of {@linkcode SessionController.sessionTree}, or `null` for a new root.
   * @param options Whether to summarise the branch left, with what instructions.
   * @returns The summary, when one was made.
   * @throws {ControllerBusyError} While something runs.
   * @throws {Error} When the entry is not in the session, or the summary failed.
   */
  branch(entryId: string | null, options: BranchOptions = {}): Promise<string | undefined> {
    // The whole move is one activity: a prompt typed meanwhile waits, then goes to the new branch.
    return this.#exclusive(
      options.summarise ? "summarising" : "switching",
      "moving in the session tree",
      undefined,
      (signal) => this.#branch(entryId, options, signal),
    );
  }

  async #branch(
    entryId: string | null,
    options: BranchOptions,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const session = this.session;
    // Only a summary needs to know where the move starts from.
    const from = options.summarise ? (await session.tree()).leafId : null;
    let to = entryId;
    let loaded = await session.branchFrom(to);
    const prompt = danglingPrompt(loaded.danglingUser);
    if (prompt !== undefined) {
      const { path } = await session.tree();
      to = path.at(-2) ?? null;
      loaded = await session.branchFrom(to);
    }
    let summary: BranchSummary | undefined;
    if (options.summarise) {
      try {
        summary = await this.#summariseLeft(from, to, signal, options.instructions);
      } catch (error) {
        await session.branchFrom(from);
        throw error;
      }
    }
    await this.#adopt(session, loaded.conversation, prompt, "branch");
    this.#branchSummary = summary;
    return summary?.summary;
  }

  /** The model's summary of what moving from leaf `from` to leaf `to` leaves behind, if anything. */
  async #summariseLeft(
    from: string | null,
    to: string | null,
    signal: AbortSignal,
    instructions: string | undefined,
  ): Promise<BranchSummary | undefined> {
    const stored = await this.store.loadTree?.(this.session.id);
    if (!stored) return undefined;
    const left = abandonedEntries(stored.entries, from, to).map((entry) => entry.message);
    if (left.length === 0) return undefined;
    return await this.#agent.summariseBranch(left, {
      signal,
      ...(instructions === undefined ? {} : { instructions }),
    });
  }

  /**
   * The saved sessions, newest first.
   *
   * @param limit Most to list (default 200).
   * @returns Their infos.
   */
  listSessions(limit = 200): Promise<SessionInfo[]> {
    return this.store.list({ limit });
  }

  /**
   * Names the session; one not saved yet is named once it is (after its
   * first answer), unless another session is opened first.
   *
   * @param name The name.
   */
  async nameSession(name: string): Promise<void> {
    if (!this.session.persisted) {
      this.#pendingName = name;
      this.#emit({ type: "session_named", name, pending: true });
      return;
    }
    const session = this.session;
    await this.store.rename(session.id, name);
    // The name belongs to the session, not to a branch: a later /tree move re-reads it from the info.
    if (name === "") delete session.info.name;
    else session.info.name = name;
    // Another session may have been opened while the store wrote: the name is not its.
    if (this.session !== session) return;
    this.#name = name;
    this.#emit({ type: "session_named", name, pending: false });
  }

  /**
   * Loads the extensions and wires their tools into this and every later
   * session's agent. Call once, after subscribing.
   *
   * @param surface What the view lends extensions.
   * @returns The host (also {@linkcode SessionController.extensions}).
   */
  async loadExtensions(surface: ExtensionSurface): Promise<ExtensionHost | undefined> {
    this.#extensionSurface = surface;
    this.#extensionsLoaded = new AbortController();
    const closed = surface.closed
      ? AbortSignal.any([surface.closed, this.#extensionsLoaded.signal])
      : this.#extensionsLoaded.signal;
    this.#extensions = await loadExtensions(
      {
        cwd: this.cwd,
        pantoHome: this.pantoHome,
        untrustedProject: this.#untrustedProject,
        registerTool: (tool) => {
          this.#agent.registerTool(tool);
          this.#extensionTools.push(tool);
        },
        messages: () => this.#agent.conversation.messages,
        reloads: this.#extensionLoads++,
      },
      this.#args,
      { ...surface, closed },
    );
    return this.#extensions;
  }

  /**
   * Reads the config, skills, prompt templates, context files and
   * SYSTEM.md again, under the start-up's trust policy, applying nothing.
   *
   * @returns What {@linkcode SessionController.applyReload} applies.
   * @throws {UsageError} For a config file with a mistake, or the project's
   *   extensions changed since they were trusted.
   */
  async readReload(): Promise<ReloadPlan> {
    const dirs = {
      cwd: this.cwd,
      pantoHome: this.pantoHome,
      untrustedProject: this.#untrustedProject,
      keybindingActions: this.#keybindingActions,
    };
    // `/reload`'s modules load when the user first reloads.
    const { readReloadPlan } = await import("./reload_plan.ts");
    const plan = await readReloadPlan(this.#args, dirs);
    // Untrusted project extensions fail the reload here, before anything is applied.
    if (this.#extensionSurface) await extensionsToLoad(dirs, this.#args);
    return plan;
  }

  /**
   * Applies a reload: the new config, built-in tools, skills, templates and
   * system prompt (the next request carries them: a changed prompt is
   * recorded in the session), the model resolved again, and the extensions
   * unloaded and loaded again. The session and its conversation are kept.
   *
   * @param plan What {@linkcode SessionController.readReload} read.
   * @returns What the user must be told (notices of the files, a model that
   *   is gone, settings that need a restart).
   * @throws {ControllerBusyError} While something runs.
   */
  async applyReload(plan: ReloadPlan): Promise<string[]> {
    this.#assertIdle("reloading");
    const before = this.#config;
    this.#config = plan.config;
    withholdFromCommands(withheldVariables(plan.config, this.#args.apiKeyEnv));
    this.#resources = plan.setup.resources;
    this.#contextFiles = plan.setup.contextFiles;
    this.#contextTexts = plan.contextTexts;
    for (const tool of this.#tools) this.#agent.unregisterTool(tool.decl.name);
    this.#tools = plan.setup.tools;
    for (const tool of this.#tools) this.#agent.registerTool(tool);
    this.#systemPrompt = plan.setup.systemPrompt;
    if (this.#agent.conversation.systemPrompt() !== this.#systemPrompt) {
      await this.#agent.setSystemPrompt(this.#systemPrompt);
    }
    const notices = [...plan.config.notices, ...plan.setup.notices];
    const modelNotice = this.#reselectModel();
    if (modelNotice) notices.push(modelNotice);
    const { restartNotices } = await import("./reload_summary.ts");
    notices.push(...restartNotices(before, plan.config));
    const extensionNotice = await this.#reloadExtensions();
    if (extensionNotice) notices.push(extensionNotice);
    return notices;
  }

  /** What `/reload` compares, with the view's theme name. */
  async reloadSnapshot(theme: string): Promise<ReloadSnapshot> {
    const { configFingerprint } = await import("./reload_summary.ts");
    return {
      config: configFingerprint(this.#config),
      theme,
      skills: this.#resources.skills.map((skill) => skill.name),
      templates: this.#resources.templates.map((template) => template.name),
      contextFiles: this.#contextTexts,
      systemPrompt: this.#systemPrompt,
      extensions: this.#extensions?.loaded.map((extension) => extension.name) ?? [],
    };
  }

  /** The current model again under the new config; when it is gone, the one in use stays. */
  #reselectModel(): string | undefined {
    const { alias, provider } = this.#selection;
    try {
      this.setModel(alias, provider.reasoning);
      return undefined;
    } catch (error) {
      this.applyConfig();
      return `The model ${alias} stays in use for this chat, but the config no longer has it: ${
        errorMessage(error)
      }`;
    }
  }

  /** Unloads the extensions (commands, keys, UI handlers, tools) and loads them again. */
  async #reloadExtensions(): Promise<string | undefined> {
    if (!this.#extensionSurface) return undefined;
    this.#extensions?.unload();
    this.#extensionsLoaded?.abort();
    for (const tool of this.#extensionTools.splice(0)) this.#agent.unregisterTool(tool.decl.name);
    try {
      await this.loadExtensions(this.#extensionSurface);
      return undefined;
    } catch (error) {
      // Their trust was checked by readReload: only a file changed since then gets here.
      this.#extensions = undefined;
      return `No extensions are loaded now: ${errorMessage(error)}`;
    }
  }

  /** The commands of the skills and prompt templates, for help and completion. */
  promptCommands(): PromptCommand[] {
    return promptCommands(this.resources);
  }

  /**
   * The prompt a `/skill:name args` or `/template args` line stands for
   * (the skill's or template's file is read now), or `undefined` for any
   * other line.
   *
   * @param line The submitted line.
   * @returns The user's message to send.
   */
  expandPromptCommand(line: string): Promise<string | undefined> {
    return expandPromptCommand(line, this.resources);
  }

  /** The extensions' slash commands, for help and completion. */
  extensionCommands(): { name: string; description: string }[] {
    return [...this.#extensions?.commands() ?? []].map(([name, c]) => ({
      name,
      description: c.description,
    }));
  }

  /**
   * The MCP servers: name, transport, state, tools and why one failed.
   *
   * @returns One status per configured server (none without servers).
   */
  mcpStatus(): Promise<McpServerStatus[]> {
    return this.#mcp?.describe() ?? Promise.resolve([]);
  }

  /**
   * A snapshot: session, model, activity, queue, size, usage and cost.
   * Usage and cost are the whole session's: every branch, compactions and
   * branch summaries included (the active branch's size is the agent's
   * conversation).
   *
   * @returns The state.
   */
  state(): ControllerState {
    const conversation = this.#agent.conversation;
    const provider = this.#agent.config.provider;
    // A branch summary not sent yet is paid for already.
    const spent = [...this.#offPath, ...conversation.messages, ...this.#pendingSpend()];
    const usage = spent.reduce(
      (total, item) => item.usage ? addUsage(total, item.usage) : total,
      emptyUsage(),
    );
    const state: ControllerState = {
      sessionId: this.session.id,
      persisted: this.session.persisted,
      model: {
        alias: this.#selection.alias,
        api: provider.api,
        model: provider.model,
        reasoning: provider.reasoning,
      },
      activity: this.#activity?.kind ?? "idle",
      busy: this.busy,
      queue: this.queue,
      messageCount: conversation.messages.length,
      usage,
    };
    const name = this.#pendingName ?? this.#name;
    if (name !== undefined) state.sessionName = name;
    if (this.#dangling !== undefined) state.danglingPrompt = this.#dangling.text;
    const cost = this.#cost(spent);
    if (cost !== undefined) state.cost = cost;
    return state;
  }

  /**
   * What the messages cost, each priced at the model that produced it (a
   * message that does not name one: the model in use); `undefined` when
   * neither the model in use nor any message's model has a known price.
   */
  #cost(messages: readonly Spend[]): number | undefined {
    let total = this.#pricing(this.#selection.provider.model) ? 0 : undefined;
    for (const message of messages) {
      if (!message.usage) continue;
      const pricing = this.#pricing(message.model ?? this.#selection.provider.model, message.api);
      if (pricing) total = (total ?? 0) + pricing.cost(message.usage);
    }
    return total;
  }

  /** What the branch summary waiting for the next prompt used, if any. */
  #pendingSpend(): Spend[] {
    return this.#branchSummary === undefined ? [] : [this.#branchSummary.spent];
  }

  /**
   * A model's price: the selection's (its catalog entry's, or its alias's),
   * else a configured alias's, else a known one. A message records the API
   * that answered it, so a model of the same name behind another API (an
   * alias of another provider) is not charged at this one's rate.
   */
  #pricing(model: string, api?: string): Pricing | undefined {
    const selection = this.#selection;
    const sameApi = (other: string | undefined) => api === undefined || other === api;
    if (
      selection.provider.model === model && sameApi(selection.provider.api) && selection.pricing
    ) {
      return new Pricing(selection.pricing);
    }
    const configured = Object.values(this.config.models).find((m) =>
      m.model === model && m.price && sameApi(this.config.providers[m.provider]?.api)
    );
    return configured?.price ? new Pricing(configured.price) : this.#defaultPrices.get(model);
  }

  /**
   * Resolves once nothing runs and the queue is empty (queued prompts are
   * sent first).
   */
  async idle(): Promise<void> {
    while (this.#work.size > 0) await Promise.allSettled([...this.#work]);
  }

  /**
   * Drops the queue, aborts what runs, waits for it to save what it has
   * (at most `waitMs`), and closes the store.
   *
   * @param waitMs The longest wait for the aborted work (default: no limit).
   */
  async close(waitMs = Infinity): Promise<void> {
    this.#closed = true;
    this.takeQueue();
    this.abort();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => {
      if (Number.isFinite(waitMs)) timer = setTimeout(resolve, waitMs);
    });
    try {
      await Promise.race([this.idle(), timeout]);
    } finally {
      clearTimeout(timer);
    }
    await this.#mcp?.close();
    await this.store.close();
  }

  async #run(
    message: string | UserMessage,
    followUp: boolean,
    signal?: AbortSignal,
    images: readonly ImageBlock[] = [],
  ): Promise<RunOutcome> {
    const activity = this.#begin("running", signal);
    this.#dangling = undefined;
    const pasted = typeof message === "string" ? images : message.images ?? [];
    this.#emit({
      type: "user_prompt",
      text: typeof message === "string" ? message : message.text,
      followUp,
      ...(pasted.length > 0 ? { images: pasted } : {}),
    });
    let outcome: RunOutcome;
    try {
      outcome = await this.#stream(await this.#userMessage(message, images), activity.abort.signal);
    } catch (error) {
      outcome = {
        status: "failed",
        turnLimitReached: false,
        failure: runFailure(error),
        cause: error,
      };
    } finally {
      // Named while still busy, so a /new or a switch cannot come in between.
      await this.#applyPendingName();
      activity.end();
    }
    if (outcome.status !== "done") {
      this.#dangling = danglingPrompt(unansweredPrompt(this.#agent.conversation.messages));
    }
    const { cause: _cause, ...ended } = outcome;
    this.#emit({ type: "run_end", ...ended });
    this.#scheduleQueue();
    return outcome;
  }

  async #stream(user: UserMessage, signal: AbortSignal): Promise<RunOutcome> {
    // Steering left when the run ends is sent as the next run (see #scheduleQueue).
    const options: RunOptions = { signal, steering: () => this.#takeSteering() };
    // MCP tools change between runs (a server connected, restarted or changed its list).
    if (this.#mcp) await this.#mcp.sync(this.#agent);
    const stream = this.#agent.run(user, options);
    let turnLimitReached = false;
    try {
      for await (const event of stream) {
        if (event.type === "run_complete") turnLimitReached = event.turnLimitReached;
        this.#emit(event);
      }
    } finally {
      // Leaving the loop early (an error) must not leave the agent running unseen: stop it
      // and let it save, so the next run finds it idle.
      if (stream.state === "streaming" || stream.state === "dispatching_tools") {
        stream.cancel();
        while (await stream.next().catch(() => null) !== null) {
          // Drained: the events of an abandoned run have no one to show them.
        }
      }
    }
    return { status: stream.state === "aborted" ? "aborted" : "done", turnLimitReached };
  }

  /**
   * The prompt as a user message: its text and pasted images first, as
   * given (see `danglingPrompt`), then as attachments the files of its
   * `@path` words (a text prompt's), pending `!shell` output and the branch
   * summary.
   */
  async #userMessage(
    message: string | UserMessage,
    images: readonly ImageBlock[],
  ): Promise<UserMessage> {
    const context = this.#context.splice(0).map(textBlock);
    const branch = this.#branchSummary;
    this.#branchSummary = undefined;
    const summary = branch === undefined ? [] : [textBlock(branchSummaryText(branch.summary))];
    // The summary's request is paid for with this prompt: stored on it, counted in the session's cost.
    const spent = branch === undefined ? {} : { spent: branch.spent };
    if (typeof message !== "string") {
      return {
        ...message,
        attachments: [...message.attachments ?? [], ...context, ...summary],
        ...spent,
      };
    }
    let expanded;
    try {
      expanded = await expandAttachments(message, this.cwd, optionalEnv("HOME"));
    } catch (error) {
      throw new CliError(`Could not attach a file: ${errorMessage(error)}`);
    }
    if (expanded.files.length) {
      this.#emit({ type: "notice", level: "info", text: `Attached ${expanded.files.join(", ")}` });
    }
    this.#warnTextOnly([...images, ...expanded.blocks].filter((b) => b.type === "image").length);
    return {
      text: message,
      images: [...images],
      attachments: [...expanded.blocks, ...context, ...summary],
      ...spent,
    };
  }

  /** Says so when images go to a model that takes text only (the agent sends a note instead). */
  #warnTextOnly(images: number): void {
    const { input, model } = this.#selection.provider;
    if (images === 0 || !input || input.includes("image")) return;
    this.#emit({
      type: "notice",
      level: "warning",
      text: `${model} takes text only: ${
        images === 1 ? "the image is" : `the ${images} images are`
      } not sent (a note says so to the model); switch to a model that reads images (ctrl+p, /model)`,
    });
  }

  /** Runs `task` as the one thing in progress, tracked, then sends queued prompts. */
  #exclusive<T>(
    kind: Activity["kind"],
    action: string,
    signal: AbortSignal | undefined,
    task: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    try {
      this.#assertIdle(action);
    } catch (error) {
      return Promise.reject(error);
    }
    const activity = this.#begin(kind, signal);
    return this.#track(
      task(activity.abort.signal).finally(() => {
        activity.end();
        this.#scheduleQueue();
      }),
    );
  }

  /** Marks `kind` as running (synchronously: a second command sees the controller busy). */
  #begin(kind: Activity["kind"], signal: AbortSignal | undefined): Activity {
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

  #enqueue(queue: Queued[], item: Queued): void {
    const waiting = this.#steering.length + this.#followUp.length;
    if (!this.busy && !this.#closed && waiting === 0) {
      void this.#start(item);
      return;
    }
    queue.push(item);
    this.#emitQueue();
    // Idle with prompts waiting for their scheduled start: this one goes after them.
    if (!this.busy) this.#scheduleQueue();
  }

  #takeSteering(): UserMessage[] {
    const taken = this.#steering.splice(0);
    if (taken.length) this.#emitQueue();
    return taken.map(({ text }) => ({ text }));
  }

  /** Starts a queued item (a shell command's failure is told by its `shell_end`). */
  #start(item: Queued): Promise<unknown> {
    if (item.shell) {
      const options = { excludeFromContext: item.excluded === true };
      return this.runShell(item.text, undefined, options).catch(() => {});
    }
    return this.#track(this.#run(item.text, true));
  }

  /**
   * Sends the next queued prompt on a later task, so that whoever awaited
   * the work that just ended sees its result before the next run's events.
   */
  #scheduleQueue(): void {
    if (this.#closed || (this.#steering.length === 0 && this.#followUp.length === 0)) return;
    void this.#track(
      new Promise((resolve) => setTimeout(resolve, 0)).then(() => {
        if (this.busy || this.#closed) return;
        const item = this.#steering.shift() ?? this.#followUp.shift();
        if (item === undefined) return;
        this.#emitQueue();
        return this.#start(item);
      }),
    );
  }

  async #applyPendingName(): Promise<void> {
    const name = this.#pendingName;
    if (name === undefined || !this.session.persisted) return;
    this.#pendingName = undefined;
    try {
      await this.nameSession(name);
    } catch (error) {
      this.#emit({
        type: "notice",
        level: "error",
        text: `Could not name the session: ${errorMessage(error)}`,
      });
    }
  }

  /** A saved session's fork at its `end`th message, made by its store; `null` when it cannot. */
  async #storeFork(end: number): Promise<Session | null> {
    if (!this.store.fork || !this.store.loadTree || !this.session.persisted || end === 0) {
      return null;
    }
    const [{ path }, stored] = await Promise.all([
      this.session.tree(),
      this.store.loadTree(this.session.id),
    ]);
    const byId = new Map(stored?.entries.map((entry) => [entry.id, entry]));
    const entries = path.flatMap((id) => byId.get(id) ?? []);
    const entryId = entryOfMessage(entries, this.#agent.conversation.messages, end);
    return entryId === undefined ? null : await this.store.fork(this.session.id, entryId);
  }

  async #switchTo(session: Session, reason: "new" | "switch" | "fork"): Promise<void> {
    const { conversation, danglingUser } = await session.loadWithDangling();
    // A name given before the first answer was meant for the session left behind.
    this.#pendingName = undefined;
    await this.#adopt(session, conversation, danglingPrompt(danglingUser), reason);
  }

  /**
   * Builds the agent on `conversation` of `session`, with `dangling` to
   * offer for editing, and tells the listeners.
   */
  async #adopt(
    session: Session,
    conversation: Conversation,
    dangling: TypedPrompt | undefined,
    reason: "new" | "switch" | "fork" | "branch",
  ): Promise<void> {
    const agent = await buildAgent(
      {
        config: this.#agent.config,
        tools: [...this.#tools, ...this.#extensionTools],
        systemPrompt: this.#systemPrompt,
      },
      session,
      conversation,
    );
    agent.setHooks(this.#toolHooks);
    const offPath = await messagesOffPath(session);
    this.#agent = agent;
    this.#offPath = offPath;
    this.#name = session.info.name;
    this.#dangling = dangling;
    this.#branchSummary = undefined;
    this.#emit({
      type: "session_changed",
      sessionId: session.id,
      reason,
      resumed: reason !== "new",
    });
  }

  #assertIdle(action: string): void {
    if (this.#activity) throw new ControllerBusyError(action, this.#activity.kind);
  }

  /** Keeps `task` in {@linkcode SessionController.idle}'s sight until it settles. */
  #track<T>(task: Promise<T>): Promise<T> {
    const settled: Promise<unknown> = task.then(() => {}, () => {}).finally(() =>
      this.#work.delete(settled)
    );
    this.#work.add(settled);
    return task;
  }

  #mcpNotice(text: string): void {
    if (this.#listeners.size === 0) this.#earlyNotices.push(text);
    else this.#emit({ type: "notice", level: "warning", text });
  }

  #emitQueue(): void {
    this.#emit({ type: "queue_update", ...this.queue });
  }

  /**
   * Tells every listener. A listener that throws (a view's bug) must not fail
   * the run, which would end the turn on screen while the agent went on: the
   * others still hear the event, and the failure becomes an error notice.
   */
  #emit(event: ControllerEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#reportListenerFailure(event, error);
      }
    }
  }

  #reportingListenerFailure = false;

  #reportListenerFailure(event: ControllerEvent, error: unknown): void {
    if (this.#reportingListenerFailure) return;
    this.#reportingListenerFailure = true;
    try {
      this.#emit({
        type: "notice",
        level: "error",
        text: `Showing a ${event.type} event failed (${errorMessage(error)}); the run goes on`,
      });
    } finally {
      this.#reportingListenerFailure = false;
    }
  }
}
