/**
 * What a {@linkcode SessionController} tells its views: the agent's own
 * events plus the controller's (queue, session, model, compaction, names,
 * notices, run ends).
 *
 * @module
 */
import type { AgentEvent, CompactionResult, ImageBlock, ReasoningLevel, Usage } from "@panto/lib";

/** Why a run ended: answered (or stopped at the turn limit), aborted, or failed. */
export type RunStatus = "done" | "aborted" | "failed";

/** Why a run failed, ready to show. */
export interface RunFailure {
  /** The provider error's kind (`auth`, `rate_limit`, `context_overflow`…), else `error`. */
  kind: string;
  /** One line for the user, e.g. "The request failed (auth): 401 Unauthorized." */
  message: string;
}

/** What {@linkcode SessionController.prompt} resolves with once its run ended. */
export interface RunOutcome {
  /** How the run ended. */
  status: RunStatus;
  /** True when the run stopped at `maxTurns` model requests. */
  turnLimitReached: boolean;
  /** Why it failed (status `failed`). */
  failure?: RunFailure;
  /** What was thrown (status `failed`), for views that word it themselves. */
  cause?: unknown;
}

/** The prompts waiting while the controller is busy. */
export interface QueueState {
  /** Delivered at the run's next tool boundary (else as the next run). */
  steering: string[];
  /** Sent as new runs, in order, once the controller is idle. */
  followUp: string[];
}

/**
 * Everything a {@linkcode SessionController} reports, in order:
 *
 * - every {@linkcode AgentEvent} of its runs, as the agent emits it;
 * - `user_prompt`: a run starts for this prompt (`text` as given, before
 *   added context and attachments; `followUp` when it came from the queue;
 *   `images`, when any, the images pasted with it);
 * - `run_end`: a run ended (also when it failed before or during the
 *   request: then `failure` says why); follows the agent's `run_complete`;
 * - `queue_update`: the steering or follow-up queue changed;
 * - `session_changed`: another session is now current (`new`, `switch`
 *   or `fork`), or the same one continues from an earlier entry
 *   (`branch`); `resumed` when it has stored messages to show;
 * - `model_changed`: the model or its reasoning level changed;
 * - `compaction_start` / `compaction_end`: a compaction asked for with
 *   {@linkcode SessionController.compact} (compactions inside a run come as
 *   the agent's `compaction` event); `result` is `null` when there was
 *   nothing to compact, `failure` set when it failed or was aborted;
 * - `shell_start` / `shell_end`: a `!shell` command ran (its output goes
 *   with the next prompt, unless `excluded`: a `!!shell` command, shown
 *   only; `failed` for a non-zero exit, a timeout or an abort);
 * - `session_named`: the session got a name (`pending` while it waits for
 *   the session's first save);
 * - `notice`: something the user should read (attached files, extension
 *   messages, a failed pending rename).
 *
 * @example Show a run's text and its end
 * ```ts ignore
 * controller.subscribe((event) => {
 *   if (event.type === "content_delta" && event.kind === "text") write(event.text);
 *   if (event.type === "run_end" && event.failure) warn(event.failure.message);
 * });
 * ```
 */
export type ControllerEvent =
  | AgentEvent
  | { type: "user_prompt"; text: string; followUp: boolean; images?: readonly ImageBlock[] }
  | ({ type: "run_end" } & RunOutcomeEvent)
  | ({ type: "queue_update" } & QueueState)
  | {
    type: "session_changed";
    sessionId: string;
    reason: "new" | "switch" | "fork" | "branch";
    resumed: boolean;
  }
  | { type: "model_changed"; alias: string; model: string; reasoning: ReasoningLevel }
  | { type: "compaction_start" }
  | { type: "compaction_end"; result: CompactionResult | null; failure?: string }
  | { type: "shell_start"; command: string; excluded: boolean }
  | { type: "shell_end"; command: string; output: string; failed: boolean; excluded: boolean }
  | { type: "session_named"; name: string; pending: boolean }
  | { type: "notice"; level: "info" | "warning" | "error"; text: string };

/** A {@linkcode RunOutcome} as an event carries it (without the thrown value). */
export type RunOutcomeEvent = Omit<RunOutcome, "cause">;

/** The `type`s the controller adds to the agent's: views that print only agent events skip them. */
export const CONTROLLER_EVENT_TYPES: ReadonlySet<string> = new Set([
  "user_prompt",
  "run_end",
  "queue_update",
  "session_changed",
  "model_changed",
  "compaction_start",
  "compaction_end",
  "shell_start",
  "shell_end",
  "session_named",
  "notice",
]);

/** A snapshot of the controller, e.g. for an RPC `get_state`. */
export interface ControllerState {
  /** The current session's id. */
  sessionId: string;
  /** Its name, when it has one (or one is pending). */
  sessionName?: string;
  /**
   * Its last prompt as typed, when it got no answer (see
   * `SessionController.danglingPrompt`; its images are not here).
   */
  danglingPrompt?: string;
  /** Whether the session has been written to its store. */
  persisted: boolean;
  /** The model in use: how it was named, its wire protocol, its name on the wire, its reasoning level. */
  model: { alias: string; api: string; model: string; reasoning: ReasoningLevel };
  /**
   * What runs: a run, a compaction, a `!shell` command, a branch summary, a
   * switch to another session or point of the tree, or nothing.
   */
  activity: "idle" | "running" | "compacting" | "shell" | "summarising" | "switching";
  /** Whether anything runs (same as `activity !== "idle"`). */
  busy: boolean;
  /** Prompts waiting. */
  queue: QueueState;
  /** Messages in the conversation (system prompt included). */
  messageCount: number;
  /**
   * Tokens used by the session so far: every branch of its tree, and the
   * requests that wrote compactions and branch summaries.
   */
  usage: Usage;
  /** Its cost in USD, when the model's prices are known. */
  cost?: number;
}
