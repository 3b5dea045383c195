/**
 * The markdown component: renders with the `marked` lexer, keeps finished
 * top-level blocks cached, and keeps the last block open so that a streamed
 * delta costs only what can still change (see `markdown_document.ts`).
 *
 * @module
 */
import type { Component } from "../component.ts";
import { defaultTheme } from "../theme.ts";
import type { Theme } from "../theme.ts";
import { MarkdownDocument } from "./markdown_document.ts";

/** Options for {@linkcode Markdown}. */
export interface MarkdownOptions {
  /** Colours; defaults to {@linkcode defaultTheme}. */
  theme?: Theme;
  /** Style for plain text runs (thinking passes dim italic). */
  textStyle?: (text: string) => string;
  /** Emit OSC 8 hyperlinks around link text (default false). */
  hyperlinks?: boolean;
}

/**
 * Markdown text as a component. Feed it with {@linkcode Markdown.setText}
 * or {@linkcode Markdown.append}. The array `render` returns is updated in
 * place by the next render, and `firstLineChanged` names the first line
 * that really differs, so a frame rewrites only the tail.
 *
 * @example
 * ```ts
 * import { createTheme, Markdown } from "@panto/tui";
 * const md = new Markdown("# Title\n\nSome **bold** text", { theme: createTheme({ noColor: true }) });
 * console.assert(md.render(40).join("\n") === "# Title\n\nSome bold text");
 * md.append(" and more");
 * console.assert(md.firstLineChanged() === 2); // the paragraph's line
 * ```
 */
export class Markdown implements Component {
  readonly #document: MarkdownDocument;

  /** Creates a renderer for `text`. */
  constructor(text = "", options: MarkdownOptions = {}) {
    this.#document = new MarkdownDocument({
      theme: options.theme ?? defaultTheme(),
      text: options.textStyle ?? ((value) => value),
      hyperlinks: options.hyperlinks ?? false,
      links: {},
    });
    this.#document.setText(text.replaceAll("\r", ""));
  }

  /** The markdown source. */
  get text(): string {
    return this.#document.text;
  }

  /** Replaces the source; a shared prefix with the old source stays cached. */
  setText(text: string): void {
    this.#document.setText(text.replaceAll("\r", ""));
  }

  /** Appends a streamed delta. */
  append(delta: string): void {
    this.#document.append(delta.replaceAll("\r", ""));
  }

  /** Lines for `width`; only what changed since the last render is rebuilt. */
  render(width: number): readonly string[] {
    return this.#document.render(width);
  }

  /** First line that differs from the last render, or null. */
  firstLineChanged(): number | null {
    return this.#document.firstLineChanged();
  }

  /** Forgets rendered lines (e.g. after a theme change). */
  invalidate(): void {
    this.#document.invalidate();
  }
}
