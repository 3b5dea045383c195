import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import jpeg from "jpeg-js";
import { PNG } from "pngjs";
import { downsizeImage, ImageError } from "../../lib/images.ts";

type Rgba = [number, number, number, number];
type Painter = (x: number, y: number) => Rgba;

interface Decoded {
  width: number;
  height: number;
  data: Uint8Array;
}

const RED: Rgba = [255, 0, 0, 255];
const BLUE: Rgba = [0, 0, 255, 255];
const GREEN: Rgba = [0, 255, 0, 255];

function paint(width: number, height: number, painter: Painter): Decoded {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) data.set(painter(x, y), (y * width + x) * 4);
  }
  return { width, height, data };
}

function pngBase64(width: number, height: number, painter: Painter): string {
  const bytes: Uint8Array = PNG.sync.write(paint(width, height, painter), { deflateLevel: 1 });
  return bytes.toBase64();
}

function jpegBase64(width: number, height: number, painter: Painter, exif?: Uint8Array): string {
  // jpeg-js writes `exifBuffer` as an APP1 segment; its typings omit the field.
  const image: Parameters<typeof jpeg.encode>[0] = { ...paint(width, height, painter) };
  if (exif) Object.assign(image, { exifBuffer: exif });
  return jpeg.encode(image, 95).data.toBase64();
}

function decodePng(base64: string): Decoded {
  return PNG.sync.read(Buffer.from(base64, "base64"));
}

function decodeJpeg(base64: string): Decoded {
  return jpeg.decode(Uint8Array.fromBase64(base64), { useTArray: true, formatAsRGBA: true });
}

function pixel(image: Decoded, x: number, y: number): number[] {
  const at = (y * image.width + x) * 4;
  return Array.from(image.data.subarray(at, at + 4));
}

function assertNear(
  actual: number[],
  expected: readonly number[],
  tolerance: number,
  label = "pixel",
): void {
  const close = actual.every((value, i) => Math.abs(value - expected[i]!) <= tolerance);
  assert.ok(
    close,
    `${label}: expected ≈${expected.join(",")} (±${tolerance}), got ${actual.join(",")}`,
  );
}

const redLeftBlueRight = (width: number): Painter => (x) => x < width / 2 ? RED : BLUE;

Deno.test("a 4000×1000 PNG becomes a 2000×500 PNG with its colours in place", async () => {
  const data = pngBase64(4000, 1000, redLeftBlueRight(4000));
  const result = await downsizeImage({ mediaType: "image/png", data });
  assert.deepEqual(
    { mediaType: result.mediaType, width: result.width, height: result.height },
    { mediaType: "image/png", width: 2000, height: 500 },
  );
  assert.equal(result.resized, true);
  const image = decodePng(result.data);
  assert.equal(image.width / image.height, 4000 / 1000);
  assertNear(pixel(image, 10, 10), RED, 0);
  assertNear(pixel(image, 999, 499), RED, 0);
  assertNear(pixel(image, 1000, 0), BLUE, 0);
  assertNear(pixel(image, 1999, 250), BLUE, 0);
  // An opaque source is written as RGB (IHDR colour type 2), not RGBA.
  assert.equal(Uint8Array.fromBase64(result.data)[25], 2);
});

Deno.test("area averaging blends one-pixel detail to grey instead of dropping it", async () => {
  const checkerboard: Painter = (x, y) => (x + y) % 2 === 0 ? [0, 0, 0, 255] : [255, 255, 255, 255];
  const result = await downsizeImage({
    mediaType: "image/png",
    data: pngBase64(4000, 1000, checkerboard),
  });
  const image = decodePng(result.data);
  for (let i = 0; i < image.data.length; i += 4) {
    const grey = image.data[i]!;
    assert.ok(grey === 127 || grey === 128, `pixel ${i / 4} is ${grey}, expected 127 or 128`);
  }
});

Deno.test("a 4000×1000 JPEG becomes a 2000×500 JPEG with its colours in place", async () => {
  const data = jpegBase64(4000, 1000, redLeftBlueRight(4000));
  const result = await downsizeImage({ mediaType: "image/jpeg", data }, { jpegQuality: 90 });
  assert.deepEqual(
    { mediaType: result.mediaType, width: result.width, height: result.height },
    { mediaType: "image/jpeg", width: 2000, height: 500 },
  );
  const image = decodeJpeg(result.data);
  assert.deepEqual([image.width, image.height], [2000, 500]);
  assertNear(pixel(image, 500, 250), RED, 8);
  assertNear(pixel(image, 1500, 250), BLUE, 8);
});

