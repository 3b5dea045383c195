/**
 * One ACP session: a {@linkcode SessionController} in the client's working
 * directory, its events sent as `session/update`s, approvals asked with
 * `session/request_permission`.
 *
 * @module
 */
import type {
  AgentContext,
  AvailableCommand,
  ContentBlock,
  FileSystemCapabilities,
  PermissionOption,
  SessionConfigOption,
  SessionModeState,
  SessionUpdate,
  StopReason,
  ToolCallContent,
  ToolCallUpdate,
} from "@agentclientprotocol/sdk";
import {
  type AfterToolCallContext,
  type BeforeToolCallContext,
  REASONING_LEVELS,
  type ToolCallDecision,
} from "@panto/lib";
import type { ChatArgs } from "../setup/args.ts";
import { modelChoices } from "../config/model_registry.ts";
import type { McpServerSettings } from "../config/panto_config.ts";
import type { ControllerEvent, RunOutcomeEvent } from "../controller/controller_events.ts";
import { SessionController } from "../controller/session_controller.ts";
import type { NotifyLevel } from "../extensions/extension_api.ts";
import { UsageError } from "../shared/errors.ts";
import { logToClient } from "./client_log.ts";
import { type ClientFiles, clientFileTools } from "./client_file_tools.ts";
import { clientBashTool, type ClientTerminal } from "./client_terminal_tool.ts";
import { promptMessage } from "./prompt_message.ts";
import { replayUpdates } from "./replay_updates.ts";
import {
  FILE_CHANGING_TOOLS,
  resultContent,
  targetPath,
  toolKind,
  toolLocations,
  toolTitle,
} from "./tool_updates.ts";

/** How long closing waits for an aborted run to save (ms). */
const CLOSE_SAVE_WAIT_MS = 5_000;

/** Files larger than this get no diff (their text would flood the client). */
const MAX_DIFF_BYTES = 1024 * 1024;

/** `ask`: the tools `tools.requireApproval` lists need approval; `auto`: none do. */
const MODES: SessionModeState["availableModes"] = [
  {
    id: "ask",
    name: "Ask",
    description: "Ask before running the tools listed in tools.requireApproval",
  },
  { id: "auto", name: "Auto", description: "Run every tool call without asking" },
];

const ALLOW_ONCE = "allow";
const ALLOW_ALWAYS = "always";

