/** Bytes read at a time: small files cost a small buffer. */
const CHUNK_BYTES = 64 * 1024;

/**
 * A file's bytes up to `maxBytes` and one more: a result longer than
 * `maxBytes` means the file is larger (however much it grew since it was
 * measured, no more is read).
 *
 * @param path The file.
 * @param maxBytes The most bytes wanted.
 * @returns The bytes, `maxBytes + 1` of them when there are more.
 *
 * @example
 * ```ts
 * import { readAtMost } from "./read_at_most.ts";
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "hello");
 * console.assert((await readAtMost(path, 5)).length === 5);
 * console.assert((await readAtMost(path, 3)).length === 4);
 * await Deno.remove(path);
 * ```
 */
export async function readAtMost(path: string, maxBytes: number): Promise<Uint8Array> {
  using file = await Deno.open(path);
  return await readOpenFileAtMost(file, maxBytes);
}

/**
 * {@linkcode readAtMost} for a file already open (the caller closes it),
 * read from its current position.
 *
 * @param file An open file.
 * @param maxBytes The most bytes wanted.
 * @returns The bytes, `maxBytes + 1` of them when there are more.
 */
export async function readOpenFileAtMost(file: Deno.FsFile, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  while (length <= maxBytes) {
    const chunk = new Uint8Array(Math.min(CHUNK_BYTES, maxBytes + 1 - length));
    const read = await file.read(chunk);
    if (read === null) break;
    chunks.push(chunk.subarray(0, read));
    length += read;
  }
  return joinBytes(chunks);
}

/**
 * Chunks read in turn, as one array (the chunk itself when there is one).
 *
 * @example
 * ```ts
 * import { joinBytes } from "./read_at_most.ts";
 * console.assert(joinBytes([new Uint8Array([1, 2]), new Uint8Array([3])]).join() === "1,2,3");
 * ```
 *
 * @param chunks The chunks, in order.
 * @returns Their bytes.
 */
export function joinBytes(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}
