/**
 * What an `edit` or `write` call would change, worked out without writing,
 * for the approval prompt to show before the call runs.
 *
 * @module
 */
import type { ToolCall } from "@panto/lib";
import { planEdit } from "@panto/lib/tools";
import { editDiff } from "@panto/lib/tools";
import type { FileToolOptions } from "@panto/lib/tools";
import { notRegularFile } from "@panto/lib/tools";
import { resolveToolPath } from "@panto/lib/tools";
import { formatBytes } from "@panto/lib/tools";
import { errorMessage } from "../shared/error_message.ts";

/** Files larger than this get no diff in the prompt (the edit tool takes up to 10 MB). */
const MAX_PREVIEW_BYTES = 1024 * 1024;

/**
 * The change a call would make to `path`: unified diff hunks (`diff`, empty
 * when the content would stay the same), or why none can be shown
 * (`problem`: the call would fail, or the file is too large or not text).
 */
export type ChangePreview =
  | { path: string; diff: string }
  | { path: string; problem: string };

/**
 * The change an `edit` or `write` call would make; undefined for other
 * tools. Nothing is written.
 *
 * @param call The call (its `path` and content arguments).
 * @param options Where the file tools work (the same as the tools').
 * @param signal Stops the work.
 * @returns The preview, or undefined for a tool that changes no file.
 *
 * @example
 * ```ts
 * import { previewChange } from "./change_preview.ts";
 * const dir = await Deno.makeTempDir();
 * const call = { id: "1", name: "write", input: { path: "a.txt", content: "hi\n" } };
 * const preview = await previewChange(call, { root: dir }, new AbortController().signal);
 * console.assert(preview !== undefined && "diff" in preview && preview.diff.includes("+hi"));
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function previewChange(
  call: ToolCall,
  options: FileToolOptions,
  signal: AbortSignal,
): Promise<ChangePreview | undefined> {
  if (call.name !== "edit" && call.name !== "write") return undefined;
  const path = String(call.input.path);
  try {
    const diff = call.name === "edit"
      ? (await planEdit(options, call.input, signal)).diff
      : await writeDiff(options, call.input, signal);
    return { path, diff };
  } catch (error) {
    signal.throwIfAborted();
    return { path, problem: errorMessage(error) };
  }
}

/** The diff of replacing a file's content (a missing file is empty). */
async function writeDiff(
  options: FileToolOptions,
  input: Record<string, unknown>,
  signal: AbortSignal,
): Promise<string> {
  const shown = String(input.path);
  const content = String(input.content);
  const path = await resolveToolPath(options, shown, "write");
  const before = await readText(path, shown, signal);
  if (before === content) return "";
  const replacement = { oldText: before, newText: content, positions: [0] };
  return await editDiff(before, content, replacement, signal);
}

/** Strict: a file that is not UTF-8 text has no line diff worth showing. */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A text file's content; "" when it does not exist yet. */
async function readText(path: string, shown: string, signal: AbortSignal): Promise<string> {
  let size: number;
  try {
    const info = await Deno.stat(path);
    if (info.isDirectory) throw new Error(`${shown} is a directory: the write would fail`);
    if (!info.isFile) throw new Error(notRegularFile(shown));
    size = info.size;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return "";
    throw error;
  }
  if (size > MAX_PREVIEW_BYTES) {
    throw new Error(
      `${shown} is ${formatBytes(size)}: too large to show the change (over ${
        formatBytes(MAX_PREVIEW_BYTES)
      }); the write replaces all of it`,
    );
  }
  try {
    return utf8.decode(await Deno.readFile(path, { signal }));
  } catch (error) {
    signal.throwIfAborted();
    if (error instanceof TypeError) {
      throw new Error(`${shown} is not UTF-8 text: the write replaces all of it`);
    }
    throw error;
  }
}
