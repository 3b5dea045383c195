/**
 * Image bombs and slow resizes: a huge declared size is refused from the
 * header, crafted PNGs that would make the decoder allocate more than their
 * header says are refused, and an abort ends a resize (its worker) at once.
 * Timings are generous upper bounds, printed for the record.
 */
import assert from "node:assert/strict";
import { imageSize } from "image-size";
import jpeg from "jpeg-js";
import { downsizeImage, ImageError } from "../../lib/images.ts";
import { craftPng, ihdrChunk } from "../support/crafted_png.ts";

const PNG = "image/png";

interface BombCost {
  failure: string;
  ms: number;
  growthMb: number;
}

/**
 * Refuses a bomb in a process of its own (image_bomb_child.ts), whose peak
 * memory other test files running in parallel cannot raise.
 */
async function refuseInChild(bomb: "png" | "interlaced"): Promise<BombCost> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./image_bomb_child.ts", import.meta.url).pathname, bomb],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const cost: BombCost = JSON.parse(new TextDecoder().decode(output.stdout));
  console.log(
    `refused in ${cost.ms.toFixed(1)} ms; peak memory growth ${cost.growthMb.toFixed(1)} MB`,
  );
  return cost;
}

Deno.test("a 30000×30000 PNG bomb is refused from its header, fast and without decoding", async () => {
  const bomb = await craftPng({ width: 30000, height: 30000, depth: 1, colorType: 0 });
  console.log(`bomb: ${bomb.length} bytes`);
  const failure = await downsizeImage({ mediaType: PNG, data: bomb.toBase64() })
    .catch((error: unknown) => error);
  assert.ok(failure instanceof ImageError, String(failure));
  assert.equal(failure.mediaType, PNG);
  assert.equal(
    failure.message,
    "Refusing to decode image/png of 30000×30000 (900 megapixels): over the limit of " +
      "16.8 megapixels for a PNG; scale it down to at most 2000 px on its longer side " +
      "before sending it",
  );
  const cost = await refuseInChild("png");
  assert.equal(cost.failure, `ImageError: ${failure.message}`);
  // The memory bound shows it was not decoded; how long refusing takes is not asserted (load).
  assert.ok(cost.growthMb < 100, `peak memory grew by ${cost.growthMb} MB`);
});

/** A small JPEG whose frame header (SOF0) is patched to declare another size. */
function jpegDeclaring(width: number, height: number): string {
  const bytes = jpeg.encode({ width: 8, height: 8, data: new Uint8Array(8 * 8 * 4) }, 80).data;
  const frame = bytes.findIndex((byte, i) => byte === 0xff && bytes[i + 1] === 0xc0);
  new DataView(bytes.buffer, bytes.byteOffset).setUint16(frame + 5, height);
  new DataView(bytes.buffer, bytes.byteOffset).setUint16(frame + 7, width);
  return bytes.toBase64();
}

Deno.test("JPEGs and 16-bit PNGs are held to fewer pixels, their decoders needing more memory", async () => {
  await assert.rejects(
    downsizeImage({ mediaType: "image/jpeg", data: jpegDeclaring(30000, 30000) }),
    (error: unknown) =>
      error instanceof ImageError && error.mediaType === "image/jpeg" &&
      /of 30000×30000 \(900 megapixels\): over the limit of 4\.2 megapixels for a JPEG/
        .test(error.message),
  );
  const deep = await craftPng({ width: 3000, height: 3000, depth: 16 });
  await assert.rejects(
    downsizeImage({ mediaType: PNG, data: deep.toBase64() }),
    /3000×3000 \(9 megapixels\): over the limit of 8\.4 megapixels for a 16-bit PNG/,
  );
});

Deno.test("maxPixels sets the bound and is checked", async () => {
  const part = { mediaType: PNG, data: (await craftPng({ width: 4000, height: 1000 })).toBase64() };
  await assert.rejects(
    downsizeImage(part, { maxPixels: 3_999_999 }),
    /\(4 megapixels\): over the limit of 4 megapixels for a PNG/,
  );
  const allowed = await downsizeImage(part, { maxPixels: 4_000_000 });
  assert.deepEqual([allowed.width, allowed.height, allowed.resized], [2000, 500, true]);
  await assert.rejects(downsizeImage(part, { maxPixels: 0 }), /maxPixels must be an integer/);
  // Within maxSide nothing is decoded, so the bound does not apply.
  const small = await downsizeImage(part, { maxSide: 4000, maxPixels: 1 });
  assert.equal(small.data, part.data);
});

Deno.test("a PNG whose second IHDR declares a larger size is refused before decoding", async () => {
  const png = await craftPng({
    width: 2001,
    height: 1,
    extraChunks: [ihdrChunk(30000, 30000, 8, 6, false)],
  });
  await assert.rejects(
    downsizeImage({ mediaType: PNG, data: png.toBase64() }),
    /Cannot decode image\/png \(2001×1\): it has more than one IHDR chunk.*corrupt or crafted/,
  );
});

