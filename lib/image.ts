import type { Buffer } from "node:buffer";
import type { imageSize } from "image-size";

/** The longest side, in pixels, {@linkcode downsizeImage} keeps by default. */
export const DEFAULT_IMAGE_MAX_SIDE = 2000;

const DEFAULT_JPEG_QUALITY = 85;

/** Options for {@linkcode downsizeImage}. */
export interface DownsizeOptions {
  /** Longest side allowed, in pixels (an integer ≥ 1). Default {@linkcode DEFAULT_IMAGE_MAX_SIDE}. */
  maxSide?: number;
  /** Quality of a re-encoded JPEG, 1–100. Default 85. */
  jpegQuality?: number;
}

/** An image after {@linkcode downsizeImage}, ready for an image part or block. */
export interface DownsizedImage {
  /** The media type detected from the bytes (which may differ from the one declared). */
  mediaType: string;
  /** Base64 of the encoded image: the input unchanged unless `resized`. */
  data: string;
  /** Width in pixels, as displayed (JPEG EXIF orientation applied). */
  width: number;
  /** Height in pixels, as displayed (JPEG EXIF orientation applied). */
  height: number;
  /** True when the image was scaled down and re-encoded. */
  resized: boolean;
}

/**
 * An image could not be read, or is too large and cannot be resized. The
 * message names the media type and what was found.
 *
 * @example Tell image failures apart
 * ```ts
 * import { downsizeImage, ImageError } from "@panto/lib";
 * const failure = await downsizeImage({ mediaType: "image/png", data: btoa("<html>") })
 *   .catch((error: unknown) => error);
 * console.assert(failure instanceof ImageError);
 * ```
 */
export class ImageError extends Error {
  /** The media type detected from the bytes, or the declared one when none was detected. */
  readonly mediaType: string;

  /**
   * Creates an image error.
   *
   * @param mediaType The detected (or declared) media type.
   * @param message What failed and how to fix it.
   * @param options The underlying error, if any.
   */
  constructor(mediaType: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ImageError";
    this.mediaType = mediaType;
  }
}

/**
 * Scales an image down so its longer side is at most `maxSide` pixels,
 * keeping its aspect ratio, so that screenshots and photos fit what models
 * accept and cost fewer tokens.
 *
 * The media type is taken from the bytes, not from `part.mediaType`. An image
 * already small enough is returned as is (same base64, no re-encoding). A
 * larger PNG is re-encoded as PNG and a larger JPEG as JPEG (upright: its
 * EXIF orientation is applied, since the new file carries no EXIF). GIF and
 * WebP cannot be decoded here, so a large one is an error.
 *
 * @param part The image: its declared media type and base64 data.
 * @param options The size limit and JPEG quality.
 * @returns The image to send, its media type, size, and whether it changed.
 * @throws {ImageError} (as a rejection) When the data is not valid base64,
 * not a PNG, JPEG, GIF or WebP image, corrupt, or too large and not PNG or JPEG.
 * @throws {RangeError} (as a rejection) When an option is out of range.
 *
 * @example Downsize a tool's screenshot
 * ```ts
 * import { downsizeImage } from "@panto/lib";
 * // A 1×1 PNG is already small enough, so it comes back unchanged.
 * const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
 * const image = await downsizeImage({ mediaType: "image/png", data: pixel });
 * console.assert(!image.resized && image.data === pixel && image.width === 1);
 * ```
 */
export function downsizeImage(
  part: { mediaType: string; data: string },
  options: DownsizeOptions = {},
): Promise<DownsizedImage> {
  return downsize(part, options);
}

/** Decoded pixels, 8-bit RGBA, row by row. */
interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array;
}

// pngjs ships no types; this is the part of its API we use.
interface PngSync {
  read(bytes: Uint8Array): RgbaImage;
  write(
    image: RgbaImage,
    options: { colorType: 2 | 6; inputColorType: 6; inputHasAlpha: true },
  ): Uint8Array;
}

// The codecs load on first use: most runs never resize an image, and they
// cost tens of milliseconds of start-up. So do image-size and node:buffer
// (Node's compatibility layer costs a start about 4 MiB).
interface Codecs {
  png: PngSync;
  jpeg: typeof import("jpeg-js");
  Buffer: typeof Buffer;
}
let codecs: Promise<Codecs> | undefined;
function loadCodecs(): Promise<Codecs> {
  codecs ??= Promise.all([import("pngjs"), import("jpeg-js"), import("node:buffer")]).then((
    [png, jpeg, buffer],
  ) => ({ png: png.PNG.sync as PngSync, jpeg: jpeg.default, Buffer: buffer.Buffer }));
  return codecs;
}

