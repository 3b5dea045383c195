/**
 * A theme that can be swapped while the components that hold it stay: the
 * way to recolour a running UI (a theme picker's live preview).
 *
 * @module
 */
import type { Theme, ThemeBackground, ThemeColor } from "./theme.ts";

/**
 * A {@linkcode Theme} that forwards every call to the theme it currently
 * holds. Give it to components in place of a theme; {@linkcode SwitchableTheme.set}
 * changes their colours from the next render. Components cache rendered
 * lines, so after a switch call `tui.requestRender(true)`, which drops those
 * caches and repaints the screen.
 *
 * @example
 * ```ts
 * import { BUILTIN_THEMES, createTheme, SwitchableTheme } from "@panto/tui";
 * const theme = new SwitchableTheme(createTheme({ noColor: false }));
 * const before = theme.fg("accent", "x");
 * theme.set(createTheme({ ...BUILTIN_THEMES.light, noColor: false }));
 * console.assert(theme.fg("accent", "x") !== before);
 * // then: tui.requestRender(true);
 * ```
 */
export class SwitchableTheme implements Theme {
  #current: Theme;

  /** Starts with `initial`. */
  constructor(initial: Theme) {
    this.#current = initial;
  }

  /** The theme calls go to now. */
  get current(): Theme {
    return this.#current;
  }

  /** Sends calls to `theme` from now on. */
  set(theme: Theme): void {
    this.#current = theme;
  }

  /** Whether the current theme writes SGR codes. */
  get colorEnabled(): boolean {
    return this.#current.colorEnabled;
  }

  /** Colours `text` with a named foreground colour of the current theme. */
  fg(color: ThemeColor, text: string): string {
    return this.#current.fg(color, text);
  }

  /** Gives `text` a named background colour of the current theme. */
  bg(color: ThemeBackground, text: string): string {
    return this.#current.bg(color, text);
  }

  /** Bold text. */
  bold(text: string): string {
    return this.#current.bold(text);
  }

  /** Faint text. */
  dim(text: string): string {
    return this.#current.dim(text);
  }

  /** Italic text. */
  italic(text: string): string {
    return this.#current.italic(text);
  }

  /** Underlined text. */
  underline(text: string): string {
    return this.#current.underline(text);
  }

  /** Struck-through text. */
  strikethrough(text: string): string {
    return this.#current.strikethrough(text);
  }

  /** Reverse video. */
  inverse(text: string): string {
    return this.#current.inverse(text);
  }
}
