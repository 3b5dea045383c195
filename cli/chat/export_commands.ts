// `/export [PATH]` and `/import FILE` in the chat.
import { dirname, join, resolve } from "node:path";
import { SessionImportError } from "@panto/lib";
import { errorMessage } from "../shared/error_message.ts";
import { exportFormatFor } from "../export/export_formats.ts";
import { importFile } from "../export/import_file.ts";
import { ExportExistsError, renderExport, writeExport } from "../export/session_export.ts";
import { permissionMessage } from "../shared/permission_message.ts";
import { writeAsUser } from "../shared/write_as_user.ts";
import type { CommandContext } from "./slash_commands.ts";

/**
 * `/export [PATH]`: this session to PATH (default
 * `panto-session-<id>.md` in the working directory; a directory gets that
 * name inside it) as HTML, Markdown or JSONL by its extension, asking
 * before replacing a file.
 *
 * @example In the chat's command table (it needs a running chat's context)
 * ```ts ignore
 * import { exportSession } from "./export_commands.ts";
 * await exportSession(ctx, "~/notes/bakery.html"); // "Exported to …/bakery.html (html)"
 * ```
 *
 * @param ctx The chat.
 * @param args The text after `/export`.
 */
export async function exportSession(ctx: CommandContext, args: string): Promise<void> {
  const { controller } = ctx;
  if (!controller.session.persisted) {
    return ctx.notify(
      "Nothing to export yet: the session is saved after the first answer.",
      "info",
    );
  }
  const id = controller.session.id;
  // The full id: 8-character prefixes of ids made within a minute are alike.
  const name = `panto-session-${id}.md`;
  let path = resolve(controller.cwd, args || name);
  try {
    if ((await Deno.stat(path).catch(() => null))?.isDirectory) path = join(path, name);
    const format = exportFormatFor(path);
    const text = await renderExport(controller.store, id, format);
    if (!await writeOrAsk(ctx, path, text)) {
      return ctx.notify(`Not exported: ${path} is left as it was.`, "info");
    }
    ctx.notify(`Exported to ${path} (${format})`, "info");
  } catch (error) {
    ctx.notify(exportFailure(path, error), "error");
  }
}

/** Writes the export, asking first when the file exists; whether it was written. */
async function writeOrAsk(ctx: CommandContext, path: string, text: string): Promise<boolean> {
  if (await writeFile(path, text, false)) return true;
  const overwrite = await ctx.pick({
    title: `${path} exists: overwrite it?`,
    items: [{ value: false, label: "No, keep it" }, { value: true, label: "Yes, overwrite it" }],
  });
  if (!overwrite) return false;
  await writeFile(path, text, true);
  return true;
}

/**
 * Writes the export; `false` when a file is there and `overwrite` is not
 * set. A path outside panto's grants is the user's choice, written with the
 * user's own rights (as an `@path` outside the project is read).
 */
async function writeFile(path: string, text: string, overwrite: boolean): Promise<boolean> {
  try {
    await writeExport(path, text, { overwrite, hint: "" });
    return true;
  } catch (error) {
    if (error instanceof ExportExistsError) return false;
    if (!(error instanceof Deno.errors.NotCapable)) throw error;
  }
  return await writeAsUser(path, text, overwrite ? "replace" : "keep") === "written";
}

/** Why `path` could not be written, and what to do instead. */
function exportFailure(path: string, error: unknown): string {
  if (error instanceof Deno.errors.NotCapable) return permissionMessage(error.message);
  const reason = error instanceof Deno.errors.PermissionDenied
    ? "the file system does not let you write there"
    : error instanceof Deno.errors.NotADirectory || error instanceof Deno.errors.AlreadyExists
    ? `a file stands where a directory of the path should be (${dirname(path)})`
    : errorMessage(error);
  return `Could not export to ${path}: ${reason}. Pass another path: /export PATH`;
}

/**
 * `/import FILE`: a panto JSONL export, a pi session file or a Claude Code
 * transcript, stored as a new session, which the chat then opens.
 *
 * @example In the chat's command table (it needs a running chat's context)
 * ```ts ignore
 * import { importSessionFile } from "./export_commands.ts";
 * await importSessionFile(ctx, "~/.pi/agent/sessions/2026-12-01.jsonl"); // opens it
 * ```
 *
 * @param ctx The chat.
 * @param args The text after `/import`.
 */
export async function importSessionFile(ctx: CommandContext, args: string): Promise<void> {
  if (!args) {
    return ctx.notify(
      "Usage: /import FILE (a panto JSONL export, a pi session file or a Claude Code transcript)",
      "info",
    );
  }
  if (!ctx.ensureIdle("importing a session")) return;
  const { controller } = ctx;
  const path = resolve(controller.cwd, args);
  let imported;
  try {
    imported = await importFile(controller.store, path, controller.cwd);
  } catch (error) {
    const reason = error instanceof Deno.errors.NotCapable
      ? permissionMessage(error.message)
      : error instanceof SessionImportError
      ? error.message
      : `Cannot import ${path}: ${errorMessage(error)}`;
    return ctx.notify(reason, "error");
  }
  // After the switch, which shows the imported session in place of this one.
  await controller.switchSession(imported.id);
  ctx.notify(imported.summary, "info");
}
