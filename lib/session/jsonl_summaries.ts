// The JSONL store's list entries: each session's sidecar `<id>.meta.json`
// (its summary, trusted while the file keeps its size and mtime), the
// directory's list index over all of them, and a summary read from the
// lines when neither is fresh.
import { errorMessage } from "../error_message.ts";
import { SessionCorruptError } from "./errors.ts";
import { FileLock } from "./file_lock.ts";
import { ignoreNotFound, type SessionFiles, writeNewFile } from "./jsonl_files.ts";
import type { ParsedSession } from "./jsonl_format.ts";
import { indexDir, readListIndex, writeListIndex } from "./jsonl_list_index.ts";
import { nullIfMissing } from "./null_if_missing.ts";
import { loadRecordSchemas, recordSchemas } from "./record_schemas.ts";
import { summarizeBatch } from "./serialize.ts";
import { emptySessionInfo } from "./store_common.ts";
import type { SessionInfo } from "./types.ts";

/** The sidecar `<id>.meta.json`: the list entry of a session file of a given size and mtime. */
export interface Summary {
  /** The list entry. */
  info: SessionInfo;
  /** The file's size it was made from. */
  size: number;
  /** The file's mtime it was made from (ms). */
  mtimeMs: number;
}

/**
 * Version 2 adds the state and owner, 3 the first prompt: older sidecars
 * are rebuilt from their files once.
 */
const SIDECAR_VERSION = 3;
/** How many sessions are read, or probed, at once. */
export const LIST_CONCURRENCY = 32;
const encoder = new TextEncoder();

/**
 * The list entries of a sessions directory's sessions.
 *
 * @example
 * ```ts
 * import { SessionFiles } from "./jsonl_files.ts";
 * import { SessionSummaries } from "./jsonl_summaries.ts";
 * const summaries = new SessionSummaries(new SessionFiles("/no/such/dir"), () => null);
 * console.assert((await summaries.list()).size === 0);
 * ```
 */
export class SessionSummaries {
  readonly #files: SessionFiles;
  readonly #written: (id: string) => Summary | null;

  /**
   * @param files The sessions directory.
   * @param written The summary of a session this store has open to write (`null`: none).
   */
  constructor(files: SessionFiles, written: (id: string) => Summary | null) {
    this.#files = files;
    this.#written = written;
  }

