// `/export` and `panto sessions export`: one session rendered in a format
// and written where the user says.
import { dirname } from "node:path";
import type { SessionStore, StoredTree } from "@panto/lib";
import { exportJsonl } from "@panto/lib/transfer";
import type { ExportFormat } from "./export_formats.ts";

/**
 * A session rendered in a format: HTML and JSONL hold its whole tree,
 * Markdown its active path (the store's own export).
 *
 * @example
 * ```ts
 * import { NullStore } from "@panto/lib";
 * import { renderExport } from "./session_export.ts";
 * const rendered = await renderExport(new NullStore(), "none", "html").catch((e: Error) => e.message);
 * console.assert(rendered.includes("none"));
 * ```
 *
 * @param store The store.
 * @param id The session's full id.
 * @param format The format.
 * @returns The document.
 * @throws {Error} When the store has no such session.
 */
export async function renderExport(
  store: SessionStore,
  id: string,
  format: ExportFormat,
): Promise<string> {
  if (format === "md") return await store.export(id);
  const session = await store.resolve(id);
  const tree = session?.id === id ? await wholeTree(store, id) : null;
  if (!session || !tree) throw new Error(`No session ${id} in this store to export`);
  if (format === "jsonl") return exportJsonl(session.info, tree);
  // highlight.js and marked load only for a page.
  const { exportHtml } = await import("./html_export.ts");
  return exportHtml(session.info, tree);
}

/** Every entry; from a store that keeps no tree, its conversation as one chain. */
async function wholeTree(store: SessionStore, id: string): Promise<StoredTree | null> {
  if (store.loadTree) return await store.loadTree(id);
  const conversation = await store.load(id);
  if (!conversation) return null;
  const entries = conversation.messages.map((message, index) => ({
    id: String(index),
    parentId: index === 0 ? null : String(index - 1),
    message,
  }));
  return { entries, leafId: entries.at(-1)?.id ?? null };
}

/** A file the export would replace, which the user did not say to overwrite. */
export class ExportExistsError extends Error {
  /** The file. */
  readonly path: string;

  /**
   * Creates the error.
   *
   * @param path The file.
   * @param hint How to overwrite it, or write elsewhere.
   */
  constructor(path: string, hint: string) {
    super(`${path} already exists: ${hint}`);
    this.name = "ExportExistsError";
    this.path = path;
  }
}

/**
 * Writes an export, creating the directories above it; an existing file
 * is replaced only when `overwrite` says so.
 *
 * @example
 * ```ts
 * import { writeExport } from "./session_export.ts";
 * const dir = await Deno.makeTempDir();
 * await writeExport(`${dir}/a/b.md`, "# hi\n", { overwrite: false, hint: "pass --force" });
 * console.assert(await Deno.readTextFile(`${dir}/a/b.md`) === "# hi\n");
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @param path The file.
 * @param text What to write.
 * @param options Whether to replace an existing file, and how the user says so (for the error).
 * @throws {ExportExistsError} When the file exists and `overwrite` is false.
 */
export async function writeExport(
  path: string,
  text: string,
  options: { overwrite: boolean; hint: string },
): Promise<void> {
  // createNew: nothing written between a check and the write can be lost.
  const flags = options.overwrite ? {} : { createNew: true };
  try {
    return await writeOnce(path, text, flags, options.hint);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  // Only when missing: the launcher may grant the file alone, and creating
  // a directory that exists needs the directory granted.
  await Deno.mkdir(dirname(path), { recursive: true });
  await writeOnce(path, text, flags, options.hint);
}

async function writeOnce(
  path: string,
  text: string,
  flags: Deno.WriteFileOptions,
  hint: string,
): Promise<void> {
  try {
    await Deno.writeTextFile(path, text, flags);
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) throw new ExportExistsError(path, hint);
    throw error;
  }
}
