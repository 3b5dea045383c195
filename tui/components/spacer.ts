/**
 * Blank lines between components.
 *
 * @module
 */
import type { Component } from "../component.ts";

/**
 * `lines` empty lines.
 *
 * @example
 * ```ts
 * import { Spacer } from "@panto/tui";
 * console.assert(new Spacer(2).render(10).length === 2);
 * ```
 */
export class Spacer implements Component {
  readonly #lines: readonly string[];
  #rendered = false;

  /** Creates `lines` blank lines (default 1). */
  constructor(lines = 1) {
    this.#lines = Array.from({ length: Math.max(0, lines) }, () => "");
  }

  /** The blank lines. */
  render(_width: number): readonly string[] {
    this.#rendered = true;
    return this.#lines;
  }

  /** 0 before the first render, then null (a spacer never changes). */
  firstLineChanged(): number | null {
    return this.#rendered ? null : 0;
  }

  /** Reports a change on the next `firstLineChanged`. */
  invalidate(): void {
    this.#rendered = false;
  }
}