/** A minimal EXIF block (big-endian TIFF) whose only IFD entry is Orientation (0x0112). */
function exifWithOrientation(orientation: number): Uint8Array {
  return Uint8Array.from([
    ...new TextEncoder().encode("Exif\0\0MM"),
    ...[0x00, 0x2a, 0x00, 0x00, 0x00, 0x08], // TIFF magic, first IFD at offset 8
    ...[0x00, 0x01], // one entry
    ...[0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, orientation, 0x00, 0x00],
    ...[0x00, 0x00, 0x00, 0x00], // no next IFD
  ]);
}

Deno.test("a resized JPEG is turned upright by each EXIF orientation", async () => {
  const WHITE: Rgba = [255, 255, 255, 255];
  // Stored 400×200 in quadrants: green top-left, blue top-right, red bottom-left, white bottom-right.
  const stored: Painter = (x, y) => y < 100 ? (x < 200 ? GREEN : BLUE) : (x < 200 ? RED : WHITE);
  // Displayed quadrants, top-left / top-right / bottom-left / bottom-right, per orientation.
  const expected: Record<number, Rgba[]> = {
    1: [GREEN, BLUE, RED, WHITE],
    2: [BLUE, GREEN, WHITE, RED], // mirrored
    3: [WHITE, RED, BLUE, GREEN], // rotated 180°
    4: [RED, WHITE, GREEN, BLUE], // flipped
    5: [GREEN, RED, BLUE, WHITE], // transposed
    6: [RED, GREEN, WHITE, BLUE], // needs 90° clockwise
    7: [WHITE, BLUE, RED, GREEN], // transversed
    8: [BLUE, WHITE, GREEN, RED], // needs 90° counter-clockwise
  };
  for (const [orientation, quadrants] of Object.entries(expected)) {
    const data = jpegBase64(400, 200, stored, exifWithOrientation(Number(orientation)));
    const result = await downsizeImage({ mediaType: "image/jpeg", data }, { maxSide: 100 });
    const size = Number(orientation) >= 5 ? [50, 100] : [100, 50];
    assert.deepEqual([result.width, result.height], size, `orientation ${orientation}`);
    const image = decodeJpeg(result.data);
    assert.deepEqual([image.width, image.height], size, `orientation ${orientation}`);
    const [left, right] = [Math.floor(size[0]! / 4), Math.floor((3 * size[0]!) / 4)];
    const [top, bottom] = [Math.floor(size[1]! / 4), Math.floor((3 * size[1]!) / 4)];
    const centres = [[left, top], [right, top], [left, bottom], [right, bottom]];
    centres.forEach(([x, y], i) =>
      assertNear(pixel(image, x!, y!), quadrants[i]!, 12, `orientation ${orientation} at ${x},${y}`)
    );
  }
});

Deno.test("transparent pixels do not bleed their hidden colour into visible ones", async () => {
  const invisibleGreen: Rgba = [0, 255, 0, 0];
  const data = pngBase64(4, 1, (x) => x < 2 ? invisibleGreen : RED);
  const result = await downsizeImage({ mediaType: "image/png", data }, { maxSide: 1 });
  assert.deepEqual([result.width, result.height], [1, 1]);
  assert.deepEqual(pixel(decodePng(result.data), 0, 0), [255, 0, 0, 128]);
});

Deno.test("an image within the limit is returned unchanged, without re-encoding", async () => {
  const cases = [
    { mediaType: "image/png", data: pngBase64(100, 50, redLeftBlueRight(100)), size: [100, 50] },
    { mediaType: "image/png", data: pngBase64(2000, 10, redLeftBlueRight(2000)), size: [2000, 10] },
    { mediaType: "image/jpeg", data: jpegBase64(64, 640, redLeftBlueRight(64)), size: [64, 640] },
  ];
  for (const { mediaType, data, size } of cases) {
    const result = await downsizeImage({ mediaType, data });
    assert.deepEqual(result, {
      mediaType,
      data,
      width: size[0],
      height: size[1],
      resized: false,
    });
  }
});

Deno.test("a portrait image is limited by its height and keeps its aspect ratio", async () => {
  const data = pngBase64(300, 900, redLeftBlueRight(300));
  const result = await downsizeImage({ mediaType: "image/png", data }, { maxSide: 100 });
  assert.deepEqual([result.width, result.height], [33, 100]);
  const image = decodePng(result.data);
  assert.deepEqual([image.width, image.height], [33, 100]);
});

Deno.test("the type detected from the bytes wins over the declared one", async () => {
  const small = pngBase64(10, 10, () => RED);
  const unchanged = await downsizeImage({ mediaType: "image/jpeg", data: small });
  assert.equal(unchanged.mediaType, "image/png");
  assert.equal(unchanged.data, small);

  const large = pngBase64(300, 30, () => RED);
  const resized = await downsizeImage({ mediaType: "image/jpeg", data: large }, { maxSide: 100 });
  assert.equal(resized.mediaType, "image/png");
  assert.deepEqual([decodePng(resized.data).width, decodePng(resized.data).height], [100, 10]);
});

