// The JSONL store's list index: every session's list entry in one file, so
// listing thousands of sessions reads one file instead of a stat and a
// sidecar per session. It is a cache: each entry carries the size and mtime
// of the session file it describes, and the whole index the mtime of the
// sessions directory when it was built. Every write this store makes
// (a sidecar rewritten, a file renamed into place, a lock file) changes the
// directory's mtime, so an unchanged directory means every entry is fresh.
import { join } from "node:path";
import type { SessionInfo } from "./types.ts";

/** One session's entry: its list entry and the file it was read from. */
export interface IndexEntry {
  /** The session file's size when the entry was made. */
  size: number;
  /** The session file's mtime (ms) when the entry was made. */
  mtimeMs: number;
  /** The list entry. */
  info: SessionInfo;
}

/** The index file. */
export interface ListIndex {
  /** The directory's mtime (ms) the entries are all fresh for; `null`: check each file. */
  dirMtimeMs: number | null;
  /** Entries by session id. */
  sessions: Record<string, IndexEntry>;
}

/** Version 2 adds the first prompt: an older index is rebuilt once. */
const INDEX_VERSION = 2;
/**
 * A directory changed this recently may change again within the same
 * millisecond its mtime shows: its index is checked file by file.
 */
const QUIET_MS = 2000;

/**
 * The index's directory: a subdirectory, so writing the index does not
 * change the sessions directory's mtime it records.
 *
 * @param dir The sessions directory.
 * @returns The index directory.
 */
export function indexDir(dir: string): string {
  return join(dir, ".index");
}

/**
 * Reads the index.
 *
 * @param dir The sessions directory.
 * @returns The index, or `null` when there is none or it cannot be used
 *   (damaged, another version): the store then reads every session.
 */
export async function readListIndex(dir: string): Promise<ListIndex | null> {
  try {
    const value = JSON.parse(await Deno.readTextFile(join(indexDir(dir), "list.json")));
    if (value?.version !== INDEX_VERSION || typeof value.sessions !== "object") return null;
    const dirMtimeMs = typeof value.dirMtimeMs === "number" ? value.dirMtimeMs : null;
    for (const [id, entry] of Object.entries(value.sessions as Record<string, IndexEntry>)) {
      if (entry?.info?.id !== id || typeof entry.size !== "number") return null;
    }
    return { dirMtimeMs, sessions: value.sessions };
  } catch {
    return null;
  }
}

/**
 * Writes the index (a temporary file renamed over the old one). Best
 * effort: a failure leaves the old index, which is checked file by file.
 *
 * @param dir The sessions directory.
 * @param index The entries, and the directory mtime seen before they were read.
 */
export async function writeListIndex(dir: string, index: ListIndex): Promise<void> {
  const quiet = index.dirMtimeMs !== null && Date.now() - index.dirMtimeMs > QUIET_MS;
  const body = JSON.stringify({
    version: INDEX_VERSION,
    dirMtimeMs: quiet ? index.dirMtimeMs : null,
    sessions: index.sessions,
  });
  const path = join(indexDir(dir), "list.json");
  const temp = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    await Deno.writeTextFile(temp, body, { mode: 0o600 });
    await Deno.rename(temp, path);
  } catch {
    await Deno.remove(temp).catch(() => {});
  }
}
