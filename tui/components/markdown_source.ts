/**
 * The markdown source as two strings: a settled head and a short tail that
 * streaming appends to. Slicing the tail never copies the head, so a delta
 * costs the same however long the text already is (a single string grown
 * by `+=` would be flattened, i.e. copied whole, by the next slice).
 *
 * @module
 */

/** Source text with cheap appends and cheap slices near its end. */
export class SourceText {
  #head = "";
  #tail = "";

  /** Total length. */
  get length(): number {
    return this.#head.length + this.#tail.length;
  }

  /** The whole text. */
  toString(): string {
    return this.#head + this.#tail;
  }

  /** Replaces the whole text. */
  set(text: string): void {
    this.#head = "";
    this.#tail = text;
  }

  /** Appends `text`. */
  append(text: string): void {
    this.#tail += text;
  }

  /** Replaces the text from `offset` on with `text`. */
  replaceFrom(offset: number, text: string): void {
    const headLength = this.#head.length;
    if (offset >= headLength) {
      this.#tail = this.#tail.slice(0, offset - headLength) + text;
    } else {
      this.set(this.toString().slice(0, offset) + text);
    }
  }

  /** The text from `offset` to the end. */
  from(offset: number): string {
    const headLength = this.#head.length;
    if (offset >= headLength) return this.#tail.slice(offset - headLength);
    const all = this.#head + this.#tail;
    const rest = all.slice(offset);
    this.#head = all.slice(0, headLength);
    return rest;
  }

  /** Declares that nothing before `offset` will be sliced while streaming. */
  settle(offset: number): void {
    const moved = offset - this.#head.length;
    if (moved <= 0) return;
    this.#head += this.#tail.slice(0, moved);
    this.#tail = this.#tail.slice(moved);
  }
}