  /**
   * A stored session's list entry: this store's own for a session it
   * writes, else its fresh sidecar, else read from its file (and the
   * sidecar written when the file is intact). A session that cannot be
   * read is listed with the reason.
   *
   * @param id The session.
   * @returns The entry, or `null` when it has no file.
   */
  async summary(id: string): Promise<Summary | null> {
    const written = this.#written(id);
    if (written) return written;
    // Both at once: listing thousands of sessions waits on these two reads per session.
    const [stat, text] = await Promise.all([
      nullIfMissing(Deno.stat(this.#files.path(id))),
      this.sidecarText(id),
    ]);
    if (!stat) return null;
    const mtimeMs = stat.mtime?.getTime() ?? 0;
    if (!stat.isFile) return unreadable(id, stat, "not a regular file (a directory?)");
    await loadRecordSchemas();
    const fresh = this.freshSidecar(id, stat, text);
    if (fresh) return fresh;
    let parsed: ParsedSession | null;
    try {
      parsed = await this.#files.readParsed(id);
    } catch (error) {
      const reason = error instanceof SessionCorruptError ? error.reason : errorMessage(error);
      return unreadable(id, stat, reason);
    }
    if (!parsed) return null;
    const summary = {
      info: summarize(id, parsed, new Date(mtimeMs).toISOString()),
      size: stat.size,
      mtimeMs,
    };
    // Only an intact file gets a sidecar: a writer trusts a fresh sidecar's
    // size as the end of the good lines, and must not append after a torn
    // line (the new line would merge with it) or past damage unchecked.
    const intact = parsed.header !== null && parsed.problems.length === 0 && !parsed.torn;
    if (intact) await this.save(id, summary).catch(() => {});
    return summary;
  }

  /**
   * Every stored session's summary: from the list index alone when the
   * directory has not changed since it was built; else each file is
   * checked against its index entry (one stat), the changed ones are read
   * from their sidecars or files, and the index is written again.
   *
   * @returns The summaries, by id.
   */
  async list(): Promise<Map<string, Summary>> {
    const dir = this.#files.dir;
    const index = await readListIndex(dir);
    const unchanged = index !== null && index.dirMtimeMs !== null &&
      index.dirMtimeMs === await this.#files.dirMtime();
    if (unchanged) {
      const summaries = new Map(Object.entries(index.sessions));
      await this.#readInto(summaries, [...summaries.keys()].filter(unreadableIn(summaries)));
      return summaries;
    }
    // Made before the directory's mtime is read: making it changes that mtime.
    await Deno.mkdir(indexDir(dir), { mode: 0o700 }).catch(() => {});
    const dirMtimeMs = await this.#files.dirMtime();
    const summaries = new Map<string, Summary>();
    const changed: string[] = [];
    const indexed = new Map(Object.entries(index?.sessions ?? {}));
    const temps: string[] = [];
    for (const id of await this.#files.storedIds(".jsonl", temps)) {
      const entry = indexed.get(id);
      const fresh = entry && !unreadableIn(indexed)(id) && this.#describes(id, entry);
      if (fresh) summaries.set(id, entry);
      else changed.push(id);
    }
    await this.#readInto(summaries, changed);
    // Sessions unreadable before and still are need no new index.
    const stillUnreadable = (id: string) =>
      unreadableIn(indexed)(id) && unreadableIn(summaries)(id);
    if (!changed.every(stillUnreadable) || index?.dirMtimeMs !== dirMtimeMs) {
      await writeListIndex(dir, { dirMtimeMs, sessions: Object.fromEntries(summaries) });
    }
    await this.#removeLeftoverTemps(temps);
    return summaries;
  }

  /**
   * Writes the sidecar of a session file this store has open, from its
   * size and mtime now. Best effort: the lines are already durable, so a
   * failure here must not fail the append (the caller would write them
   * again). A sidecar left stale is rebuilt by the next reader.
   *
   * @param id The session.
   * @param file Its open file (`null`: not written yet, so no sidecar).
   * @param info Its list entry.
   */
  async saveOpen(id: string, file: Deno.FsFile | null, info: SessionInfo): Promise<void> {
    if (!file) return;
    try {
      const { size, mtime } = await file.stat();
      await this.save(id, { info, size, mtimeMs: mtime?.getTime() ?? 0 });
    } catch {
      // Stale or missing sidecars are rebuilt from the file.
    }
  }

  /**
   * Sidecars are a cache, written without fsync: a reader that sees a
   * half-written, stale or missing one rebuilds the summary from the file.
   *
   * @param id The session.
   * @param summary Its summary.
   */
  async save(id: string, summary: Summary): Promise<void> {
    const body = JSON.stringify({ version: SIDECAR_VERSION, ...summary });
    await writeNewFile(this.#files.sidecarPath(id), encoder.encode(body), false);
  }

  /**
   * @param id The session.
   * @returns The sidecar's text, or `null` when there is none to read.
   */
  sidecarText(id: string): Promise<string | null> {
    return Deno.readTextFile(this.#files.sidecarPath(id)).catch(() => null);
  }

  /**
   * The sidecar's summary when it describes the file as it is now (the
   * record schemas loaded).
   *
   * @param id The session.
   * @param stat The file's stat now.
   * @param text The sidecar's text.
   * @returns The summary, or `null`.
   */
  freshSidecar(id: string, stat: Deno.FileInfo, text: string | null): Summary | null {
    if (text === null) return null;
    try {
      const sidecar = recordSchemas().sidecarSchema.parse(JSON.parse(text));
      if (sidecar.version !== SIDECAR_VERSION) return null;
      const fresh = sidecar.size === stat.size && sidecar.mtimeMs === (stat.mtime?.getTime() ?? 0);
      return fresh && sidecar.info.id === id ? sidecar : null;
    } catch {
      return null;
    }
  }

  /**
   * Removes the `<id>.jsonl.tmp` files left by writes cut off before their
   * rename (a kill -9 in a `replaceConversation` or a first write), each
   * with its session's lock taken, so a write in progress keeps its own.
   * Best effort: a list never fails over a temp file.
   */
  async #removeLeftoverTemps(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      try {
        const lock = await FileLock.tryAcquire(this.#files.lockPath(id));
        if (!(lock instanceof FileLock)) continue;
        try {
          await Deno.remove(`${this.#files.path(id)}.tmp`).catch(ignoreNotFound);
        } finally {
          lock.release();
        }
      } catch {
        // Left for the session's next writer, which removes it under its lock.
      }
    }
  }

  /** Reads the summaries of `ids` into `summaries` (dropping those with no file any more). */
  async #readInto(summaries: Map<string, Summary>, ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += LIST_CONCURRENCY) {
      const batch = ids.slice(i, i + LIST_CONCURRENCY);
      const read = await Promise.all(batch.map((id) => this.summary(id)));
      read.forEach((summary, k) => {
        if (summary) summaries.set(batch[k]!, summary);
        else summaries.delete(batch[k]!);
      });
    }
  }

