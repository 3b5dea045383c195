// The JSONL store's write path: a session's lock and open file (its
// writer), held while its turn runs; appending fsynced lines; creating a
// new session's file, or replacing a whole file, atomically.
import { concatBytes } from "../concat_bytes.ts";
import { SessionInUseError, SessionNotFoundError } from "./errors.ts";
import { FileLock } from "./file_lock.ts";
import { headerVersion, ignoreNotFound, type SessionFiles, writeAll } from "./jsonl_files.ts";
import {
  headerLine,
  JSONL_FORMAT_VERSION,
  messageLine,
  parseSession,
  type SessionHeader,
} from "./jsonl_format.ts";
import { requireIntact } from "./jsonl_read.ts";
import { type SessionSummaries, summarize, type Summary } from "./jsonl_summaries.ts";
import { refuseIfFenced } from "./migration_fence.ts";
import { openInPlace } from "./open_in_place.ts";
import { loadRecordSchemas } from "./record_schemas.ts";
import { foldSummary, summarizeBatch } from "./serialize.ts";
import { emptySessionInfo, type PendingSession } from "./store_common.ts";
import type { PersistentMessage, SessionInfo } from "./types.ts";

/** An open session file this store writes, with its lock held. */
export interface Writer {
  /** The session's lock. */
  lock: FileLock;
  /** Its file, or `null` before the first write creates it. */
  file: Deno.FsFile | null;
  /** Bytes known good: the next append goes here. */
  size: number;
  /** Its list entry as written so far. */
  summary: SessionInfo;
}

/** How a session is opened for a write other than a turn's. */
export interface WriterOptions {
  /** Open the file as it is: no torn line truncated, nothing checked (repair, delete). */
  asIs?: boolean;
  /** Whether the write may go on in a fenced store (default: it may not). */
  pastFence?: () => Promise<boolean>;
}

const encoder = new TextEncoder();

/**
 * The sessions a JSONL store writes: each one's writer, kept while its
 * turn runs (its state is `running`) and let go when it is idle again.
 * The migration fence is read only with a session's lock held.
 *
 * @example
 * ```ts ignore
 * import { SessionWriters } from "./jsonl_writer.ts";
 * const writers = new SessionWriters(files, summaries, pending);
 * await writers.turnWrite(id, (writer) => writers.append(id, writer, messages));
 * ```
 */
export class SessionWriters {
  readonly #files: SessionFiles;
  readonly #summaries: SessionSummaries;
  readonly #pending: Map<string, PendingSession>;
  readonly #writers = new Map<string, Writer>();

  /**
   * @param files The sessions directory.
   * @param summaries Its list entries (a write updates the sidecar).
   * @param pending The store's sessions not written yet (a first write creates the file).
   */
  constructor(
    files: SessionFiles,
    summaries: SessionSummaries,
    pending: Map<string, PendingSession>,
  ) {
    this.#files = files;
    this.#summaries = summaries;
    this.#pending = pending;
  }

  /**
   * @param id The session.
   * @returns Its writer, when this store holds it.
   */
  get(id: string): Writer | undefined {
    return this.#writers.get(id);
  }

  /**
   * The list entry of a session this store has a file open for.
   *
   * @param id The session.
   * @returns A copy of it, or `null`.
   */
  openSummary(id: string): Summary | null {
    const writer = this.#writers.get(id);
    if (!writer?.file) return null;
    return { info: structuredClone(writer.summary), size: writer.size, mtimeMs: 0 };
  }

  /**
   * Runs a write of the session's turn with its writer. The fence is read
   * only once the lock is held (taken now, or held since the turn began), so
   * a write either lands before a migration's `drainWriters` finds the lock
   * free, or reads the fence and is refused. The lock is let go when the
   * session is idle again, and when the fence refused the write: the turn
   * cannot go on in this store, and the migration is waiting for the lock.
   *
   * @param id The session.
   * @param write The write.
   * @throws {SessionInUseError} When another writer holds the session.
   * @throws {SessionStoreMigratedError} When the store is fenced.
   */
  async turnWrite(id: string, write: (writer: Writer) => Promise<void>): Promise<void> {
    const writer = this.#writers.get(id) ?? await this.#open(id);
    this.#writers.set(id, writer);
    let refused = true;
    try {
      await this.#refuseIfFenced();
      refused = false;
      await write(writer);
    } finally {
      // Between turns the session is free, and this store holds no descriptors for it.
      if (refused || writer.summary.state?.status !== "running") this.drop(id);
    }
  }

