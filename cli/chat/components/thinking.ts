/**
 * The model's thinking: streamed markdown, dimmed, hideable.
 *
 * @module
 */
import { type Component, defaultTheme, Markdown, type Theme, truncateToWidth } from "@panto/tui";

/** Options for {@linkcode Thinking}. */
export interface ThinkingOptions {
  /** Colours; defaults to {@linkcode defaultTheme}. */
  theme?: Theme;
  /** Start hidden (one summary line instead of the text). */
  hidden?: boolean;
}

/**
 * Thinking text in the dim italic thinking colour. When hidden it renders
 * one line ("∴ Thinking…") so the app can toggle it without losing text;
 * with no text it renders nothing.
 *
 * @example
 * ```ts
 * import { createTheme } from "@panto/tui";
 * import { Thinking } from "./thinking.ts";
 * const thinking = new Thinking({ theme: createTheme({ noColor: true }) });
 * console.assert(thinking.render(80).length === 0);
 * thinking.append("Let me look at the *tests*.");
 * console.assert(thinking.render(80)[0] === "Let me look at the tests.");
 * thinking.setHidden(true);
 * console.assert(thinking.render(80).length === 1 && thinking.firstLineChanged() === null);
 * ```
 */
export class Thinking implements Component {
  readonly #markdown: Markdown;
  readonly #theme: Theme;
  #hidden: boolean;
  /** Whether the hidden/shown switch (or the first render) is pending. */
  #toggled = true;

  /** Creates an empty thinking block. */
  constructor(options: ThinkingOptions = {}) {
    const theme = options.theme ?? defaultTheme();
    this.#theme = theme;
    this.#hidden = options.hidden ?? false;
    this.#markdown = new Markdown("", {
      theme,
      textStyle: (text) => theme.italic(theme.fg("thinking", text)),
    });
  }

  /** The thinking text so far. */
  get text(): string {
    return this.#markdown.text;
  }

  /** Whether only the summary line is shown. */
  get hidden(): boolean {
    return this.#hidden;
  }

  /** Appends a streamed thinking delta. */
  append(delta: string): void {
    // The first text makes the block appear (an empty one takes no lines).
    if (this.#markdown.text === "" && delta !== "") this.#toggled = true;
    this.#markdown.append(delta);
  }

  /** Shows or hides the text. */
  setHidden(hidden: boolean): void {
    if (hidden !== this.#hidden) this.#toggled = true;
    this.#hidden = hidden;
  }

  /** The text, or the one-line summary when hidden. */
  render(width: number): readonly string[] {
    this.#toggled = false;
    // Thinking with no text (Gemini's signature carriers, Anthropic's omitted
    // thinking) has nothing to show, not even the summary line.
    if (this.#markdown.text === "") return [];
    if (!this.#hidden) return this.#markdown.render(width);
    const summary = this.#theme.italic(this.#theme.fg("thinking", "∴ Thinking…"));
    return [truncateToWidth(summary, width, "…")];
  }

  /** 0 after a toggle; otherwise the markdown's answer (null while hidden). */
  firstLineChanged(): number | null {
    if (this.#toggled) return 0;
    return this.#hidden ? null : this.#markdown.firstLineChanged();
  }

  /** Re-renders everything next time. */
  invalidate(): void {
    this.#markdown.invalidate();
    this.#toggled = true;
  }
}
