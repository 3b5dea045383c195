/**
 * One tool call: name, streamed arguments, status and result, collapsible.
 *
 * @module
 */
import { parse as parsePartialJson } from "partial-json";
import {
  type Component,
  defaultTheme,
  sanitizeTerminalText,
  Text,
  type Theme,
  type ThemeColor,
  truncateToWidth,
} from "@panto/tui";

/** Where a tool call is. */
export type ToolStatus = "pending" | "running" | "done" | "error";

/**
 * What a tool-use component starts from (the data of the `tool` UI event).
 *
 * @example
 * ```ts
 * import type { ToolUseData } from "@panto/cli";
 * const data: ToolUseData = { callId: "c1", name: "bash", args: '{"command":"ls"' };
 * console.assert(data.name === "bash");
 * ```
 */
export interface ToolUseData {
  /** The provider's tool-call id; one component per call. */
  callId: string;
  /** Tool name. */
  name: string;
  /** Argument JSON received so far (may be partial). */
  args?: string;
}

/** Options for {@linkcode ToolUse}. */
export interface ToolUseOptions {
  /** Colours; defaults to {@linkcode defaultTheme}. */
  theme?: Theme;
  /** Result lines shown while collapsed (default 5). */
  collapsedLines?: number;
  /** Start expanded (default false). */
  expanded?: boolean;
}

const STATUS_ICONS: Readonly<Record<ToolStatus, string>> = {
  pending: "○",
  running: "◐",
  done: "✓",
  error: "✗",
};

const STATUS_COLORS: Readonly<Record<ToolStatus, ThemeColor>> = {
  pending: "toolPending",
  running: "toolRunning",
  done: "toolDone",
  error: "toolError",
};

const INDENT = "  ";

/** Parses complete or partial argument JSON; undefined when it is not JSON yet. */
function parseArgs(raw: string): unknown {
  if (raw.trim() === "") return undefined;
  try {
    return parsePartialJson(raw);
  } catch {
    return undefined;
  }
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
  return sanitizeTerminalText(text).replace(/\s*\n\s*/g, " ⏎ ");
}

/** Readable argument listing: multi-line strings become indented blocks. */
export function formatArgs(raw: string): string {
  const args = parseArgs(raw);
  if (!isRecord(args)) return args === undefined ? raw : JSON.stringify(args, null, 2);
  return Object.entries(args).map(([key, value]) => {
    if (typeof value === "string" && value.includes("\n")) {
      return `${key}:\n${value.split("\n").map((line) => INDENT + line).join("\n")}`;
    }
    return `${key}: ${typeof value === "string" ? value : JSON.stringify(value, null, 2)}`;
  }).join("\n");
}

/**
 * A tool call. The app creates one per call id and drives it with
 * `appendArgs`, `setStatus`, `appendResult`/`setResult`; ctrl+o in the app
 * calls `setExpanded`. Collapsed, it shows the header and the first few
 * result lines; expanded, the arguments and the whole result.
 *
 * @example
 * ```ts
 * import { createTheme } from "@panto/tui";
 * import { ToolUse } from "./tool_use.ts";
 * const tool = new ToolUse({ callId: "c1", name: "bash" }, { theme: createTheme({ noColor: true }) });
 * tool.appendArgs('{"command": "ls');
 * console.assert(tool.render(40)[0] === "○ bash command: ls");
 * tool.setResult("a\nb");
 * console.assert(tool.render(40).join("|") === "✓ bash command: ls|  a|  b");
 * ```
 */
export class ToolUse implements Component {
  /** The tool-call id this component belongs to. */
  readonly callId: string;
  /** Tool name. */
  readonly name: string;
  readonly #theme: Theme;
  readonly #collapsedLines: number;
  #args: string;
  #status: ToolStatus = "pending";
  #expanded: boolean;
  #result: Text;
  /** Whether {@linkcode ToolUse.#result} is styled as an error. */
  #resultIsError = false;
  readonly #argsText: Text;
  /** Header, arguments or layout changed since the last render. */
  #dirty = true;
  #lastArgLines = 0;

