import { ResultParts, type Tool, type ToolOutput } from "@panto/lib";
import { type FileToolOptions, notRegularFile } from "./file_tool_options.ts";
import { resolveToolPath } from "./panto_files.ts";

const DIFF_CONTEXT_LINES = 2;
const MAX_DIFF_LINES = 80;

/**
 * The `edit` tool: replaces an exact piece of a file (`oldText`) with
 * `newText`. The old text must occur exactly once unless `replaceAll` is
 * set; when it is missing but matches with whitespace ignored, the error
 * shows where. The result is a small unified diff of the change.
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
      const shown = String(args.path);
      const path = await resolveToolPath(options, shown, "write");
      const before = await readExisting(path, shown);
      const replacement = planReplacement(
        before,
        String(args.oldText),
        String(args.newText),
        args.replaceAll === true,
      );
      const after = applyReplacement(before, replacement);
      const diff = await diffSnippet(shown, before, after);
      signal.throwIfAborted();
      await Deno.writeTextFile(path, after);
      const count = replacement.positions.length;
      const summary = `Edited ${shown}: replaced ${count} occurrence${count === 1 ? "" : "s"}.`;
      return ResultParts.fromText(`${summary}\n\n${diff}`);
    },
  };
}

interface Replacement {
  oldText: string;
  newText: string;
  positions: number[];
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

function applyReplacement(content: string, { oldText, newText, positions }: Replacement): string {
  const parts: string[] = [];
  let from = 0;
  for (const at of positions) {
    parts.push(content.slice(from, at), newText);
    from = at + oldText.length;
  }
  parts.push(content.slice(from));
  return parts.join("");
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
  let normalized = "";
  const origin: number[] = [];
  for (let i = 0; i < content.length; i++) {
    const isSpace = /\s/.test(content[i]!);
    if (isSpace && normalized.endsWith(" ")) continue;
    normalized += isSpace ? " " : content[i];
    origin.push(i);
  }
  const at = normalized.indexOf(target);
  if (at === -1) return undefined;
  return { start: origin[at]!, end: origin[at + target.length - 1]! };
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

async function readExisting(path: string, shown: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    const info = await Deno.stat(path);
    if (info.isDirectory) throw new Error(`${shown} is a directory, not a file`);
    // Reading a named pipe would wait for a writer forever.
    if (!info.isFile) throw new Error(notRegularFile(shown));
    bytes = await Deno.readFile(path);
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

/**
 * The change as unified diff hunks, capped so a large replaceAll stays
 * readable. `diff` loads on the first edit, not on every start.
 */
async function diffSnippet(shown: string, before: string, after: string): Promise<string> {
  const { structuredPatch } = await import("diff");
  const patch = structuredPatch(shown, shown, before, after, "", "", {
    context: DIFF_CONTEXT_LINES,
  });
  const lines: string[] = [];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    lines.push(...hunk.lines.filter((line) => !line.startsWith("\\")));
  }
  if (lines.length <= MAX_DIFF_LINES) return lines.join("\n");
  return `${lines.slice(0, MAX_DIFF_LINES).join("\n")}\n… (${
    lines.length - MAX_DIFF_LINES
  } more diff lines)`;
}
