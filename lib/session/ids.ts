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
  if (typeof id !== "string" || !SESSION_ID.test(id)) throw new InvalidSessionIdError(String(id));
  return id;
}
