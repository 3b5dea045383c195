import { InvalidSessionIdError } from "./errors.ts";

/** Letters, digits, `-` and `_`: no `.`, `/`, `\`, NUL or spaces, so no path tricks. */
const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** rand_a (12 bits) and rand_b (62 bits): a UUIDv7's bits after its time stamp and version. */
const RANDOM_BITS = 74n;
const RAND_B_BITS = 62n;
const RAND_B_MASK = (1n << RAND_B_BITS) - 1n;
/** The variant bits (`10`) above rand_b. */
const VARIANT = 2n << RAND_B_BITS;

let lastMs = 0;
let lastRandom = 0n;

/**
 * A new time-ordered session id (UUIDv7, RFC 9562). An id made in the same
 * millisecond as the last one (or after the clock stepped back) is the last
 * one plus one, so a process's ids sort in the order they were made.
 * Written here rather than taken from `uuid`, whose Node build loads
 * `node:crypto` on every start.
 *
 * @example
 * ```ts
 * import { newSessionId } from "./ids.ts";
 * const [a, b] = [newSessionId(), newSessionId()];
 * console.assert(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(a));
 * console.assert(a < b);
 * ```
 *
 * @returns The id, lowercase.
 */
export function newSessionId(): string {
  const now = Date.now();
  if (now > lastMs) [lastMs, lastRandom] = [now, randomBits()];
  else if (++lastRandom >> RANDOM_BITS !== 0n) [lastMs, lastRandom] = [lastMs + 1, randomBits()];
  const hex = lastMs.toString(16).padStart(12, "0") + "7" +
    (lastRandom >> RAND_B_BITS).toString(16).padStart(3, "0") +
    (VARIANT | (lastRandom & RAND_B_MASK)).toString(16);
  const groups = [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20)];
  return `${groups.join("-")}-${hex.slice(20)}`;
}

/** 73 random bits: the top one of the 74 stays clear, so a millisecond has room to count up. */
function randomBits(): bigint {
  let value = 0n;
  for (const byte of crypto.getRandomValues(new Uint8Array(10))) value = value << 8n | BigInt(byte);
  return value >> 7n;
}

/**
 * Checks an id, or an id prefix, before it names a file or a row.
 *
 * @param id The id as given by a caller.
 * @returns The id, unchanged.
 * @throws {InvalidSessionIdError} When it is empty, too long, or has any
 *   character other than letters, digits, `-` and `_`.
 */
export function checkSessionId(id: string): string {
  if (!isSessionId(id)) throw new InvalidSessionIdError(String(id));
  return id;
}

/**
 * Whether a string is an acceptable session id (see {@linkcode checkSessionId}).
 *
 * @example
 * ```ts
 * import { isSessionId } from "./ids.ts";
 * console.assert(isSessionId("0190a5c4-7b1e") && !isSessionId("../x"));
 * ```
 *
 * @param id Anything that may name a session.
 * @returns True when it may name a file or a row.
 */
export function isSessionId(id: unknown): id is string {
  return typeof id === "string" && SESSION_ID.test(id);
}
