/**
 * The assistant's answer: streamed markdown.
 *
 * @module
 */
import { type Component, Markdown, type MarkdownOptions } from "@panto/tui";

/**
 * Assistant text rendered as markdown. Feed deltas with `append`; a delta
 * re-renders only the part of the last block that can still change.
 *
 * @example
 * ```ts
 * import { createTheme } from "@panto/tui";
 * import { AssistantMessage } from "./assistant_message.ts";
 * const message = new AssistantMessage({ theme: createTheme({ noColor: true }) });
 * message.append("Hello **wor");
 * message.append("ld**");
 * console.assert(message.render(40)[0] === "Hello world");
 * ```
 */
export class AssistantMessage implements Component {
  readonly #markdown: Markdown;

  /** Creates an empty message (or one holding `options.text`). */
  constructor(options: MarkdownOptions & { text?: string } = {}) {
    const { text = "", ...markdownOptions } = options;
    this.#markdown = new Markdown(text, markdownOptions);
  }

  /** The markdown source so far. */
  get text(): string {
    return this.#markdown.text;
  }

  /** Appends a streamed text delta. */
  append(delta: string): void {
    this.#markdown.append(delta);
  }

  /** Replaces the whole text. */
  setText(text: string): void {
    this.#markdown.setText(text);
  }

  /** The rendered markdown. */
  render(width: number): readonly string[] {
    return this.#markdown.render(width);
  }

  /** Near the tail while streaming (see {@linkcode Markdown}). */
  firstLineChanged(): number | null {
    return this.#markdown.firstLineChanged();
  }

  /** Re-renders everything next time. */
  invalidate(): void {
    this.#markdown.invalidate();
  }
}
