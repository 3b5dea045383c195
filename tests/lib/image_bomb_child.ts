// Refuses one crafted image bomb and prints what it cost: the time, the error
// message and how far the process's peak resident memory rose above its
// resident memory before (an upper bound on the growth): see image_bomb_test.ts.
import { downsizeImage } from "../../lib/images.ts";
import { craftPng } from "../support/crafted_png.ts";

const BOMBS: Record<string, () => Promise<Uint8Array>> = {
  // 30000×30000 1-bit grey: 110 KB, 3.6 GB once decoded to RGBA.
  png: () => craftPng({ width: 30000, height: 30000, depth: 1, colorType: 0 }),
  // 2001×1 RGBA needs about 8 KB; its data inflates to 1 GiB of zeros (a 1 MB file).
  interlaced: () => craftPng({ width: 2001, height: 1, interlaced: true, inflatedBytes: 2 ** 30 }),
};

function kilobytes(field: "VmRSS" | "VmHWM"): number {
  const status = Deno.readTextFileSync("/proc/self/status");
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1]);
}

const data = (await BOMBS[Deno.args[0]!]!()).toBase64();
// Load the header reader and the worker's source first: they are not the bomb's cost.
const pixel =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
await downsizeImage({ mediaType: "image/png", data: pixel }, { maxSide: 1 }).catch(() => {});
const before = kilobytes("VmRSS");
const started = performance.now();
const failure = await downsizeImage({ mediaType: "image/png", data }).then(
  () => "not refused",
  (error: unknown) => error instanceof Error ? `${error.name}: ${error.message}` : String(error),
);
const ms = performance.now() - started;
console.log(JSON.stringify({ failure, ms, growthMb: (kilobytes("VmHWM") - before) / 1024 }));
