/**
 * The session controller: one agent on one session at a time, the model,
 * the queue of prompts (steer, follow-up), compaction, `!shell` context and
 * extensions, behind commands and an event stream. The chat, print mode
 * and RPC mode are views over it; it never loads the terminal UI.
 *
 * The behaviours live beside it: the runs, the queue and the one activity
 * at a time in `controller_runs.ts` (on lib's `AgentSession`), moves
 * between and within sessions in `session_navigation.ts`, what a prompt
 * carries in `prompt_message.ts` and `next_prompt_context.ts`, usage and
 * cost in `session_cost.ts`, names in `session_naming.ts`, model switching
 * in `model_switch.ts`, extensions in `controller_extensions.ts`, `/reload`
 * in `reload_plan.ts`.
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
  type Agent,
  type CompactionResult,
  type ImageBlock,
  PricingRegistry,
  type ReasoningLevel,
  type Session,
  type SessionInfo,
  type SessionStore,
  type ToolHooks,
  type TreeNode,
  type UserMessage,
} from "@panto/lib";
import { loadStartup, type SetupOptions, type Startup } from "../setup/app_setup.ts";
import type { ChatArgs } from "../setup/args.ts";
import { agentConfig } from "../config/agent_config.ts";
import { DEFAULT_THINKING_LEVELS, type ModelSelection } from "../config/model_registry.ts";
import type { PantoConfig } from "../config/panto_config.ts";
import type { UntrustedProjectPolicy } from "../config/project_trust.ts";
import { errorMessage } from "../shared/error_message.ts";
import type { ExtensionHost } from "../extensions/extension_host.ts";
import { extensionsToLoad, type ExtensionSurface } from "./load_extensions.ts";
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
import type { ReloadableSetup, ReloadPlan } from "./reload_plan.ts";
import type { ReloadSnapshot } from "./reload_summary.ts";
import type { ShellOptions, ShellResult } from "./shell_command.ts";
import { danglingPrompt } from "./dangling_prompt.ts";
import { ControllerRuns } from "./controller_runs.ts";
import { EventHub } from "./event_hub.ts";
import { cycledAlias, type ModelSource, selectModel } from "./model_switch.ts";
import { SessionNaming } from "./session_naming.ts";
import { ControllerExtensions } from "./controller_extensions.ts";
import { type Spend, totalCost, totalUsage } from "./session_cost.ts";
import {
  branchMove,
  type BranchOptions,
  type Destination,
  destinationOf,
  forkedAtEntry,
  forkedConversation,
  sessionById,
  type Whereabouts,
} from "./session_navigation.ts";

export type { SetupOptions } from "../setup/app_setup.ts";
export { ControllerBusyError } from "./controller_busy_error.ts";
export type { BranchOptions } from "./session_navigation.ts";

/**
 * The session's messages off its active path, for its total usage. A tree
 * that cannot be read (a damaged branch) counts as none: the total is a
 * figure in the footer, not a reason to refuse the session.
 */