const PNG_TYPE = "image/png";
const JPEG_TYPE = "image/jpeg";

// The formats models accept, from image-size's type name to the media type.
const MODEL_MEDIA_TYPES: Readonly<Record<string, string>> = {
  png: PNG_TYPE,
  jpg: JPEG_TYPE,
  gif: "image/gif",
  webp: "image/webp",
};

const FORMAT_NAMES: Readonly<Record<string, string>> = {
  [PNG_TYPE]: "PNG",
  [JPEG_TYPE]: "JPEG",
  "image/jpg": "JPEG",
  "image/gif": "GIF",
  "image/webp": "WebP",
};

interface Header {
  mediaType: string;
  /** Stored width and height (before EXIF orientation). */
  width: number;
  height: number;
  /** EXIF orientation, 1–8 (JPEG only); 1 is upright. */
  orientation: number;
}

async function downsize(
  part: { mediaType: string; data: string },
  options: DownsizeOptions,
): Promise<DownsizedImage> {
  const maxSide = checkedInteger("maxSide", options.maxSide ?? DEFAULT_IMAGE_MAX_SIDE, 1, 2 ** 16);
  const quality = checkedInteger(
    "jpegQuality",
    options.jpegQuality ?? DEFAULT_JPEG_QUALITY,
    1,
    100,
  );
  const bytes = decodeBase64(part);
  const header = await readHeader(bytes, part.mediaType);
  const displayed = header.orientation >= 5
    ? { width: header.height, height: header.width }
    : { width: header.width, height: header.height };
  if (Math.max(header.width, header.height) <= maxSide) {
    return { mediaType: header.mediaType, data: part.data, ...displayed, resized: false };
  }
  const size = `${displayed.width}×${displayed.height}`;
  if (header.mediaType !== PNG_TYPE && header.mediaType !== JPEG_TYPE) {
    throw new ImageError(
      header.mediaType,
      `Cannot resize ${header.mediaType} (${size}): only PNG and JPEG can be resized; ` +
        `convert it or lower its size below ${maxSide} px`,
    );
  }
  const scale = maxSide / Math.max(header.width, header.height);
  const targetWidth = Math.max(1, Math.round(header.width * scale));
  const targetHeight = Math.max(1, Math.round(header.height * scale));
  const encoded = header.mediaType === PNG_TYPE
    ? resizePng(await loadCodecs(), bytes, size, targetWidth, targetHeight)
    : resizeJpeg(
      await loadCodecs(),
      bytes,
      size,
      header.orientation,
      targetWidth,
      targetHeight,
      quality,
    );
  return {
    mediaType: header.mediaType,
    data: encoded.bytes.toBase64(),
    width: encoded.width,
    height: encoded.height,
    resized: true,
  };
}

