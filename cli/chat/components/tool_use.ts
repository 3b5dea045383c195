/**
 * One tool call: a header (status, name, what it was asked) and the lines
 * its tool's renderer draws under it, collapsible with ctrl+o.
 *
 * @module
 */
import {
  type Component,
  defaultTheme,
  sanitizeTerminalText,
  type Theme,
  type ThemeColor,
  truncateToWidth,
} from "@panto/tui";
import { parseArgs } from "./tools/generic_view.ts";
import { rendererFor } from "./tools/renderers.ts";
import type { ToolCallState, ToolRenderer, ToolStatus } from "./tools/tool_renderer.ts";

export type { ToolStatus } from "./tools/tool_renderer.ts";

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
  /** Output lines shown while collapsed (default 5). */
  collapsedLines?: number;
  /** Start expanded (default false). */
  expanded?: boolean;
  /** The clock for elapsed times (default `Date.now`). */
  now?: () => number;
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

/** Strips terminal controls from every string in parsed arguments (JSON escapes them, parsing makes them live). */
function sanitizeValue(value: unknown): unknown {
  if (typeof value === "string") return sanitizeTerminalText(value);
  if (Array.isArray(value)) return value.map(sanitizeValue);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sanitizeValue(v)]));
  }
  return value;
}

/**
 * A tool call. The app creates one per call id and drives it with
 * `appendArgs`, `setStatus`, `setProgress`, `setResult`; ctrl+o in the app
 * calls `setExpanded`. Built-in tools draw through their own renderer
 * (bash: the last output lines live, then exit code and duration; edit: a
 * coloured diff; …); other tools show the first result lines, and expanded,
 * their arguments too.
 *
 * @example
 * ```ts
 * import { createTheme } from "@panto/tui";
 * import { ToolUse } from "./tool_use.ts";
 * const tool = new ToolUse({ callId: "c1", name: "lookup" }, { theme: createTheme({ noColor: true }) });
 * tool.appendArgs('{"word": "pan');
 * console.assert(tool.render(40)[0] === "○ lookup word: pan");
 * tool.setResult("a\nb");
 * console.assert(tool.render(40).join("|") === "✓ lookup word: pan|  a|  b");
 * ```
 */
export class ToolUse implements Component {
  /** The tool-call id this component belongs to. */
  readonly callId: string;
  /** Tool name. */
  readonly name: string;
  readonly #theme: Theme;
  readonly #renderer: ToolRenderer;
  readonly #collapsedLines: number;
  readonly #now: () => number;
  #args: string;
  /** The arguments parsed and stripped of terminal controls, and the raw text stripped too. */
  #parsedArgs: unknown;
  #shownArgs: string;
  #status: ToolStatus = "pending";
  #expanded: boolean;
  #progress = "";
  #result = "";
  #isError = false;
  #startedAt: number | undefined;
  #endedAt: number | undefined;
  /** How long a stored call ran (a resumed transcript has no clock to read). */
  #storedMs: number | undefined;
  #images: readonly Component[] = [];
  #lines: readonly string[] = [];
  #width = -1;
  /** The first line that changed since the last render (null: none). */
  #dirtyFrom: number | null = 0;
  /** Where the footer starts in {@linkcode ToolUse.#lines} and what it said. */
  #footerAt = 0;
  #footer: string | undefined;

  /** Creates a pending tool call. */
  constructor(data: ToolUseData, options: ToolUseOptions = {}) {
    this.callId = data.callId;
    this.name = data.name;
    this.#args = data.args ?? "";
    this.#parsedArgs = sanitizeValue(parseArgs(this.#args));
    this.#shownArgs = sanitizeTerminalText(this.#args);
    this.#theme = options.theme ?? defaultTheme();
    this.#renderer = rendererFor(data.name);
    this.#collapsedLines = Math.max(1, options.collapsedLines ?? 5);
    this.#expanded = options.expanded ?? false;
    this.#now = options.now ?? Date.now;
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
    return this.#result;
  }

  /** Whether everything is shown. */
  get expanded(): boolean {
    return this.#expanded;
  }

