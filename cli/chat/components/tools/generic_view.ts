/**
 * The view of a tool without its own renderer (extension and MCP tools):
 * the arguments as `key: value` in the header; expanded, listed in full.
 *
 * @module
 */
import { parse as parsePartialJson } from "partial-json";
import type { Theme } from "@panto/tui";
import { head, indented, oneLine, type ToolCallState, type ToolRenderer } from "./tool_renderer.ts";

/**
 * Parses complete or partial argument JSON; undefined when it is not JSON
 * yet, or nests too deep to show (a hostile call thousands of levels deep
 * would overflow the stack of whatever walks it after).
 */
export function parseArgs(raw: string): unknown {
  if (raw.trim() === "") return undefined;
  try {
    const value = parsePartialJson(raw);
    return depthAtMost(value, MAX_SHOWN_DEPTH) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Deeper arguments are shown as their text. */
const MAX_SHOWN_DEPTH = 64;

/** Whether `value` nests objects and arrays at most `depth` deep (walked without recursion). */
function depthAtMost(value: unknown, depth: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [item, level] = stack.pop()!;
    if (typeof item !== "object" || item === null) continue;
    if (level >= depth) return false;
    for (const inner of Object.values(item)) stack.push([inner, level + 1]);
  }
  return true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function scalar(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
}

/** One-line preview for the header: `key: value, key: value`. */
export function summarizeArgs(raw: string): string {
  const args = parseArgs(raw);
  const text = isRecord(args)
    ? Object.entries(args).map(([key, value]) => `${key}: ${scalar(value)}`).join(", ")
    : args === undefined
    ? raw
    : scalar(args);
  return oneLine(text);
}

/** Readable argument listing: multi-line strings become indented blocks. */
export function formatArgs(raw: string): string {
  const args = parseArgs(raw);
  if (!isRecord(args)) return args === undefined ? raw : JSON.stringify(args, null, 2);
  return Object.entries(args).map(([key, value]) => {
    if (typeof value === "string" && value.includes("\n")) {
      return `${key}:\n${value.split("\n").map((line) => `  ${line}`).join("\n")}`;
    }
    return `${key}: ${typeof value === "string" ? value : JSON.stringify(value, null, 2)}`;
  }).join("\n");
}

/**
 * Collapsed: the first lines of the result (or of the progress while it
 * runs). Expanded: the arguments, then the whole result.
 */
export const genericView: ToolRenderer = {
  summary: (call) => summarizeArgs(call.rawArgs),
  body(call: ToolCallState, width: number, theme: Theme): string[] {
    const args = call.expanded && call.rawArgs.trim() !== ""
      ? indented(formatArgs(call.rawArgs), width, theme, "muted")
      : [];
    const output = call.result === "" ? call.progress : call.result;
    const rows = indented(output, width, theme, call.isError ? "error" : "toolOutput");
    return [...args, ...head(rows, call, theme, width)];
  },
};
