/**
 * Tool-call ids for servers that take only 9 letters and digits (Mistral).
 *
 * @module
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const ALNUM9 = /^[A-Za-z0-9]{9}$/;

/**
 * The id as 9 letters and digits: kept when it already is, otherwise a hash
 * of it, so a call and its result (and every later request) agree without
 * remembering anything.
 *
 * @param id A recorded tool-call id, e.g. Anthropic's `toolu_01A…`.
 * @returns A `[A-Za-z0-9]{9}` id.
 *
 * @example
 * ```ts
 * import { alnum9CallId } from "./alnum_call_id.ts";
 * console.assert(alnum9CallId("abcDEF123") === "abcDEF123");
 * console.assert(/^[A-Za-z0-9]{9}$/.test(alnum9CallId("toolu_01XyZ")));
 * ```
 */
export function alnum9CallId(id: string): string {
  if (ALNUM9.test(id)) return id;
  // 64-bit FNV-1a: 9 base-62 digits (~53 bits) make a collision within one
  // conversation vanishingly unlikely.
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(id)) {
    hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * 0x100000001b3n);
  }
  let out = "";
  for (let i = 0; i < 9; i++) {
    out += ALPHABET[Number(hash % 62n)];
    hash /= 62n;
  }
  return out;
}
