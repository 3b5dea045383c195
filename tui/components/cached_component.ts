/**
 * A base for small components that rebuild all their lines when anything
 * changes: it caches the lines per width and derives `firstLineChanged`
 * from a dirty flag, so the two can never drift apart.
 *
 * @module
 */
import type { Component } from "../component.ts";

/**
 * Extend and implement `build(width)`; call `changed()` after every state
 * change.
 *
 * @example
 * ```ts
 * import { CachedComponent } from "@panto/tui";
 * class Counter extends CachedComponent {
 *   count = 0;
 *   increment(): void {
 *     this.count++;
 *     this.changed();
 *   }
 *   protected build(width: number): string[] {
 *     return [`count: ${this.count}`.slice(0, width)];
 *   }
 * }
 * const counter = new Counter();
 * counter.render(20);
 * console.assert(counter.firstLineChanged() === null);
 * counter.increment();
 * console.assert(counter.firstLineChanged() === 0);
 * ```
 */
export abstract class CachedComponent implements Component {
  #lines: readonly string[] = [];
  #width = -1;
  #dirty = true;

  /** Produces the lines for `width` (each at most `width` columns). */
  protected abstract build(width: number): string[];

  /** Marks the cached lines stale. */
  protected changed(): void {
    this.#dirty = true;
  }

  /** The cached lines, rebuilt when stale or when the width changed. */
  render(width: number): readonly string[] {
    if (this.#dirty || width !== this.#width) {
      this.#lines = this.build(width);
      this.#width = width;
      this.#dirty = false;
    }
    return this.#lines;
  }

  /** 0 when stale (the whole component is rebuilt), null when clean. */
  firstLineChanged(): number | null {
    return this.#dirty || this.#width === -1 ? 0 : null;
  }

  /** Forces a rebuild on the next render. */
  invalidate(): void {
    this.#dirty = true;
  }
}
