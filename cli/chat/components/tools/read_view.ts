/**
 * The read tool's view: the path and line range in the header, how many
 * lines came back under it; expanded, the lines themselves.
 *
 * @module
 */
import type { Theme } from "@panto/tui";
import {
  counted,
  head,
  indented,
  numberArg,
  stringArg,
  type ToolCallState,
  type ToolRenderer,
} from "./tool_renderer.ts";

/** A numbered line of a read result: `    12\ttext`. */
const NUMBERED = /^\s*(\d+)\t/;

/** The range asked for: `:10-59`, `:10-`, `:1-50`, or "" for the whole file. */
function requested(call: ToolCallState): string {
  const offset = numberArg(call, "offset");
  const limit = numberArg(call, "limit");
  if (offset === undefined && limit === undefined) return "";
  const first = offset ?? 1;
  return `:${first}-${limit === undefined ? "" : first + limit - 1}`;
}

/** `12 lines (10-21)` from the numbered lines of a result, or undefined when it has none. */
function returned(result: string): string | undefined {
  const numbers = result.split("\n").map((line) => NUMBERED.exec(line)?.[1]).filter((n) =>
    n !== undefined
  );
  if (numbers.length === 0) return undefined;
  return `${counted(numbers.length, "line")} (${numbers[0]}-${numbers.at(-1)})`;
}

/** The read renderer. */
export const readView: ToolRenderer = {
  summary: (call) => `${stringArg(call, "path") ?? ""}${requested(call)}`,
  body(call: ToolCallState, width: number, theme: Theme): string[] {
    if (call.isError) return head(indented(call.result, width, theme, "error"), call, theme, width);
    if (call.expanded) return indented(call.result, width, theme, "toolOutput");
    // Not a numbered listing: an image, an empty file, a note on the range.
    return indented(returned(call.result) ?? call.result, width, theme, "muted");
  },
};
