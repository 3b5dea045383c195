// The JSONL store's directory: where each session's files are, reading
// them, and writing a file so that a crash leaves the old one or the new
// one, never a mix, and never through a planted link.
import { join } from "node:path";
import { concatBytes } from "../concat_bytes.ts";
import { SessionStoreError } from "./errors.ts";
import { isSessionId } from "./ids.ts";
import { type ParsedSession, parseSession } from "./jsonl_format.ts";
import type { FileState } from "./jsonl_tree_index.ts";
import { type MigrationFence, parseFence } from "./migration_fence.ts";
import { nullIfMissing } from "./null_if_missing.ts";
import { openInPlace } from "./open_in_place.ts";
import { loadRecordSchemas } from "./record_schemas.ts";

/** What a replacement of a session file adds to its name while it writes the new one. */
const TEMP_EXTENSION = ".jsonl.tmp";

/**
 * The files of a sessions directory: `<id>.jsonl` (the lines), `<id>.meta.json`
 * (its list entry), `<id>.lock`, and the migration fence `migrated.json`.
 *
 * @example
 * ```ts
 * import { SessionFiles } from "./jsonl_files.ts";
 * const files = new SessionFiles("/sessions");
 * console.assert(files.path("0190") === "/sessions/0190.jsonl");
 * ```
 */
export class SessionFiles {
  /** The sessions directory. */
  readonly dir: string;

  /** @param dir The sessions directory. */
  constructor(dir: string) {
    this.dir = dir;
  }

  /**
   * @param id The session.
   * @returns Its lines' file.
   */
  path(id: string): string {
    return join(this.dir, `${id}.jsonl`);
  }

  /**
   * @param id The session.
   * @returns Its list entry's file.
   */
  sidecarPath(id: string): string {
    return join(this.dir, `${id}.meta.json`);
  }

  /**
   * @param id The session.
   * @returns Its lock file.
   */
  lockPath(id: string): string {
    return join(this.dir, `${id}.lock`);
  }

  /** @returns The migration fence's file. */
  fencePath(): string {
    return join(this.dir, "migrated.json");
  }

  /**
   * Creates the directory (0700) when missing.
   *
   * @throws {SessionStoreError} When it, or a folder above it, is a file.
   */
  async ensureDir(): Promise<void> {
    try {
      await Deno.mkdir(this.dir, { recursive: true, mode: 0o700 });
    } catch (error) {
      const blocked = error instanceof Deno.errors.AlreadyExists ||
        error instanceof Deno.errors.NotADirectory;
      if (blocked) throw notADirectory(this.dir);
      throw error;
    }
  }

  /**
   * Ids of the sessions with a file ending in `extension` (their lines, or
   * with `.lock`, their locks); with `temps`, the ids of `<id>.jsonl.tmp`
   * files are put there (a temp file is never a session).
   *
   * @param extension The file ending.
   * @param temps Where to put the ids of temp files.
   * @returns The ids (none when the directory is missing).
   * @throws {SessionStoreError} When the directory is a file.
   */
  async storedIds(extension = ".jsonl", temps?: string[]): Promise<string[]> {
    const ids: string[] = [];
    try {
      for await (const entry of Deno.readDir(this.dir)) {
        if (temps && entry.name.endsWith(TEMP_EXTENSION)) {
          const id = entry.name.slice(0, -TEMP_EXTENSION.length);
          if (isSessionId(id)) temps.push(id);
        }
        if (!entry.name.endsWith(extension)) continue;
        const id = entry.name.slice(0, -extension.length);
        if (isSessionId(id)) ids.push(id);
      }
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return ids;
      if (error instanceof Deno.errors.NotADirectory) throw notADirectory(this.dir);
      throw error;
    }
    return ids;
  }

  /**
   * @param id The session.
   * @returns Whether it has a file.
   */
  async exists(id: string): Promise<boolean> {
    return (await nullIfMissing(Deno.stat(this.path(id)))) !== null;
  }

  /**
   * The session file's lines, parsed.
   *
   * @param id The session.
   * @returns Them, or `null` when it has no file.
   */
  async readParsed(id: string): Promise<ParsedSession | null> {
    const bytes = await this.readBytes(id);
    return bytes && parseSession(bytes, this.path(id));
  }

  /**
   * The file's bytes, and the inode and mtime a tree index checks.
   *
   * @param id The session.
   * @returns Them, or `null` when it has no file.
   */
  async readFileState(id: string): Promise<FileState | null> {
    const bytes = await this.readBytes(id);
    if (!bytes) return null;
    // After the read: a write between the two makes the index look stale, never fresh.
    const stat = await Deno.stat(this.path(id));
    return { bytes, ino: stat.ino, mtimeMs: stat.mtime?.getTime() ?? null };
  }

  /**
   * The session file's bytes, with the record schemas loaded to decode them.
   *
   * @param id The session.
   * @returns Them, or `null` when it has no file.
   * @throws {SessionStoreError} When its path is not a regular file.
   */
  async readBytes(id: string): Promise<Uint8Array | null> {
    const path = this.path(id);
    const stat = await nullIfMissing(Deno.stat(path));
    if (!stat) return null;
    if (!stat.isFile) throw notAFile(path);
    // Every decode of a stored session's lines follows a read of them.
    await loadRecordSchemas();
    return await Deno.readFile(path);
  }

