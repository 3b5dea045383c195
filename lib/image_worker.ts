/**
 * The image worker: decodes a PNG or JPEG, scales it down and encodes it
 * again, so that a slow or large image keeps no one waiting on the main
 * thread (signals, esc, rendering) and an abort can terminate it at once.
 *
 * Nothing imports this module at run time: `tests/support/image_worker_build.ts`
 * bundles it with its codecs into `image_worker_source.ts`, which
 * `image.ts` starts from a blob: a worker's file URL would not survive
 * `deno bundle` (nor an application bundling this library), a blob runs the
 * same from source, from a bundle and from JSR. After changing this file,
 * run `deno run -A tests/support/image_worker_build.ts`.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { inflateSync } from "node:zlib";
import jpeg from "jpeg-js";
import { PNG } from "pngjs";

/** What the worker is asked to do: one image, whose bytes are transferred. */
export interface ResizeRequest {
  /** `image/png` or `image/jpeg`, detected from the bytes. */
  mediaType: string;
  /** The encoded image. */
  bytes: Uint8Array<ArrayBuffer>;
  /** Stored width read from the header, which the decoder must find too. */
  storedWidth: number;
  /** Stored height read from the header, which the decoder must find too. */
  storedHeight: number;
  /** The size as displayed (`W×H`), for messages. */
  size: string;
  /** EXIF orientation, 1–8 (JPEG only). */
  orientation: number;
  /** Target width, before the orientation is applied. */
  width: number;
  /** Target height, before the orientation is applied. */
  height: number;
  /** JPEG quality, 1–100. */
  quality: number;
  /** The pixel bound the header was checked against, which the JPEG decoder enforces again. */
  maxPixels: number;
}

/** The worker's answer: the encoded image (transferred), or why it failed. */
export type ResizeReply =
  | { ok: true; bytes: Uint8Array<ArrayBuffer>; width: number; height: number }
  | { ok: false; message: string };

// The part of the worker global scope used here (this module is type-checked
// with the main thread's globals).
interface WorkerScope {
  onmessage: ((event: MessageEvent<ResizeRequest>) => void) | null;
  postMessage(message: ResizeReply, transfer: Transferable[]): void;
}

const scope = globalThis as unknown as WorkerScope;
scope.onmessage = ({ data }) => {
  let reply: ResizeReply;
  try {
    reply = { ok: true, ...resize(data) };
  } catch (error) {
    const message = error instanceof DecodeError
      ? error.message
      : `Cannot resize ${data.mediaType} (${data.size}): ${errorText(error)}`;
    reply = { ok: false, message };
  }
  scope.postMessage(reply, reply.ok ? [reply.bytes.buffer] : []);
};

/** A failure whose message is complete as it is. */
class DecodeError extends Error {}

/** Decoded pixels, 8-bit RGBA, row by row. */
interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array;
}

interface Encoded {
  bytes: Uint8Array<ArrayBuffer>;
  width: number;
  height: number;
}

// pngjs ships no types; this is the part of its API used here.
interface PngSync {
  read(bytes: Uint8Array): RgbaImage;
  write(
    image: RgbaImage,
    options: { colorType: 2 | 6; inputColorType: 6; inputHasAlpha: true },
  ): Uint8Array<ArrayBuffer>;
}
const png = PNG.sync as PngSync;

function resize(request: ResizeRequest): Encoded {
  return request.mediaType === "image/png" ? resizePng(request) : resizeJpeg(request);
}

function resizePng(request: ResizeRequest): Encoded {
  const { bytes, width, height } = request;
  checkPngLayout(request);
  // pngjs reads with Buffer methods, so it needs a Buffer view of the bytes.
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoded = decodeWith(request, () => png.read(buffer));
  const resized = resizeArea(decoded, width, height);
  // Opaque images are written as RGB: a quarter fewer bytes before compression.
  const colorType = isOpaque(resized) ? 2 : 6;
  const encoded = png.write(resized, { colorType, inputColorType: 6, inputHasAlpha: true });
  return { bytes: encoded, width, height };
}

