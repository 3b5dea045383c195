/**
 * The message of a thrown value, for error text shown to people.
 *
 * @param error Anything thrown.
 * @returns Its message (the error's name when the message is empty).
 */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
