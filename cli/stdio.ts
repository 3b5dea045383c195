const encoder = new TextEncoder();

function writeAll(file: { writeSync(p: Uint8Array): number }, text: string): void {
  let bytes = encoder.encode(text);
  while (bytes.length > 0) bytes = bytes.subarray(file.writeSync(bytes));
}

/**
 * Writes all of `text` to standard output (writes may be partial).
 *
 * @param text The text.
 */
export function writeStdout(text: string): void {
  writeAll(Deno.stdout, text);
}

/**
 * Writes all of `text` to standard error.
 *
 * @param text The text.
 */
export function writeStderr(text: string): void {
  writeAll(Deno.stderr, text);
}
