const DECODER = new TextDecoder();

/** The first read of a file: front matter nearly always fits. */
const FIRST_CHUNK_BYTES = 4096;
/** The most read looking for the end of the front matter (a description is at most 1024 characters). */
export const MAX_HEAD_BYTES = 64 * 1024;

/** The beginning of a file, and whether the whole file was read. */
export interface FileHead {
  /** The text read (a character cut at the end shows as U+FFFD). */
  text: string;
  /** Whether the text is the whole file. */
  complete: boolean;
}

/**
 * Reads the beginning of a regular file: its first 4 KiB, and more (up to
 * {@linkcode MAX_HEAD_BYTES}) only while a front matter block opened by
 * `---` is not closed yet. Start-up reads only this much of each skill and
 * prompt template, never a whole body. Synchronous on purpose: a thousand
 * small reads finish several times faster without the async round trips.
 *
 * @param path The file.
 * @param info Its `stat` (whether it is a file, its size) when the caller has it (saves one call).
 * @returns Its beginning, or `undefined` when it is missing, unreadable or not a regular file.
 *
 * @example
 * ```ts
 * import { readHead } from "./read_head.ts";
 * const path = Deno.makeTempFileSync();
 * Deno.writeTextFileSync(path, "---\nname: x\n---\nbody");
 * console.assert(readHead(path)?.complete === true);
 * Deno.removeSync(path);
 * ```
 */
export function readHead(
  path: string,
  info?: Pick<Deno.FileInfo, "isFile" | "size">,
): FileHead | undefined {
  let file: Deno.FsFile;
  try {
    // A named pipe would block the open until a writer came.
    const stat = info ?? Deno.statSync(path);
    if (!stat.isFile) return undefined;
    // A small file in one call: the same bytes, a third of the calls.
    if (stat.size <= FIRST_CHUNK_BYTES) {
      return { text: DECODER.decode(Deno.readFileSync(path)), complete: true };
    }
    file = Deno.openSync(path);
  } catch {
    return undefined;
  }
  try {
    return readFrom(file);
  } catch {
    return undefined;
  } finally {
    file.close();
  }
}

function readFrom(file: Deno.FsFile): FileHead {
  const first = new Uint8Array(FIRST_CHUNK_BYTES);
  const length = fill(file, first, 0);
  const text = decode(first, length);
  if (length < first.length) return { text, complete: true };
  if (!needsMore(text)) return { text, complete: false };
  const more = new Uint8Array(MAX_HEAD_BYTES);
  more.set(first);
  const total = fill(file, more, length);
  return { text: decode(more, total), complete: total < more.length };
}

/** Reads into `buffer` from `from` until it is full or the file ends; gives the bytes held. */
function fill(file: Deno.FsFile, buffer: Uint8Array, from: number): number {
  let length = from;
  while (length < buffer.length) {
    const read = file.readSync(buffer.subarray(length));
    if (read === null || read === 0) break;
    length += read;
  }
  return length;
}

/** Whether an opened front matter block is still unclosed. */
function needsMore(text: string): boolean {
  return text.startsWith("---") && !/\r?\n---/.test(text.slice(3));
}

function decode(buffer: Uint8Array, length: number): string {
  return DECODER.decode(buffer.subarray(0, length));
}
