/**
 * Synchronous writes to stdout, hiding `Deno.stdout.writeSync`.
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * Writes all of `data` to stdout, looping because `writeSync` may write
 * only part of a buffer.
 *
 * @example
 * ```ts ignore
 * import { writeStdout } from "./stdout.ts";
 * writeStdout("hello\n");
 * ```
 */
export function writeStdout(data: string): void {
  let bytes = encoder.encode(data);
  while (bytes.length > 0) {
    const written = Deno.stdout.writeSync(bytes);
    bytes = bytes.subarray(written);
  }
}
