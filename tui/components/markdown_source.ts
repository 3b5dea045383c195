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
  /** Offsets of the last two newlines (the earlier first), -1 where there are fewer. */
  #newlines: [number, number] = [-1, -1];

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
    this.#tail = "";
    this.#newlines = [-1, -1];
    this.append(text);
  }

  /** Appends `text`. */
  append(text: string): void {
    const base = this.length;
    this.#tail += text;
    const last = text.lastIndexOf("\n");
    if (last === -1) return;
    const before = last === 0 ? -1 : text.lastIndexOf("\n", last - 1);
    this.#newlines = [before === -1 ? this.#newlines[1] : base + before, base + last];
  }

  /** Replaces the text from `offset` on with `text`. */
  replaceFrom(offset: number, text: string): void {
    const headLength = this.#head.length;
    if (offset < headLength) {
      this.set(this.toString().slice(0, offset) + text);
      return;
    }
    this.#tail = this.#tail.slice(0, offset - headLength);
    if (this.#newlines[1] >= offset) this.#findNewlines();
    this.append(text);
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

  /** The text from `start` to `end` (cheap when both lie in the head or both in the tail). */
  slice(start: number, end: number): string {
    const headLength = this.#head.length;
    if (start >= headLength) return this.#tail.slice(start - headLength, end - headLength);
    if (end <= headLength) return this.#head.slice(start, end);
    return this.#head.slice(start) + this.#tail.slice(0, end - headLength);
  }

  /** Where the last two lines start (0 when the text has fewer than two newlines). */
  get lastTwoLinesStart(): number {
    return this.#newlines[0] + 1;
  }

  /** Declares that nothing before `offset` will be sliced while streaming. */
  settle(offset: number): void {
    const moved = offset - this.#head.length;
    if (moved <= 0) return;
    this.#head += this.#tail.slice(0, moved);
    this.#tail = this.#tail.slice(moved);
  }

  /** Finds the last two newlines again after the text was cut. */
  #findNewlines(): void {
    const text = this.toString();
    const last = text.lastIndexOf("\n");
    this.#newlines = [last <= 0 ? -1 : text.lastIndexOf("\n", last - 1), last];
  }
}
