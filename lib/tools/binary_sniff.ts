/** How many leading bytes decide whether a file is text. */
export const SNIFF_BYTES = 8192;

/** Share of undecodable characters past which a sample is not text. */
const MAX_INVALID_SHARE = 0.3;

/**
 * Whether the first bytes of a file look binary: they contain a NUL, or
 * more than 30% of them are not UTF-8 (text in a legacy encoding has a few
 * such bytes and is still read, with U+FFFD in their place).
 *
 * @param sample The file's first bytes (up to {@linkcode SNIFF_BYTES}).
 * @returns True for binary.
 *
 * @example
 * ```ts
 * import { looksBinary } from "./binary_sniff.ts";
 * console.assert(looksBinary(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0])));
 * console.assert(!looksBinary(new TextEncoder().encode("héllo\n")));
 * ```
 */
export function looksBinary(sample: Uint8Array): boolean {
  if (sample.includes(0)) return true;
  // stream: a character cut at the end of the sample is not counted as invalid.
  const text = new TextDecoder().decode(sample, { stream: true });
  let invalid = 0;
  for (const char of text) if (char === "\uFFFD") invalid++;
  return invalid > text.length * MAX_INVALID_SHARE;
}