function webpHeader(width: number, height: number): string {
  const bytes = new Uint8Array(30);
  bytes.set(new TextEncoder().encode("RIFF\0\0\0\0WEBPVP8X"));
  const view = new DataView(bytes.buffer);
  view.setUint32(16, 10, true);
  // Canvas width and height minus one, 24-bit little-endian.
  view.setUint16(24, width - 1, true);
  view.setUint16(27, height - 1, true);
  return bytes.toBase64();
}

function gifHeader(width: number, height: number): string {
  const bytes = new Uint8Array(13);
  bytes.set(new TextEncoder().encode("GIF89a"));
  new DataView(bytes.buffer).setUint16(6, width, true);
  new DataView(bytes.buffer).setUint16(8, height, true);
  return bytes.toBase64();
}

Deno.test("a WebP or GIF over the limit cannot be resized and says so", async () => {
  const webp = downsizeImage({ mediaType: "image/webp", data: webpHeader(3000, 2000) });
  await assert.rejects(webp, (error: unknown) => {
    assert.ok(error instanceof ImageError);
    assert.equal(error.mediaType, "image/webp");
    assert.equal(
      error.message,
      "Cannot resize image/webp (3000×2000): only PNG and JPEG can be resized; " +
        "convert it or lower its size below 2000 px",
    );
    return true;
  });
  await assert.rejects(
    downsizeImage({ mediaType: "image/gif", data: gifHeader(2500, 100) }, { maxSide: 1000 }),
    /Cannot resize image\/gif \(2500×100\).*below 1000 px/,
  );
});

Deno.test("a WebP or GIF within the limit passes through", async () => {
  const data = webpHeader(800, 600);
  const result = await downsizeImage({ mediaType: "image/png", data });
  assert.deepEqual(result, {
    mediaType: "image/webp",
    data,
    width: 800,
    height: 600,
    resized: false,
  });
  const gif = await downsizeImage({ mediaType: "image/gif", data: gifHeader(20, 10) });
  assert.deepEqual([gif.mediaType, gif.width, gif.height], ["image/gif", 20, 10]);
});

Deno.test("data that is not an image names the declared type and what it starts with", async () => {
  const html = new TextEncoder().encode("<html><body>Not found</body></html>").toBase64();
  await assert.rejects(downsizeImage({ mediaType: "image/png", data: html }), (error: unknown) => {
    assert.ok(error instanceof ImageError);
    assert.equal(error.mediaType, "image/png");
    assert.match(
      error.message,
      /declared as image\/png is not a PNG image or any other known format/,
    );
    assert.match(error.message, /starting with 3c 68 74 6d 6c 3e 3c 62 "<html><b"/);
    return true;
  });
  await assert.rejects(
    downsizeImage({ mediaType: "image/jpeg", data: "" }),
    /declared as image\/jpeg is not a JPEG image.*it is empty/,
  );
});

Deno.test("invalid base64 is reported as such", async () => {
  await assert.rejects(
    downsizeImage({ mediaType: "image/png", data: "not base64!" }),
    (error: unknown) => error instanceof ImageError && /not valid base64/.test(error.message),
  );
});

Deno.test("a truncated PNG with a valid header fails to decode with its size", async () => {
  const whole = Uint8Array.fromBase64(pngBase64(4000, 1000, redLeftBlueRight(4000)));
  const truncated = whole.subarray(0, 200).toBase64();
  await assert.rejects(
    downsizeImage({ mediaType: "image/png", data: truncated }),
    /Cannot decode image\/png \(4000×1000\): .*corrupt, truncated/,
  );
});

Deno.test("formats models do not accept are rejected with the detected type", async () => {
  const bmp = new Uint8Array(30);
  bmp.set(new TextEncoder().encode("BM"));
  new DataView(bmp.buffer).setUint32(18, 10, true);
  new DataView(bmp.buffer).setInt32(22, 10, true);
  await assert.rejects(
    downsizeImage({ mediaType: "image/png", data: bmp.toBase64() }),
    /Unsupported image type image\/bmp \(declared image\/png\): models accept PNG, JPEG, GIF and WebP/,
  );
});

Deno.test("out-of-range options are rejected", async () => {
  const part = { mediaType: "image/png", data: pngBase64(2, 2, () => RED) };
  await assert.rejects(downsizeImage(part, { maxSide: 0 }), RangeError);
  await assert.rejects(downsizeImage(part, { maxSide: 1.5 }), /maxSide must be an integer/);
  await assert.rejects(downsizeImage(part, { jpegQuality: 101 }), /jpegQuality.*got 101/);
});
