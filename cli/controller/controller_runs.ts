import {
  type Agent,
  AgentSession,
  type AgentSessionEvent,
  type ImageBlock,
  type PromptOutcome,
  type ProviderConfig,
  type UserMessage,
} from "@panto/lib";
import type { McpServers } from "@panto/lib/mcp";
import { errorMessage } from "../shared/error_message.ts";
import { type ActivityKind, ControllerBusyError } from "./controller_busy_error.ts";
import type { ControllerEvent, QueueState, RunOutcome } from "./controller_events.ts";
import { danglingPrompt, unansweredPrompt } from "./dangling_prompt.ts";
import { NextPromptContext } from "./next_prompt_context.ts";
import { promptMessage } from "./prompt_message.ts";
import { runOutcome } from "./run_failure.ts";
import { runShellCommand, type ShellResult } from "./shell_command.ts";
import type { TypedPrompt } from "./typed_prompt.ts";

/** The controller's work besides runs and compactions (what lib's session calls `Work`). */
export type ControllerWork = Exclude<ActivityKind, "running" | "compacting">;

/** What the runs need from the controller. */
export interface RunSetting {
  /** The working directory (`@path` words are relative to it). */
  cwd: string;
  /** The model in use (whether it reads images). */
  provider(): ProviderConfig;
  /** How long a `!shell` command may run. */
  shellTimeoutSeconds(): number;
  /** The MCP servers, whose tools are synced before each run. */
  mcp(): McpServers | undefined;
  /** Called after each run while the controller is still busy (a pending session name). */
  settle(): Promise<void>;
  /** Tells the views. */
  emit(event: ControllerEvent): void;
}

/**
 * The controller's runs and queue, in its own words, on lib's
 * {@linkcode AgentSession}: typed prompts (their `@path` words expanded and
 * `!shell` output and a branch summary attached when their run starts),
 * `!shell` commands queued behind prompts, busy errors naming what to do,
 * and the session's events told as {@linkcode ControllerEvent}s.
 */
export class ControllerRuns {
  /** Runs prompts and the controller's other work one at a time, and queues what waits. */
  readonly session: AgentSession<ControllerWork>;
  /** `!shell` output and the branch summary, for the next prompt. */
  readonly nextPrompt = new NextPromptContext();
  /** The current session's unanswered prompt, offered for editing (cleared by the next run). */
  dangling: TypedPrompt | undefined;
  readonly #setting: RunSetting;
  /**
   * Prompts typed as text: their `@path` words are expanded (and their
   * images taken as pasted) when their run starts; other messages go as given.
   */
  readonly #typed = new WeakSet<UserMessage>();