const PERMISSION_OPTIONS: PermissionOption[] = [
  { optionId: ALLOW_ONCE, name: "Allow", kind: "allow_once" },
  { optionId: ALLOW_ALWAYS, name: "Always allow this tool", kind: "allow_always" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
];

/** A file before and after a call changed it. */
interface FileChange {
  path: string;
  oldText: string | null;
  newText?: string;
}

/** Where a session is opened and who it talks to. */
export interface AcpSessionOptions {
  /** The client's working directory for the session. */
  cwd: string;
  /** The stored session to load, by id. */
  resume?: string;
  /** Calls the client. */
  client: AgentContext;
  /** MCP servers the client gave, by name (with those of the config). */
  mcpServers?: Record<string, McpServerSettings>;
  /** The file access the client offered in `initialize`. */
  clientFs?: FileSystemCapabilities | undefined;
  /** Whether the client offered terminals in `initialize`. */
  clientTerminal?: boolean | undefined;
  /** Whether the client shows `notice` updates (`session.notices` in `initialize`). */
  clientNotices?: boolean | undefined;
}

/** `/name args`: a prompt that may be an extension's command. */
const COMMAND_PROMPT = /^\/(\S+)(?:\s+([\s\S]*))?$/;

/** A panto session served to an ACP client. */
export class AcpSession {
  readonly #controller: SessionController;
  readonly #client: AgentContext;
  /** Updates are sent one after the other, in event order. */
  #outbox: Promise<void>;
  #mode = "ask";
  /** Tools the user allowed for the rest of the session. */
  readonly #alwaysAllowed = new Set<string>();
  readonly #changes = new Map<string, FileChange>();
  /** The client terminal each running `bash` call uses. */
  readonly #terminals = new Map<string, string>();
  #stopReason: StopReason = "end_turn";
  /** The runs of the current turn: its prompt's, then the follow-ups extensions queued. */
  #runs: RunOutcomeEvent[] = [];
  /** Updates wait until the client knows the session (see {@linkcode AcpSession.announce}). */
  #announce!: () => void;
  readonly #clientNotices: boolean;
  /** The extension commands last advertised, as JSON (none at first). */
  #advertised = "[]";
  /** Lets the extensions' host go when the session closes. */
  readonly #closed = new AbortController();

  private constructor(
    controller: SessionController,
    client: AgentContext,
    clientFs: FileSystemCapabilities | undefined,
    clientTerminal: boolean,
    clientNotices: boolean,
  ) {
    this.#controller = controller;
    this.#client = client;
    this.#clientNotices = clientNotices;
    this.#outbox = new Promise((resolve) => this.#announce = resolve);
    this.#useClientFiles(clientFs);
    if (clientTerminal) this.#useClientTerminal();
    controller.subscribe((event) => this.#onEvent(event));
    controller.setToolHooks({
      beforeToolCall: (context) => this.#beforeToolCall(context),
      afterToolCall: (context) => this.#afterToolCall(context),
    });
    for (const notice of controller.notices) logToClient(notice);
  }

  /**
   * Opens a new session, or a stored one (`resume`), in the client's
   * working directory, and loads the extensions for it. Nothing is sent to
   * the client before {@linkcode AcpSession.announce}.
   *
   * @param args The command line (model, tools, store).
   * @param options Working directory, session to load, the client.
   * @returns The session.
   * @throws {UsageError} When the project's extensions are not trusted
   *   (without `--trust-project-config`), as for its config.
   */
  static async open(args: ChatArgs, options: AcpSessionOptions): Promise<AcpSession> {
    const controller = await SessionController.open(
      {
        ...args,
        ...(options.resume === undefined ? {} : { resume: options.resume }),
        ...(options.mcpServers ? { mcpServers: options.mcpServers } : {}),
      },
      { cwd: options.cwd },
    );
    const session = new AcpSession(
      controller,
      options.client,
      options.clientFs,
      options.clientTerminal ?? false,
      options.clientNotices ?? false,
    );
    // `--auto-approve` starts the session in the mode that asks nothing; the client may change it.
    if (args.autoApprove) session.#mode = "auto";
    try {
      await session.#loadExtensions();
    } catch (error) {
      await session.close();
      throw error;
    }
    return session;
  }

  /**
   * Starts sending updates (what the extensions said while loading, then
   * their commands): call once the client knows the session's id (after
   * the `session/new` response, before a `session/load` replay).
   */
  announce(): void {
    this.#announce();
    this.#advertiseCommands();
  }

  /** The session's id (panto's, as `panto sessions` lists it). */
  get id(): string {
    return this.#controller.session.id;
  }

  /** The approval modes and the current one. */
  get modes(): SessionModeState {
    return { currentModeId: this.#mode, availableModes: MODES };
  }

  /** The model and reasoning level choices, as ACP config options. */
  configOptions(): SessionConfigOption[] {
    const { alias, provider } = this.#controller.model;
    const models = modelChoices(this.#controller.config).map((choice) => ({
      value: choice.alias,
      name: choice.alias,
    }));
    if (!models.some((m) => m.value === alias)) models.unshift({ value: alias, name: alias });
    return [
      {
        type: "select",
        id: "model",
        name: "Model",
        category: "model",
        currentValue: alias,
        options: models,
      },
      {
        type: "select",
        id: "reasoning",
        name: "Reasoning",
        category: "thought_level",
        currentValue: provider.reasoning,
        options: REASONING_LEVELS.map((level) => ({ value: level, name: level })),
      },
    ];
  }

  /**
   * Sets the model or the reasoning level.
   *
   * @param id `model` or `reasoning`.
   * @param value An alias, or a reasoning level.
   * @returns The options as they are now.
   * @throws {UsageError} For another id or a bad value.
   */
  setConfigOption(id: string, value: string | boolean): SessionConfigOption[] {
    if (id === "model" && typeof value === "string") this.#controller.setModel(value);
    else if (id === "reasoning" && (REASONING_LEVELS as readonly unknown[]).includes(value)) {
      this.#controller.setThinkingLevel(value as typeof REASONING_LEVELS[number]);
    } else {
      throw new UsageError(
        `No config option ${JSON.stringify(id)} with value ${
          JSON.stringify(value)
        }: use "model" (a configured alias) or "reasoning" (${REASONING_LEVELS.join(", ")})`,
      );
    }
    return this.configOptions();
  }

  /**
   * Sets the approval mode.
   *
   * @param id `ask` or `auto`.
   * @throws {UsageError} For another mode.
   */
  setMode(id: string): void {
    if (!MODES.some((mode) => mode.id === id)) {
      throw new UsageError(`No mode ${JSON.stringify(id)}: use "ask" or "auto"`);
    }
    this.#mode = id;
    this.#send({ sessionUpdate: "current_mode_update", currentModeId: id });
  }

  /** Sends the stored conversation as updates (`session/load`); resolves once they are written. */
  async replay(): Promise<void> {
    const messages = this.#controller.agent.conversation.messages;
    for (const update of replayUpdates(messages, this.#controller.cwd)) this.#send(update);
    await this.#outbox;
  }

  /**
   * Runs a prompt, or an extension's command (`/name args` as the only
   * text), to its end: with the prompts extensions queued meanwhile.
   *
   * @param blocks The prompt.
   * @param signal Cancels its run (as `session/cancel` does).
   * @returns Why the turn stopped (`cancelled` when one of its runs was).
   * @throws {Error} When a run failed, with the reason.
   */
  async prompt(blocks: readonly ContentBlock[], signal: AbortSignal): Promise<StopReason> {
    this.#stopReason = "end_turn";
    this.#runs = [];
    const command = this.#extensionCommand(blocks);
    if (command) await this.#runCommand(command.name, command.args);
    else await this.#controller.prompt(await this.#expanded(blocks), { signal });
    await this.#controller.idle();
    this.#advertiseCommands();
    await this.#outbox;
    if (this.#runs.some((run) => run.status === "aborted")) return "cancelled";
    const failed = this.#runs.find((run) => run.status === "failed");
    if (failed) throw new Error(failed.failure?.message ?? "The run failed");
    return this.#runs.at(-1)?.turnLimitReached ? "max_turn_requests" : this.#stopReason;
  }

  /** Cancels what runs and the prompts extensions queued (`session/cancel`); the partial answer is kept. */
  cancel(): void {
    this.#controller.takeQueue();
    this.#controller.abort();
  }

  /**
   * Cancels what runs (as `session/cancel`), waits until it is saved, and
   * lets go of the stored session (its lock), so that the session can be
   * loaded again while this one stays open; this one takes the lock back
   * at its next write.
   */
  async letGo(): Promise<void> {
    this.cancel();
    await this.#controller.idle();
    await this.#controller.session.release();
  }

  /** Aborts what runs, saves what it has and closes the store. */
  async close(): Promise<void> {
    this.#closed.abort();
    await this.#controller.close(CLOSE_SAVE_WAIT_MS);
  }

  /**
   * Loads the extensions for this session: each session has its own
   * controller and working directory, hence its own tools and commands.
   */
  async #loadExtensions(): Promise<void> {
    await this.#controller.loadExtensions({
      mode: "acp",
      uiEvents: undefined,
      notify: (text, level) => this.#notify(text, level),
      submit: (text) => this.#controller.followUp(text),
      reservedCommands: [],
      closed: this.#closed.signal,
    });
  }

  /** The extension command a prompt names: a single text block `/name args`. */
  #extensionCommand(blocks: readonly ContentBlock[]): { name: string; args: string } | undefined {
    const [block] = blocks;
    if (blocks.length !== 1 || block?.type !== "text") return undefined;
    const match = COMMAND_PROMPT.exec(block.text.trim());
    const name = match?.[1];
    if (name === undefined || !this.#controller.extensions?.commands().has(name)) return undefined;
    return { name, args: match?.[2]?.trim() ?? "" };
  }

  /** The prompt, with a lone `/skill:name args` or `/template args` text sent as what it stands for (as in the chat). */
  async #expanded(blocks: readonly ContentBlock[]): Promise<ReturnType<typeof promptMessage>> {
    const [block] = blocks;
    const line = blocks.length === 1 && block?.type === "text" ? block.text.trim() : undefined;
    const expanded = line && await this.#controller.expandPromptCommand(line);
    return promptMessage(expanded ? [{ type: "text", text: expanded }] : blocks);
  }

  async #runCommand(name: string, args: string): Promise<void> {
    if (this.#controller.busy) {
      throw new UsageError(
        `Wait for the current turn to end (or cancel it) before running /${name}`,
      );
    }
    await this.#controller.extensions?.runCommand(name, args);
  }

  /** Sends the extensions', skills' and templates' commands when they changed (loaded, or one disabled). */
  #advertiseCommands(): void {
    const extensions = this.#controller.extensionCommands();
    const taken = new Set(extensions.map((command) => command.name));
    // Skills (`skill:name`) and prompt templates too, as the chat completes them.
    const availableCommands: AvailableCommand[] = [
      ...extensions,
      ...this.#controller.promptCommands().filter((command) => !taken.has(command.name)),
    ];
    const json = JSON.stringify(availableCommands);
    if (json === this.#advertised) return;
    this.#advertised = json;
    this.#send({ sessionUpdate: "available_commands_update", availableCommands });
  }

  /**
   * An extension's message: a `notice` for a client that shows them, else
   * a paragraph of the agent's message (what every client shows).
   * Warnings and errors also go to the log.
   */
  #notify(text: string, level: NotifyLevel): void {
    if (level !== "info") logToClient(`${level}: ${text}`);
    if (this.#clientNotices) {
      const [title, ...rest] = text.trim().split("\n");
      const description = rest.join("\n").trim();
      this.#send({
        sessionUpdate: "notice",
        severity: level,
        title: title || level,
        ...(description ? { description } : {}),
      });
      return;
    }
    const shown = level === "info" ? text : `${level}: ${text}`;
    this.#send({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: `\n\n${shown}\n\n` },
    });
  }

  #onEvent(event: ControllerEvent): void {
    switch (event.type) {
      case "content_delta":
        if (event.kind === "tool_input") return;
        this.#send({
          sessionUpdate: event.kind === "text" ? "agent_message_chunk" : "agent_thought_chunk",
          content: { type: "text", text: event.text },
        });
        return;
      case "block_start":
        if (!event.toolUse) return;
        this.#send({
          sessionUpdate: "tool_call",
          toolCallId: event.toolUse.id,
          title: event.toolUse.name,
          kind: toolKind(event.toolUse.name),
          status: "pending",
        });
        return;
      case "tool_dispatch_start":
        this.#send({
          sessionUpdate: "tool_call_update",
          ...this.#describe(event.call),
          status: "in_progress",
        });
        return;
      case "tool_progress":
        this.#send({
          sessionUpdate: "tool_call_update",
          toolCallId: event.call.id,
          content: resultContent(event.partial),
        });
        return;
      case "tool_dispatch_complete": {
        const change = this.#changes.get(event.call.id);
        this.#changes.delete(event.call.id);
        const diff = change && !event.isError ? diffContent(change) : [];
        // A call that ran in a client terminal keeps showing it (the client keeps its output).
        const terminalId = this.#terminals.get(event.call.id);
        this.#terminals.delete(event.call.id);
        this.#send({
          sessionUpdate: "tool_call_update",
          toolCallId: event.call.id,
          status: event.isError ? "failed" : "completed",
          content: terminalId
            ? [{ type: "terminal", terminalId }]
            : [...diff, ...resultContent(event.result)],
        });
        return;
      }
      case "message_complete":
        if (event.stopReason === "max_tokens" || event.stopReason === "refusal") {
          this.#stopReason = event.stopReason;
        }
        return;
      case "user_prompt":
        // A prompt an extension queued: the client shows its own prompts already.
        if (event.followUp) {
          this.#send({
            sessionUpdate: "user_message_chunk",
            content: { type: "text", text: event.text },
          });
        }
        return;
      case "run_end":
        this.#runs.push(event);
        return;
      case "notice":
        logToClient(`${event.level === "info" ? "" : `${event.level}: `}${event.text}`);
        return;
    }
  }

  /** A call's title, kind, arguments and locations. */
  #describe(call: { id: string; name: string; input: Record<string, unknown> }): ToolCallUpdate {
    return {
      toolCallId: call.id,
      title: toolTitle(call.name, call.input),
      kind: toolKind(call.name),
      rawInput: call.input,
      locations: toolLocations(call.input, this.#controller.cwd),
    };
  }

  async #beforeToolCall(
    { call, signal }: BeforeToolCallContext,
  ): Promise<ToolCallDecision | undefined> {
    const path = FILE_CHANGING_TOOLS.has(call.name)
      ? targetPath(call.input, this.#controller.cwd)
      : undefined;
    if (path !== undefined) this.#changes.set(call.id, { path, oldText: await readSmall(path) });
    if (!this.#needsApproval(call.name)) return undefined;
    const preview = this.#changes.get(call.id);
    const toolCall: ToolCallUpdate = {
      ...this.#describe(call),
      status: "pending",
      ...(preview ? { content: diffContent(proposed(preview, call.input)) } : {}),
    };
    // A cancelled turn stops waiting at once: the call is denied as the run ends.
    const answer = await this.#client.request("session/request_permission", {
      sessionId: this.id,
      toolCall,
      options: PERMISSION_OPTIONS,
    }, { cancellationSignal: signal, stopWaitingOnCancel: true }).catch(() => undefined);
    // Only an allow option offered allows: any other answer (unknown, cancelled, malformed) denies.
    const outcome: unknown = answer?.outcome;
    const chosen = isRecord(outcome) && outcome.outcome === "selected"
      ? outcome.optionId
      : undefined;
    if (chosen === ALLOW_ONCE || chosen === ALLOW_ALWAYS) {
      if (chosen === ALLOW_ALWAYS) this.#alwaysAllowed.add(call.name);
      return undefined;
    }
    this.#changes.delete(call.id);
    return { action: "deny", reason: `The user did not allow this ${call.name} call` };
  }

  async #afterToolCall({ call }: AfterToolCallContext): Promise<undefined> {
    const change = this.#changes.get(call.id);
    // A write through the editor may reach the disk later: its content is the new text.
    const written = call.name === "write" ? call.input.content : undefined;
    if (change) {
      change.newText = typeof written === "string" ? written : await readSmall(change.path) ?? "";
    }
    return undefined;
  }

  /** Puts `read` and `write` through the client, for what it offers. */
  #useClientFiles(fs: FileSystemCapabilities | undefined): void {
    const files: ClientFiles = {};
    const sessionId = this.id;
    if (fs?.readTextFile) {
      files.read = async (path, line, limit) =>
        (await this.#client.request("fs/read_text_file", { sessionId, path, line, limit })).content;
    }
    if (fs?.writeTextFile) {
      files.write = async (path, content) => {
        await this.#client.request("fs/write_text_file", { sessionId, path, content });
      };
    }
    const { agent, config, cwd, pantoHome } = this.#controller;
    const options = { root: cwd, allowedRoots: config.tools.allowedPaths, pantoHome };
    for (const tool of clientFileTools(agent.tools, files, options)) {
      agent.unregisterTool(tool.decl.name);
      agent.registerTool(tool);
    }
  }

  /** Runs `bash` in the client's terminals. */
  #useClientTerminal(): void {
    const { agent, config, cwd } = this.#controller;
    const bash = agent.tools.find((tool) => tool.decl.name === "bash");
    if (!bash) return;
    const sessionId = this.id;
    const terminal: ClientTerminal = {
      run: async (command, { cwd, signal, outputByteLimit, onStart }) => {
        const handle = await this.#client.createTerminal({
          sessionId,
          command: "bash",
          args: ["-c", command],
          cwd,
          outputByteLimit,
        });
        try {
          onStart(handle.id);
          const kill = () => void handle.kill().catch(() => {});
          signal.addEventListener("abort", kill, { once: true });
          if (signal.aborted) kill();
          try {
            const exit = await handle.waitForExit();
            const { output, truncated } = await handle.currentOutput();
            return {
              output,
              truncated,
              exitCode: exit.exitCode ?? null,
              signal: exit.signal ?? null,
            };
          } finally {
            signal.removeEventListener("abort", kill);
          }
        } finally {
          await handle.release().catch(() => {});
        }
      },
    };
    const tool = clientBashTool(bash, terminal, {
      cwd,
      timeoutSeconds: config.tools.bashTimeoutSeconds,
      onStart: (callId, terminalId) => {
        this.#terminals.set(callId, terminalId);
        this.#send({
          sessionUpdate: "tool_call_update",
          toolCallId: callId,
          content: [{ type: "terminal", terminalId }],
        });
      },
    });
    agent.unregisterTool("bash");
    agent.registerTool(tool);
  }

  #needsApproval(tool: string): boolean {
    const required = this.#controller.config.tools.requireApproval ?? [];
    return this.#mode === "ask" && required.includes(tool) && !this.#alwaysAllowed.has(tool);
  }

  #send(update: SessionUpdate): void {
    const params = { sessionId: this.id, update };
    // A closed connection ends the process: updates that cannot be written are dropped.
    this.#outbox = this.#outbox.then(() => this.#client.notify("session/update", params))
      .catch(() => {});
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** A change as a diff, when both sides are known. */
function diffContent(change: FileChange): ToolCallContent[] {
  if (change.newText === undefined) return [];
  return [{ type: "diff", path: change.path, oldText: change.oldText, newText: change.newText }];
}

/** What a call is about to do to a file, for the approval prompt. */
function proposed(change: FileChange, input: Record<string, unknown>): FileChange {
  if (typeof input.content === "string") return { ...change, newText: input.content };
  if (typeof input.oldText === "string" && typeof input.newText === "string") {
    return { path: change.path, oldText: input.oldText, newText: input.newText };
  }
  return change;
}

/** A text file's contents; null when it does not exist, is too large or unreadable. */
async function readSmall(path: string): Promise<string | null> {
  try {
    const info = await Deno.stat(path);
    if (!info.isFile || info.size > MAX_DIFF_BYTES) return null;
    return await Deno.readTextFile(path);
  } catch {
    return null;
  }
}
