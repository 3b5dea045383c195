/**
 * `@panto/lib/transfer`: moving sessions between stores and formats —
 * {@linkcode migrateSessions} (every session of one store into another),
 * {@linkcode importSession} and {@linkcode readSessionFile} (a JSONL
 * export, pi's session files, Claude Code's transcripts) and
 * {@linkcode exportJsonl}. Apart from the core because a program that only
 * runs sessions loads none of it.
 *
 * @example Read a Claude Code transcript into a store
 * ```ts
 * import { FileSystemJSONLStore } from "@panto/lib/jsonl";
 * import { importSession, readSessionFile } from "@panto/lib/transfer";
 *
 * const text = '{"type":"user","uuid":"a","parentUuid":null,"timestamp":"2026-01-01T00:00:00Z",' +
 *   '"message":{"role":"user","content":"hello"}}\n';
 * const dir = await Deno.makeTempDir();
 * const store = new FileSystemJSONLStore({ dir });
 * const report = await importSession(store, await readSessionFile(text, "transcript.jsonl"));
 * console.assert(report.messages === 1);
 * await store.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @module
 */
export {
  type MigrateOptions,
  migrateSessions,
  type MigrationProgress,
  type MigrationReport,
} from "./session/migrate.ts";
export { type ImportReport, importSession, readSessionFile } from "./session/session_import.ts";
export type { ImportedSession, ImportFormat } from "./session/import_tree.ts";
export { exportJsonl } from "./session/jsonl_export.ts";
