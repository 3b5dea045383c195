/**
 * The content's lines as drawn: each component line sanitized for the
 * terminal's width once, when it changes, and the cursor marker's column
 * remembered per line.
 *
 * @module
 */
import type { ImageRowCache } from "./image_row_cache.ts";
import { PLAIN_ASCII, type SanitizedLine, sanitizeStyled, trimSpaces } from "./line_sanitize.ts";

/** How many sanitized styled lines are remembered (a few screens' worth). */
const SANITIZED_CACHE_LINES = 512;

/**
 * The drawn form of the content's lines, updated from each frame's render.
 *
 * @example
 * ```ts ignore
 * const stats = { truncatedLines: 0 };
 * const lines = new ContentLines(new ImageRowCache(), stats);
 * lines.setWidth(5);
 * lines.update(["hello world"], 0); // 0: the first line changed
 * lines.drawn[0]; // "hello"
 * stats.truncatedLines; // 1
 * ```
 */
export class ContentLines {
  /** The lines as drawn (sanitized, cut to the width), by content line. */
  readonly drawn: string[] = [];
  /** The cursor marker's column, by content line. */
  readonly markers = new Map<number, number>();
  readonly #images: ImageRowCache;
  readonly #stats: { truncatedLines: number };
  /** The component lines `drawn` was made from. */
  readonly #raw: string[] = [];
  /** Recent styled lines, sanitized for the current width: a line that only moved is not measured again. */
  readonly #sanitized = new Map<string, SanitizedLine>();
  #width = 0;

  /**
   * @param images Recognises image rows, drawn as they are.
   * @param stats Counts the lines cut to fit (a component bug, not a crash).
   */
  constructor(images: ImageRowCache, stats: { truncatedLines: number }) {
    this.#images = images;
    this.#stats = stats;
  }

  /** Sets the width lines are cut to: on a change every line is sanitized again. */
  setWidth(width: number): void {
    if (width === this.#width) return;
    // Truncation depends on the width.
    this.#raw.length = 0;
    this.#sanitized.clear();
    this.#width = width;
  }

  /**
   * Takes the new component lines from `cut` (the first line the
   * container says may have changed) and returns the first line that did.
   */
  update(lines: readonly string[], cut: number): number {
    let firstChange = lines.length < this.#raw.length ? lines.length : Infinity;
    for (let i = Math.min(cut, this.#raw.length); i < lines.length; i++) {
      const line = lines[i]!;
      if (line === this.#raw[i] && i < this.#raw.length) continue;
      if (firstChange > i) firstChange = i;
      this.#raw[i] = line;
      this.drawn[i] = this.#sanitize(i, line);
    }
    this.#raw.length = lines.length;
    this.drawn.length = lines.length;
    for (const line of this.markers.keys()) {
      if (line >= lines.length) this.markers.delete(line);
    }
    return firstChange;
  }

  /** Strips the cursor marker (remembering its column), control characters and excess width. */
  #sanitize(index: number, line: string): string {
    if (PLAIN_ASCII.test(line)) {
      this.markers.delete(index);
      if (line.length <= this.#width) return trimSpaces(line);
      this.#stats.truncatedLines++;
      return trimSpaces(line.slice(0, this.#width));
    }
    if (this.#images.parse(line) !== null) {
      // Drawn as is: its sequences are checked, and it takes no columns.
      this.markers.delete(index);
      return line;
    }
    // Lines below a growing block move down a row at a time: each would be measured again.
    let sanitized = this.#sanitized.get(line);
    if (sanitized === undefined) {
      sanitized = sanitizeStyled(line, this.#width);
      if (this.#sanitized.size >= SANITIZED_CACHE_LINES) {
        this.#sanitized.delete(this.#sanitized.keys().next().value!);
      }
      this.#sanitized.set(line, sanitized);
    }
    if (sanitized.truncated) this.#stats.truncatedLines++;
    if (sanitized.marker === null) this.markers.delete(index);
    else this.markers.set(index, sanitized.marker);
    return sanitized.text;
  }
}
