import type { imageSize } from "image-size";
import type { ResizeReply, ResizeRequest } from "./image_worker.ts";

/** The longest side, in pixels, {@linkcode downsizeImage} keeps by default. */
export const DEFAULT_IMAGE_MAX_SIDE = 2000;

/**
 * The most pixels (width × height) of a PNG {@linkcode downsizeImage}
 * decodes to resize it, by default: 2²⁴, about 16.8 megapixels, which admits
 * a 5120×2880 screenshot. A 16-bit PNG is allowed half as many (8.4) and a
 * JPEG a quarter (4.2), as their decoders need that much more memory per
 * pixel. A larger image is refused from its header, before any decoding.
 *
 * Why: decoding, resizing and encoding again grew the resident set by these
 * bytes per pixel (pngjs 7.0.0 and jpeg-js 0.4.4 on Deno 2.9.6, the slope
 * between 8 and 16 megapixel images): 8-bit PNG 5–11 (Adam7-interlaced
 * 15), 16-bit PNG 15–17 (interlaced 28), JPEG 38 (4:2:2) to 44 (4:4:4),
 * most of it jpeg-js's one typed array per 8×8 block; plus a fixed part
 * (the worker, the output, and for JPEG up to 150 MB in jpeg-js's encoder).
 * Measured peaks at the bounds: an RGBA PNG 220 MB (interlaced 290), a
 * 16-bit RGBA PNG 260 MB (interlaced 330), a JPEG 290 (4:2:2) to 335 MB
 * (4:4:4 noise, the worst case); a 3840×2160 RGBA screenshot 125 MB.
 */
export const DEFAULT_IMAGE_MAX_PIXELS = 2 ** 24;

const DEFAULT_JPEG_QUALITY = 85;