  /** @returns The directory's mtime (ms), or `null` when it is not a directory. */
  async dirMtime(): Promise<number | null> {
    const stat = await nullIfMissing(Deno.stat(this.dir)).catch(() => null);
    return stat?.isDirectory ? stat.mtime?.getTime() ?? null : null;
  }

  /**
   * Atomically puts `bytes` at `path`: temp file, fsync, rename, fsync the directory.
   *
   * @param path A file in the directory.
   * @param bytes Its new content.
   */
  async replaceFile(path: string, bytes: Uint8Array): Promise<void> {
    const temp = `${path}.tmp`;
    await writeNewFile(temp, bytes, true);
    await Deno.rename(temp, path);
    const dir = await Deno.open(this.dir, { read: true });
    try {
      await dir.sync();
    } finally {
      dir.close();
    }
  }

  /**
   * The session file just renamed into place, opened to write (never through a link).
   *
   * @param path The file.
   * @returns It, open.
   * @throws {SessionStoreError} When it is gone already.
   */
  async reopen(path: string): Promise<Deno.FsFile> {
    const file = await openInPlace(path);
    if (file) return file;
    throw new SessionStoreError(
      `Session file ${path} disappeared right after it was written: check what else writes ` +
        `to the sessions directory`,
    );
  }

  /**
   * The migration fence, or `null`.
   *
   * @returns The fence.
   * @throws {SessionStoreError} When the file is damaged.
   */
  async readFence(): Promise<MigrationFence | null> {
    const text = await nullIfMissing(Deno.readTextFile(this.fencePath())).catch(
      // No directory to hold a fence: the write that follows names the problem.
      (error) => error instanceof Deno.errors.NotADirectory ? null : Promise.reject(error),
    );
    if (text === null) return null;
    await loadRecordSchemas();
    return parseFence(text, this.fencePath());
  }
}

/**
 * Writes a file 0600 in place of whatever is at `path`: the old entry is
 * unlinked and the new one created with O_EXCL, so a symbolic link planted
 * there is replaced, never followed.
 *
 * @example
 * ```ts
 * import { writeNewFile } from "./jsonl_files.ts";
 * const dir = await Deno.makeTempDir();
 * await writeNewFile(`${dir}/a`, new Uint8Array([1]), false);
 * console.assert((await Deno.readFile(`${dir}/a`)).length === 1);
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @param path The file.
 * @param bytes Its content.
 * @param durable Whether to fsync it.
 */
export async function writeNewFile(
  path: string,
  bytes: Uint8Array,
  durable: boolean,
): Promise<void> {
  await Deno.remove(path).catch(ignoreNotFound);
  const file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
  try {
    await writeAll(file, bytes);
    if (durable) await file.sync();
  } finally {
    file.close();
  }
}

/**
 * Writes all of `bytes` at the file's position.
 *
 * @example
 * ```ts
 * import { writeAll } from "./jsonl_files.ts";
 * const path = await Deno.makeTempFile();
 * using file = await Deno.open(path, { write: true });
 * await writeAll(file, new Uint8Array(3));
 * await Deno.remove(path);
 * ```
 *
 * @param file The file.
 * @param bytes What to write.
 */
export async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await file.write(bytes.subarray(written));
}

/**
 * The format version in a session file's header line (0 when it has none).
 *
 * @example
 * ```ts
 * import { headerVersion } from "./jsonl_files.ts";
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, '{"type":"session","version":2}\n');
 * using file = await Deno.open(path);
 * console.assert(await headerVersion(file) === 2);
 * await Deno.remove(path);
 * ```
 *
 * @param file The session file, open to read.
 * @returns The version.
 */
export async function headerVersion(file: Deno.FsFile): Promise<number> {
  const chunks: Uint8Array[] = [];
  const buffer = new Uint8Array(4096);
  await file.seek(0, Deno.SeekMode.Start);
  for (let read = await file.read(buffer); read !== null; read = await file.read(buffer)) {
    const chunk = buffer.slice(0, read);
    const newline = chunk.indexOf(0x0a);
    chunks.push(newline === -1 ? chunk : chunk.subarray(0, newline));
    if (newline !== -1) break;
  }
  try {
    const version = JSON.parse(new TextDecoder().decode(concatBytes(chunks))).version;
    return typeof version === "number" ? version : 0;
  } catch {
    return 0;
  }
}

/**
 * Ignores a missing file (as `.catch(ignoreNotFound)`); any other error is thrown again.
 *
 * @example
 * ```ts
 * import { ignoreNotFound } from "./jsonl_files.ts";
 * await Deno.remove("/no/such/file").catch(ignoreNotFound);
 * ```
 *
 * @param error What the file operation threw.
 */
export function ignoreNotFound(error: unknown): void {
  if (!(error instanceof Deno.errors.NotFound)) throw error;
}

function notAFile(path: string): SessionStoreError {
  return new SessionStoreError(
    `Session file ${path} is not a regular file (a directory?): move it away`,
  );
}

function notADirectory(dir: string): SessionStoreError {
  return new SessionStoreError(
    `Sessions directory ${dir} is not a directory (it, or a folder above it, is a file)`,
  );
}
