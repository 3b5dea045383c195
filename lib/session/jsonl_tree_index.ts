// The JSONL store's tree index: for one session file, the byte range, line,
// id and parent of every message line, so a load finds the active path
// without reading the other lines and parses only the path's. It is a cache
// of the file it names (inode, bytes covered, mtime, the bytes just before
// the end it covers): a load uses it while the file is that file, grown only
// by appends, reads just what was appended, and rebuilds it otherwise. The
// lines it leads to are checked again when they are parsed (their ids).
import { join } from "node:path";
import { indexDir } from "./jsonl_list_index.ts";
import type { MessageEntry, ParsedSession, PendingEntry } from "./jsonl_format.ts";
import type { TreeLink } from "./tree.ts";

/** One session file's message lines, as far as it has been read. */
export interface TreeIndex {
  /** The file's inode (`null` where the platform has none). */
  ino: number | null;
  /** The file's mtime (ms) when the index was made. */
  mtimeMs: number | null;
  /** How many bytes of the file it describes (up to a line's end). */
  covered: number;
  /** How many lines those bytes hold. */
  lines: number;
  /** The bytes just before `covered`, which an append leaves as they are. */
  sample: number[];
  /** The header's metadata. */
  metadata?: string;
  /** Per message line, in storage order: its id. */
  ids: string[];
  /** Its parent's position in these lists (-1: a root). */
  parents: number[];
  /** Its byte range `[start, end)`, newline excluded. */
  starts: number[];
  /** See `starts`. */
  ends: number[];
  /** Its 1-based line number. */
  lineNumbers: number[];
  /**
   * 1 once a load has checked its message against the schemas: the file
   * being unchanged (as far as the index can tell), it is not checked again.
   */
  checked: number[];
}

/** What the index needs of the file now. */
export interface FileState {
  /** The inode (`null`: none). */
  ino: number | null;
  /** The mtime (ms; `null`: none). */
  mtimeMs: number | null;
  /** The whole file. */
  bytes: Uint8Array;
}

/** Version of the index's own layout (2 adds `checked`): another version is rebuilt. */
const INDEX_VERSION = 2;
/** Bytes kept from before the covered end. */
const SAMPLE_BYTES = 64;

/**
 * The index of a session file, when it still describes a prefix of it.
 *
 * @param dir The sessions directory.
 * @param id The session.
 * @param file The file as it is now.
 * @returns The index, or `null` when there is none or it describes another file.
 */
export async function readTreeIndex(
  dir: string,
  id: string,
  file: FileState,
): Promise<TreeIndex | null> {
  let index: unknown;
  try {
    index = JSON.parse(await Deno.readTextFile(treeIndexPath(dir, id)));
  } catch {
    return null;
  }
  return wellFormed(index, file.bytes.length) && describes(index, file) ? index : null;
}

/**
 * Whether a stored index is one this code wrote, for a file of `size`
 * bytes: a damaged one (a parent cycle, arrays cut short, wrong types)
 * would send a load round a cycle or past the file, so it is not used,
 * and the load indexes the file again. Every parent comes before its
 * entry (as a load resolves them), so the path from any entry ends.
 */
function wellFormed(value: unknown, size: number): value is TreeIndex {
  if (typeof value !== "object" || value === null) return false;
  const index = value as Partial<TreeIndex> & { version?: unknown };
  if (index.version !== INDEX_VERSION) return false;
  const { ids, parents, starts, ends, lineNumbers, checked, sample } = index;
  const count = Array.isArray(ids) ? ids.length : -1;
  const lists = [parents, starts, ends, lineNumbers, checked];
  if (count === -1 || !lists.every((list) => Array.isArray(list) && list.length === count)) {
    return false;
  }
  const { covered, lines } = index;
  if (!isCount(covered) || covered > size || !isCount(lines)) return false;
  if (!nullOr(index.ino, Number.isFinite) || !nullOr(index.mtimeMs, Number.isFinite)) return false;
  if (index.metadata !== undefined && typeof index.metadata !== "string") return false;
  const bytes = Array.isArray(sample) && sample.length === Math.min(SAMPLE_BYTES, covered) &&
    sample.every((byte) => isCount(byte) && byte < 256);
  return bytes && entriesWellFormed(index as TreeIndex, covered, lines);
}

