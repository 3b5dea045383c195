/**
 * The banner shown at session start.
 *
 * @module
 */
import { CachedComponent, defaultTheme, type Theme, truncateToWidth } from "@panto/tui";

/**
 * What the welcome banner shows (the data of the `session_start` UI event).
 *
 * @example
 * ```ts
 * import type { WelcomeData } from "@panto/cli";
 * const data: WelcomeData = { version: "0.1.0", cwd: "~/src/app", model: "claude-x" };
 * console.assert(data.hint === undefined);
 * ```
 */
export interface WelcomeData {
  /** panto's version. */
  version: string;
  /** Working directory. */
  cwd: string;
  /** Model name (e.g. "anthropic/claude-sonnet-4"). */
  model?: string;
  /** A hint line (e.g. "enter to send · shift+enter for a newline"). */
  hint?: string;
  /** What was loaded, one line each (e.g. "context AGENTS.md"). */
  loaded?: string[];
}

/**
 * Name and version, model, working directory, what was loaded, and an
 * optional hint.
 *
 * @example
 * ```ts
 * import { createTheme } from "@panto/tui";
 * import { Welcome } from "./welcome.ts";
 * const welcome = new Welcome({ version: "0.1.0", cwd: "/src", model: "m" }, createTheme({ noColor: true }));
 * console.assert(welcome.render(40)[0] === "panto 0.1.0");
 * ```
 */
export class Welcome extends CachedComponent {
  #data: WelcomeData;
  readonly #theme: Theme;

  /** Creates the banner. */
  constructor(data: WelcomeData, theme: Theme = defaultTheme()) {
    super();
    this.#data = data;
    this.#theme = theme;
  }

  /** Changes what is shown (e.g. after a model switch). */
  update(data: Partial<WelcomeData>): void {
    this.#data = { ...this.#data, ...data };
    this.changed();
  }

  /** Builds the lines for `width` (see {@linkcode CachedComponent}). */
  protected build(width: number): string[] {
    const theme = this.#theme;
    const { version, cwd, model, hint, loaded = [] } = this.#data;
    const lines = [theme.bold(theme.fg("accent", "panto")) + " " + theme.fg("dim", version)];
    if (model !== undefined) lines.push(theme.fg("muted", "model ") + model);
    lines.push(theme.fg("muted", "cwd   ") + cwd);
    for (const line of loaded) lines.push(theme.fg("muted", line));
    if (hint !== undefined) lines.push(theme.fg("dim", hint));
    return lines.map((line) => truncateToWidth(line, width, "…"));
  }
}
