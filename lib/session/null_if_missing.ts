/**
 * What `pending` resolves to, or null when it fails because the path is
 * not there (any other failure is rethrown).
 *
 * @example
 * ```ts
 * import { nullIfMissing } from "./null_if_missing.ts";
 * console.assert(await nullIfMissing(Deno.stat("/no/such/path")) === null);
 * ```
 *
 * @param pending A file-system call on one path, such as `Deno.lstat(path)`.
 * @returns Its result, or null for `Deno.errors.NotFound`.
 */
export async function nullIfMissing<T>(pending: Promise<T>): Promise<T | null> {
  try {
    return await pending;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}
