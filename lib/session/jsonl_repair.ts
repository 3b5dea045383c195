// What `repair` does beyond dropping unreadable lines: an entry id used twice
// (an embedder's explicit ids, a hand edit, two files joined) makes every
// load fail closed, though each line reads. The later use gets a new id.
import { stringifyWellFormed } from "./serialize.ts";
import { newEntryId } from "./tree.ts";

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
