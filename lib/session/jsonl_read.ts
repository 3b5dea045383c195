// Reading a JSONL session for a load: the whole tree, or only the active
// path's lines through the session's tree index; damage is reported with
// the file, the line, and the way to repair it.
import { Conversation } from "../conversation.ts";
import { errorMessage } from "../error_message.ts";
import { SessionCorruptError } from "./errors.ts";
import type { SessionFiles } from "./jsonl_files.ts";
import {
  lineTexts,
  type ParsedSession,
  parseSession,
  readMessageLine,
  type SessionHeader,
} from "./jsonl_format.ts";
import {
  extendTreeIndex,
  type FileState,
  indexedPath,
  readTreeIndex,
  type TreeIndex,
  writeTreeIndex,
} from "./jsonl_tree_index.ts";
import type { StoredTree, TreeLink } from "./tree.ts";
import { readLinks, readTree } from "./tree_store.ts";

/** How much a load reads past a session's tree index before it rewrites the index. */
const INDEX_REWRITE_BYTES = 256 * 1024;

/**
 * The conversation on the active path, only its lines decoded: through the
 * session's stored tree index, and when that fails, through the file
 * indexed again (the stored index may be what is wrong: edited, or damaged
 * in ways its check cannot see).
 *
 * @example
 * ```ts ignore
 * import { loadActivePath } from "./jsonl_read.ts";
 * const file = await files.readFileState(id);
 * const conversation = file && await loadActivePath(files, id, file);
 * ```
 *
 * @param files The sessions directory.
 * @param id The session.
 * @param file Its bytes, inode and mtime.
 * @returns The conversation.
 * @throws {SessionCorruptError} Naming the file and line of the damage.
 */
export async function loadActivePath(
  files: SessionFiles,
  id: string,
  file: FileState,
): Promise<Conversation> {
  try {
    return await loadPath(files, id, file, true);
  } catch (error) {
    if (!(error instanceof SessionCorruptError)) throw error;
    return await loadPath(files, id, file, false);
  }
}

/** The active path's conversation, through the stored tree index when `useStored`. */
async function loadPath(
  files: SessionFiles,
  id: string,
  file: FileState,
  useStored: boolean,
): Promise<Conversation> {
  const { index, stored, stale } = await treeIndex(files, id, file, useStored);
  // Only the path's lines are decoded, and checked unless a load checked them before.
  const positions = indexedPath(index);
  const texts = lineTexts(
    file.bytes,
    positions.map((at) => [index.starts[at]!, index.ends[at]!]),
  );
  let checkedStored = false;
  const messages = positions.map((at, step) => {
    const line = index.lineNumbers[at]!;
    const check = index.checked[at] !== 1;
    try {
      const entry = readMessageLine(texts[step]!, line, index.ids[at]!, check);
      index.checked[at] = 1;
      if (check && at < stored) checkedStored = true;
      return entry.message;
    } catch (error) {
      throw new SessionCorruptError(files.path(id), line, errorMessage(error), repairHint(id));
    }
  });
  if (stale || checkedStored) await writeTreeIndex(files.dir, id, index);
  return new Conversation(messages, index.metadata);
}

/**
 * The session file's tree index, brought up to date: read from its
 * sidecar when that still describes the file, and the lines appended
 * since read (up to their tree fields). `stored` is how many entries the
 * sidecar holds; `stale` says it should be written again (there was none,
 * or much was appended since: a few lines are cheaper to read again).
 */
async function treeIndex(
  files: SessionFiles,
  id: string,
  file: FileState,
  useStored: boolean,
): Promise<{ index: TreeIndex; stored: number; stale: boolean }> {
  const known = useStored ? await readTreeIndex(files.dir, id, file) : null;
  const stored = known?.ids.length ?? 0;
  if (known && known.covered === file.bytes.length) return { index: known, stored, stale: false };
  const path = files.path(id);
  const offset = known?.covered ?? 0;
  const parsed = parseSession(file.bytes.subarray(offset), path, {
    lazy: true,
    after: known?.lines ?? 0,
  });
  if (known) requireReadable(parsed, path, id);
  else requireIntact(parsed, path, id);
  const recordOf = (at: number) => parsed.messages[at]?.line ?? 0;
  let links: TreeLink[];
  try {
    links = readLinks(parsed.messages, path, recordOf, known?.ids);
  } catch (error) {
    throw withRepairHint(error, repairHint(id));
  }
  const index = extendTreeIndex(known, { parsed, links, offset, file });
  const stale = !known || index.covered - known.covered > INDEX_REWRITE_BYTES;
  return { index, stored, stale };
}

/**
 * Every entry of a parsed session's tree, with their labels.
 *
 * @example
 * ```ts ignore
 * import { sessionTree } from "./jsonl_read.ts";
 * const parsed = await files.readParsed(id);
 * const tree = parsed && sessionTree(parsed, files.path(id), id);
 * ```
 *
 * @param parsed The session's lines.
 * @param path Its file, for errors.
 * @param id The session.
 * @returns The tree.
 * @throws {SessionCorruptError} Naming the file, the line and the repair.
 */
export function sessionTree(parsed: ParsedSession, path: string, id: string): StoredTree {
  const header = requireIntact(parsed, path, id);
  let tree: StoredTree;
  try {
    tree = readTree(
      parsed.messages,
      header.metadata,
      path,
      (index) => parsed.messages[index]?.line ?? 0,
    );
  } catch (error) {
    throw withRepairHint(error, repairHint(id));
  }
  for (const entry of tree.entries) {
    const label = parsed.labels.get(entry.id);
    if (label !== undefined) entry.label = label;
  }
  return tree;
}

/**
 * The header of a session whose lines all read.
 *
 * @example
 * ```ts ignore
 * import { requireIntact } from "./jsonl_read.ts";
 * const header = requireIntact(parseSession(bytes, path), path, id);
 * ```
 *
 * @param parsed The session's lines.
 * @param path Its file, for errors.
 * @param id The session.
 * @returns The header.
 * @throws {SessionCorruptError} At the first damaged line, or when there is no header.
 */
export function requireIntact(
  parsed: ParsedSession<unknown>,
  path: string,
  id: string,
): SessionHeader {
  requireReadable(parsed, path, id);
  if (!parsed.header) throw new SessionCorruptError(path, 1, "no session header", repairHint(id));
  return parsed.header;
}

function requireReadable(parsed: ParsedSession<unknown>, path: string, id: string): void {
  const problem = parsed.problems[0];
  if (problem) throw new SessionCorruptError(path, problem.line, problem.reason, repairHint(id));
}

function repairHint(id: string): string {
  return `run repair on session ${id} to keep the readable lines (a backup is made)`;
}

/** A tree error (an id used twice) with the way to fix it. */
function withRepairHint(error: unknown, hint: string): unknown {
  if (!(error instanceof SessionCorruptError) || error.reason.includes(hint)) return error;
  return new SessionCorruptError(error.location, error.line, error.reason, hint);
}