/** Options for {@linkcode downsizeImage}. */
export interface DownsizeOptions {
  /** Longest side allowed, in pixels (an integer ≥ 1). Default {@linkcode DEFAULT_IMAGE_MAX_SIDE}. */
  maxSide?: number;
  /**
   * Most pixels (width × height, an integer ≥ 1) of a PNG to decode and
   * resize; a 16-bit PNG may have half as many and a JPEG a quarter. A larger
   * image that needs resizing is refused from its header. Default
   * {@linkcode DEFAULT_IMAGE_MAX_PIXELS}.
   */
  maxPixels?: number;
  /** Quality of a re-encoded JPEG, 1–100. Default 85. */
  jpegQuality?: number;
  /** Stops a resize: its worker is terminated and the call rejects with the signal's reason. */
  signal?: AbortSignal;
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
 * import { downsizeImage, ImageError } from "@panto/lib/images";
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
 * One that needs resizing is refused from its header when it has more than
 * `maxPixels` pixels (an "image bomb": a 100 KB PNG can declare 30000×30000
 * and would decode to 3.6 GB). The others are decoded, resized and encoded
 * in a worker, one image at a time, so the calling thread stays responsive
 * and `signal` stops the work at once.
 *
 * @param part The image: its declared media type and base64 data.
 * @param options The size and pixel limits, the JPEG quality and an abort signal.
 * @returns The image to send, its media type, size, and whether it changed.
 * @throws {ImageError} (as a rejection) When the data is not valid base64,
 * not a PNG, JPEG, GIF or WebP image, corrupt, too large and not PNG or JPEG,
 * or over `maxPixels`.
 * @throws {RangeError} (as a rejection) When an option is out of range.
 * @throws The signal's reason (as a rejection) when `signal` aborts first.
 *
 * @example Downsize a tool's screenshot
 * ```ts
 * import { downsizeImage } from "@panto/lib/images";
 * // A 1×1 PNG is already small enough, so it comes back unchanged.
 * const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
 * const image = await downsizeImage({ mediaType: "image/png", data: pixel });
 * console.assert(!image.resized && image.data === pixel && image.width === 1);
 * ```
 *
 * @example Refuse an image too large to decode
 * ```ts
 * import { downsizeImage, ImageError } from "@panto/lib/images";
 * // The header of a 30000×30000 PNG; its pixels are never read.
 * const header = "iVBORw0KGgoAAAANSUhEUgAAdTAAAHUwAQAAAABOXMUX";
 * const refused = await downsizeImage({ mediaType: "image/png", data: header })
 *   .catch((error: unknown) => error);
 * console.assert(refused instanceof ImageError && refused.message.includes("30000×30000"));
 * ```
 */
export function downsizeImage(
  part: { mediaType: string; data: string },
  options: DownsizeOptions = {},
): Promise<DownsizedImage> {
  return downsize(part, options);
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
  /** What decoding it costs, relative to an 8-bit PNG (see DEFAULT_IMAGE_MAX_PIXELS). */
  decodeCost: { kind: string; weight: number };
}

async function downsize(
  part: { mediaType: string; data: string },
  options: DownsizeOptions,
): Promise<DownsizedImage> {
  const maxSide = checkedInteger("maxSide", options.maxSide ?? DEFAULT_IMAGE_MAX_SIDE, 1, 2 ** 16);
  const maxPixels = checkedInteger(
    "maxPixels",
    options.maxPixels ?? DEFAULT_IMAGE_MAX_PIXELS,
    1,
    2 ** 32,
  );
  const quality = checkedInteger(
    "jpegQuality",
    options.jpegQuality ?? DEFAULT_JPEG_QUALITY,
    1,
    100,
  );
  options.signal?.throwIfAborted();
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
  const pixels = header.width * header.height;
  const limit = Math.floor(maxPixels / header.decodeCost.weight);
  if (pixels > limit) {
    throw new ImageError(
      header.mediaType,
      `Refusing to decode ${header.mediaType} of ${size} (${megapixels(pixels)} megapixels): ` +
        `over the limit of ${megapixels(limit)} megapixels for ${header.decodeCost.kind}; ` +
        `scale it down to at most ${maxSide} px on its longer side before sending it`,
    );
  }
  const scale = maxSide / Math.max(header.width, header.height);
  const resized = await resizeInWorker({
    mediaType: header.mediaType,
    bytes,
    storedWidth: header.width,
    storedHeight: header.height,
    size,
    orientation: header.orientation,
    width: Math.max(1, Math.round(header.width * scale)),
    height: Math.max(1, Math.round(header.height * scale)),
    quality,
    maxPixels: limit,
  }, options.signal);
  return {
    mediaType: header.mediaType,
    data: resized.bytes.toBase64(),
    width: resized.width,
    height: resized.height,
    resized: true,
  };
}

function megapixels(pixels: number): string {
  return String(Math.round(pixels / 1e5) / 10);
}

function checkedInteger(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer from ${min} to ${max}; got ${String(value)}`);
  }
  return value;
}

function decodeBase64(part: { mediaType: string; data: string }): Uint8Array<ArrayBuffer> {
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
  return {
    mediaType,
    width,
    height,
    orientation: size.orientation ?? 1,
    decodeCost: decodeCost(mediaType, bytes),
  };
}

function decodeCost(mediaType: string, bytes: Uint8Array): Header["decodeCost"] {
  if (mediaType === JPEG_TYPE) return { kind: "a JPEG", weight: 4 };
  // The bit depth is IHDR's first byte after the size; a PNG whose first
  // chunk is not IHDR (Apple's CgBI) is taken as 16-bit, the dearer case.
  const ihdr = new TextDecoder().decode(bytes.subarray(12, 16)) === "IHDR";
  return ihdr && bytes[24]! <= 8
    ? { kind: "a PNG", weight: 1 }
    : { kind: "a 16-bit PNG", weight: 2 };
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

// One resize at a time: each may take hundreds of MB, and a turn of tool
// calls can return several large images at once.
let lastTurn: Promise<void> = Promise.resolve();

/** Waits for the resizes before this one; resolves to the function that ends this turn. */
function takeTurn(signal: AbortSignal | undefined): Promise<() => void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  const { promise: ended, resolve: end } = Promise.withResolvers<void>();
  const previous = lastTurn;
  lastTurn = previous.then(() => ended);
  const { promise, resolve, reject } = Promise.withResolvers<() => void>();
  const onAbort = () => {
    end();
    reject(signal?.reason);
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  void previous.then(() => {
    signal?.removeEventListener("abort", onAbort);
    resolve(end);
  });
  return promise;
}

/** Resizes in a worker once the resizes before this one are done. */
async function resizeInWorker(
  request: ResizeRequest,
  signal: AbortSignal | undefined,
): Promise<{ bytes: Uint8Array; width: number; height: number }> {
  const { IMAGE_WORKER_SOURCE } = await import("./image_worker_source.ts");
  const endTurn = await takeTurn(signal);
  try {
    return await runWorker(IMAGE_WORKER_SOURCE, request, signal);
  } finally {
    endTurn();
  }
}

/**
 * Runs the decode, resize and encode in a worker started from a blob of its
 * bundled source (see image_worker.ts), transferring the bytes both ways.
 * An abort terminates the worker on the spot: the codecs are synchronous
 * and would not notice a message.
 */
async function runWorker(
  source: string,
  request: ResizeRequest,
  signal: AbortSignal | undefined,
): Promise<{ bytes: Uint8Array; width: number; height: number }> {
  const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
  let worker: Worker;
  try {
    worker = new Worker(url, { type: "module", name: "image resize" });
  } finally {
    URL.revokeObjectURL(url);
  }
  const { promise, resolve, reject } = Promise.withResolvers<ResizeReply>();
  const onAbort = () => {
    worker.terminate();
    reject(signal?.reason);
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  worker.onmessage = (event: MessageEvent<ResizeReply>) => resolve(event.data);
  worker.onerror = (event) => {
    event.preventDefault();
    resolve({
      ok: false,
      message: `Cannot resize ${request.mediaType} (${request.size}): ${event.message}`,
    });
  };
  try {
    signal?.throwIfAborted();
    worker.postMessage(request, [request.bytes.buffer]);
    const reply = await promise;
    if (!reply.ok) throw new ImageError(request.mediaType, reply.message);
    return reply;
  } finally {
    worker.terminate();
    signal?.removeEventListener("abort", onAbort);
  }
}