  /** Creates a pending tool call. */
  constructor(data: ToolUseData, options: ToolUseOptions = {}) {
    this.callId = data.callId;
    this.name = data.name;
    this.#args = data.args ?? "";
    this.#theme = options.theme ?? defaultTheme();
    this.#collapsedLines = Math.max(1, options.collapsedLines ?? 5);
    this.#expanded = options.expanded ?? false;
    this.#argsText = new Text("", {
      prefix: INDENT,
      style: (line) => this.#theme.fg("muted", line),
    });
    this.#result = this.#resultText("", false);
  }

  /** Current status. */
  get status(): ToolStatus {
    return this.#status;
  }

  /** Argument JSON so far. */
  get args(): string {
    return this.#args;
  }

  /** Result text so far. */
  get result(): string {
    return this.#result.text;
  }

  /** Whether everything is shown. */
  get expanded(): boolean {
    return this.#expanded;
  }

  /** Appends streamed argument JSON. */
  appendArgs(delta: string): void {
    this.#args += delta;
    this.#dirty = true;
  }

  /** Sets the complete arguments (JSON text or a value to serialize). */
  setArgs(args: string | Readonly<Record<string, unknown>>): void {
    this.#args = typeof args === "string" ? args : JSON.stringify(args);
    this.#dirty = true;
  }

  /** Moves to another status. */
  setStatus(status: ToolStatus): void {
    if (status === this.#status) return;
    this.#status = status;
    this.#dirty = true;
  }

  /**
   * Appends streamed result text (status becomes "running" if pending).
   * Controls are stripped per delta: a sequence split across deltas leaves
   * only harmless printable fragments.
   */
  appendResult(delta: string): void {
    if (this.#status === "pending") this.setStatus("running");
    this.#result.append(sanitizeTerminalText(delta));
  }

  /** Sets the final result; the status becomes "done" or "error". */
  setResult(raw: string, isError = false): void {
    const text = sanitizeTerminalText(raw);
    this.setStatus(isError ? "error" : "done");
    // The colour is fixed when the Text is made: a change of kind needs a new one.
    if (this.#resultIsError !== isError) this.#result = this.#resultText(text, isError);
    else this.#result.setText(text);
  }

  /** Shows everything (true) or the header and a few result lines (false). */
  setExpanded(expanded: boolean): void {
    if (expanded === this.#expanded) return;
    this.#expanded = expanded;
    this.#dirty = true;
  }

  /** Header, then (expanded) the arguments, then the result. */
  render(width: number): readonly string[] {
    const lines = [this.#header(width)];
    if (this.#expanded && this.#args.trim() !== "") {
      this.#argsText.setText(sanitizeTerminalText(formatArgs(this.#args)));
      lines.push(...this.#argsText.render(width));
    }
    this.#lastArgLines = lines.length - 1;
    const result = this.#result.text === "" ? [] : this.#result.render(width);
    const hidden = this.#expanded ? 0 : result.length - this.#collapsedLines;
    if (hidden > 0) {
      lines.push(...result.slice(0, this.#collapsedLines));
      const more = `${INDENT}… ${hidden} more line${hidden === 1 ? "" : "s"} (ctrl+o to expand)`;
      lines.push(truncateToWidth(this.#theme.fg("dim", more), width, "…"));
    } else {
      lines.push(...result);
    }
    this.#dirty = false;
    return lines;
  }

  /** 0 when the header or layout changed, else where the result changed. */
  firstLineChanged(): number | null {
    if (this.#dirty) return 0;
    const changed = this.#result.firstLineChanged();
    if (changed === null) return null;
    const shown = this.#expanded ? changed : Math.min(changed, this.#collapsedLines);
    return 1 + this.#lastArgLines + shown;
  }

  /** Re-renders everything next time. */
  invalidate(): void {
    this.#dirty = true;
    this.#argsText.invalidate();
    this.#result.invalidate();
  }

  #header(width: number): string {
    const theme = this.#theme;
    const icon = theme.fg(STATUS_COLORS[this.#status], STATUS_ICONS[this.#status]);
    // Name and arguments come from the model (controls arrive JSON-escaped, so parsed ones are live).
    const summary = summarizeArgs(this.#args);
    const name = sanitizeTerminalText(this.name);
    const head = `${icon} ${theme.bold(theme.fg("toolTitle", name))}`;
    return truncateToWidth(
      summary === "" ? head : `${head} ${theme.fg("muted", summary)}`,
      width,
      "…",
    );
  }

  #resultText(text: string, isError: boolean): Text {
    this.#resultIsError = isError;
    const color: ThemeColor = isError ? "error" : "toolOutput";
    return new Text(text, { prefix: INDENT, style: (line) => this.#theme.fg(color, line) });
  }
}
