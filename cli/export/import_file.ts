// `/import FILE` and `panto sessions import FILE`: a session file read and
// written into the store as a new session, summed up in one line.
import { SessionImportError, type SessionStore } from "@panto/lib";
import { importSession, readSessionFile } from "@panto/lib/transfer";
import { readAsUser } from "../shared/read_as_user.ts";
import { readAtMost } from "@panto/lib/fs";

/** The most of a file an import reads: a session larger than this is not one panto wrote or reads. */
const IMPORT_LIMIT = 512 * 1024 * 1024;

const FORMAT_NAMES = {
  panto: "panto session",
  pi: "pi session",
  "claude-code": "Claude Code transcript",
} as const;

/** What {@linkcode importFile} did. */
export interface ImportedFile {
  /** The new session's id. */
  id: string;
  /** One line for the user: what was read, what was skipped. */
  summary: string;
}

/**
 * Reads a session file (panto JSONL, pi, Claude Code) and stores it as a new session.
 *
 * @example
 * ```ts
 * import { SQLiteStore } from "@panto/lib/sqlite";
 * import { importFile } from "./import_file.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/t.jsonl`, '{"type":"user","uuid":"a","parentUuid":null,' +
 *   '"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}\n');
 * const store = new SQLiteStore({ path: ":memory:" });
 * const { summary } = await importFile(store, `${dir}/t.jsonl`, dir);
 * console.assert(summary.includes("Claude Code transcript"));
 * await store.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @param store Where the session goes.
 * @param path The file.
 * @param cwd The working directory to record (the session is listed and resumed there).
 * @returns The new session's id and a summary.
 * @throws {SessionImportError} For a malformed line (naming the file and line) or an unknown format.
 */
export async function importFile(
  store: SessionStore,
  path: string,
  cwd: string,
): Promise<ImportedFile> {
  const bytes = await readForImport(path);
  if (bytes.length > IMPORT_LIMIT) {
    throw new SessionImportError(path, 0, `it is larger than ${IMPORT_LIMIT / 2 ** 20} MiB`);
  }
  const session = await readSessionFile(new TextDecoder().decode(bytes), path);
  const report = await importSession(store, session, { cwd });
  const skipped = Object.entries(session.skipped).map(([kind, count]) => `${count} ${kind}`);
  const name = session.name ? ` "${session.name}"` : "";
  return {
    id: report.id,
    summary: `Imported ${path} (${FORMAT_NAMES[session.format]}) as session ${report.id}${name}: ` +
      `${report.messages} messages` +
      (skipped.length > 0 ? `; skipped entries panto has no use for: ${skipped.join(", ")}` : ""),
  };
}

/**
 * At most one byte past the limit of the file; a path outside panto's
 * grants is the user's choice, read with the user's own rights.
 */
async function readForImport(path: string): Promise<Uint8Array> {
  try {
    return await readAtMost(path, IMPORT_LIMIT);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new SessionImportError(path, 0, "no such file");
    }
    if (!(error instanceof Deno.errors.NotCapable)) throw error;
  }
  const read = await readAsUser(path, IMPORT_LIMIT);
  if (read.kind === "file") return read.bytes;
  const reason = read.kind === "missing"
    ? "no such file"
    : read.kind === "not a file"
    ? "it is not a regular file"
    : "you may not read it";
  throw new SessionImportError(path, 0, reason);
}
