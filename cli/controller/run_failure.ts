import { type PromptOutcome, ProviderError } from "@panto/lib";
import { turnFailureMessage } from "../shared/error_message.ts";
import { CliError } from "../shared/errors.ts";
import type { RunFailure, RunOutcome } from "./controller_events.ts";

/**
 * Words a run's failure for the user: a provider error with its kind (and
 * a hint to compact on a context overflow), panto's own errors as they
 * are, anything else after "The run failed".
 *
 * @param error What the run threw.
 * @returns Its kind and one line to show.
 */
export function runFailure(error: unknown): RunFailure {
  if (error instanceof ProviderError) {
    // (An auth error's message already says to check the key.)
    const hint = error.kind === "context_overflow" ? " Try /compact." : "";
    // Provider messages often end with a full stop already.
    const message = /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
    return { kind: error.kind, message: `The request failed (${error.kind}): ${message}${hint}` };
  }
  if (error instanceof CliError) return { kind: "error", message: error.message };
  return { kind: "error", message: turnFailureMessage("The run failed", error) };
}

/**
 * A run's end as the controller reports it: a failure worded for the user
 * (see {@linkcode runFailure}), with what was thrown as its `cause`.
 *
 * @param outcome How lib's `AgentSession` saw the run end.
 * @returns The controller's outcome.
 */
export function runOutcome(outcome: PromptOutcome): RunOutcome {
  const { status, turnLimitReached, error } = outcome;
  if (status !== "failed") return { status, turnLimitReached };
  return { status, turnLimitReached, failure: runFailure(error), cause: error };
}