  /** Whether the index entry was made from the session file as it is now. */
  #describes(id: string, entry: Summary): boolean {
    try {
      // One synchronous stat per session: thousands of them, each an await, cost more.
      const stat = Deno.statSync(this.#files.path(id));
      return stat.isFile && stat.size === entry.size &&
        (stat.mtime?.getTime() ?? 0) === entry.mtimeMs;
    } catch {
      return false;
    }
  }
}

/**
 * A session's list entry from its parsed lines.
 *
 * @example
 * ```ts
 * import { summarize } from "./jsonl_summaries.ts";
 * import { parseSession } from "./jsonl_format.ts";
 * import { loadRecordSchemas } from "./record_schemas.ts";
 * await loadRecordSchemas();
 * const header = '{"type":"session","version":2,"id":"s","created":"2026-01-01T00:00:00.000Z"}\n';
 * const info = summarize("s", parseSession(new TextEncoder().encode(header), "s.jsonl"));
 * console.assert(info.messageCount === 0 && info.created === "2026-01-01T00:00:00.000Z");
 * ```
 *
 * @param id The session.
 * @param parsed Its lines.
 * @param fallbackCreated Its creation time when neither a header nor a message says.
 * @returns The entry.
 */
export function summarize(id: string, parsed: ParsedSession, fallbackCreated = ""): SessionInfo {
  const created = parsed.header?.created ?? parsed.messages[0]?.timestamp ?? fallbackCreated;
  const batch = summarizeBatch(parsed.messages);
  const info: SessionInfo = {
    id,
    created,
    modified: parsed.messages.at(-1)?.timestamp ?? created,
    messageCount: parsed.messages.length,
    lastUserMessage: batch.lastUserMessage ?? "",
  };
  if (batch.firstUserMessage !== undefined) info.firstUserMessage = batch.firstUserMessage;
  if (parsed.name) info.name = parsed.name;
  if (batch.wire) info.wire = batch.wire;
  if (parsed.header?.cwd !== undefined) info.cwd = parsed.header.cwd;
  if (parsed.header?.ownerId !== undefined) info.ownerId = parsed.header.ownerId;
  if (parsed.header?.parentSessionId !== undefined) {
    info.parentSessionId = parsed.header.parentSessionId;
  }
  if (batch.state) info.state = batch.state;
  return info;
}

/**
 * Newest modified first, then by id (descending): the order of `list`.
 *
 * @example
 * ```ts
 * import { newestFirst } from "./jsonl_summaries.ts";
 * const a = { id: "a", created: "", modified: "2", messageCount: 0, lastUserMessage: "" };
 * console.assert(newestFirst(a, { ...a, modified: "1" }) < 0);
 * ```
 *
 * @param a One entry.
 * @param b Another.
 * @returns Negative when `a` comes first.
 */
export function newestFirst(a: SessionInfo, b: SessionInfo): number {
  if (a.modified !== b.modified) return a.modified < b.modified ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** The list entry of a session that cannot be read: listed with the reason, never dropped. */
function unreadable(id: string, stat: Deno.FileInfo, reason: string): Summary {
  const mtimeMs = stat.mtime?.getTime() ?? 0;
  const info = emptySessionInfo(id, new Date(mtimeMs).toISOString());
  info.unreadable = reason;
  return { info, size: stat.size, mtimeMs };
}

/**
 * Whether the session is listed as unreadable. The reason can go without
 * its file or the directory changing (panto upgraded, permissions fixed),
 * so such an entry is always read again.
 */
function unreadableIn(summaries: ReadonlyMap<string, Summary>): (id: string) => boolean {
  return (id) => summaries.get(id)?.info.unreadable !== undefined;
}
