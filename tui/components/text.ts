/**
 * Plain text (no markdown) as a component, wrapped to the width, with a
 * per-line cache so appending re-wraps only the last line.
 *
 * @module
 */
import type { Component } from "../component.ts";
import { visibleWidth } from "../text_width.ts";
import { wrapText } from "./wrap_text.ts";

/** Options for {@linkcode Text}. */
export interface TextOptions {
  /** Style applied to each source line before wrapping (e.g. a theme colour). */
  style?: (line: string) => string;
  /** Prefix for every output line (e.g. an indent); it counts against the width. */
  prefix?: string;
}

/**
 * Wrapped plain text. `append` is cheap: lines before the last source line
 * keep their wrapped output and `firstLineChanged` points at the tail.
 *
 * @example
 * ```ts
 * import { Text } from "@panto/tui";
 * const text = new Text("one\ntwo");
 * console.assert(text.render(10).join("|") === "one|two");
 * text.append(" three");
 * console.assert(text.firstLineChanged() === 1);
 * console.assert(text.render(10).join("|") === "one|two three");
 * ```
 */
export class Text implements Component {
  /** Source split at `\n`. */
  #sourceLines: string[];
  /** Wrapped output per source line, for `#width`. */
  #wrapped: (readonly string[])[] = [];
  /** First source line changed since the last render (`Infinity`: none). */
  #changedLine = 0;
  #width = -1;
  #lines: readonly string[] = [];
  readonly #style: (line: string) => string;
  readonly #prefix: string;

  /** Creates wrapped text. */
  constructor(text = "", options: TextOptions = {}) {
    this.#sourceLines = text.replaceAll("\r", "").split("\n");
    this.#style = options.style ?? ((line) => line);
    this.#prefix = options.prefix ?? "";
  }

  /** The text. */
  get text(): string {
    return this.#sourceLines.join("\n");
  }

  /** Number of lines the last render produced. */
  get lineCount(): number {
    return this.#lines.length;
  }

  /** Replaces the text; unchanged leading lines stay cached. */
  setText(text: string): void {
    const next = text.replaceAll("\r", "").split("\n");
    let same = 0;
    while (
      same < next.length && same < this.#sourceLines.length &&
      next[same] === this.#sourceLines[same]
    ) {
      same++;
    }
    if (same === next.length && same === this.#sourceLines.length) return;
    this.#sourceLines = next;
    this.#markChanged(same);
  }

  /** Appends a streamed delta. */
  append(delta: string): void {
    if (delta === "") return;
    const [first = "", ...rest] = delta.replaceAll("\r", "").split("\n");
    const last = this.#sourceLines.length - 1;
    this.#sourceLines[last] = (this.#sourceLines[last] ?? "") + first;
    this.#sourceLines.push(...rest);
    this.#markChanged(last);
  }

  /** Wrapped lines; only source lines from the first change are re-wrapped. */
  render(width: number): readonly string[] {
    const from = width === this.#width ? this.#changedLine : 0;
    if (from === Infinity) return this.#lines;
    const inner = Math.max(1, width - visibleWidth(this.#prefix));
    this.#wrapped.length = Math.min(this.#wrapped.length, from);
    for (let i = from; i < this.#sourceLines.length; i++) {
      const wrapped = wrapText(this.#style(this.#sourceLines[i] ?? ""), inner);
      this.#wrapped.push(
        this.#prefix === "" ? wrapped : wrapped.map((line) => this.#prefix + line),
      );
    }
    this.#lines = this.#wrapped.flat();
    this.#width = width;
    this.#changedLine = Infinity;
    return this.#lines;
  }

  /** The first output line of the first changed source line, or null. */
  firstLineChanged(): number | null {
    if (this.#width === -1) return 0;
    if (this.#changedLine === Infinity) return null;
    let line = 0;
    for (let i = 0; i < this.#changedLine; i++) line += this.#wrapped[i]?.length ?? 0;
    return line;
  }

  /** Re-wraps everything on the next render. */
  invalidate(): void {
    this.#width = -1;
    this.#changedLine = 0;
  }

  #markChanged(line: number): void {
    this.#changedLine = Math.min(this.#changedLine, line);
  }
}
