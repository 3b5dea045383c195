import { SessionStoreError } from "@panto/lib";
import { permissionMessage } from "./permission_message.ts";

/**
 * The message of a thrown value, for error text shown to people.
 *
 * @param error Anything thrown.
 * @returns Its message (the error's name when the message is empty); a
 *   missing permission as {@linkcode permissionMessage} words it.
 */
export function errorMessage(error: unknown): string {
  if (error instanceof Deno.errors.NotCapable) return permissionMessage(error.message);
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/**
 * What to show when a turn fails: a session store's error speaks for itself
 * ("Could not save the session to …": the request itself went fine), any
 * other error follows `prefix`.
 *
 * @param prefix What failed, e.g. "The request failed".
 * @param error Anything thrown.
 * @returns One line for the user.
 */
export function turnFailureMessage(prefix: string, error: unknown): string {
  if (error instanceof SessionStoreError) return errorMessage(error);
  return `${prefix}: ${errorMessage(error)}`;
}
