/**
 * What a per-tool renderer sees of a call and how it draws it, with the
 * small drawing helpers the renderers share.
 *
 * @module
 */
import { type Theme, type ThemeColor, truncateToWidth, wrapText } from "@panto/tui";

/** Where a tool call is. */
export type ToolStatus = "pending" | "running" | "done" | "error";

/** One call as its renderer sees it; every text is stripped of terminal controls. */
export interface ToolCallState {
  /** Tool name. */
  readonly name: string;
  /** The arguments parsed so far (partial while they stream); undefined until they parse. */
  readonly args: unknown;
  /** The argument JSON received so far. */
  readonly rawArgs: string;
  /** Where the call is. */
  readonly status: ToolStatus;
  /** The latest progress report ("" when none). */
  readonly progress: string;
  /** The final result ("" until it arrives). */
  readonly result: string;
  /** Whether the result is an error. */
  readonly isError: boolean;
  /** Whether everything is shown (ctrl+o). */
  readonly expanded: boolean;
  /** Lines of output a collapsed view shows. */
  readonly collapsedLines: number;
  /** Time spent running so far, or in all once done; undefined when unknown (a resumed call). */
  readonly elapsedMs: number | undefined;
}

/** Draws one tool's calls: the header's summary, the lines under it, and a last line that may tick. */
export interface ToolRenderer {
  /** One line after the tool's name in the header (plain text; the header cuts it to fit). */
  summary(call: ToolCallState): string;
  /** The lines under the header, each at most `width` columns. */
  body(call: ToolCallState, width: number, theme: Theme): string[];
  /**
   * A styled last line that may change while the call runs with nothing
   * else changing (an elapsed time); asked again on every frame while running.
   */
  footer?(call: ToolCallState, theme: Theme): string | undefined;
}

/** What the lines under a header start with. */
export const INDENT = "  ";

/**
 * Wraps `text` under the header: indented, each row styled with `color`.
 *
 * @param text Plain text (no escapes).
 * @param width The columns available.
 * @param theme Colours.
 * @param color The colour of every row.
 * @returns The rows.
 */
export function indented(text: string, width: number, theme: Theme, color: ThemeColor): string[] {
  if (text === "") return [];
  return wrapText(text, Math.max(1, width - INDENT.length))
    .map((row) => INDENT + theme.fg(color, row));
}

/**
 * A dim hint row such as `… 3 more lines (ctrl+o to expand)`.
 *
 * @param theme Colours.
 * @param text The hint without the leading ellipsis.
 * @param width The columns available.
 * @returns The row.
 */
export function hint(theme: Theme, text: string, width: number): string {
  return truncateToWidth(theme.fg("dim", `${INDENT}… ${text}`), width, "…");
}

/**
 * `1 line`, `2 lines`: a count with its noun.
 *
 * @param count How many.
 * @param noun The singular noun.
 * @param plural The plural noun (default: the singular with an s).
 * @returns The phrase.
 */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}

/**
 * The first `count` rows and a hint naming how many more there are (all rows when expanded or short).
 *
 * @param rows The rows.
 * @param call The call (its `expanded` and `collapsedLines`).
 * @param theme Colours.
 * @param width The columns available.
 * @param count Rows shown collapsed (default `call.collapsedLines`).
 * @returns The rows to show.
 */
export function head(
  rows: string[],
  call: ToolCallState,
  theme: Theme,
  width: number,
  count = call.collapsedLines,
): string[] {
  const hidden = rows.length - count;
  if (call.expanded || hidden <= 0) return rows;
  return [
    ...rows.slice(0, count),
    hint(theme, `${counted(hidden, "more line")} (ctrl+o to expand)`, width),
  ];
}

/**
 * The last `call.collapsedLines` rows after a hint naming how many come before (all when expanded or short).
 *
 * @param rows The rows.
 * @param call The call (its `expanded` and `collapsedLines`).
 * @param theme Colours.
 * @param width The columns available.
 * @returns The rows to show.
 */
export function tail(rows: string[], call: ToolCallState, theme: Theme, width: number): string[] {
  const hidden = rows.length - call.collapsedLines;
  if (call.expanded || hidden <= 0) return rows;
  return [
    hint(theme, `${counted(hidden, "earlier line")} (ctrl+o to expand)`, width),
    ...rows.slice(hidden),
  ];
}

/**
 * A duration for people: `0.4s`, `12s`, `2m 05s`.
 *
 * @param ms Milliseconds.
 * @returns The duration.
 */
export function formatDuration(ms: number): string {
  if (ms < 10_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)}s`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, "0")}s`;
}

/**
 * A string argument, or undefined when absent or not a string.
 *
 * @param call The call.
 * @param key The argument's name.
 * @returns The value.
 */
export function stringArg(call: ToolCallState, key: string): string | undefined {
  const args = call.args;
  if (typeof args !== "object" || args === null || Array.isArray(args)) return undefined;
  const value = (args as Record<string, unknown>)[key];
  return typeof value === "string" ? value : undefined;
}

/**
 * A number argument, or undefined when absent or not a number.
 *
 * @param call The call.
 * @param key The argument's name.
 * @returns The value.
 */
export function numberArg(call: ToolCallState, key: string): number | undefined {
  const args = call.args;
  if (typeof args !== "object" || args === null || Array.isArray(args)) return undefined;
  const value = (args as Record<string, unknown>)[key];
  return typeof value === "number" ? value : undefined;
}

/** One line for a header: newlines become ⏎. */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ⏎ ");
}
