import { ResultParts, type Tool, type ToolOutput } from "@panto/lib";
import { type FileToolOptions, notRegularFile } from "./file_tool_options.ts";
import { imageMediaType } from "./image_types.ts";
import { DEFAULT_MAX_BYTES, truncateLine, truncateText } from "./truncate.ts";
import { resolveToolPath } from "./panto_files.ts";

const DEFAULT_LIMIT = 2000;
const MAX_LINE_LENGTH = 2000;

/**
 * The `read` tool: a text file with line numbers (offset/limit to page
 * through it), or an image attached as an image part.
 *
 * @param options The working directory and extra allowed roots.
 * @returns The tool.
 *
 * @example
 * ```ts
 * import { readTool } from "./read.ts";
 * console.assert(readTool({ root: "/tmp" }).decl.name === "read");
 * ```
 */
export function readTool(options: FileToolOptions): Tool {
  return {
    decl: {
      name: "read",
      description:
        `Read a file from the working directory. Text comes back with line numbers; use offset (1-based line) and limit to page through large files (default ${DEFAULT_LIMIT} lines). Images (png, jpeg, gif, webp) are attached.`,
      inputSchema: {
        type: "object",
        properties: {
          path: { type: "string", description: "File path, relative to the working directory" },
          offset: { type: "integer", minimum: 1, description: "First line to read (1-based)" },
          limit: { type: "integer", minimum: 1, description: "Most lines to read" },
        },
        required: ["path"],
        additionalProperties: false,
      },
    },
    async execute(args): Promise<ToolOutput> {
      const path = await resolveToolPath(options, String(args.path), "read");
      const bytes = await readFileBytes(path, String(args.path));
      const mediaType = imageMediaType(path);
      if (mediaType) return ResultParts.image(bytes, mediaType);
      if (bytes.subarray(0, 8000).includes(0)) {
        return ResultParts.error(
          `${args.path} looks like a binary file (it contains NUL bytes); read text files only`,
        );
      }
      const text = new TextDecoder().decode(bytes);
      return ResultParts.fromText(
        numberLines(text, numberArg(args.offset, 1), numberArg(args.limit, DEFAULT_LIMIT)),
      );
    },
  };
}

async function readFileBytes(path: string, shown: string): Promise<Uint8Array> {
  try {
    const info = await Deno.stat(path);
    if (info.isDirectory) throw new Error(`${shown} is a directory, not a file: use ls to list it`);
    // Reading a named pipe would wait for a writer forever.
    if (!info.isFile) throw new Error(notRegularFile(shown));
    return await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new Error(`${shown} does not exist`);
    throw error;
  }
}

function numberArg(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value)
    ? Math.max(1, Math.floor(value))
    : fallback;
}

/** Lines `offset..offset+limit-1`, numbered, capped in bytes, with a note on how to read on. */
function numberLines(text: string, offset: number, limit: number): string {
  const lines = text.split("\n");
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  if (offset > lines.length) {
    return `The file has ${lines.length} lines; offset ${offset} is past the end.`;
  }
  const numbered = lines.slice(offset - 1, offset - 1 + limit)
    .map((line, index) =>
      `${String(offset + index).padStart(6)}\t${truncateLine(line, MAX_LINE_LENGTH)}`
    );
  const kept = truncateText(numbered.join("\n"), { maxLines: limit, maxBytes: DEFAULT_MAX_BYTES });
  const last = offset - 1 + kept.lastLine;
  if (last >= lines.length) return kept.text;
  return `${kept.text}\n\n[Showing lines ${offset}-${last} of ${lines.length}. Use offset=${
    last + 1
  } to read more.]`;
}
