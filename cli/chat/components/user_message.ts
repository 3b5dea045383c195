/**
 * A message the user sent.
 *
 * @module
 */
import { CachedComponent, defaultTheme, type Theme, visibleWidth, wrapText } from "@panto/tui";

const MARKER = "› ";

/**
 * The user's text, wrapped, behind a "› " marker on a full-width
 * background band.
 *
 * @example
 * ```ts
 * import { createTheme } from "@panto/tui";
 * import { UserMessage } from "./user_message.ts";
 * const message = new UserMessage("hello there", createTheme({ noColor: true }));
 * console.assert(message.render(10).join("|") === "› hello   |  there   ");
 * ```
 */
export class UserMessage extends CachedComponent {
  readonly #text: string;
  readonly #theme: Theme;

  /** Creates the message. */
  constructor(text: string, theme: Theme = defaultTheme()) {
    super();
    this.#text = text;
    this.#theme = theme;
  }

  /** The message text. */
  get text(): string {
    return this.#text;
  }

  /** Builds the lines for `width` (see {@linkcode CachedComponent}). */
  protected build(width: number): string[] {
    const theme = this.#theme;
    const inner = Math.max(1, width - MARKER.length);
    const body = wrapText(theme.fg("userMessage", this.#text), inner);
    return body.map((line, i) => {
      const marker = i === 0 ? theme.fg("accent", MARKER) : " ".repeat(MARKER.length);
      const content = width > MARKER.length ? marker + line : line;
      const padding = " ".repeat(Math.max(0, width - visibleWidth(content)));
      return theme.bg("userMessage", content + padding);
    });
  }
}
