import { CliError } from "../shared/errors.ts";
import type { ControllerState } from "./controller_events.ts";

/**
 * What the controller can be busy with: a run, a compaction, a `!shell`
 * command, a branch summary, or a switch to another session or point of
 * the tree.
 */
export type ActivityKind = Exclude<ControllerState["activity"], "idle">;

/** What each activity is called in a busy error. */
const BUSY_WITH: Record<ActivityKind, string> = {
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
  constructor(action: string, activity: ActivityKind) {
    const what = BUSY_WITH[activity];
    super(`Wait for the current ${what} to finish (or abort it) before ${action}`);
    this.name = "ControllerBusyError";
  }
}
