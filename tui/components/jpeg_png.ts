/**
 * A JPEG turned into a PNG, for Kitty's graphics protocol, which takes only
 * PNG (or raw pixels). Loaded on demand by {@linkcode Image}: most sessions
 * never need the decoders.
 *
 * @module
 */
import jpeg from "jpeg-js";
import { PNG } from "pngjs";

/** The largest JPEG converted (pixels); a larger one stays a placeholder. */
export const MAX_CONVERTED_PIXELS = 4_000_000;

interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array;
}

// pngjs ships no types; this is the part of its API used here.
interface PngSync {
  write(
    image: RgbaImage,
    options: { colorType: 2; inputColorType: 6; inputHasAlpha: true },
  ): Uint8Array;
}

/**
 * The PNG of a JPEG, base64-encoded, or null when the JPEG cannot be decoded
 * or has more than {@linkcode MAX_CONVERTED_PIXELS} pixels.
 *
 * @example
 * ```ts
 * import { jpegAsPng } from "./jpeg_png.ts";
 * console.assert(jpegAsPng(new Uint8Array([1, 2, 3])) === null);
 * ```
 *
 * @param bytes The JPEG file.
 * @returns The PNG file, base64, or null.
 */
export function jpegAsPng(bytes: Uint8Array): string | null {
  try {
    const decoded: RgbaImage = jpeg.decode(bytes, {
      useTArray: true,
      formatAsRGBA: true,
      maxResolutionInMP: MAX_CONVERTED_PIXELS / 1e6,
    });
    const png = (PNG.sync as PngSync).write(decoded, {
      colorType: 2,
      inputColorType: 6,
      inputHasAlpha: true,
    });
    return new Uint8Array(png).toBase64();
  } catch {
    return null;
  }
}
