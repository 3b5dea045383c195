import { type Message, messageText, type UserMessage } from "@panto/lib";
import type { ApprovalAnswer, ApprovalRequest } from "../approvals/approval_gate.ts";
import { CONTROLLER_EVENT_TYPES, type RunOutcome } from "../controller/controller_events.ts";
import type { SessionController } from "../controller/session_controller.ts";
import { turnFailureMessage } from "../shared/error_message.ts";
import { CliError } from "../shared/errors.ts";
import { BROKEN_PIPE_EXIT_CODE, interruptExitCode } from "../shared/interrupt_signals.ts";

/** Where print mode writes. */
export interface PrintOutput {
  /** Standard output. */
  stdout: (text: string) => void;
  /** Standard error. */
  stderr: (text: string) => void;
}

/**
 * Runs the prompts in turn, each to completion (tools included), in one
 * session, and writes the final answer of the last (`text`, as pi prints
 * several prompts) or every agent event of each as one JSON line (`json`).
 * A prompt that fails or is aborted stops there: the later ones are not
 * sent. When standard
 * output is closed by its reader (`panto -p … | head -1`), the run stops
 * quietly (what was answered is saved) and the exit code is that of a
 * process killed by SIGPIPE. An answer that shows nothing because it held
 * what panto does not know (a block type or stop reason newer than it) is
 * named on standard error and ends with exit code 1.
 *
 * @param controller The session controller.
 * @param prompts The user's prompts, in order (`@path` words attach files).
 * @param mode Output format.
 * @param output Where to write.
 * @param signal Aborts the run (ctrl+c, SIGTERM, SIGHUP); its reason, a
 *   signal's name, picks the exit code.
 * @returns The exit code.
 */
export async function runPrintMode(
  controller: SessionController,
  prompts: Prompts,
  mode: "text" | "json",
  output: PrintOutput,
  signal: AbortSignal,
): Promise<number> {
  if (controller.danglingPrompt !== undefined) {
    output.stderr("panto: the session's last prompt got no answer; it is not sent again\n");
  }
  const stdout = new ClosableOutput(output.stdout, () => controller.abort());
  let last: Message | undefined;
  /** What the provider's stream held for the last answer that panto does not know. */
  let unrecognised: readonly string[] = [];
  const unsubscribe = controller.subscribe((event) => {
    // (Attached files need no mention in a script's output.)
    if (event.type === "notice" && event.level !== "info") {
      output.stderr(`panto: ${event.level}: ${event.text}\n`);
    }
    if (event.type === "run_complete" && event.turnLimitReached) {
      output.stderr(
        `panto: stopped after ${event.requests} model requests (turn limit); raise it with --max-turns\n`,
      );
    }
    if (event.type === "provider_retry") {
      output.stderr(
        `panto: ${event.error.message}; retrying in ${
          Math.round(event.delayMs / 100) / 10
        }s (attempt ${event.attempt})\n`,
      );
    }
    // The JSON lines are the agent's events (the controller's own are for interactive views).
    if (CONTROLLER_EVENT_TYPES.has(event.type)) return;
    if (mode === "json") stdout.write(JSON.stringify(event) + "\n");
    if (event.type === "message_complete") {
      last = event.message;
      unrecognised = event.unrecognised ?? [];
      if (unrecognised.length) {
        output.stderr(
          `panto: warning: the answer held what this panto does not know: ${
            unrecognised.join(", ")
          } (left out, or read as a normal end)\n`,
        );
      }
    }
  });
  const outcome = await promptInTurn(controller, prompts, signal, () => stdout.closed)
    .finally(unsubscribe);
  if (outcome.status === "failed") {
    const message = errorText(outcome.cause);
    if (mode === "json") stdout.write(JSON.stringify({ type: "error", message }) + "\n");
    if (outcome.cause instanceof CliError) throw outcome.cause;
    throw new CliError(turnFailureMessage("The request failed", outcome.cause));
  }
  if (mode === "text" && last) {
    const text = messageText(last);
    if (text) stdout.write(text.endsWith("\n") ? text : text + "\n");
  }
  if (stdout.closed) return BROKEN_PIPE_EXIT_CODE;
  if (outcome.status === "aborted") {
    output.stderr("panto: aborted\n");
    return interruptExitCode(signal.reason);
  }
  // An answer that shows nothing because of what panto could not read is no answer for a script.
  if (last && unrecognised.length && messageText(last).trim() === "") {
    output.stderr(
      "panto: the model's answer had nothing panto can show (see the warning above): " +
        "update panto, or use another model or API for this request\n",
    );
    return 1;
  }
  return 0;
}

/**
 * Print mode's answer to an approval question: no one can be asked, so the
 * call is refused; standard error names the tool and how to allow it, and
 * the model is told the same.
 *
 * @param stderr Writes to standard error.
 * @returns The answer for a request.
 *
 * @example
 * ```ts
 * import { refuseApproval } from "./print_mode.ts";
 * const said: string[] = [];
 * const call = { id: "1", name: "bash", input: { command: "ls" } };
 * const answer = refuseApproval((text) => said.push(text))({ call, alwaysLabel: "" });
 * console.assert(answer.decision === "refuse" && said[0]!.includes("--auto-approve"));
 * ```
 */
export function refuseApproval(
  stderr: (text: string) => void,
): (request: ApprovalRequest) => ApprovalAnswer {
  return ({ call }) => {
    const name = JSON.stringify(call.name);
    stderr(
      `panto: refused a ${call.name} call: ${call.name} is in tools.requireApproval and print mode cannot ask; ` +
        `pass --auto-approve to run it, or remove ${name} from tools.requireApproval\n`,
    );
    return {
      decision: "refuse",
      message:
        `${call.name} needs the user's approval (tools.requireApproval) and panto runs without anyone to ask (print mode); ` +
        "the user can allow it with --auto-approve",
    };
  };
}

/** The prompts of a print run, in order: at least one. */
export type Prompts = readonly [string | UserMessage, ...(string | UserMessage)[]];

/** Sends each prompt once the one before it is answered; the outcome of the last run (the first that did not finish). */
async function promptInTurn(
  controller: SessionController,
  [first, ...rest]: Prompts,
  signal: AbortSignal,
  stopped: () => boolean,
): Promise<RunOutcome> {
  let outcome = await controller.prompt(first, { signal });
  for (const prompt of rest) {
    if (outcome.status !== "done" || stopped()) break;
    outcome = await controller.prompt(prompt, { signal });
  }
  return outcome;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Standard output that its reader may close: writing then stops (once,
 * calling `onClosed`) instead of failing with a broken pipe.
 */
class ClosableOutput {
  closed = false;
  readonly #write: (text: string) => void;
  readonly #onClosed: () => void;

  constructor(write: (text: string) => void, onClosed: () => void) {
    this.#write = write;
    this.#onClosed = onClosed;
  }

  write(text: string): void {
    if (this.closed) return;
    try {
      this.#write(text);
    } catch (error) {
      if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
      this.closed = true;
      this.#onClosed();
    }
  }
}