  /**
   * Drives `agent`.
   *
   * @param agent The first session's agent.
   * @param setting What the runs need from the controller.
   */
  constructor(agent: Agent, setting: RunSetting) {
    this.#setting = setting;
    this.session = new AgentSession<ControllerWork>(agent, {
      prepare: (message) => this.#prepare(message),
      settle: () => setting.settle(),
    });
    this.session.subscribe((event) => this.#relay(event));
  }

  /** The prompts waiting (shell commands with their `!`). */
  get queue(): QueueState {
    const { steering, followUp } = this.session.queue;
    return { steering: steering.map(textOf), followUp: followUp.map(textOf) };
  }

  /**
   * Empties the queue.
   *
   * @returns The prompts taken (shell commands with their `!`).
   */
  takeQueue(): string[] {
    return this.session.takeQueue().map(textOf);
  }

  /**
   * Runs a prompt when nothing runs.
   *
   * @param message Text (`@path` words attach files) or a user message sent as is.
   * @param signal Aborts the run.
   * @param images Pasted images of a text prompt.
   * @returns How the run ended.
   * @throws {ControllerBusyError} While something runs (as a rejection).
   */
  prompt(
    message: string | UserMessage,
    signal: AbortSignal | undefined,
    images: readonly ImageBlock[],
  ): Promise<RunOutcome> {
    const sent = typeof message === "string" ? this.typed(message, images) : message;
    return this.whenIdle(
      "sending a prompt (steer or follow up instead)",
      () => this.session.prompt(sent, signal ? { signal } : {}).then(runOutcome),
    );
  }

  /**
   * A prompt typed as text, its pasted images with it.
   *
   * @param text The text.
   * @param images The pasted images.
   * @returns The message to queue or send.
   */
  typed(text: string, images: readonly ImageBlock[] = []): UserMessage {
    const message = images.length > 0 ? { text, images: [...images] } : { text };
    this.#typed.add(message);
    return message;
  }

  /**
   * Queues a `!shell` command behind what runs and what is queued (see
   * {@linkcode ControllerRuns.shell}); the queue shows it with its `!`.
   *
   * @param command The command line.
   * @param excluded A `!!command`: its output is shown, not sent.
   */
  queueShell(command: string, excluded: boolean): void {
    const shown = { text: `${excluded ? "!!" : "!"}${command}` };
    // Its failure is told by its `shell_end`.
    this.session.queueTask(shown, "shell", (signal) => this.shell(command, excluded, signal));
  }

  /**
   * Runs a `!shell` command now (the caller made it the one activity) and
   * keeps its output for the next prompt unless `excluded`; reported by
   * `shell_start` and `shell_end`.
   *
   * @param command The command line.
   * @param excluded A `!!command`: its output is shown, not sent.
   * @param signal Kills it.
   * @returns Its output and whether it failed.
   */
  async shell(command: string, excluded: boolean, signal: AbortSignal): Promise<ShellResult> {
    const { cwd, emit } = this.#setting;
    emit({ type: "shell_start", command, excluded });
    let result: ShellResult;
    try {
      result = await runShellCommand(command, cwd, this.#setting.shellTimeoutSeconds(), signal);
    } catch (error) {
      emit({ type: "shell_end", command, output: errorMessage(error), failed: true, excluded });
      throw error;
    }
    if (!excluded) this.nextPrompt.addShellOutput(command, result.output);
    emit({ type: "shell_end", command, ...result, excluded });
    return result;
  }

  /**
   * Throws unless nothing runs.
   *
   * @param action What was asked, for the error.
   * @throws {ControllerBusyError} While something runs.
   */
  assertIdle(action: string): void {
    const activity = this.session.activity;
    if (activity) throw new ControllerBusyError(action, activity);
  }

  /**
   * Starts `task` when nothing runs.
   *
   * @param action What was asked, for the busy error.
   * @param task Starts the work.
   * @returns What `task` returns.
   * @throws {ControllerBusyError} While something runs (as a rejection).
   */
  whenIdle<T>(action: string, task: () => Promise<T>): Promise<T> {
    try {
      this.assertIdle(action);
    } catch (error) {
      return Promise.reject(error);
    }
    return task();
  }

  /**
   * Runs `task` as the one thing in progress; prompts queued meanwhile are
   * sent after it.
   *
   * @param kind What it is.
   * @param action What was asked, for the busy error.
   * @param signal The caller's: aborts it.
   * @param task The work, given the activity's signal.
   * @returns What `task` returns.
   * @throws {ControllerBusyError} While something runs (as a rejection).
   */
  exclusive<T>(
    kind: ControllerWork,
    action: string,
    signal: AbortSignal | undefined,
    task: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    return this.whenIdle(action, () => this.session.exclusive(kind, task, signal));
  }

  /** The message a prompt's run sends (see {@linkcode promptMessage}), the MCP tools synced. */
  async #prepare(message: UserMessage): Promise<UserMessage> {
    const setting = this.#setting;
    const typed = this.#typed.has(message);
    const user = await promptMessage(
      typed ? message.text : message,
      typed ? message.images ?? [] : [],
      this.nextPrompt.take(),
      { cwd: setting.cwd, provider: setting.provider(), emit: setting.emit },
    );
    // MCP tools change between runs (a server connected, restarted or changed its list).
    await setting.mcp()?.sync(this.session.agent);
    return user;
  }

  /** Tells the views what the session reports, in the controller's words. */
  #relay(event: AgentSessionEvent): void {
    const { emit } = this.#setting;
    switch (event.type) {
      case "prompt": {
        this.dangling = undefined;
        const { text, images = [] } = event.message;
        const pasted = images.length > 0 ? { images } : {};
        return emit({ type: "user_prompt", text, followUp: event.followUp, ...pasted });
      }
      case "run_end":
        return this.#runEnded(event.outcome);
      case "queue":
        return emit({ type: "queue_update", ...this.queue });
      case "config_changed":
        // The controller tells `model_changed`, with the alias.
        return;
      case "compaction_end": {
        const { result } = event;
        const failed = "failure" in event ? { failure: errorMessage(event.failure) } : {};
        return emit({ type: "compaction_end", result, ...failed });
      }
      default:
        return emit(event);
    }
  }

  #runEnded(outcome: PromptOutcome): void {
    if (outcome.status !== "done") {
      this.dangling = danglingPrompt(unansweredPrompt(this.session.agent.conversation.messages));
    }
    const { cause: _cause, ...ended } = runOutcome(outcome);
    this.#setting.emit({ type: "run_end", ...ended });
  }
}

/** A queued message's text (a shell command's with its `!`). */
function textOf(message: UserMessage): string {
  return message.text;
}
