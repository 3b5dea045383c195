/**
 * Server-sent event bytes cut into chunks the way a network delivers them,
 * for parser tests: reproducible random splits and the parser's batches.
 *
 * @module
 */
import { type SseEvent, SseParser } from "../../lib/providers/sse.ts";

/**
 * A small seeded PRNG (mulberry32), so a failing split can be reproduced.
 *
 * @param seed Any integer.
 * @returns Numbers in [0, 1), the same sequence for the same seed.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Splits bytes into chunks of 1 to `maxChunk` bytes (multi-byte characters get cut).
 *
 * @param bytes The whole body.
 * @param random Where the sizes come from, e.g. {@linkcode seededRandom}.
 * @param maxChunk The largest chunk.
 * @returns Views into `bytes`, in order.
 */
export function randomChunks(
  bytes: Uint8Array,
  random: () => number,
  maxChunk: number,
): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length;) {
    const size = 1 + Math.floor(random() * maxChunk);
    chunks.push(bytes.subarray(offset, offset + size));
    offset += size;
  }
  return chunks;
}

/**
 * The events each chunk completes, one batch per chunk (empty batches included),
 * then those the end of the stream completes.
 *
 * @param chunks The body, as read.
 * @returns The batches, as `streamSse` would yield them.
 */
export async function* sseEvents(
  chunks: readonly (Uint8Array | string)[],
): AsyncGenerator<SseEvent[]> {
  const parser = new SseParser();
  for (const chunk of chunks) yield parser.push(chunk);
  yield parser.end();
}