  /** Appends streamed argument JSON. */
  appendArgs(delta: string): void {
    this.setArgs(this.#args + delta);
  }

  /** Sets the complete arguments (JSON text or a value to serialize). */
  setArgs(args: string | Readonly<Record<string, unknown>>): void {
    this.#args = typeof args === "string" ? args : JSON.stringify(args);
    this.#parsedArgs = sanitizeValue(parseArgs(this.#args));
    this.#shownArgs = sanitizeTerminalText(this.#args);
    this.#changed(0);
  }

  /** Moves to another status; "running" starts the clock, "done" and "error" stop it. */
  setStatus(status: ToolStatus): void {
    if (status === this.#status) return;
    this.#status = status;
    if (status === "running") this.#startedAt ??= this.#now();
    else if (this.#startedAt !== undefined) this.#endedAt ??= this.#now();
    this.#changed(0);
  }

  /**
   * Replaces the progress shown while the call runs (the latest report of
   * the tool, e.g. the output so far); status becomes "running" if pending.
   */
  setProgress(text: string): void {
    if (this.#status === "pending") this.setStatus("running");
    this.#progress = sanitizeTerminalText(text);
    this.#changed(1);
  }

  /**
   * Appends streamed result text (status becomes "running" if pending).
   * Controls are stripped per delta: a sequence split across deltas leaves
   * only harmless printable fragments.
   */
  appendResult(delta: string): void {
    if (this.#status === "pending") this.setStatus("running");
    this.#result += sanitizeTerminalText(delta);
    this.#changed(1);
  }

  /** Sets the final result; the status becomes "done" or "error". */
  setResult(raw: string, isError = false): void {
    this.#result = sanitizeTerminalText(raw);
    this.#isError = isError;
    this.setStatus(isError ? "error" : "done");
    this.#changed(0);
  }

  /** Sets how long the call ran, as stored with its result (for a call not watched live). */
  setDuration(ms: number): void {
    this.#storedMs = ms;
    this.#changed(0);
  }

  /** Shows images under the result (a read image's), drawn or as placeholders. */
  setImages(images: readonly Component[]): void {
    this.#images = images;
    this.#changed(this.#footerAt);
  }

  /** Shows everything (true) or the renderer's short view (false). */
  setExpanded(expanded: boolean): void {
    if (expanded === this.#expanded) return;
    this.#expanded = expanded;
    this.#changed(0);
  }

  /** The header, then what the tool's renderer draws under it. */
  render(width: number): readonly string[] {
    if (width === this.#width && this.firstLineChanged() === null) return this.#lines;
    const call = this.#state();
    const body = this.#renderer.body(call, width, this.#theme);
    this.#footer = this.#renderer.footer?.(call, this.#theme);
    this.#footerAt = 1 + body.length;
    const footer = this.#footer === undefined ? [] : [truncateToWidth(this.#footer, width, "…")];
    const images = this.#images.flatMap((image) => image.render(width));
    this.#lines = [this.#header(call, width), ...body, ...footer, ...images];
    this.#width = width;
    this.#dirtyFrom = null;
    return this.#lines;
  }

  /** The first line that changed: 0 for the header, 1 for the body, the footer's line when only time passed. */
  firstLineChanged(): number | null {
    if (this.#width === -1) return 0;
    if (this.#dirtyFrom !== null) return this.#dirtyFrom;
    if (this.#status !== "running" || !this.#renderer.footer) return null;
    return this.#renderer.footer(this.#state(), this.#theme) === this.#footer
      ? null
      : this.#footerAt;
  }

  /** Re-renders everything next time. */
  invalidate(): void {
    for (const image of this.#images) image.invalidate();
    this.#changed(0);
  }

  #changed(from: number): void {
    this.#dirtyFrom = Math.min(this.#dirtyFrom ?? from, from);
  }

  #state(): ToolCallState {
    const started = this.#startedAt;
    return {
      name: this.name,
      args: this.#parsedArgs,
      rawArgs: this.#shownArgs,
      status: this.#status,
      progress: this.#progress,
      result: this.#result,
      isError: this.#isError,
      expanded: this.#expanded,
      collapsedLines: this.#collapsedLines,
      elapsedMs: this.#storedMs ??
        (started === undefined ? undefined : (this.#endedAt ?? this.#now()) - started),
    };
  }

  #header(call: ToolCallState, width: number): string {
    const theme = this.#theme;
    const icon = theme.fg(STATUS_COLORS[this.#status], STATUS_ICONS[this.#status]);
    const summary = sanitizeTerminalText(this.#renderer.summary(call));
    const name = sanitizeTerminalText(this.name);
    const head = `${icon} ${theme.bold(theme.fg("toolTitle", name))}`;
    return truncateToWidth(
      summary === "" ? head : `${head} ${theme.fg("muted", summary)}`,
      width,
      "…",
    );
  }
}
