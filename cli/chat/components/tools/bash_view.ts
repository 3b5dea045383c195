/**
 * The bash tool's view: `$ command` in the header; the last lines of the
 * output, live while the command runs; then the exit code and duration.
 *
 * @module
 */
import type { Theme } from "@panto/tui";
import { splitBashResult } from "@panto/lib/tools";
import {
  formatDuration,
  indented,
  oneLine,
  stringArg,
  tail,
  type ToolCallState,
  type ToolRenderer,
} from "./tool_renderer.ts";

/** The output shown and, for a failure that is not the command's own, the message under it. */
function outcome(
  call: ToolCallState,
): { output: string; ending: string | undefined; note: string } {
  if (call.result === "") return { output: call.progress, ending: undefined, note: "" };
  const { output, ending } = splitBashResult(call.result);
  // The tool never returned (refused, aborted past the grace, failed to start): keep what it streamed.
  if (call.isError && ending === undefined) {
    return { output: call.progress, ending: undefined, note: call.result };
  }
  return { output, ending, note: "" };
}

/** The bash renderer (errors are at the end, so a collapsed view keeps the last lines). */
export const bashView: ToolRenderer = {
  summary: (call) => {
    const command = stringArg(call, "command");
    return command === undefined ? "" : `$ ${oneLine(command)}`;
  },
  body(call: ToolCallState, width: number, theme: Theme): string[] {
    const { output, note } = outcome(call);
    const color = output === "(no output)" ? "dim" : "toolOutput";
    const rows = tail(indented(output.replace(/\n$/, ""), width, theme, color), call, theme, width);
    return [...rows, ...indented(note, width, theme, "error")];
  },
  footer(call: ToolCallState, theme: Theme): string | undefined {
    const took = call.elapsedMs === undefined ? "" : formatDuration(call.elapsedMs);
    if (call.status === "pending") return undefined;
    if (call.status === "running") return took === "" ? undefined : theme.fg("dim", `  ${took}`);
    const { ending, note } = outcome(call);
    if (note !== "") return took === "" ? undefined : theme.fg("dim", `  ${took}`);
    const word = ending ?? "exit 0";
    const text = took === "" ? word : `${word} · ${took}`;
    return `  ${theme.fg(ending === undefined ? "dim" : "error", text)}`;
  },
};

/**
 * A `!!command`'s view: the bash view, its last line saying that the output
 * stays with the user (pi dims such a command's block; a word says it in
 * any theme).
 */
export const shownOnlyBashView: ToolRenderer = {
  ...bashView,
  footer(call: ToolCallState, theme: Theme): string | undefined {
    const footer = bashView.footer?.(call, theme);
    if (call.status === "pending" || call.status === "running") return footer;
    return `${footer ?? ""}${theme.fg("dim", `${footer ? " · " : "  "}not sent to the model`)}`;
  },
};