function checkedInteger(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer from ${min} to ${max}; got ${String(value)}`);
  }
  return value;
}

function decodeBase64(part: { mediaType: string; data: string }): Uint8Array {
  try {
    return Uint8Array.fromBase64(part.data);
  } catch (error) {
    throw new ImageError(
      part.mediaType,
      `Image data declared as ${part.mediaType} is not valid base64: ${errorText(error)}`,
      { cause: error },
    );
  }
}

async function readHeader(bytes: Uint8Array, declared: string): Promise<Header> {
  const size = await measure(bytes, declared);
  const { width, height, type = "" } = size;
  const mediaType = MODEL_MEDIA_TYPES[type];
  if (mediaType === undefined) {
    const found = type === "svg" ? "image/svg+xml" : `image/${type}`;
    throw new ImageError(
      found,
      `Unsupported image type ${found} (declared ${declared}): models accept PNG, JPEG, ` +
        `GIF and WebP; convert it to one of those`,
    );
  }
  if (!(width > 0 && height > 0)) {
    throw new ImageError(
      mediaType,
      `Cannot read ${mediaType} (declared ${declared}): its header gives no size ` +
        `(${String(width)}×${String(height)}), so the data is probably corrupt`,
    );
  }
  return { mediaType, width, height, orientation: size.orientation ?? 1 };
}

async function measure(bytes: Uint8Array, declared: string): Promise<ReturnType<typeof imageSize>> {
  const { imageSize } = await import("image-size");
  try {
    return imageSize(bytes);
  } catch (error) {
    throw new ImageError(declared, unreadableMessage(bytes, declared), { cause: error });
  }
}

function unreadableMessage(bytes: Uint8Array, declared: string): string {
  const format = FORMAT_NAMES[declared.toLowerCase()];
  const expected = format === undefined
    ? "an image in a known format"
    : `a ${format} image or any other known format`;
  return `Image data declared as ${declared} is not ${expected} (${describeStart(bytes)})`;
}

/** The first bytes in hex and as text, to tell e.g. HTML or JSON from a truncated image. */
function describeStart(bytes: Uint8Array): string {
  if (bytes.length === 0) return "it is empty";
  const head = bytes.subarray(0, 8);
  const hex = Array.from(head, (byte) => byte.toString(16).padStart(2, "0")).join(" ");
  const text = Array.from(
    head,
    (byte) => (byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : "."),
  )
    .join("");
  return `${bytes.length} bytes starting with ${hex} "${text}"`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

interface Encoded {
  bytes: Uint8Array;
  width: number;
  height: number;
}

function resizePng(
  { png, Buffer }: Codecs,
  bytes: Uint8Array,
  size: string,
  width: number,
  height: number,
): Encoded {
  // pngjs reads with Buffer methods, so it needs a Buffer view of the bytes.
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoded = decodeWith(PNG_TYPE, size, () => png.read(buffer));
  const resized = resizeArea(decoded, width, height);
  // Opaque images are written as RGB: a quarter fewer bytes before compression.
  const colorType = isOpaque(resized) ? 2 : 6;
  const encoded = png.write(resized, { colorType, inputColorType: 6, inputHasAlpha: true });
  return { bytes: encoded, width, height };
}

function isOpaque(image: RgbaImage): boolean {
  for (let i = 3; i < image.data.length; i += 4) if (image.data[i] !== 255) return false;
  return true;
}

function resizeJpeg(
  { jpeg }: Codecs,
  bytes: Uint8Array,
  size: string,
  orientation: number,
  width: number,
  height: number,
  quality: number,
): Encoded {
  const decoded = decodeWith(
    JPEG_TYPE,
    size,
    () => jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true }),
  );
  const upright = applyOrientation(resizeArea(decoded, width, height), orientation);
  const encoded = jpeg.encode(upright, quality).data;
  return { bytes: encoded, width: upright.width, height: upright.height };
}

function decodeWith<T extends RgbaImage>(mediaType: string, size: string, decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    throw new ImageError(
      mediaType,
      `Cannot decode ${mediaType} (${size}): ${errorText(error)}; the data is corrupt, ` +
        `truncated or uses a variant this decoder does not support`,
      { cause: error },
    );
  }
}

/**
 * For one axis, which source pixels cover each target pixel and by how much.
 * Target pixel `i` covers source interval `[i·scale, (i+1)·scale)`; each
 * source pixel weighs its overlap with that interval, divided by `scale`.
 */
interface AxisWeights {
  /** `start[i]` to `start[i + 1]` index `source` and `weight` for target pixel `i`. */
  start: Int32Array;
  source: Int32Array;
  weight: Float32Array;
}

function axisWeights(sourceLength: number, targetLength: number): AxisWeights {
  const scale = sourceLength / targetLength;
  const start = new Int32Array(targetLength + 1);
  const source: number[] = [];
  const weight: number[] = [];
  for (let i = 0; i < targetLength; i++) {
    start[i] = source.length;
    const from = i * scale;
    const to = Math.min(sourceLength, (i + 1) * scale);
    for (let j = Math.floor(from); j < to; j++) {
      const overlap = Math.min(to, j + 1) - Math.max(from, j);
      if (overlap > 1e-9) {
        source.push(j);
        weight.push(overlap / scale);
      }
    }
  }
  start[targetLength] = source.length;
  return { start, source: Int32Array.from(source), weight: Float32Array.from(weight) };
}

/**
 * Area-averaging (box filter) downscale. Written by hand because no pure-JS
 * resize library is pinned; for shrinking, averaging every covered source
 * pixel by its overlap is what good resizers do and keeps thin lines and
 * text legible where nearest-neighbour sampling would drop them. Colours
 * are weighted by alpha so transparent pixels do not bleed their hidden
 * colour into visible ones. Averaging happens in sRGB, not linear light,
 * like most quick resizers: fine detail comes out slightly darker, which
 * does not matter for a model reading a screenshot.
 *
 * Rows are processed one at a time, so memory beyond the two images is one
 * row per image.
 */
function resizeArea(image: RgbaImage, width: number, height: number): RgbaImage {
  const columns = axisWeights(image.width, width);
  const rows = axisWeights(image.height, height);
  const output = new Uint8Array(width * height * 4);
  const accumulated = new Float32Array(width * 4);
  const sourceRow = new Float32Array(width * 4);
  let sourceRowIndex = -1;
  for (let y = 0; y < height; y++) {
    accumulated.fill(0);
    for (let k = rows.start[y]!; k < rows.start[y + 1]!; k++) {
      const row = rows.source[k]!;
      if (row !== sourceRowIndex) {
        shrinkRow(image, row, columns, sourceRow);
        sourceRowIndex = row;
      }
      const rowWeight = rows.weight[k]!;
      for (let i = 0; i < accumulated.length; i++) accumulated[i]! += sourceRow[i]! * rowWeight;
    }
    unpremultiply(accumulated, output, y * width * 4);
  }
  return { width, height, data: output };
}

/** Shrinks one source row horizontally into `target`, as alpha-weighted RGBA. */
function shrinkRow(image: RgbaImage, row: number, columns: AxisWeights, target: Float32Array) {
  const pixels = image.data;
  const rowOffset = row * image.width * 4;
  for (let x = 0, out = 0; out < target.length; x++, out += 4) {
    let red = 0, green = 0, blue = 0, alpha = 0;
    for (let k = columns.start[x]!; k < columns.start[x + 1]!; k++) {
      const at = rowOffset + columns.source[k]! * 4;
      const weightedAlpha = pixels[at + 3]! * columns.weight[k]!;
      red += pixels[at]! * weightedAlpha;
      green += pixels[at + 1]! * weightedAlpha;
      blue += pixels[at + 2]! * weightedAlpha;
      alpha += weightedAlpha;
    }
    target[out] = red;
    target[out + 1] = green;
    target[out + 2] = blue;
    target[out + 3] = alpha;
  }
}

function unpremultiply(accumulated: Float32Array, output: Uint8Array, offset: number): void {
  for (let i = 0; i < accumulated.length; i += 4) {
    const alpha = accumulated[i + 3]!;
    // Weights sum to 1, so every value is within 0–255 up to float rounding.
    const scale = alpha > 0 ? 1 / alpha : 0;
    output[offset + i] = Math.round(accumulated[i]! * scale);
    output[offset + i + 1] = Math.round(accumulated[i + 1]! * scale);
    output[offset + i + 2] = Math.round(accumulated[i + 2]! * scale);
    output[offset + i + 3] = Math.round(alpha);
  }
}

/**
 * Turns a stored JPEG upright according to its EXIF orientation (1–8): for
 * each displayed pixel, the index of the stored pixel it comes from.
 */
function applyOrientation(image: RgbaImage, orientation: number): RgbaImage {
  if (orientation <= 1 || orientation > 8) return image;
  const { width: w, height: h } = image;
  const swapped = orientation >= 5;
  const width = swapped ? h : w;
  const height = swapped ? w : h;
  const sourceIndex: (x: number, y: number) => number = [
    (x: number, y: number) => y * w + (w - 1 - x), // 2: mirrored
    (x: number, y: number) => (h - 1 - y) * w + (w - 1 - x), // 3: rotated 180°
    (x: number, y: number) => (h - 1 - y) * w + x, // 4: flipped
    (x: number, y: number) => x * w + y, // 5: transposed
    (x: number, y: number) => (h - 1 - x) * w + y, // 6: needs 90° clockwise
    (x: number, y: number) => (h - 1 - x) * w + (w - 1 - y), // 7: transversed
    (x: number, y: number) => x * w + (w - 1 - y), // 8: needs 90° counter-clockwise
  ][orientation - 2]!;
  // One 32-bit word per RGBA pixel; our own pixel buffers start at offset 0.
  const stored = new Uint32Array(image.data.buffer, image.data.byteOffset, w * h);
  const upright = new Uint32Array(w * h);
  for (let y = 0, out = 0; y < height; y++) {
    for (let x = 0; x < width; x++, out++) upright[out] = stored[sourceIndex(x, y)]!;
  }
  return { width, height, data: new Uint8Array(upright.buffer) };
}
