/**
 * How big an image is drawn, in cells, and how it reads when it is not drawn.
 *
 * @module
 */
import type { CellSize } from "../image_support.ts";

/** A box of cells. */
export interface ImageBox {
  /** Width in columns. */
  columns: number;
  /** Height in rows. */
  rows: number;
}

/** An image's size in pixels. */
export interface PixelSize {
  /** Width in pixels. */
  width: number;
  /** Height in pixels. */
  height: number;
}

/**
 * The cells an image of `pixels` covers: its own size in cells (never
 * enlarged), shrunk to fit `limit` keeping its aspect ratio; at least 1×1.
 *
 * @example
 * ```ts
 * import { imageBox } from "./image_layout.ts";
 * const cell = { width: 10, height: 20 };
 * // 1280×720 at 10×20 px cells: 128×36 cells, shrunk to 60 columns → 17 rows.
 * const box = imageBox({ width: 1280, height: 720 }, cell, { columns: 60, rows: 24 });
 * console.assert(box.columns === 60 && box.rows === 17);
 * ```
 *
 * @param pixels The image's size.
 * @param cell The terminal's cell size.
 * @param limit The largest box.
 * @returns The box.
 */
export function imageBox(pixels: PixelSize, cell: CellSize, limit: ImageBox): ImageBox {
  let columns = Math.max(1, Math.min(limit.columns, Math.ceil(pixels.width / cell.width)));
  let rows = Math.ceil(pixels.height * (columns * cell.width / pixels.width) / cell.height);
  if (rows > limit.rows) {
    rows = limit.rows;
    const fitting = Math.round(rows * cell.height * pixels.width / pixels.height / cell.width);
    columns = Math.min(columns, fitting);
  }
  return { columns: Math.max(1, columns), rows: Math.max(1, rows) };
}

/**
 * The one line an image reads as where it is not drawn:
 * `[image: screenshot.png 1280x720 PNG]`, or with the media type when the
 * bytes are not an image format we know.
 *
 * @example
 * ```ts
 * import { placeholderText } from "./image_layout.ts";
 * const size = { width: 1280, height: 720, type: "png" };
 * console.assert(placeholderText(size, "image/png", "shot.png") === "[image: shot.png 1280x720 PNG]");
 * console.assert(placeholderText(null, "image/heic") === "[image: image/heic]");
 * ```
 *
 * @param measured The image's size and format, or null when unknown.
 * @param mediaType The declared media type.
 * @param name A file name.
 * @returns The placeholder.
 */
export function placeholderText(
  measured: (PixelSize & { type: string }) | null,
  mediaType: string,
  name?: string,
): string {
  const parts = name === undefined ? [] : [name];
  if (measured === null) parts.push(mediaType);
  else parts.push(`${measured.width}x${measured.height}`, measured.type.toUpperCase());
  return `[image: ${parts.join(" ")}]`;
}
