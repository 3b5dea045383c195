import { ResultParts, type Tool, type ToolOutput } from "../tool.ts";
import { applyReplacement, editDiff, type Replacement } from "./edit_diff.ts";
import { type FileToolOptions, notRegularFile } from "./file_tool_options.ts";
import { resolveToolPath } from "./panto_files.ts";
import { formatBytes } from "./truncate.ts";

/**
 * The largest file edit reads, and the largest it writes: it holds the file
 * as text a few times over (old, new, lines), so a 100 MB file took 1.7 GB.
 */
const MAX_EDIT_BYTES = 10 * 1024 * 1024;

/**
 * The `edit` tool: replaces an exact piece of a file (`oldText`) with
 * `newText`. The old text must occur exactly once unless `replaceAll` is
 * set; when it is missing but matches with whitespace ignored, the error
 * shows where. The result is a small unified diff of the change. Files over
 * 10 MB are refused (bash's sed can change them), and an abort stops the
 * call before it writes.
 *
 * @param options The working directory and extra allowed roots.
 * @returns The tool.
 *
 * @example
 * ```ts
 * import { editTool } from "./edit.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.txt`, "hello world\n");
 * const signal = new AbortController().signal;
 * await editTool({ root: dir }).execute({ path: "a.txt", oldText: "world", newText: "there" }, { signal, callId: "1" });
 * console.assert(await Deno.readTextFile(`${dir}/a.txt`) === "hello there\n");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function editTool(options: FileToolOptions): Tool {
  return {
    decl: {
      name: "edit",
      description:
        "Replace exact text in a file. oldText must match the file exactly (whitespace and indentation included) and occur once; include enough surrounding lines to make it unique, or set replaceAll to change every occurrence. Read the file first. Returns a diff of the change.",
      inputSchema: {
        type: "object",
        properties: {
          path: { type: "string", description: "File path, relative to the working directory" },
          oldText: { type: "string", description: "The exact text to replace" },
          newText: { type: "string", description: "The replacement text" },
          replaceAll: { type: "boolean", description: "Replace every occurrence (default false)" },
        },
        required: ["path", "oldText", "newText"],
        additionalProperties: false,
      },
    },
    async execute(args, { signal }): Promise<ToolOutput> {
      const plan = await planEdit(options, args, signal);
      signal.throwIfAborted();
      await Deno.writeTextFile(plan.path, plan.after);
      const { count } = plan;
      const summary = `Edited ${args.path}: replaced ${count} occurrence${count === 1 ? "" : "s"}.`;
      return ResultParts.fromText(`${summary}\n\n${plan.diff}`);
    },
  };
}

/** What an edit would do, worked out without writing. */
export interface EditPlan {
  /** The file's absolute path. */
  path: string;
  /** Its content after the edit. */
  after: string;
  /** The change as unified diff hunks. */
  diff: string;
  /** How many occurrences it replaces. */
  count: number;
}

/**
 * Works out what an `edit` call would do, without writing: what the tool
 * runs before it writes, and what an approval prompt shows.
 *
 * @param options The working directory and extra allowed roots.
 * @param args The call's arguments (`path`, `oldText`, `newText`, `replaceAll`).
 * @param signal Stops the work.
 * @returns The plan.
 * @throws {Error} What the tool would fail with (no such file, text not found, …).
 *
 * @example
 * ```ts
 * import { planEdit } from "./edit.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.txt`, "hello world\n");
 * const signal = new AbortController().signal;
 * const plan = await planEdit({ root: dir }, { path: "a.txt", oldText: "world", newText: "there" }, signal);
 * console.assert(plan.after === "hello there\n" && plan.diff.includes("+hello there"));
 * console.assert(await Deno.readTextFile(`${dir}/a.txt`) === "hello world\n");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function planEdit(
  options: FileToolOptions,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<EditPlan> {
  const shown = String(args.path);
  const path = await resolveToolPath(options, shown, "write");
  const before = await readExisting(path, shown, signal);
  const replacement = planReplacement(
    before,
    String(args.oldText),
    String(args.newText),
    args.replaceAll === true,
  );
  requireEditableSize(shown, before, replacement);
  const after = applyReplacement(before, replacement);
  const diff = await editDiff(before, after, replacement, signal);
  return { path, after, diff, count: replacement.positions.length };
}

/** Finds where to replace, or throws an error that tells the model how to fix its call. */
function planReplacement(
  content: string,
  oldText: string,
  newText: string,
  replaceAll: boolean,
): Replacement {
  if (oldText === "") {
    throw new Error("oldText is empty: give the exact text to replace (read the file first)");
  }
  if (oldText === newText) {
    throw new Error("oldText and newText are the same: there is nothing to change");
  }
  let plan = { oldText, newText, positions: occurrences(content, oldText) };
  // Models write "\n". A CRLF file matches once line endings agree, and a file
  // that is CRLF throughout keeps CRLF in the lines the new text adds.
  const allCrlf = content.includes("\r\n") && !/(^|[^\r])\n/.test(content);
  if (content.includes("\r\n") && (plan.positions.length === 0 || allCrlf)) {
    const crlf = { oldText: toCrlf(oldText), newText: toCrlf(newText) };
    plan = { ...crlf, positions: occurrences(content, crlf.oldText) };
  }
  if (plan.positions.length === 0) throw new Error(notFoundMessage(content, oldText));
  if (plan.positions.length > 1 && !replaceAll) {
    const lines = plan.positions.slice(0, 10).map((at) => lineAt(content, at));
    throw new Error(
      `oldText occurs ${plan.positions.length} times (at lines ${lines.join(", ")}${
        plan.positions.length > 10 ? ", …" : ""
      }): include more surrounding lines in oldText so that it matches exactly once, or set replaceAll to true to replace every occurrence`,
    );
  }
  return replaceAll ? plan : { ...plan, positions: plan.positions.slice(0, 1) };
}

