import { resolve } from "node:path";
import type { SessionStore } from "@panto/lib";
import { UsageError } from "../shared/errors.ts";
import { type ExportFormat, exportFormatFor } from "../export/export_formats.ts";
import { renderExport, writeExport } from "../export/session_export.ts";
import { importFile } from "../export/import_file.ts";
import type { SessionsArgs } from "./sessions.ts";

/**
 * `panto sessions export ID [PATH] [--format html|md|jsonl] [--force]`: the
 * session to standard output (Markdown unless `--format` says otherwise), or
 * to PATH in the format its extension names; an existing file is replaced
 * only with `--force`.
 *
 * @example
 * ```ts
 * import { NullStore } from "@panto/lib";
 * import { exportCommand } from "./sessions_transfer.ts";
 * // A store that keeps nothing has no session to export.
 * const args = { path: undefined, format: "jsonl" as const, force: false };
 * const code = await exportCommand(new NullStore(), "x", args, () => {}).catch(() => 1);
 * console.assert(code === 1);
 * ```
 *
 * @param store The store.
 * @param id The session's full id.
 * @param args Where to, in what format, whether to overwrite.
 * @param write Where output goes.
 * @param cwd What a relative PATH is relative to.
 * @returns The exit code.
 */
export async function exportCommand(
  store: SessionStore,
  id: string,
  args: { path: string | undefined; format?: ExportFormat; force: boolean },
  write: (text: string) => void,
  cwd: string = Deno.cwd(),
): Promise<number> {
  if (args.path === undefined) {
    write(await renderExport(store, id, args.format ?? "md"));
    return 0;
  }
  const path = resolve(cwd, args.path);
  let format: ExportFormat;
  try {
    format = exportFormatFor(path, args.format);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  await writeExport(path, await renderExport(store, id, format), {
    overwrite: args.force,
    hint: "pass --force to overwrite it, or give another path",
  });
  write(`Exported session ${id} to ${path} (${format})\n`);
  return 0;
}

/**
 * `panto sessions import FILE`: a panto JSONL export, a pi session file or a
 * Claude Code transcript stored as a new session of this directory.
 *
 * @example
 * ```ts
 * import { SQLiteStore } from "@panto/lib/sqlite";
 * import { importCommand } from "./sessions_transfer.ts";
 * const store = new SQLiteStore({ path: ":memory:" });
 * const code = await importCommand(store, { action: "import", id: undefined, name: undefined,
 *   json: false, all: false }, () => {}).catch(() => 2);
 * console.assert(code === 2);
 * await store.close();
 * ```
 *
 * @param store The store.
 * @param args The parsed arguments (`id` is the file).
 * @param write Where output goes.
 * @param cwd The working directory (recorded with the session; relative FILEs start there).
 * @returns The exit code.
 * @throws {UsageError} Without a FILE.
 */
export async function importCommand(
  store: SessionStore,
  args: SessionsArgs,
  write: (text: string) => void,
  cwd: string = Deno.cwd(),
): Promise<number> {
  if (!args.id) {
    throw new UsageError(
      "panto sessions import needs a file: a panto JSONL export, a pi session file " +
        "(~/.pi/agent/sessions/…) or a Claude Code transcript (~/.claude/projects/…)",
    );
  }
  const imported = await importFile(store, resolve(cwd, args.id), cwd);
  write(`${imported.summary}\nResume it: panto -r ${imported.id}\n`);
  return 0;
}
