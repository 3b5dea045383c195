/**
 * Image rows among the drawn lines, recognised and parsed once: they are
 * long, and every frame asks about the lines on screen.
 *
 * @module
 */
import { type ImageRow, parseImageRow } from "./terminal_image.ts";
import { visibleWidth } from "./text_width.ts";

/** How many image rows are remembered parsed (a few screens' worth of images). */
const IMAGE_ROW_CACHE = 64;

/**
 * Recognises image rows (see {@linkcode parseImageRow}), remembering the
 * last ones parsed.
 *
 * @example
 * ```ts ignore
 * const images = new ImageRowCache();
 * images.parse("plain text"); // null
 * images.width("plain text"); // 10
 * ```
 */
export class ImageRowCache {
  readonly #rows = new Map<string, ImageRow>();

  /** The image row `text` is, or null. */
  parse(text: string): ImageRow | null {
    // Every image row ends by restoring the cursor: other lines are told apart at once.
    if (!text.endsWith("\x1b8")) return null;
    const known = this.#rows.get(text);
    if (known !== undefined) return known;
    const row = parseImageRow(text);
    if (row === null) return null;
    if (this.#rows.size >= IMAGE_ROW_CACHE) this.#rows.delete(this.#rows.keys().next().value!);
    this.#rows.set(text, row);
    return row;
  }

  /** The columns a line on screen takes (an image row takes none). */
  width(text: string): number {
    return this.parse(text) === null ? visibleWidth(text) : 0;
  }
}

/**
 * Whether all the rows of the image whose image row is content line `line`
 * are on screen when the first line shown is `top`: an image row drawn
 * otherwise would move up into history and draw over other rows.
 *
 * @example
 * ```ts ignore
 * rowsShown(10, image, 8); // true when the image is at most 3 rows tall
 * ```
 */
export function rowsShown(line: number, image: ImageRow, top: number): boolean {
  return line - image.above >= top;
}
