// Importing a session file (issue 23): panto's own JSONL (an export, or a
// JSONL store's file), pi's session files and Claude Code's transcripts,
// told apart by their first line, written into any store through its
// create and append API.
import { isClaudeCodeLine, readClaudeCodeSession } from "./claude_code_import.ts";
import { SessionImportError } from "./errors.ts";
import { type ImportedSession, ImportTree, type JsonLine, jsonLines } from "./import_tree.ts";
import { isPiHeader, readPiSession } from "./pi_import.ts";
import { loadRecordSchemas } from "./record_schemas.ts";
import { decodeMessage, decodeWire } from "./serialize.ts";
import type { SessionStore } from "./types.ts";

/**
 * Reads a session file in any format panto imports.
 *
 * @example
 * ```ts
 * import { readSessionFile } from "@panto/lib/transfer";
 * const text = '{"type":"user","uuid":"a","parentUuid":null,"timestamp":"2026-01-01T00:00:00Z",' +
 *   '"message":{"role":"user","content":"hello"}}\n';
 * const session = await readSessionFile(text, "transcript.jsonl");
 * console.assert(session.format === "claude-code" && session.entries.length === 1);
 * ```
 *
 * @param text The file's text.
 * @param path The file, for errors.
 * @returns The session read.
 * @throws {SessionImportError} For a line that is malformed (naming the file
 *   and line), a file of no known format, or one without messages.
 */
export async function readSessionFile(text: string, path: string): Promise<ImportedSession> {
  await loadRecordSchemas();
  const lines = jsonLines(text, path);
  const first = lines[0]?.value;
  if (first === undefined) throw new SessionImportError(path, 0, "the file is empty");
  const session = isPantoHeader(first)
    ? readPantoSession(lines, path)
    : isPiHeader(first)
    ? readPiSession(lines, path)
    : isClaudeCodeLine(first)
    ? readClaudeCodeSession(lines, path)
    : unknownFormat(path);
  if (session.entries.length === 0) {
    throw new SessionImportError(path, 0, "it holds no messages, so there is nothing to import");
  }
  return session;
}

function unknownFormat(path: string): never {
  throw new SessionImportError(
    path,
    1,
    "not a session panto can import: expected a panto JSONL export, a pi session file " +
      "or a Claude Code transcript (~/.claude/projects/<project>/<uuid>.jsonl)",
  );
}

/** What {@linkcode importSession} did. */
export interface ImportReport {
  /** The new session's id. */
  id: string;
  /** Messages stored. */
  messages: number;
}

/**
 * Writes an imported session into a store as a new session (a new id; the
 * entries keep theirs, so the tree and its active leaf are as in the file),
 * in one append, with its name and labels.
 *
 * @example
 * ```ts
 * import { importSession, readSessionFile } from "@panto/lib/transfer";
 * import { SQLiteStore } from "@panto/lib/sqlite";
 * const store = new SQLiteStore({ path: ":memory:" });
 * const text = '{"type":"user","uuid":"a","parentUuid":null,"timestamp":"2026-01-01T00:00:00Z",' +
 *   '"message":{"role":"user","content":"hello"}}\n';
 * const report = await importSession(store, await readSessionFile(text, "t.jsonl"), { cwd: "/w" });
 * console.assert((await store.load(report.id))?.messages.length === 1);
 * await store.close();
 * ```
 *
 * @param store The store.
 * @param session What was read.
 * @param options The working directory to record (where it is listed and resumed).
 * @returns The new session's id and message count.
 */
export async function importSession(
  store: SessionStore,
  session: ImportedSession,
  options: { cwd?: string } = {},
): Promise<ImportReport> {
  const created = store.create({
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(session.created ? { created: session.created } : {}),
    ...(session.metadata === undefined ? {} : { metadata: session.metadata }),
  });
  // Before the first write, a name is kept for it: it goes in the same write.
  if (session.name) await store.rename(created.id, session.name);
  await store.appendMessages(created.id, session.entries, { expectedCount: 0 });
  for (const [entryId, label] of session.labels) await store.setLabel?.(created.id, entryId, label);
  // An import whose last message is a prompt leaves the session "running": nobody runs it.
  await store.release?.(created.id);
  return { id: created.id, messages: session.entries.length };
}

/** A panto header: `session` with `created` (pi's has `timestamp`). */
function isPantoHeader(value: Record<string, unknown>): boolean {
  return value.type === "session" && typeof value.created === "string";
}

/** panto's own format: the header, message lines, name and label lines. */
function readPantoSession(lines: readonly JsonLine[], path: string): ImportedSession {
  const tree = new ImportTree("panto");
  const [header, ...entries] = lines;
  if ((header?.value.version as number) > 2) {
    throw new SessionImportError(
      path,
      1,
      `written in session format version ${header?.value.version}: upgrade panto to import it`,
    );
  }
  const { name, metadata, created } = header!.value;
  if (typeof name === "string") tree.session.name = name;
  if (typeof metadata === "string") tree.session.metadata = metadata;
  tree.session.created = created as string;
  for (const { value, line } of entries) {
    try {
      readPantoLine(tree, value, line);
    } catch (error) {
      throw new SessionImportError(path, line, (error as Error).message);
    }
  }
  return tree.session;
}

function readPantoLine(tree: ImportTree, value: Record<string, unknown>, line: number): void {
  if (value.type === "name" && typeof value.name === "string") {
    tree.session.name = value.name;
  } else if (value.type === "label" && typeof value.entryId === "string") {
    tree.label(value.entryId, typeof value.label === "string" ? value.label : undefined);
  } else if (value.type === "message") {
    const id = typeof value.id === "string" ? value.id : `line-${line}`;
    const parentId = value.parentId === null || typeof value.parentId === "string"
      ? value.parentId
      : undefined;
    const wire = value.wire === undefined ? undefined : decodeWire(value.wire);
    tree.add(id, parentId, decodeMessage(value.message), wire);
  } else {
    tree.skip(undefined, undefined, String(value.type));
  }
}
