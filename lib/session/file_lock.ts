/**
 * An exclusive advisory lock on a file (`flock`), held until released or
 * until the process dies: the kernel drops it on a crash, so a lock can
 * never go stale. The holder writes its pid into the file so a refused
 * process can say who holds it.
 */
export class FileLock {
  #file: Deno.FsFile;

  private constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  /**
   * Takes the lock without waiting.
   *
   * @param path The lock file (created 0600 when missing).
   * @returns The lock, or `{ holder }` (the holder's pid, or `""`) when another holds it.
   */
  static async tryAcquire(path: string): Promise<FileLock | { holder: string }> {
    const file = await Deno.open(path, { read: true, write: true, create: true, mode: 0o600 });
    try {
      if (await file.tryLock(true)) {
        await file.truncate(0);
        await file.write(new TextEncoder().encode(`${Deno.pid}\n`));
        return new FileLock(file);
      }
      const holder = (await readAll(file)).trim();
      file.close();
      return { holder };
    } catch (error) {
      file.close();
      throw error;
    }
  }

  /** Releases the lock and closes the file. */
  release(): void {
    this.#file.close();
  }
}

async function readAll(file: Deno.FsFile): Promise<string> {
  const buffer = new Uint8Array(64);
  const read = await file.read(buffer);
  return new TextDecoder().decode(buffer.subarray(0, read ?? 0));
}
