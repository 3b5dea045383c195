import { type SessionHolder, SessionStoreError } from "./errors.ts";
import { parseHolder } from "./lock_holder.ts";
import { nullIfMissing } from "./null_if_missing.ts";

/** Attempts at opening a lock file that another process creates or removes meanwhile. */
const OPEN_ATTEMPTS = 3;

/**
 * An exclusive advisory lock on a file (`flock`), held until released or
 * until the process dies: the kernel drops it on a crash, so a lock can
 * never go stale. The holder writes its pid and the time into the file so a
 * refused process can say who holds it, and since when.
 */
export class FileLock {
  #file: Deno.FsFile;

  private constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  /**
   * Takes the lock without waiting. The lock file is never followed through
   * a symbolic link: one planted at `path` is refused, so the file it points
   * at is neither created nor written.
   *
   * @param path The lock file (created 0600 when missing).
   * @returns The lock, or `{ holder }` (what the lock file says) when another holds it.
   * @throws {SessionStoreError} When `path` is a symbolic link or not a regular file.
   */
  static async tryAcquire(path: string): Promise<FileLock | { holder: SessionHolder }> {
    const file = await openLockFile(path);
    try {
      if (await tryLockPatiently(file)) {
        await file.truncate(0);
        await file.write(new TextEncoder().encode(`${Deno.pid} ${new Date().toISOString()}\n`));
        return new FileLock(file);
      }
      const holder = parseHolder(await readAll(file));
      file.close();
      return { holder };
    } catch (error) {
      file.close();
      throw error;
    }
  }

  /**
   * Releases the lock and closes the file. The unlock comes first because
   * closing alone drops the lock only when the last descriptor of the open
   * file goes, and the runtime's thread pool may still hold a copy for a
   * moment after an async operation (seen on a saturated machine: the next
   * writer in this very process was refused).
   */
  release(): void {
    try {
      this.#file.unlockSync();
    } finally {
      this.#file.close();
    }
  }

  /**
   * Whether some writer holds the lock, asked without taking it: a shared
   * lock is tried for an instant and let go (a writer that asks meanwhile
   * waits a moment rather than failing, see `tryAcquire`).
   *
   * @param path The lock file.
   * @returns True when a writer holds it; false when nobody does or there is no lock file.
   */
  static async isHeld(path: string): Promise<boolean> {
    const info = await nullIfMissing(Deno.lstat(path));
    if (!info?.isFile) return false;
    const file = await nullIfMissing(Deno.open(path, { read: true }));
    if (!file) return false;
    try {
      const locked = await file.tryLock(false);
      if (locked) file.unlockSync();
      return !locked;
    } finally {
      file.close();
    }
  }
}

/**
 * How long a writer retries a lock that a prober (`isHeld`) may hold for an
 * instant. The instant lasts until the prober's event loop runs again, which
 * on a saturated machine can be tens of milliseconds; a real holder is
 * reported after this, so it stays short of anything a user would notice.
 */
const LOCK_PATIENCE_MS = 250;
const LOCK_FIRST_RETRY_MS = 5;

async function tryLockPatiently(file: Deno.FsFile): Promise<boolean> {
  const deadline = Date.now() + LOCK_PATIENCE_MS;
  for (let wait = LOCK_FIRST_RETRY_MS;; wait *= 2) {
    if (await file.tryLock(true)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/**
 * Opens the lock file without following a symbolic link (Deno has no
 * O_NOFOLLOW): a missing file is created with O_EXCL, which never follows
 * one; an existing file is opened without create or truncate, then must be
 * the very file (device and inode) that the path names, not through a link.
 */
async function openLockFile(path: string): Promise<Deno.FsFile> {
  for (let attempt = 0; attempt < OPEN_ATTEMPTS; attempt++) {
    const file = await tryOpenLockFile(path);
    if (file) return file;
  }
  throw new SessionStoreError(
    `Session lock file ${path} kept changing while it was opened: ` +
      `check what else writes to the sessions directory`,
  );
}

/** The open lock file, or `null` when another process created or replaced it meanwhile. */
async function tryOpenLockFile(path: string): Promise<Deno.FsFile | null> {
  const before = await nullIfMissing(Deno.lstat(path));
  if (before) checkRegular(path, before);
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, {
      read: true,
      write: true,
      ...(before ? {} : { createNew: true, mode: 0o600 }),
    });
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists || error instanceof Deno.errors.NotFound) {
      return null;
    }
    throw error;
  }
  try {
    if (await isFileAtPath(file, path)) return file;
  } catch (error) {
    file.close();
    throw error;
  }
  file.close();
  return null;
}

async function isFileAtPath(file: Deno.FsFile, path: string): Promise<boolean> {
  const opened = await file.stat();
  const atPath = await nullIfMissing(Deno.lstat(path));
  if (!atPath) return false;
  checkRegular(path, atPath);
  return opened.dev === atPath.dev && opened.ino === atPath.ino;
}

function checkRegular(path: string, info: Deno.FileInfo): void {
  if (!info.isFile || info.isSymlink) throw notRegular(path);
}

function notRegular(path: string): SessionStoreError {
  return new SessionStoreError(
    `Session lock file ${path} is a symbolic link or not a regular file, so it was not ` +
      `opened: remove it (a lock file holds only the pid of the process writing the session)`,
  );
}

async function readAll(file: Deno.FsFile): Promise<string> {
  const buffer = new Uint8Array(64);
  const read = await file.read(buffer);
  return new TextDecoder().decode(buffer.subarray(0, read ?? 0));
}
