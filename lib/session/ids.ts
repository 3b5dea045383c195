import { v7 } from "uuid";
import { InvalidSessionIdError } from "./errors.ts";

/** Letters, digits, `-` and `_`: no `.`, `/`, `\`, NUL or spaces, so no path tricks. */
const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * A new time-ordered session id (UUIDv7).
 *
 * @returns The id, lowercase.
 */
export function newSessionId(): string {
  return v7();
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
