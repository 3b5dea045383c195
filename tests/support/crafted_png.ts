/**
 * Hand-made PNGs for the image-bomb tests: any declared size, bit depth and
 * layout, with image data that is all zeros (so a 30000×30000 image is a
 * 110 KB file), compressed as it streams so building one takes no memory.
 *
 * @module
 */

/** What {@linkcode craftPng} writes. */
export interface CraftedPng {
  width: number;
  height: number;
  /** Bits per sample (default 8). */
  depth?: 1 | 8 | 16;
  /** IHDR colour type: 0 grey, 2 RGB, 6 RGBA (default 6). */
  colorType?: 0 | 2 | 6;
  /** Adam7 interlacing (default false). */
  interlaced?: boolean;
  /** Bytes of zeros the IDAT stream inflates to (default: what the pixels need). */
  inflatedBytes?: number;
  /** Chunks inserted after IHDR, e.g. a second IHDR. */
  extraChunks?: Uint8Array[];
}

const SAMPLES: Readonly<Record<number, number>> = { 0: 1, 2: 3, 6: 4 };
/** Adam7's passes: first column, column step, first row, row step. */
const ADAM7 = [[0, 8, 0, 8], [4, 8, 0, 8], [0, 4, 4, 8], [2, 4, 0, 4], [0, 2, 2, 4], [1, 2, 0, 2], [
  0,
  1,
  1,
  2,
]] as const;

/**
 * A PNG whose pixels are all zero (black, or transparent with alpha).
 *
 * @param png The size and layout.
 * @returns The file's bytes.
 *
 * @example
 * ```ts
 * import { craftPng } from "./crafted_png.ts";
 * const bomb = await craftPng({ width: 30000, height: 30000, depth: 1, colorType: 0 });
 * console.assert(bomb.length < 200_000);
 * ```
 */
export async function craftPng(png: CraftedPng): Promise<Uint8Array> {
  const depth = png.depth ?? 8;
  const colorType = png.colorType ?? 6;
  const bitsPerPixel = SAMPLES[colorType]! * depth;
  // Each row starts with its filter byte; an empty pass has no rows.
  const rowsBytes = (columns: number, rows: number) =>
    columns > 0 && rows > 0 ? rows * (1 + Math.ceil((columns * bitsPerPixel) / 8)) : 0;
  const inflated = png.inflatedBytes ??
    (png.interlaced
      ? ADAM7.reduce(
        (sum, [x0, dx, y0, dy]) =>
          sum + rowsBytes(Math.ceil((png.width - x0) / dx), Math.ceil((png.height - y0) / dy)),
        0,
      )
      : rowsBytes(png.width, png.height));
  return concat([
    Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    ihdrChunk(png.width, png.height, depth, colorType, png.interlaced ?? false),
    ...png.extraChunks ?? [],
    pngChunk("IDAT", await deflatedZeros(inflated)),
    pngChunk("IEND", new Uint8Array()),
  ]);
}

/**
 * An IHDR chunk.
 *
 * @example
 * ```ts
 * import { ihdrChunk } from "./crafted_png.ts";
 * console.assert(ihdrChunk(1, 1, 8, 6, false).length === 25);
 * ```
 */
export function ihdrChunk(
  width: number,
  height: number,
  depth: number,
  colorType: number,
  interlaced: boolean,
): Uint8Array {
  const data = new Uint8Array(13);
  const view = new DataView(data.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  data[8] = depth;
  data[9] = colorType;
  data[12] = interlaced ? 1 : 0;
  return pngChunk("IHDR", data);
}

/**
 * A chunk: length, type, data and CRC.
 *
 * @example
 * ```ts
 * import { pngChunk } from "./crafted_png.ts";
 * console.assert(pngChunk("IEND", new Uint8Array()).length === 12);
 * ```
 */
export function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const chunk = new Uint8Array(12 + data.length);
  const view = new DataView(chunk.buffer);
  view.setUint32(0, data.length);
  chunk.set(new TextEncoder().encode(type), 4);
  chunk.set(data, 8);
  view.setUint32(8 + data.length, crc32(chunk.subarray(4, 8 + data.length)));
  return chunk;
}

/** A zlib stream of `length` zero bytes, compressed 1 MiB at a time. */
async function deflatedZeros(length: number): Promise<Uint8Array> {
  const zeros = new Uint8Array(1 << 20);
  const stream = new CompressionStream("deflate");
  const writer = stream.writable.getWriter();
  const written = (async () => {
    for (let left = length; left > 0; left -= zeros.length) {
      await writer.write(zeros.subarray(0, Math.min(left, zeros.length)));
    }
    await writer.close();
  })();
  const compressed = new Uint8Array(await new Response(stream.readable).arrayBuffer());
  await written;
  return compressed;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
