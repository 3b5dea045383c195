import { join } from "node:path";
import { SessionInUseError } from "./errors.ts";
import { FileLock } from "./file_lock.ts";

/**
 * One writer per session for a store whose database several processes
 * share: a `<id>.lock` file lock per session in `dir`, taken at the first
 * write and held until released, as the JSONL store does. With `dir`
 * `null` (an in-memory database, which no other process can open) nothing
 * is locked.
 */
export class SessionLocks {
  readonly #dir: string | null;
  #held = new Map<string, Promise<FileLock | null>>();

  /**
   * @param dir Where the lock files go (created 0700), or `null` for none.
   */
  constructor(dir: string | null) {
    this.#dir = dir;
  }

  /**
   * Takes the session's lock until {@linkcode SessionLocks.release} (a
   * no-op when this store already holds it).
   *
   * @param id The session.
   * @throws {SessionInUseError} Naming the holder, when another writer has it.
   */
  async hold(id: string): Promise<void> {
    let taking = this.#held.get(id);
    if (!taking) {
      taking = this.#acquire(id);
      this.#held.set(id, taking);
      taking.catch(() => this.#held.delete(id));
    }
    await taking;
  }

  /**
   * Runs `task` holding the session's lock: the store's own if it holds
   * it, else one taken for the task's duration.
   *
   * @param id The session.
   * @param task What to do.
   * @returns What `task` returns.
   * @throws {SessionInUseError} When another writer holds the session.
   */
  async with<T>(id: string, task: () => Promise<T> | T): Promise<T> {
    if (this.#held.has(id)) {
      await this.#held.get(id);
      return await task();
    }
    const lock = await this.#acquire(id);
    try {
      return await task();
    } finally {
      lock?.release();
    }
  }

  /**
   * Releases the session's lock, if held.
   *
   * @param id The session.
   */
  async release(id: string): Promise<void> {
    const taking = this.#held.get(id);
    this.#held.delete(id);
    (await taking?.catch(() => null))?.release();
  }

  /**
   * Whether a writer holds the session: this store, or another (asked
   * without taking the lock).
   *
   * @param id The session.
   * @returns True when held.
   */
  async isHeld(id: string): Promise<boolean> {
    if (this.#held.has(id)) return true;
    return this.#dir !== null && await FileLock.isHeld(this.#path(id));
  }

  /** Releases every lock. */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.#held.keys()].map((id) => this.release(id)));
  }

  /**
   * Removes a deleted session's lock file (while its lock is held, so no
   * other process takes the old file meanwhile).
   *
   * @param id The session.
   */
  async removeFile(id: string): Promise<void> {
    if (this.#dir === null) return;
    await Deno.remove(this.#path(id)).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  }

  async #acquire(id: string): Promise<FileLock | null> {
    if (this.#dir === null) return null;
    await Deno.mkdir(this.#dir, { recursive: true, mode: 0o700 });
    const lock = await FileLock.tryAcquire(this.#path(id));
    if (!(lock instanceof FileLock)) throw new SessionInUseError(id, lock.holder);
    return lock;
  }

  #path(id: string): string {
    return join(this.#dir!, `${id}.lock`);
  }
}
