/**
 * The status lines under the editor: directory and git branch, usage and
 * cost, context use, model and reasoning level.
 *
 * @module
 */
import {
  CachedComponent,
  defaultTheme,
  sanitizeTerminalText,
  type Theme,
  type ThemeColor,
  truncateToWidth,
  visibleWidth,
} from "@panto/tui";
import { formatTokens } from "./format_tokens.ts";

/** What the footer shows; every field is optional. */
export interface FooterData {
  /** Working directory (shown as given; shorten `$HOME` yourself). */
  cwd?: string;
  /** Current git branch. */
  branch?: string;
  /** The session's name, once it has one (undefined clears it). */
  session?: string | undefined;
  /** Model name. */
  model?: string;
  /** Reasoning level, shown after the model (e.g. "high"). */
  thinking?: string;
  /** Input tokens used in the session (all its branches). */
  tokensIn?: number;
  /** Output tokens used in the session (all its branches). */
  tokensOut?: number;
  /** The session's cost so far in US dollars. */
  cost?: number;
  /** Share of the context window the active branch fills, 0–100. */
  contextPercent?: number | undefined;
  /** Tokens of the active branch's context, shown when the share is not known (no window size). */
  contextTokens?: number | undefined;
  /** What the chat waits for, e.g. "waiting for approval" (undefined clears it). */
  waiting?: string | undefined;
}

function contextColor(percent: number): ThemeColor {
  if (percent >= 90) return "error";
  if (percent >= 70) return "warning";
  return "muted";
}

/**
 * Two lines: `cwd (branch)`, then usage on the left and the model (with
 * its reasoning level) on the right.
 *
 * @example
 * ```ts
 * import { createTheme } from "@panto/tui";
 * import { Footer } from "./footer.ts";
 * const footer = new Footer({ cwd: "~/src", branch: "main", model: "m1", tokensIn: 1200, tokensOut: 300, cost: 0.0123, contextPercent: 4 }, createTheme({ noColor: true }));
 * const [location, usage] = footer.render(40);
 * console.assert(location === "~/src (main)");
 * console.assert(usage?.startsWith("↑1.2k ↓300 $0.012 4% ctx") && usage.endsWith(" m1"));
 * ```
 */
export class Footer extends CachedComponent {
  #data: FooterData;
  readonly #theme: Theme;

  /** Creates the footer. */
  constructor(data: FooterData = {}, theme: Theme = defaultTheme()) {
    super();
    this.#data = { ...data };
    this.#theme = theme;
  }

  /** The data shown. */
  get data(): Readonly<FooterData> {
    return this.#data;
  }

  /** Merges new values (e.g. usage after each turn); unchanged data does not redraw. */
  update(data: Partial<FooterData>): void {
    const next = { ...this.#data, ...data };
    const keys = Object.keys(next) as (keyof FooterData)[];
    if (keys.every((key) => next[key] === this.#data[key])) return;
    this.#data = next;
    this.changed();
  }

  /** Builds the lines for `width` (see {@linkcode CachedComponent}). */
  protected build(width: number): string[] {
    const theme = this.#theme;
    const { cwd, branch, session } = this.#data;
    // A stored name is untrusted text: no terminal controls, one line.
    const name = session === undefined
      ? undefined
      : `· ${sanitizeTerminalText(session).replace(/\s+/g, " ")}`;
    const location = [cwd, branch === undefined ? undefined : `(${branch})`, name]
      .filter((part) => part !== undefined).join(" ");
    const waiting = this.#data.waiting === undefined
      ? ""
      : `${location === "" ? "" : " "}${theme.fg("warning", `· ${this.#data.waiting}`)}`;
    const lines: string[] = [];
    if (location !== "" || waiting !== "") {
      lines.push(truncateToWidth(theme.fg("muted", location) + waiting, width, "…"));
    }
    const stats = this.#stats();
    const model = this.#model();
    const gap = width - visibleWidth(stats) - visibleWidth(model);
    const line = gap >= 1
      ? stats + " ".repeat(gap) + model
      : [stats, model].filter((s) => s !== "").join(" ");
    if (line !== "") lines.push(truncateToWidth(line, width, "…"));
    return lines;
  }

  #model(): string {
    const { model, thinking } = this.#data;
    if (model === undefined) return "";
    const level = thinking === undefined ? "" : ` · thinking ${thinking}`;
    return this.#theme.fg("muted", model + level);
  }

  #stats(): string {
    const theme = this.#theme;
    const { tokensIn, tokensOut, cost, contextPercent, contextTokens } = this.#data;
    const parts: string[] = [];
    if (tokensIn !== undefined) parts.push(theme.fg("muted", `↑${formatTokens(tokensIn)}`));
    if (tokensOut !== undefined) parts.push(theme.fg("muted", `↓${formatTokens(tokensOut)}`));
    if (cost !== undefined) parts.push(theme.fg("muted", `$${cost.toFixed(3)}`));
    if (contextPercent !== undefined) {
      const percent = Math.round(contextPercent);
      parts.push(theme.fg(contextColor(percent), `${percent}% ctx`));
    } else if (contextTokens !== undefined) {
      parts.push(theme.fg("muted", `${formatTokens(contextTokens)} ctx`));
    }
    return parts.join(" ");
  }
}
