// Opening a session file to write it without following a symbolic link
// planted at its path. Deno has no O_NOFOLLOW, so as for the lock files
// (file_lock.ts): the path is lstat'ed, the file opened without create or
// truncate, and the open file must be the very file (device and inode) that
// lstat then finds at the path.
import { SessionStoreError } from "./errors.ts";
import { nullIfMissing } from "./null_if_missing.ts";

/**
 * Opens an existing session file for reading and writing, never through a
 * symbolic link.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { openInPlace } from "./open_in_place.ts";
 * const dir = await Deno.makeTempDir();
 * const path = join(dir, "a.jsonl");
 * console.assert(await openInPlace(path) === null);
 * await Deno.writeTextFile(path, "{}\n");
 * (await openInPlace(path))?.close();
 * await Deno.symlink(path, join(dir, "b.jsonl"));
 * await openInPlace(join(dir, "b.jsonl")).then(() => {
 *   throw new Error("a link was followed");
 * }, () => {});
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @param path The session file.
 * @returns The open file, or `null` when nothing is at `path`.
 * @throws {SessionStoreError} When `path` is a symbolic link or not a
 *   regular file, or another file took its place while it was opened.
 */
export async function openInPlace(path: string): Promise<Deno.FsFile | null> {
  const before = await nullIfMissing(Deno.lstat(path));
  if (!before) return null;
  checkRegular(path, before);
  const file = await nullIfMissing(Deno.open(path, { read: true, write: true }));
  if (!file) return null;
  try {
    const opened = await file.stat();
    const after = await nullIfMissing(Deno.lstat(path));
    if (after) checkRegular(path, after);
    if (after?.dev === opened.dev && after.ino === opened.ino) return file;
    throw new SessionStoreError(
      `Session file ${path} was replaced while it was opened for writing, so it was not ` +
        `written: check what else writes to the sessions directory`,
    );
  } catch (error) {
    file.close();
    throw error;
  }
}

function checkRegular(path: string, info: Deno.FileInfo): void {
  if (info.isSymlink) {
    throw new SessionStoreError(
      `Session file ${path} is a symbolic link, so it was not written (panto writes session ` +
        `files only in place, never through a link): remove the link, or move the file it ` +
        `points to into its place`,
    );
  }
  if (!info.isFile) {
    throw new SessionStoreError(
      `Session file ${path} is not a regular file (a directory?): move it away`,
    );
  }
}
