import { ResultParts, type Tool, type ToolOutput } from "../tool.ts";
import { looksBinary, SNIFF_BYTES } from "./binary_sniff.ts";
import { type FileToolOptions, notRegularFile } from "./file_tool_options.ts";
import { FileLines } from "./file_lines.ts";
import { imageMediaType, MAX_IMAGE_BYTES } from "./image_types.ts";
import { readAtMost } from "./read_at_most.ts";
import { resolveToolPath } from "./panto_files.ts";
import { DEFAULT_MAX_BYTES, formatBytes, truncateLine } from "./truncate.ts";

const DEFAULT_LIMIT = 2000;
const MAX_LINE_LENGTH = 2000;
/** Bytes of one line kept: enough for MAX_LINE_LENGTH characters of any width, and one more. */
const MAX_LINE_BYTES = 4 * MAX_LINE_LENGTH + 4;
/** How far one line is read looking for its end before giving up. */
const MAX_LINE_SCAN_BYTES = 16 * 1024 * 1024;
/** How far past the shown lines the file is read to count the rest. */
const MAX_COUNT_SCAN_BYTES = 16 * 1024 * 1024;

/**
 * The `read` tool: a text file with line numbers (offset/limit to page
 * through it), or an image attached as an image part. Only the lines asked
 * for are read (and up to 16 MB more to count the rest), so a huge file
 * costs no more memory than a small one; binary files are recognised from
 * their first 8 KiB.
 *
 * @param options The working directory, extra allowed roots and panto's home.
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
      const shown = String(args.path);
      const path = await resolveToolPath(options, shown, "read");
      const size = await regularFileSize(path, shown);
      const mediaType = imageMediaType(path);
      if (mediaType) return ResultParts.image(await readImage(path, shown, size), mediaType);
      const file = await Deno.open(path);
      try {
        if (looksBinary(await readSample(file))) {
          return ResultParts.error(
            `${shown} looks like a binary file (NUL bytes, or mostly not UTF-8); read text files only`,
          );
        }
        await file.seek(0, Deno.SeekMode.Start);
        const window = {
          offset: numberArg(args.offset, 1),
          limit: numberArg(args.limit, DEFAULT_LIMIT),
        };
        return ResultParts.fromText(await numberedLines(new FileLines(file), window, size));
      } finally {
        file.close();
      }
    },
  };
}

async function regularFileSize(path: string, shown: string): Promise<number> {
  try {
    const info = await Deno.stat(path);
    if (info.isDirectory) throw new Error(`${shown} is a directory, not a file: use ls to list it`);
    // Reading a named pipe would wait for a writer forever.
    if (!info.isFile) throw new Error(notRegularFile(shown));
    return info.size;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new Error(`${shown} does not exist`);
    throw error;
  }
}

async function readImage(path: string, shown: string, size: number): Promise<Uint8Array> {
  const bytes = size <= MAX_IMAGE_BYTES ? await readAtMost(path, MAX_IMAGE_BYTES) : undefined;
  if (bytes && bytes.length <= MAX_IMAGE_BYTES) return bytes;
  throw new Error(
    `${shown} is ${formatBytes(size)}: images over ${
      formatBytes(MAX_IMAGE_BYTES)
    } are not read; make a smaller copy (e.g. with bash) and read that`,
  );
}

async function readSample(file: Deno.FsFile): Promise<Uint8Array> {
  const sample = new Uint8Array(SNIFF_BYTES);
  let length = 0;
  while (length < SNIFF_BYTES) {
    const read = await file.read(sample.subarray(length));
    if (read === null) break;
    length += read;
  }
  return sample.subarray(0, length);
}

function numberArg(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value)
    ? Math.max(1, Math.floor(value))
    : fallback;
}

interface LineWindow {
  offset: number;
  limit: number;
}

/** Lines `offset..offset+limit-1`, numbered, capped in bytes, with a note on how to read on. */
async function numberedLines(
  lines: FileLines,
  { offset, limit }: LineWindow,
  size: number,
): Promise<string> {
  const skipped = await lines.skip(offset - 1);
  const out: string[] = [];
  let bytes = 0;
  let overflow = false;
  while (out.length < limit) {
    const line = await lines.next(MAX_LINE_BYTES, MAX_LINE_SCAN_BYTES);
    if (!line) break;
    const number = offset + out.length;
    const numbered = `${String(number).padStart(6)}\t${truncateLine(line.text, MAX_LINE_LENGTH)}`;
    const added = new TextEncoder().encode(numbered).length + (out.length ? 1 : 0);
    if (bytes + added > DEFAULT_MAX_BYTES && out.length) {
      overflow = true; // this line is the first one not shown
      break;
    }
    out.push(numbered);
    bytes += added;
    if (!line.complete) return `${out.join("\n")}\n\n${longLineNote(number)}`;
  }
  if (out.length === 0) {
    return skipped === 0 && offset === 1
      ? "The file is empty."
      : `The file has ${skipped} lines; offset ${offset} is past the end.`;
  }
  const last = offset + out.length - 1;
  const rest = await lines.countRest(MAX_COUNT_SCAN_BYTES);
  if (!overflow && rest === 0) return out.join("\n");
  const of = rest === undefined ? `a ${formatBytes(size)} file` : last + rest + (overflow ? 1 : 0);
  return `${out.join("\n")}\n\n[Showing lines ${offset}-${last} of ${of}. Use offset=${
    last + 1
  } to read more.]`;
}

function longLineNote(number: number): string {
  return `[Line ${number} is longer than ${
    formatBytes(MAX_LINE_SCAN_BYTES)
  }: only its start is shown. Look at it with bash (e.g. cut -c or head -c), or read from offset=${
    number + 1
  }.]`;
}
