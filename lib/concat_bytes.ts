/**
 * The parts joined into one new array.
 *
 * @example
 * ```ts
 * import { concatBytes } from "./concat_bytes.ts";
 * const joined = concatBytes([new Uint8Array([1, 2]), new Uint8Array([3])]);
 * console.assert(joined.join() === "1,2,3");
 * ```
 *
 * @param parts Byte arrays, in order.
 * @returns A new array holding them all.
 */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
