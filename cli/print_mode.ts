import {
  type Agent,
  type AgentEvent,
  type Message,
  messageText,
  type UserMessage,
} from "@panto/lib";
import { turnFailureMessage } from "./error_message.ts";
import { CliError } from "./errors.ts";
import { BROKEN_PIPE_EXIT_CODE, interruptExitCode } from "./interrupt_signals.ts";

/** Where print mode writes. */
export interface PrintOutput {
  /** Standard output. */
  stdout: (text: string) => void;
  /** Standard error. */
  stderr: (text: string) => void;
}

/**
 * Runs one prompt to completion (tools included) and writes the final answer
 * (`text`) or every event as one JSON line (`json`). When standard output
 * is closed by its reader (`panto -p … | head -1`), the run stops quietly
 * (what was answered is saved) and the exit code is that of a process
 * killed by SIGPIPE.
 *
 * @param agent The configured agent.
 * @param prompt The user's prompt (text and attached images).
 * @param mode Output format.
 * @param output Where to write.
 * @param signal Aborts the run (ctrl+c, SIGTERM, SIGHUP); its reason, a
 *   signal's name, picks the exit code.
 * @returns The exit code.
 */
export async function runPrintMode(
  agent: Agent,
  prompt: UserMessage,
  mode: "text" | "json",
  output: PrintOutput,
  signal: AbortSignal,
): Promise<number> {
  const stream = agent.run(prompt, { signal });
  const stdout = new ClosableOutput(output.stdout, () => stream.cancel());
  let last: Message | undefined;
  try {
    for await (const event of stream) {
      if (mode === "json") stdout.write(JSON.stringify(event) + "\n");
      if (event.type === "message_complete") last = event.message;
      reportProgress(event, output);
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (mode === "json") stdout.write(JSON.stringify({ type: "error", message }) + "\n");
    throw new CliError(turnFailureMessage("The request failed", error));
  }
  if (mode === "text" && last) {
    const text = messageText(last);
    if (text) stdout.write(text.endsWith("\n") ? text : text + "\n");
  }
  if (stdout.closed) return BROKEN_PIPE_EXIT_CODE;
  if (stream.state === "aborted") {
    output.stderr("panto: aborted\n");
    return interruptExitCode(signal.reason);
  }
  return 0;
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

/** Retries and tool failures go to stderr so a user sees why print mode is slow or odd. */
function reportProgress(event: AgentEvent, output: PrintOutput): void {
  if (event.type === "provider_retry") {
    output.stderr(
      `panto: ${event.error.message}; retrying in ${
        Math.round(event.delayMs / 100) / 10
      }s (attempt ${event.attempt})\n`,
    );
  } else if (event.type === "run_complete" && event.turnLimitReached) {
    output.stderr(
      `panto: stopped after ${event.requests} model requests (turn limit); raise it with --max-turns\n`,
    );
  }
}