/** Refuses a result over the size limit (`replaceAll` of a short text with a long one). */
function requireEditableSize(shown: string, before: string, plan: Replacement): void {
  const bytes = (text: string) => encoder.encode(text).length;
  const size = bytes(before) + plan.positions.length * (bytes(plan.newText) - bytes(plan.oldText));
  if (size <= MAX_EDIT_BYTES) return;
  throw new Error(
    `The edit would make ${shown} ${formatBytes(size)}, over edit's limit of ${
      formatBytes(MAX_EDIT_BYTES)
    }: make the change with bash instead (sed, or a script), or replace fewer occurrences at a time`,
  );
}

function occurrences(content: string, text: string): number[] {
  const found: number[] = [];
  for (let at = content.indexOf(text); at !== -1; at = content.indexOf(text, at + text.length)) {
    found.push(at);
  }
  return found;
}

function notFoundMessage(content: string, oldText: string): string {
  const loose = findIgnoringWhitespace(content, oldText);
  if (!loose) {
    return "oldText was not found in the file: read the file again and copy the text to replace exactly as it is now";
  }
  const lines = content.split("\n");
  const first = lineAt(content, loose.start);
  const last = lineAt(content, loose.end);
  const excerpt = lines.slice(first - 1, last).map((line, i) => `${first + i}\t${line}`).join("\n");
  const where = first === last ? `line ${first}` : `lines ${first}-${last}`;
  return `oldText was not found exactly, but it matches if whitespace is ignored at ${where}:\n${excerpt}\nCopy the text exactly as it is in the file (indentation, tabs or spaces, trailing spaces and line breaks) and try again`;
}

/** Where `needle` occurs in `content` when every run of whitespace counts as one space (start and end offsets). */
function findIgnoringWhitespace(
  content: string,
  needle: string,
): { start: number; end: number } | undefined {
  const target = needle.trim().replace(/\s+/g, " ");
  if (target === "") return undefined;
  // Whole-string operations: building it a character at a time took minutes on a 10 MB file.
  const at = content.replace(/\s+/g, " ").indexOf(target);
  if (at === -1) return undefined;
  return { start: originOf(content, at), end: originOf(content, at + target.length - 1) };
}

/** The offset in `content` of an offset in its normalized form (a run's space is its first character). */
function originOf(content: string, normalizedOffset: number): number {
  const runs = /\s+/g;
  let shrunk = 0;
  for (let run = runs.exec(content); run; run = runs.exec(content)) {
    const space = run.index - shrunk;
    if (space > normalizedOffset) break;
    if (space === normalizedOffset) return run.index;
    shrunk += run[0].length - 1;
  }
  return normalizedOffset + shrunk;
}

function lineAt(content: string, offset: number): number {
  let line = 1;
  for (
    let at = content.indexOf("\n");
    at !== -1 && at < offset;
    at = content.indexOf("\n", at + 1)
  ) line++;
  return line;
}

function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, "\r\n");
}

/** Strict: decoding invalid UTF-8 leniently would rewrite every bad byte as U+FFFD. */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

async function readExisting(path: string, shown: string, signal: AbortSignal): Promise<string> {
  let bytes: Uint8Array;
  try {
    const info = await Deno.stat(path);
    if (info.isDirectory) throw new Error(`${shown} is a directory, not a file`);
    // Reading a named pipe would wait for a writer forever.
    if (!info.isFile) throw new Error(notRegularFile(shown));
    if (info.size > MAX_EDIT_BYTES) throw new Error(tooLarge(shown, info.size));
    bytes = await Deno.readFile(path, { signal });
    // It may have grown since.
    if (bytes.length > MAX_EDIT_BYTES) throw new Error(tooLarge(shown, bytes.length));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Error(`${shown} does not exist: use write to create it`);
    }
    throw error;
  }
  try {
    return utf8.decode(bytes);
  } catch {
    throw new Error(
      `${shown} is not valid UTF-8 text, so edit cannot change it without damaging it: convert it to UTF-8 first, or change it with bash`,
    );
  }
}

function tooLarge(shown: string, size: number): string {
  return `${shown} is ${formatBytes(size)}, over edit's limit of ${
    formatBytes(MAX_EDIT_BYTES)
  }: change it with bash instead (e.g. sed -i 's/old/new/' ${shown}, or a script)`;
}
