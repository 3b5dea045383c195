// The JSONL store's `repair`: a damaged session file rewritten with its
// readable lines, after a backup. Beyond dropping unreadable lines, an entry
// id used twice (an embedder's explicit ids, a hand edit, two files joined)
// makes every load fail closed, though each line reads: the later use gets
// a new id.
import { concatBytes } from "../concat_bytes.ts";
import { type SessionFiles, writeNewFile } from "./jsonl_files.ts";
import { headerLine, parseSession } from "./jsonl_format.ts";
import { summarize } from "./jsonl_summaries.ts";
import { newHeader, type SessionWriters, type Writer } from "./jsonl_writer.ts";
import { stringifyWellFormed } from "./serialize.ts";
import { newEntryId } from "./tree.ts";

/** What `FileSystemJSONLStore.repair` did. */
export interface RepairReport {
  /** The session file. */
  path: string;
  /** Where the original was copied before rewriting, or `null` when nothing needed repair. */
  backupPath: string | null;
  /** Lines kept (header included). */
  kept: number;
  /** Lines dropped, with why. */
  dropped: { line: number; reason: string }[];
  /**
   * Message lines whose entry id an earlier line has (1-based `line`, the
   * `id` it had): given `newId`, which the lines after it name.
   */
  reassigned: { line: number; id: string; newId: string }[];
  /** Whether a minimal header was written because the file's own was missing or damaged. */
  headerRebuilt: boolean;
}

