/**
 * An image drawn inline (Kitty graphics or iTerm2 inline images), or a
 * one-line placeholder where the terminal draws neither.
 *
 * @module
 */
import { imageSize } from "image-size";
import { CachedComponent } from "./cached_component.ts";
import { type CellSize, type ImageSupport, NO_IMAGES } from "../image_support.ts";
import { type ImageBox, imageBox, placeholderText } from "./image_layout.ts";
import { encodeIterm2Image, encodeKittyImage, imageRow, wrapForTmux } from "../terminal_image.ts";
import { truncateToWidth } from "../text_width.ts";
import { defaultTheme, type Theme } from "../theme.ts";

/** An image file, base64-encoded. */
export interface ImageSource {
  /** Base64 of the file's bytes. */
  data: string;
  /** Its media type (`image/png`…), shown when the bytes are not a known format. */
  mediaType: string;
}

/** Options for {@linkcode Image}. */
export interface ImageOptions {
  /** What the terminal draws (read at each render; default: nothing, placeholders). */
  support?: () => ImageSupport;
  /** A name for the placeholder and iTerm2 (e.g. the file name). */
  name?: string;
  /** Widest the image is drawn, in columns (default 60; never wider than the width less `indent`). */
  maxColumns?: number;
  /** Tallest the image is drawn, in rows (default 16). Keep it below the screen's height. */
  maxRows?: number;
  /** Spaces before the image or placeholder (default 0). */
  indent?: number;
  /** Colours of the placeholder (`muted`). */
  theme?: Theme;
  /**
   * Called when the image changed by itself: a JPEG for Kitty (which takes
   * only PNG) is converted in the background, showing its placeholder
   * meanwhile. Request a render here.
   */
  onChange?: () => void;
}

/** What the bytes are, measured once. */
interface Measured {
  width: number;
  height: number;
  /** image-size's type name: `png`, `jpg`, `gif`, `webp`… */
  type: string;
}

/** Cell size assumed when the terminal did not tell (a common 2:1 cell). */
const DEFAULT_CELL: CellSize = { width: 8, height: 16 };

/**
 * An image in the transcript. Where the terminal draws images it occupies
 * a fixed number of rows, computed from the image's size and the cell
 * size (never wider than `maxColumns`, never taller than `maxRows`, never
 * enlarged): blank rows, then an image row (see {@linkcode imageRow}) that
 * the engine writes once when the rows are placed. Elsewhere it is one line:
 * `[image: screenshot.png 1280x720 PNG]`. Kitty only takes PNG: a JPEG is
 * converted (once, in the background: its placeholder shows meanwhile, then
 * `onChange` is called); GIF and WebP show the placeholder there.
 *
 * @example
 * ```ts
 * import { createTheme, Image } from "@panto/tui";
 * // A 1×1 PNG.
 * const data = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
 * const image = new Image({ data, mediaType: "image/png" }, {
 *   name: "dot.png",
 *   theme: createTheme({ noColor: true }),
 * });
 * console.assert(image.render(80)[0] === "[image: dot.png 1x1 PNG]");
 * const drawn = new Image({ data, mediaType: "image/png" }, {
 *   support: () => ({ protocol: "kitty", cellSize: { width: 10, height: 20 }, tmux: false }),
 * });
 * console.assert(drawn.render(80)[0]!.startsWith("\x1b7\x1b_Ga=T,f=100"));
 * ```
 */
export class Image extends CachedComponent {
  readonly #source: ImageSource;
  readonly #support: () => ImageSupport;
  readonly #options: ImageOptions;
  readonly #theme: Theme;
  /** The Kitty id of this image: a later placement of it replaces the earlier. */
  readonly #kittyId = crypto.getRandomValues(new Uint32Array(1))[0]! % 0x7fffffff + 1;
  #measured: Measured | null | undefined;
  /** For Kitty: the image as a PNG (base64), null when it cannot be, undefined until known. */
  #png: string | null | undefined;
  #converting = false;

  /** Creates the image component. */
  constructor(source: ImageSource, options: ImageOptions = {}) {
    super();
    this.#source = source;
    this.#support = options.support ?? (() => NO_IMAGES);
    this.#options = options;
    this.#theme = options.theme ?? defaultTheme();
  }

  /** Builds the lines for `width` (see {@linkcode CachedComponent}). */
  protected build(width: number): string[] {
    const support = this.#support();
    const box = this.#box(width, support);
    const indent = Math.min(this.#options.indent ?? 0, Math.max(0, width - 1));
    if (box === null || support.protocol === null) {
      const text = placeholderText(this.#measure(), this.#source.mediaType, this.#options.name);
      const line = " ".repeat(indent) + this.#theme.fg("muted", text);
      return [truncateToWidth(line, width)];
    }
    const name = this.#options.name;
    const encoded = support.protocol === "kitty"
      ? encodeKittyImage(this.#png!, { id: this.#kittyId, ...box })
      : encodeIterm2Image(this.#source.data, { ...box, ...(name === undefined ? {} : { name }) });
    const sequences = support.tmux ? wrapForTmux(encoded) : encoded;
    const row = imageRow(sequences, { rows: box.rows, indent });
    return [...Array<string>(box.rows - 1).fill(""), row];
  }

  /** The box the image is drawn in, or null when it shows as a placeholder. */
  #box(width: number, support: ImageSupport): ImageBox | null {
    const measured = this.#measure();
    if (support.protocol === null || measured === null) return null;
    if (support.protocol === "kitty" && this.#pngFor(measured) === null) return null;
    const columns = Math.min(this.#options.maxColumns ?? 60, width - (this.#options.indent ?? 0));
    if (columns < 1) return null;
    return imageBox(measured, support.cellSize ?? DEFAULT_CELL, {
      columns,
      rows: Math.max(1, this.#options.maxRows ?? 16),
    });
  }

  /** The PNG Kitty is sent, or null while there is none (converting, or not convertible). */
  #pngFor(measured: Measured): string | null {
    if (measured.type === "png") this.#png = this.#source.data;
    else if (measured.type === "jpg" && this.#png === undefined) void this.#convert();
    return this.#png ?? null;
  }

  async #convert(): Promise<void> {
    if (this.#converting) return;
    this.#converting = true;
    try {
      const { jpegAsPng } = await import("./jpeg_png.ts");
      this.#png = jpegAsPng(Uint8Array.fromBase64(this.#source.data));
    } catch {
      this.#png = null;
    }
    this.changed();
    this.#options.onChange?.();
  }

  #measure(): Measured | null {
    if (this.#measured !== undefined) return this.#measured;
    try {
      const bytes = Uint8Array.fromBase64(this.#source.data);
      const { width, height, type } = imageSize(bytes);
      this.#measured = width > 0 && height > 0 && type !== undefined
        ? { width, height, type }
        : null;
    } catch {
      this.#measured = null;
    }
    return this.#measured;
  }
}