async function messagesOffPath(session: Session): Promise<readonly Spend[]> {
  try {
    return await session.messagesOffPath();
  } catch {
    return [];
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
  /** The config, tools, system prompt, skills and templates (`/reload` replaces them). */
  #setup: ReloadableSetup;
  /** Key actions the config may rebind, for `/reload`'s config check. */
  #keybindingActions: readonly string[] | undefined;
  readonly #untrustedProject: UntrustedProjectPolicy;
  readonly #events = new EventHub();
  /** Runs, compactions, shell commands and moves, one at a time, and the queue. */
  readonly #runs: ControllerRuns;
  readonly #extensions: ControllerExtensions;
  readonly #defaultPrices = PricingRegistry.withDefaults();
  #selection: ModelSelection;
  /** The first model's name: the one --api/--base-url describe, when they were given. */
  readonly #adHocAlias: string;
  readonly #naming: SessionNaming;
  /** The session's messages on other branches than the active one: their usage counts in its total. */
  #offPath: readonly Spend[] = [];
  #mcp: McpServers | undefined;
  /** The hooks around tool calls, kept across the agents of every session (approvals). */
  #toolHooks: ToolHooks = {};

  private constructor(startup: Startup, args: ChatArgs, agent: Agent) {
    this.cwd = startup.cwd;
    this.pantoHome = startup.pantoHome;
    this.store = startup.store;
    this.notices = startup.notices;
    this.resumed = startup.resumed;
    this.#args = args;
    this.#setup = {
      config: startup.config,
      resources: startup.resources,
      contextFiles: startup.contextFiles,
      contextTexts: contextTextsByName(startup.contextFiles, startup.contextTexts, startup.cwd),
      tools: startup.tools,
      systemPrompt: startup.systemPrompt,
    };
    this.#untrustedProject = startup.untrustedProject;
    this.#selection = startup.selection;
    this.#adHocAlias = startup.selection.alias;
    this.#runs = new ControllerRuns(agent, {
      cwd: this.cwd,
      provider: () => this.#selection.provider,
      shellTimeoutSeconds: () => this.config.tools.bashTimeoutSeconds,
      mcp: () => this.#mcp,
      // Named while still busy, so a /new or a switch cannot come in between.
      settle: () => this.#naming.applyPending(),
      emit: (event) => this.#emit(event),
    });
    this.#naming = new SessionNaming({
      store: this.store,
      session: () => this.session,
      emit: (event) => this.#emit(event),
    });
    this.#runs.dangling = danglingPrompt(startup.danglingUser);
    this.#extensions = new ControllerExtensions({
      cwd: this.cwd,
      pantoHome: this.pantoHome,
      untrustedProject: this.#untrustedProject,
      agent: () => this.agent,
    }, args);
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
      controller.#mcp = await startMcpServers(
        startup.config,
        args,
        startup.cwd,
        (text) => controller.#events.warn(text),
      );
      return controller;
    } catch (error) {
      await startup.store.close();
      throw error;
    }
  }

  /** The current agent (replaced when the session changes). */
  get agent(): Agent {
    return this.#runs.session.agent;
  }

  /** The current session. */
  get session(): Session {
    return this.agent.session;
  }

  /** The model in use. */
  get model(): ModelSelection {
    return this.#selection;
  }

  /** Whether a run, compaction or shell command is in progress. */
  get busy(): boolean {
    return this.#runs.session.busy;
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
    return this.#runs.dangling?.text;
  }

  /**
   * The images sent with {@linkcode SessionController.danglingPrompt} (the
   * `images` of `prompt`, not those of its `@path` files), to offer with it;
   * empty when there is none.
   */
  get danglingImages(): readonly ImageBlock[] {
    return this.#runs.dangling?.images ?? [];
  }

  /** The prompts waiting (copies). */
  get queue(): QueueState {
    return this.#runs.queue;
  }

  /** The loaded configuration (read again by {@linkcode SessionController.applyReload}). */
  get config(): PantoConfig {
    return this.#setup.config;
  }

  /** The AGENTS.md (or similar) files the system prompt includes. */
  get contextFiles(): readonly string[] {
    return this.#setup.contextFiles;
  }

  /** The skills and prompt templates: `/skill:name` and `/template` commands. */
  get resources(): PromptResources {
    return this.#setup.resources;
  }

  /** The extensions' host, once {@linkcode SessionController.loadExtensions} found any. */
  get extensions(): ExtensionHost | undefined {
    return this.#extensions.host;
  }

  /**
   * Sets the hooks around tool calls (an approval prompt) on the agent, and
   * on the agent of every session opened later (`new`, `switch`, `fork`).
   *
   * @param hooks `beforeToolCall` and `afterToolCall`.
   */
  setToolHooks(hooks: ToolHooks): void {
    this.#toolHooks = hooks;
    this.agent.setHooks(hooks);
  }

  /**
   * Calls `listener` with every event from now on. A listener must not
   * throw: its error would end the run it came from as failed.
   *
   * @param listener Gets each event.
   * @returns Unsubscribes.
   */
  subscribe(listener: (event: ControllerEvent) => void): () => void {
    return this.#events.subscribe(listener);
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
    return this.#runs.prompt(message, options.signal, options.images ?? []);
  }

  /**
   * Steers the running run: the text is added as a user message at its next
   * tool boundary; a run that ends before then gets it as the next run.
   * When idle, it is sent at once.
   *
   * @param text The message.
   */
  steer(text: string): void {
    this.#runs.session.steer(this.#runs.typed(text));
  }

  /**
   * Sends the text as a new run after the current one (and earlier queued
   * prompts) ended; when idle, at once.
   *
   * @param text The prompt (`@path` words attach files).
   */
  followUp(text: string): void {
    void this.#runs.session.followUp(this.#runs.typed(text));
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
    this.#runs.queueShell(command, excluded);
  }

  /**
   * Empties the queue (steering first, then follow-ups; shell commands
   * with their `!`), e.g. to put the prompts back in the editor.
   *
   * @returns The prompts taken.
   */
  takeQueue(): string[] {
    return this.#runs.takeQueue();
  }

  /**
   * Takes the most recently queued prompt (steering or follow-up) out of
   * the queue, e.g. to edit it again.
   *
   * @returns Its text (a shell command with its `!`), or `undefined` when
   *   nothing is queued.
   */
  takeLastQueued(): string | undefined {
    return this.#runs.session.takeLastQueued()?.text;
  }

  /** Aborts what runs (a run keeps its partial answer); the queue stays. */
  abort(): void {
    this.#runs.session.abort();
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
    this.#runs.assertIdle("switching models");
    const selection = selectModel(this.#modelSource(), alias, reasoning);
    this.#runs.session.setConfig(agentConfig(this.config, selection, this.#args.maxTurns));
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
    this.setModel(cycledAlias(this.#modelSource(), this.#selection.alias, direction));
    return this.#selection;
  }

  /**
   * Gives the agent the settings of {@linkcode SessionController.config}
   * again (compaction, retries, tool concurrency), after a change to them.
   */
  applyConfig(): void {
    this.agent.setConfig(agentConfig(this.config, this.#selection, this.#args.maxTurns));
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
    return this.#runs.whenIdle("compacting", () =>
      this.#runs.session.compact({
        ...(instructions ? { instructions } : {}),
        ...(signal ? { signal } : {}),
      }));
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
    return this.#runs.exclusive(
      "shell",
      "running a shell command",
      signal,
      (abort) => this.#runs.shell(command, excluded, abort),
    );
  }

  /**
   * Starts a new, empty session (saved after its first answer).
   *
   * @throws {ControllerBusyError} While something runs.
   */
  newSession(): Promise<void> {
    return this.#move("starting a new session", async () => {
      await this.#adopt(await destinationOf(this.store.create({ cwd: this.cwd })), "new");
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
    return this.#move("switching sessions", async () => {
      await this.#adopt(await destinationOf(await sessionById(this.store, id)), "switch");
    });
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
    return this.#move("forking the session", async () => {
      const destination = await forkedConversation(this.#whereabouts(), atMessageIndex);
      await this.#adopt(destination, "fork");
      return destination.session.id;
    });
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
    return this.#move("forking the session", async () => {
      const stored = await forkedAtEntry(this.store, this.session, entryId);
      await this.#adopt(await destinationOf(stored), "fork");
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
    return this.#runs.exclusive(
      options.summarise ? "summarising" : "switching",
      "moving in the session tree",
      undefined,
      async (signal) => {
        const { destination, summary } = await branchMove(
          this.#whereabouts(),
          entryId,
          options,
          signal,
        );
        await this.#adopt(destination, "branch");
        this.#runs.nextPrompt.setBranchSummary(summary);
        return summary?.summary;
      },
    );
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
  nameSession(name: string): Promise<void> {
    return this.#naming.name(name);
  }

  /**
   * Loads the extensions and wires their tools into this and every later
   * session's agent. Call once, after subscribing.
   *
   * @param surface What the view lends extensions.
   * @returns The host (also {@linkcode SessionController.extensions}).
   */
  loadExtensions(surface: ExtensionSurface): Promise<ExtensionHost | undefined> {
    return this.#extensions.load(surface);
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
    if (this.#extensions.wanted) await extensionsToLoad(dirs, this.#args);
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
    this.#runs.assertIdle("reloading");
    const before = this.#setup.config;
    const { applyReloadPlan } = await import("./reload_plan.ts");
    this.#setup = await applyReloadPlan(this.agent, this.#setup, plan, this.#args.apiKeyEnv);
    const notices = [...plan.config.notices, ...plan.setup.notices];
    const modelNotice = this.#reselectModel();
    if (modelNotice) notices.push(modelNotice);
    const { restartNotices } = await import("./reload_summary.ts");
    notices.push(...restartNotices(before, plan.config));
    const extensionNotice = await this.#extensions.reload();
    if (extensionNotice) notices.push(extensionNotice);
    return notices;
  }

  /** What `/reload` compares, with the view's theme name. */
  async reloadSnapshot(theme: string): Promise<ReloadSnapshot> {
    const { setupSnapshot } = await import("./reload_summary.ts");
    const extensions = this.extensions?.loaded.map((extension) => extension.name) ?? [];
    return setupSnapshot(this.#setup, theme, extensions);
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
    return [...this.extensions?.commands() ?? []].map(([name, c]) => ({
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
    const conversation = this.agent.conversation;
    const provider = this.agent.config.provider;
    // A branch summary not sent yet is paid for already.
    const spent = [
      ...this.#offPath,
      ...conversation.messages,
      ...this.#runs.nextPrompt.pendingSpend(),
    ];
    const state: ControllerState = {
      sessionId: this.session.id,
      persisted: this.session.persisted,
      model: {
        alias: this.#selection.alias,
        api: provider.api,
        model: provider.model,
        reasoning: provider.reasoning,
      },
      activity: this.#runs.session.activity ?? "idle",
      busy: this.busy,
      queue: this.queue,
      messageCount: conversation.messages.length,
      usage: totalUsage(spent),
    };
    const name = this.#naming.shown;
    if (name !== undefined) state.sessionName = name;
    const dangling = this.#runs.dangling;
    if (dangling !== undefined) state.danglingPrompt = dangling.text;
    const prices = {
      selection: this.#selection,
      config: this.config,
      defaults: this.#defaultPrices,
    };
    const cost = totalCost(spent, prices);
    if (cost !== undefined) state.cost = cost;
    return state;
  }

  /**
   * Resolves once nothing runs and the queue is empty (queued prompts are
   * sent first).
   */
  idle(): Promise<void> {
    return this.#runs.session.idle();
  }

  /**
   * Drops the queue, aborts what runs, waits for it to save what it has
   * (at most `waitMs`), and closes the store.
   *
   * @param waitMs The longest wait for the aborted work (default: no limit).
   */
  async close(waitMs = Infinity): Promise<void> {
    const closing = this.#runs.session.close();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => {
      if (Number.isFinite(waitMs)) timer = setTimeout(resolve, waitMs);
    });
    try {
      await Promise.race([closing, timeout]);
    } finally {
      clearTimeout(timer);
    }
    await this.#mcp?.close();
    await this.store.close();
  }

  /** Runs a move to another session as the one activity (`switching`). */
  #move<T>(action: string, task: () => Promise<T>): Promise<T> {
    return this.#runs.exclusive("switching", action, undefined, task);
  }

  #modelSource(): ModelSource {
    return { config: this.config, args: this.#args, adHocAlias: this.#adHocAlias };
  }

  #whereabouts(): Whereabouts {
    return { store: this.store, agent: this.agent, cwd: this.cwd };
  }

  /**
   * Builds the agent on the destination's conversation, with its prompt to
   * offer for editing, and tells the listeners.
   */
  async #adopt(
    { session, conversation, dangling }: Destination,
    reason: "new" | "switch" | "fork" | "branch",
  ): Promise<void> {
    // A name given before the first answer was meant for the session left behind.
    if (reason !== "branch") this.#naming.leave();
    const agent = await buildAgent(
      {
        config: this.agent.config,
        tools: [...this.#setup.tools, ...this.#extensions.tools],
        systemPrompt: this.#setup.systemPrompt,
      },
      session,
      conversation,
    );
    agent.setHooks(this.#toolHooks);
    const offPath = await messagesOffPath(session);
    this.#runs.session.replaceAgent(agent);
    this.#offPath = offPath;
    this.#naming.adopted(session);
    this.#runs.dangling = dangling;
    this.#runs.nextPrompt.setBranchSummary(undefined);
    this.#emit({
      type: "session_changed",
      sessionId: session.id,
      reason,
      resumed: reason !== "new",
    });
  }

  #emit(event: ControllerEvent): void {
    this.#events.emit(event);
  }
}
