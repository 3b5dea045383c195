/**
 * The views of ls, find and grep: what was searched in the header, a count
 * and the first results under it (all of them expanded).
 *
 * @module
 */
import type { Theme } from "@panto/tui";
import {
  counted,
  head,
  indented,
  stringArg,
  type ToolCallState,
  type ToolRenderer,
} from "./tool_renderer.ts";

/**
 * A listing's result lines and the notes paragraph after them (how to see
 * more); no lines when it says it found nothing.
 */
function splitListing(result: string): { lines: string[]; notes: string } {
  const [first = "", ...rest] = result.split("\n\n");
  const notes = rest.join("\n\n");
  if (/^No (?:paths|matches) |is empty\.$/.test(first)) return { lines: [], notes };
  return { lines: first.split("\n").filter((line) => line !== ""), notes };
}

/** `path:12:` of a grep hit (context lines use `-` and separators are `--`). */
const HIT = /^(.+?):(\d+):/;

/** How a listing counts its results. */
type Counter = (lines: readonly string[]) => string;

function listingView(summary: (call: ToolCallState) => string, count: Counter): ToolRenderer {
  return {
    summary,
    body(call: ToolCallState, width: number, theme: Theme): string[] {
      if (call.isError) {
        return head(indented(call.result, width, theme, "error"), call, theme, width);
      }
      if (call.result === "") return [];
      const { lines, notes } = splitListing(call.result);
      const tally = lines.length === 0 ? call.result : count(lines);
      return [
        ...indented(tally, width, theme, "muted"),
        ...head(indented(lines.join("\n"), width, theme, "toolOutput"), call, theme, width),
        ...(call.expanded ? indented(notes, width, theme, "dim") : []),
      ];
    },
  };
}

const where = (call: ToolCallState) => stringArg(call, "path") ?? ".";

/** The ls renderer. */
export const lsView: ToolRenderer = listingView(
  (call) => stringArg(call, "path") ?? ".",
  (lines) => counted(lines.length, "entry", "entries"),
);

/** The find renderer. */
export const findView: ToolRenderer = listingView(
  (call) => `${stringArg(call, "pattern") ?? ""} in ${where(call)}`,
  (lines) => counted(lines.length, "path"),
);

/** The grep renderer. */
export const grepView: ToolRenderer = listingView(
  (call) => {
    const glob = stringArg(call, "glob");
    return `/${stringArg(call, "pattern") ?? ""}/ in ${where(call)}${glob ? ` (${glob})` : ""}`;
  },
  (lines) => {
    const hits = lines.map((line) => HIT.exec(line)?.[1]).filter((path) => path !== undefined);
    return `${counted(hits.length, "match", "matches")} in ${counted(new Set(hits).size, "file")}`;
  },
);