Deno.test("a JPEG whose second frame header declares a larger size is refused by the decoder", async () => {
  const bytes = Uint8Array.fromBase64(jpegDeclaring(2001, 1));
  const frame = bytes.findIndex((byte, i) => byte === 0xff && bytes[i + 1] === 0xc0);
  const length = new DataView(bytes.buffer).getUint16(frame + 2);
  const second = bytes.slice(frame, frame + 2 + length);
  new DataView(second.buffer).setUint32(5, (30000 << 16) | 30000);
  const crafted = new Uint8Array([
    ...bytes.subarray(0, frame + 2 + length),
    ...second,
    ...bytes.subarray(frame + 2 + length),
  ]);
  await assert.rejects(
    downsizeImage({ mediaType: "image/jpeg", data: crafted.toBase64() }),
    /Cannot decode image\/jpeg \(2001×1\): maxResolutionInMP limit exceeded/,
  );
});

Deno.test("an interlaced PNG whose data inflates past its size is refused without inflating it all", async () => {
  const cost = await refuseInChild("interlaced");
  assert.match(
    cost.failure,
    /^ImageError: Cannot decode image\/png \(2001×1\): its image data does not inflate to 8008 bytes/,
  );
  // The memory bound shows it was not decoded; how long refusing takes is not asserted (load).
  assert.ok(cost.growthMb < 100, `peak memory grew by ${cost.growthMb} MB`);
});

Deno.test("an interlaced PNG is still resized", async () => {
  const png = await craftPng({ width: 2003, height: 5, interlaced: true });
  const result = await downsizeImage({ mediaType: PNG, data: png.toBase64() });
  assert.deepEqual([result.width, result.height], [2000, 5]);
  assert.deepEqual(imageSize(Uint8Array.fromBase64(result.data)), {
    width: 2000,
    height: 5,
    type: "png",
  });
});

/** A 16-bit RGBA PNG just under its bound: slow to decode (about a second) but allowed. */
function largeAllowedPng(): Promise<Uint8Array> {
  return craftPng({ width: 2896, height: 2896, depth: 16 });
}

Deno.test("an abort during a slow resize rejects with its reason and ends the worker", async () => {
  const data = (await largeAllowedPng()).toBase64();
  const started = performance.now();
  const whole = await downsizeImage({ mediaType: PNG, data });
  const duration = performance.now() - started;
  console.log(`resizing 2896×2896 16-bit RGBA took ${duration.toFixed(0)} ms`);
  assert.deepEqual([whole.width, whole.height], [2000, 2000]);

  // Abort a quarter of the way through (the worker is decoding by then).
  const controller = new AbortController();
  const reason = new DOMException("stop resizing", "AbortError");
  const again = performance.now();
  const resizing = downsizeImage({ mediaType: PNG, data }, { signal: controller.signal });
  let abortedAt = 0;
  const timer = setTimeout(() => {
    abortedAt = performance.now();
    controller.abort(reason);
  }, duration / 4);
  const failure = await resizing.catch((error: unknown) => error);
  const rejectedAt = performance.now();
  clearTimeout(timer);
  assert.ok(abortedAt > 0, "the resize finished before the abort: it is no longer slow here");
  const latency = rejectedAt - abortedAt;
  console.log(
    `aborted ${(abortedAt - again).toFixed(0)} ms into the resize; rejected ` +
      `${latency.toFixed(1)} ms after the abort`,
  );
  assert.equal(failure, reason, "rejects with the signal's reason");
  // How soon is printed, not asserted (a busy machine would fail any bound); the sanitizers
  // fail the test if the worker were still running.
});

Deno.test("resizes run one at a time; an abort while waiting rejects at once", async () => {
  const big = (await largeAllowedPng()).toBase64();
  const small = (await craftPng({ width: 3000, height: 20 })).toBase64();
  const first = downsizeImage({ mediaType: PNG, data: big });
  let firstDone = false;
  void first.finally(() => {
    firstDone = true;
  });
  const controller = new AbortController();
  const waiting = downsizeImage({ mediaType: PNG, data: small }, { signal: controller.signal });
  const third = downsizeImage({ mediaType: PNG, data: small });
  await new Promise((resolve) => setTimeout(resolve, 10));
  controller.abort("no longer needed");
  await assert.rejects(waiting, (error: unknown) => error === "no longer needed");
  assert.ok(!firstDone, "the queued resize rejected at once, not after the one before it");
  const [one, three] = await Promise.all([first, third]);
  assert.deepEqual([one.width, one.height], [2000, 2000]);
  assert.deepEqual([three.width, three.height], [2000, 13]);
});

Deno.test("an already aborted signal rejects before any work", async () => {
  const controller = new AbortController();
  controller.abort(new Error("gone"));
  await assert.rejects(
    downsizeImage(
      { mediaType: PNG, data: (await craftPng({ width: 3000, height: 2 })).toBase64() },
      {
        signal: controller.signal,
      },
    ),
    /gone/,
  );
});
