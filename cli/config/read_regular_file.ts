import { readOpenFileAtMost } from "@panto/lib/fs";
import { formatByteSize } from "./byte_size.ts";

/** Largest config, key bindings or AGENTS.md file panto reads (1 MiB). */
export const MAX_SETTINGS_FILE_BYTES: number = 1024 * 1024;

/**
 * Why a file was refused: it is not a regular file (a named pipe would hang
 * the read, `/dev/zero` would never end) or it is larger than the limit.
 */
export class FileRefusedError extends Error {
  /** Whether the path is a directory (which some callers simply skip). */
  readonly isDirectory: boolean;

  /**
   * Creates the error.
   *
   * @param message What is wrong with the file, without its path (callers add it).
   * @param isDirectory Whether the path is a directory.
   */
  constructor(message: string, isDirectory = false) {
    super(message);
    this.name = "FileRefusedError";
    this.isDirectory = isDirectory;
  }
}

/**
 * Reads a small text file, refusing anything but a regular file (symlinks
 * are followed) and files over `maxBytes`. The type is checked before the
 * file is opened, since opening a named pipe blocks until a writer comes;
 * the size is checked again while reading, for a file that grows meanwhile.
 *
 * @param path The file.
 * @param maxBytes The most bytes accepted.
 * @returns The text, or `undefined` when the file does not exist.
 * @throws {FileRefusedError} For a directory, pipe, device or socket, or a file over the limit.
 *
 * @example
 * ```ts
 * import { readRegularTextFile } from "./read_regular_file.ts";
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "{}");
 * console.assert(await readRegularTextFile(path) === "{}");
 * await Deno.remove(path);
 * ```
 */
export async function readRegularTextFile(
  path: string,
  maxBytes: number = MAX_SETTINGS_FILE_BYTES,
): Promise<string | undefined> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  checkKind(info);
  checkSize(info.size, maxBytes);
  using file = await Deno.open(path);
  checkKind(await file.stat());
  const bytes = await readOpenFileAtMost(file, maxBytes);
  checkSize(bytes.length, maxBytes);
  return new TextDecoder().decode(bytes);
}

function checkKind(info: Deno.FileInfo): void {
  if (info.isFile) return;
  throw new FileRefusedError(`is ${kindName(info)}, not a regular file`, info.isDirectory);
}

function kindName(info: Deno.FileInfo): string {
  if (info.isDirectory) return "a directory";
  if (info.isFifo) return "a named pipe (FIFO)";
  if (info.isCharDevice || info.isBlockDevice) return "a device";
  if (info.isSocket) return "a socket";
  return "an unknown kind of file";
}

function checkSize(size: number, maxBytes: number): void {
  if (size <= maxBytes) return;
  throw new FileRefusedError(`is larger than ${formatByteSize(maxBytes)}`);
}
