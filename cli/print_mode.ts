import { type Agent, type Event, type Message, messageText, type UserMessage } from "@panto/lib";
import { turnFailureMessage } from "./error_message.ts";
import { CliError } from "./errors.ts";

/** Where print mode writes. */
export interface PrintOutput {
  /** Standard output. */
  stdout: (text: string) => void;
  /** Standard error. */
  stderr: (text: string) => void;
}

/**
 * Runs one prompt to completion (tools included) and writes the final answer
 * (`text`) or every event as one JSON line (`json`).
 *
 * @param agent The configured agent.
 * @param prompt The user's prompt (text and attached images).
 * @param mode Output format.
 * @param output Where to write.
 * @param signal Aborts the run (ctrl+c).
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
  let last: Message | undefined;
  try {
    for await (const event of stream) {
      if (mode === "json") output.stdout(JSON.stringify(event) + "\n");
      if (event.type === "message_complete") last = event.message;
      reportProgress(event, output);
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (mode === "json") output.stdout(JSON.stringify({ type: "error", message }) + "\n");
    throw new CliError(turnFailureMessage("The request failed", error));
  }
  if (mode === "text" && last) {
    const text = messageText(last);
    if (text) output.stdout(text.endsWith("\n") ? text : text + "\n");
  }
  if (stream.state === "aborted") {
    output.stderr("panto: aborted\n");
    return 130;
  }
  return 0;
}

/** Retries and tool failures go to stderr so a user sees why print mode is slow or odd. */
function reportProgress(event: Event, output: PrintOutput): void {
  if (event.type === "provider_retry") {
    output.stderr(
      `panto: ${event.error.message}; retrying in ${
        Math.round(event.delayMs / 100) / 10
      }s (attempt ${event.attempt})\n`,
    );
  } else if (event.type === "turn_complete" && event.turnLimitReached) {
    output.stderr(
      `panto: stopped after ${event.requests} model requests (turn limit); raise it with --max-turns\n`,
    );
  }
}
