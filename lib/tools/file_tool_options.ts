/** Where the file tools may work. */
export interface FileToolOptions {
  /** The working directory paths are resolved against and confined to. */
  root: string;
  /** Other directories the config allows (`tools.allowedPaths`). */
  allowedRoots?: readonly string[];
  /**
   * Directories that may be read but not written (the skills' directories,
   * whose `SKILL.md` the model reads), even inside panto's home.
   */
  readRoots?: readonly string[];
  /**
   * panto's home (`$PANTO_HOME`): never read or written by the tools, even
   * when inside the working directory or an allowed directory.
   */
  pantoHome?: string;
}

/**
 * The error message for a path that is neither a file nor a directory (a
 * named pipe, socket or device), which the file tools refuse: opening a pipe
 * waits for the other end forever.
 *
 * @param shown The path as the model gave it.
 * @returns The message.
 *
 * @example
 * ```ts
 * import { notRegularFile } from "./file_tool_options.ts";
 * console.assert(notRegularFile("fifo").startsWith("fifo is not a regular file"));
 * ```
 */
export function notRegularFile(shown: string): string {
  return `${shown} is not a regular file (it is a pipe, socket or device): use a regular file`;
}