  /**
   * Runs `task` with the session's writer, releasing the lock after unless an
   * append holds it; the fence is read with the lock held, as for a turn's writes.
   *
   * @param id The session.
   * @param task What to do.
   * @param options How to open it, and whether a fence allows it.
   * @returns What `task` returns.
   * @throws {SessionNotFoundError} When the session has no file.
   */
  async withWriter<T>(
    id: string,
    task: (writer: Writer) => Promise<T>,
    options: WriterOptions = {},
  ): Promise<T> {
    const cached = this.#writers.get(id);
    if (!await this.#files.exists(id)) throw new SessionNotFoundError(id, this.#files.dir);
    const writer = cached ?? await this.#open(id, !options.asIs);
    try {
      const fence = await this.#files.readFence();
      if (fence && !await options.pastFence?.()) refuseIfFenced(this.#files.dir, fence);
      return await task(writer);
    } finally {
      if (!cached) {
        writer.file?.close();
        writer.lock.release();
      }
    }
  }

  /**
   * Closes the session's file and releases its lock, if this store holds them.
   *
   * @param id The session.
   */
  drop(id: string): void {
    const writer = this.#writers.get(id);
    this.#writers.delete(id);
    writer?.file?.close();
    writer?.lock.release();
  }

  /** Closes every file and releases every lock this store holds. */
  dropAll(): void {
    for (const id of [...this.#writers.keys()]) this.drop(id);
  }

  /**
   * Appends message lines and updates the session's list entry and sidecar.
   *
   * @param id The session.
   * @param writer Its writer.
   * @param messages The messages.
   * @param timestamp When they count as written.
   * @param whole Whether the file with the lines added replaces the old one atomically.
   */
  async append(
    id: string,
    writer: Writer,
    messages: readonly PersistentMessage[],
    timestamp = new Date().toISOString(),
    whole = false,
  ): Promise<void> {
    const lines = messages.map((entry) => messageLine(entry, timestamp)).join("");
    await this.write(id, writer, lines, whole);
    const batch = summarizeBatch(messages, {
      state: writer.summary.state,
      count: writer.summary.messageCount,
    });
    writer.summary.messageCount += messages.length;
    writer.summary.modified = timestamp;
    foldSummary(writer.summary, batch);
    await this.saveSidecar(id, writer);
  }

  /**
   * Leaves only the session's header (its name kept).
   *
   * @param id The session.
   * @param writer Its writer.
   */
  async rewrite(id: string, writer: Writer): Promise<void> {
    await loadRecordSchemas();
    const path = this.#files.path(id);
    let header = newHeader(id, this.#pending.get(id) ?? { created: writer.summary.created });
    if (writer.file) {
      const parsed = parseSession(await Deno.readFile(path), path);
      header = { ...requireIntact(parsed, path, id), version: JSONL_FORMAT_VERSION };
      if (parsed.name) header.name = parsed.name;
      else delete header.name;
    }
    const bytes = encoder.encode(headerLine(header));
    await this.#files.replaceFile(path, bytes);
    writer.file?.close();
    writer.file = await this.#files.reopen(path);
    writer.size = bytes.length;
    writer.summary = summarize(id, parseSession(bytes, path));
    this.#pending.delete(id);
    await this.saveSidecar(id, writer);
  }

  /**
   * Writes `text` at the writer's end and fsyncs; a new session's file is
   * created atomically, and so, when `whole`, is the file with `text` added
   * (all of it or none after a crash).
   *
   * @param id The session.
   * @param writer Its writer.
   * @param text Whole lines.
   * @param whole Whether to replace the file rather than append to it.
   */
  async write(id: string, writer: Writer, text: string, whole = false): Promise<void> {
    const path = this.#files.path(id);
    if (whole && writer.file !== null) {
      const kept = (await Deno.readFile(path)).subarray(0, writer.size);
      const bytes = concatBytes([kept, encoder.encode(text)]);
      await this.#files.replaceFile(path, bytes);
      writer.file.close();
      writer.file = await this.#files.reopen(path);
      writer.size = bytes.length;
      return;
    }
    if (writer.file === null) {
      const header = headerLine(
        newHeader(id, this.#pending.get(id) ?? { created: writer.summary.created }),
      );
      const bytes = encoder.encode(header + text);
      await this.#files.replaceFile(path, bytes);
      writer.file = await this.#files.reopen(path);
      writer.size = bytes.length;
      this.#pending.delete(id);
      return;
    }
    const bytes = encoder.encode(text);
    try {
      await writer.file.seek(writer.size, Deno.SeekMode.Start);
      await writeAll(writer.file, bytes);
      await writer.file.syncData();
    } catch (error) {
      // Leave no partial line behind for the next append to build on.
      await writer.file.truncate(writer.size).catch(() => {});
      throw error;
    }
    writer.size += bytes.length;
  }

  /**
   * Writes the session's sidecar from its writer (best effort).
   *
   * @param id The session.
   * @param writer Its writer.
   */
  saveSidecar(id: string, writer: Writer): Promise<void> {
    return this.#summaries.saveOpen(id, writer.file, writer.summary);
  }

  async #refuseIfFenced(): Promise<void> {
    refuseIfFenced(this.#files.dir, await this.#files.readFence());
  }

  /**
   * Takes the session's lock and opens its file, truncating a torn last line.
   * With `verify` off (for repair) the file is opened as it is.
   */
  async #open(id: string, verify = true): Promise<Writer> {
    await this.#files.ensureDir();
    const lock = await FileLock.tryAcquire(this.#files.lockPath(id));
    if (!(lock instanceof FileLock)) {
      // A fenced store would refuse the write anyway: say where sessions went.
      await this.#refuseIfFenced();
      throw new SessionInUseError(id, lock.holder);
    }
    let file: Deno.FsFile | null = null;
    try {
      const path = this.#files.path(id);
      // Left by a write cut off before its rename; with the lock held, no write is making it.
      await Deno.remove(`${path}.tmp`).catch(ignoreNotFound);
      file = await openInPlace(path);
      if (!file) return { lock, file: null, size: 0, summary: this.#pendingInfo(id) };
      const stat = await file.stat();
      await loadRecordSchemas();
      const sidecar = await this.#summaries.sidecarText(id);
      const fresh = this.#summaries.freshSidecar(id, stat, sidecar);
      if (fresh && await headerVersion(file) === JSONL_FORMAT_VERSION) {
        return { lock, file, size: fresh.size, summary: fresh.info };
      }
      if (!verify) return { lock, file, size: stat.size, summary: this.#pendingInfo(id) };
      const bytes = await Deno.readFile(path);
      const parsed = parseSession(bytes, path);
      const header = requireIntact(parsed, path, id);
      if (header.version < JSONL_FORMAT_VERSION) {
        // Migrated on the first write: the header says version 2 (so an older
        // panto refuses the file rather than misread a tree); the lines stay.
        const upgraded = concatBytes([
          encoder.encode(headerLine({ ...header, version: JSONL_FORMAT_VERSION })),
          bytes.subarray(parsed.goodLines[0]?.[1] ?? 0, parsed.validEnd),
        ]);
        await this.#files.replaceFile(path, upgraded);
        file.close();
        file = await this.#files.reopen(path);
        return { lock, file, size: upgraded.length, summary: summarize(id, parsed) };
      }
      if (parsed.validEnd < stat.size) {
        await file.truncate(parsed.validEnd);
        await file.syncData();
      }
      return { lock, file, size: parsed.validEnd, summary: summarize(id, parsed) };
    } catch (error) {
      file?.close();
      lock.release();
      throw error;
    }
  }

  #pendingInfo(id: string): SessionInfo {
    const pending = this.#pending.get(id);
    const info = emptySessionInfo(id, pending?.created ?? new Date().toISOString());
    if (pending?.cwd !== undefined) info.cwd = pending.cwd;
    if (pending?.ownerId !== undefined) info.ownerId = pending.ownerId;
    if (pending?.parentSessionId !== undefined) info.parentSessionId = pending.parentSessionId;
    if (pending?.name) info.name = pending.name;
    return info;
  }
}

/**
 * The header line's record of a session's first write.
 *
 * @example
 * ```ts
 * import { newHeader } from "./jsonl_writer.ts";
 * const header = newHeader("s", { created: "2026-01-01T00:00:00.000Z", cwd: "/w" });
 * console.assert(header.type === "session" && header.cwd === "/w");
 * ```
 *
 * @param id The session.
 * @param pending What `create` was told.
 * @returns The header.
 */
export function newHeader(id: string, pending: PendingSession): SessionHeader {
  const header: SessionHeader = {
    type: "session",
    version: JSONL_FORMAT_VERSION,
    id,
    created: pending.created,
  };
  if (pending.cwd !== undefined) header.cwd = pending.cwd;
  if (pending.metadata !== undefined) header.metadata = pending.metadata;
  if (pending.name) header.name = pending.name;
  if (pending.ownerId !== undefined) header.ownerId = pending.ownerId;
  if (pending.parentSessionId !== undefined) header.parentSessionId = pending.parentSessionId;
  return header;
}