/** Each entry's id unique, parent earlier, line inside what is covered and after the one before. */
function entriesWellFormed(index: TreeIndex, covered: number, lines: number): boolean {
  const seen = new Set<string>();
  let lastEnd = 0;
  let lastLine = 1; // the header's
  for (let at = 0; at < index.ids.length; at++) {
    const id = index.ids[at];
    const parent = index.parents[at]!;
    const [start, end, line] = [index.starts[at]!, index.ends[at]!, index.lineNumbers[at]!];
    if (typeof id !== "string" || seen.has(id)) return false;
    seen.add(id);
    if (!Number.isInteger(parent) || parent < -1 || parent >= at) return false;
    if (!isCount(start) || !isCount(end) || start < lastEnd || end < start || end > covered) {
      return false;
    }
    if (!isCount(line) || line <= lastLine || line > lines) return false;
    if (index.checked[at] !== 0 && index.checked[at] !== 1) return false;
    [lastEnd, lastLine] = [end, line];
  }
  return true;
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function nullOr(value: unknown, check: (value: number) => boolean): boolean {
  return value === null || (typeof value === "number" && check(value));
}

function describes(index: TreeIndex, { ino, mtimeMs, bytes }: FileState): boolean {
  if (index.ino !== ino || index.covered > bytes.length) return false;
  // The same size: unchanged only if untouched since (an edit in place keeps the size).
  if (index.covered === bytes.length && index.mtimeMs !== mtimeMs) return false;
  const from = index.covered - index.sample.length;
  return index.sample.every((byte, at) => bytes[from + at] === byte);
}

/**
 * Writes the index (a temporary file renamed over the old one). Best
 * effort: without it the next load reads the whole file.
 *
 * @param dir The sessions directory.
 * @param id The session.
 * @param index The index.
 */
export async function writeTreeIndex(dir: string, id: string, index: TreeIndex): Promise<void> {
  const path = treeIndexPath(dir, id);
  const temp = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    await Deno.mkdir(indexDir(dir), { mode: 0o700 }).catch(() => {});
    await Deno.writeTextFile(temp, JSON.stringify({ version: INDEX_VERSION, ...index }), {
      mode: 0o600,
    });
    await Deno.rename(temp, path);
  } catch {
    await Deno.remove(temp).catch(() => {});
  }
}

/**
 * Removes a session's index (its file was deleted).
 *
 * @param dir The sessions directory.
 * @param id The session.
 */
export async function removeTreeIndex(dir: string, id: string): Promise<void> {
  await Deno.remove(treeIndexPath(dir, id)).catch(() => {});
}

function treeIndexPath(dir: string, id: string): string {
  return join(indexDir(dir), `${id}.tree.json`);
}

/** What a read of a session file (or of what was appended to it) found. */
export interface IndexedRead {
  /** The lines read. */
  parsed: ParsedSession<MessageEntry | PendingEntry>;
  /** Their message lines' links, resolved after the index's. */
  links: readonly TreeLink[];
  /** Where in the file the bytes read start. */
  offset: number;
  /** The file. */
  file: FileState;
}

/**
 * Extends an index (or starts one) with the message lines read after it.
 *
 * @param index The index so far, or `null` for a file read from its start.
 * @param read What was read after it.
 * @returns The index up to the end of the last whole line read.
 */
export function extendTreeIndex(index: TreeIndex | null, read: IndexedRead): TreeIndex {
  const { parsed, links, offset, file } = read;
  const next: TreeIndex = index ?? {
    ino: file.ino,
    mtimeMs: null,
    covered: 0,
    lines: 0,
    sample: [],
    ids: [],
    parents: [],
    starts: [],
    ends: [],
    lineNumbers: [],
    checked: [],
  };
  if (parsed.header?.metadata !== undefined) next.metadata = parsed.header.metadata;
  for (const [at, link] of links.entries()) {
    const [start, end] = parsed.messageLines[at]!;
    next.parents.push(link.parentIndex);
    next.ids.push(link.id);
    next.starts.push(offset + start);
    next.ends.push(offset + end);
    next.lineNumbers.push(parsed.messages[at]!.line);
    // A line read whole (the last one, or one in another layout) was checked as it was read.
    next.checked.push("message" in parsed.messages[at]! ? 1 : 0);
  }
  next.covered = offset + parsed.validEnd;
  next.lines = parsed.lineCount;
  next.mtimeMs = next.covered === file.bytes.length ? file.mtimeMs : null;
  next.sample = [...file.bytes.subarray(Math.max(0, next.covered - SAMPLE_BYTES), next.covered)];
  return next;
}

/**
 * The positions of the index's active path (root to the last entry), in order.
 *
 * @example
 * ```ts ignore
 * import { indexedPath } from "./jsonl_tree_index.ts";
 * const path = indexedPath(index); // [0, 1, 5, …]
 * ```
 *
 * @param index The index.
 * @returns The positions.
 */
export function indexedPath(index: TreeIndex): number[] {
  const path: number[] = [];
  for (let at = index.ids.length - 1; at !== -1; at = index.parents[at]!) path.push(at);
  return path.reverse();
}