const PNG_SIGNATURE_BYTES = 8;
/** Samples per pixel for each IHDR colour type: grey, RGB, palette, grey+alpha, RGBA. */
const PNG_CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/**
 * pngjs trusts the stream: a second IHDR changes the size it allocates, and
 * an interlaced image is inflated with no limit (a zlib bomb of a few MB
 * inflates to gigabytes). So there must be one IHDR, of the size that was
 * bounded, and the IDAT stream of an interlaced image must inflate to no
 * more than its pixels need (checked by inflating it once with that limit;
 * a non-interlaced one pngjs inflates with that limit itself).
 */
function checkPngLayout(request: ResizeRequest): void {
  const { bytes } = request;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const idat: Uint8Array[] = [];
  let header: { depth: number; colorType: number; interlaced: boolean } | undefined;
  for (let at = PNG_SIGNATURE_BYTES; at + 8 <= bytes.length;) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (type === "IHDR") {
      const width = data.length >= 13 ? view.getUint32(at + 8) : 0;
      const height = data.length >= 13 ? view.getUint32(at + 12) : 0;
      if (header || width !== request.storedWidth || height !== request.storedHeight) {
        throw corrupt(request, "it has more than one IHDR chunk or one of another size");
      }
      header = { depth: data[8]!, colorType: data[9]!, interlaced: data[12] === 1 };
    } else if (type === "IDAT") {
      idat.push(data);
    } else if (type === "IEND") {
      break;
    }
    at += 12 + length;
  }
  if (!header?.interlaced) return;
  const bitsPerPixel = (PNG_CHANNELS[header.colorType] ?? 4) * header.depth;
  const limit = interlacedSize(request.storedWidth, request.storedHeight, bitsPerPixel);
  try {
    inflateSync(Buffer.concat(idat), { maxOutputLength: limit });
  } catch (error) {
    throw corrupt(
      request,
      `its image data does not inflate to ${limit} bytes (${errorText(error)})`,
    );
  }
}

/** Adam7's seven passes: first column, column step, first row, row step. */
const ADAM7_PASSES = [
  [0, 8, 0, 8],
  [4, 8, 0, 8],
  [0, 4, 4, 8],
  [2, 4, 0, 4],
  [0, 2, 2, 4],
  [1, 2, 0, 2],
  [0, 1, 1, 2],
] as const;

/** The inflated size of an Adam7-interlaced image: each pass's rows, with their filter byte. */
function interlacedSize(width: number, height: number, bitsPerPixel: number): number {
  let total = 0;
  for (const [x0, dx, y0, dy] of ADAM7_PASSES) {
    const columns = Math.ceil((width - x0) / dx);
    const rows = Math.ceil((height - y0) / dy);
    if (columns > 0 && rows > 0) total += rows * (1 + Math.ceil((columns * bitsPerPixel) / 8));
  }
  return total;
}

function corrupt(request: ResizeRequest, what: string): DecodeError {
  return new DecodeError(
    `Cannot decode ${request.mediaType} (${request.size}): ${what}; the data is corrupt or crafted`,
  );
}

function isOpaque(image: RgbaImage): boolean {
  for (let i = 3; i < image.data.length; i += 4) if (image.data[i] !== 255) return false;
  return true;
}

function resizeJpeg(request: ResizeRequest): Encoded {
  const decoded = decodeWith(request, () =>
    jpeg.decode(request.bytes, {
      useTArray: true,
      formatAsRGBA: true,
      // The header was bounded; a later frame the decoder reads must be too.
      maxResolutionInMP: request.maxPixels / 1e6,
    }));
  const upright = applyOrientation(
    resizeArea(decoded, request.width, request.height),
    request.orientation,
  );
  const encoded = jpeg.encode(upright, request.quality).data as Uint8Array<ArrayBuffer>;
  return { bytes: encoded, width: upright.width, height: upright.height };
}

function decodeWith<T extends RgbaImage>(request: ResizeRequest, decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    throw new DecodeError(
      `Cannot decode ${request.mediaType} (${request.size}): ${errorText(error)}; the data is ` +
        `corrupt, truncated or uses a variant this decoder does not support`,
      { cause: error },
    );
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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
