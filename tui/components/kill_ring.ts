/**
 * The editor's kill ring (Emacs style): killed text is pushed, consecutive
 * kills merge into one entry, yank inserts the newest entry and yank-pop
 * cycles back through older ones.
 *
 * @module
 */

/** How many killed texts are remembered. */
const DEFAULT_CAPACITY = 30;

/**
 * A bounded ring of killed text.
 *
 * @example
 * ```ts
 * import { KillRing } from "./kill_ring.ts";
 * const ring = new KillRing();
 * ring.kill("world", { merge: false, before: false });
 * ring.kill("hello ", { merge: true, before: true });
 * console.assert(ring.yank() === "hello world");
 * ```
 */
export class KillRing {
  readonly #entries: string[] = [];
  #cursor = 0;

  /** Creates a ring that keeps at most `capacity` entries. */
  constructor(readonly capacity: number = DEFAULT_CAPACITY) {}

  /** Number of entries held. */
  get size(): number {
    return this.#entries.length;
  }

  /**
   * Records killed text. With `merge` (the previous command was a kill too)
   * it joins the newest entry, in front of it when `before` (a backward
   * kill such as ctrl+w) and after it otherwise.
   */
  kill(text: string, options: { merge: boolean; before: boolean }): void {
    if (text === "") return;
    const newest = this.#entries.at(-1);
    if (options.merge && newest !== undefined) {
      this.#entries[this.#entries.length - 1] = options.before ? text + newest : newest + text;
    } else {
      this.#entries.push(text);
      if (this.#entries.length > this.capacity) this.#entries.shift();
    }
    this.#cursor = this.#entries.length - 1;
  }

  /** The newest entry (what ctrl+y inserts), or undefined when empty. */
  yank(): string | undefined {
    this.#cursor = this.#entries.length - 1;
    return this.#entries[this.#cursor];
  }

  /** Steps to the next older entry, wrapping around (what alt+y inserts). */
  pop(): string | undefined {
    if (this.#entries.length === 0) return undefined;
    this.#cursor = (this.#cursor - 1 + this.#entries.length) % this.#entries.length;
    return this.#entries[this.#cursor];
  }
}