/** A message line given a new entry id by `repair`. */
export interface ReassignedId {
  /** Its 1-based line number in the file before the repair. */
  line: number;
  /** The id it had, which an earlier entry already has. */
  id: string;
  /** Its new id. */
  newId: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Rewrites a damaged session file with its readable lines, after copying
 * the original to `<id>.jsonl.bak-<time>`; a missing or damaged header is
 * replaced by a minimal one, and an entry id used twice is given a new id
 * where it is used again. The writer is left on the new file. The record
 * schemas must be loaded, and the session's lock held (by `writer`).
 *
 * @example
 * ```ts ignore
 * import { repairFile } from "./jsonl_repair.ts";
 * const report = await writers.withWriter(id, (writer) => repairFile(files, writers, id, writer));
 * ```
 *
 * @param files The sessions directory.
 * @param writers The store's writers (for the sidecar).
 * @param id The session.
 * @param writer Its writer, lock held.
 * @returns What was kept, dropped and given a new id.
 */
export async function repairFile(
  files: SessionFiles,
  writers: SessionWriters,
  id: string,
  writer: Writer,
): Promise<RepairReport> {
  const path = files.path(id);
  const bytes = await Deno.readFile(path);
  const parsed = parseSession(bytes, path);
  const dropped = [...parsed.problems, ...(parsed.torn ? [parsed.torn] : [])];
  const kept = parsed.goodLines.map(([start, end]) => bytes.subarray(start, end));
  const reassigned = reassignDuplicateIds(kept, lineNumbersOf(bytes, parsed.goodLines));
  const report: RepairReport = {
    path,
    backupPath: null,
    kept: parsed.goodLines.length,
    dropped,
    reassigned,
    headerRebuilt: parsed.header === null,
  };
  if (dropped.length === 0 && reassigned.length === 0 && parsed.header) return report;
  report.backupPath = `${path}.bak-${compactTime()}`;
  await writeNewFile(report.backupPath, bytes, true);
  if (!parsed.header) {
    const created = parsed.messages[0]?.timestamp ?? new Date().toISOString();
    kept.unshift(encoder.encode(headerLine(newHeader(id, { created }))));
    report.kept++;
  }
  await files.replaceFile(path, concatBytes(kept));
  writer.file?.close();
  writer.file = await files.reopen(path);
  const repaired = parseSession(await Deno.readFile(path), path);
  writer.size = repaired.validEnd;
  writer.summary = summarize(id, repaired);
  await writers.saveSidecar(id, writer);
  return report;
}

/**
 * Gives each message line whose entry id an earlier line already has a new
 * id; an id named after that (a `parentId`, a label's `entryId`) names the
 * latest entry that had it, so a branch continued after the second use
 * stays on it. The lines changed are written anew (the JSON of their
 * record: a load reads the same values); all others are kept byte for byte.
 *
 * @example
 * ```ts
 * import { reassignDuplicateIds } from "./jsonl_repair.ts";
 * const line = (id: string, parentId: string | null) =>
 *   new TextEncoder().encode(
 *     JSON.stringify({ type: "message", timestamp: "t", id, parentId, message: {} }) + "\n",
 *   );
 * const lines = [line("a", null), line("a", "a"), line("b", "a")];
 * const [change] = reassignDuplicateIds(lines, [2, 3, 4]);
 * console.assert(change?.line === 3 && change.id === "a");
 * console.assert(new TextDecoder().decode(lines[2]).includes(`"parentId":"${change?.newId}"`));
 * ```
 *
 * @param lines The readable lines of a session file (newline included), in
 *   order; those that change are replaced.
 * @param lineNumbers Each line's 1-based number, for the report.
 * @returns The lines given a new id, in order.
 */
export function reassignDuplicateIds(
  lines: Uint8Array[],
  lineNumbers: readonly number[],
): ReassignedId[] {
  const records = lines.map(recordOf);
  let position = -1;
  // An entry without an id (an older line) is named by its position, as a load names it.
  const written = records.map((record) => {
    if (record?.type !== "message") return null;
    position++;
    return typeof record.id === "string" ? record.id : String(position);
  });
  const taken = new Set(written.filter((id) => id !== null));
  const seen = new Set<string>();
  /** Each id as written → the id of the latest entry that had it. */
  const latest = new Map<string, string>();
  const reassigned: ReassignedId[] = [];
  records.forEach((record, at) => {
    if (record?.type === "label") {
      const now = typeof record.entryId === "string" ? latest.get(record.entryId) : undefined;
      if (now !== undefined && now !== record.entryId) {
        lines[at] = line({ ...record, entryId: now });
      }
      return;
    }
    const id = written[at];
    if (!record || id === null || id === undefined) return;
    const changes: Record<string, unknown> = {};
    const parent = typeof record.parentId === "string" ? latest.get(record.parentId) : undefined;
    if (parent !== undefined && parent !== record.parentId) changes.parentId = parent;
    let now = id;
    if (seen.has(id)) {
      do now = newEntryId(); while (taken.has(now));
      taken.add(now);
      changes.id = now;
      reassigned.push({ line: lineNumbers[at]!, id, newId: now });
    }
    seen.add(now);
    latest.set(id, now);
    if (Object.keys(changes).length > 0) lines[at] = line({ ...record, ...changes });
  });
  return reassigned;
}

/**
 * The 1-based line number of each range of a file.
 *
 * @example
 * ```ts
 * import { lineNumbersOf } from "./jsonl_repair.ts";
 * const bytes = new TextEncoder().encode("a\nbad\nc\n");
 * console.assert(lineNumbersOf(bytes, [[0, 2], [6, 8]]).join() === "1,3");
 * ```
 *
 * @param bytes The file.
 * @param ranges Byte ranges `[start, end)` of some of its lines, in order.
 * @returns Their line numbers.
 */
export function lineNumbersOf(bytes: Uint8Array, ranges: readonly [number, number][]): number[] {
  let line = 1;
  let at = 0;
  return ranges.map(([start]) => {
    for (; at < start; at++) if (bytes[at] === 0x0a) line++;
    return line;
  });
}

/** The line's JSON object, or `null` (the header is one too: its type tells it apart). */
function recordOf(bytes: Uint8Array): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(decoder.decode(bytes));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? value as Record<string, unknown>
      : null;
  } catch {
    return null;
  }
}

function line(record: Record<string, unknown>): Uint8Array {
  return encoder.encode(`${stringifyWellFormed(record)}\n`);
}

function compactTime(): string {
  return new Date().toISOString().replace(/[-:.]/g, "");
}
