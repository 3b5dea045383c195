/**
 * `read` and `write` through the ACP client (`fs/read_text_file`,
 * `fs/write_text_file`) when it offers them, so the model sees the
 * editor's buffers as they are, saved or not, and its writes land in them.
 * Paths are checked exactly as the built-in tools check them.
 *
 * @module
 */
import { ResultParts, type Tool, type ToolOutput } from "@panto/lib";
import type { FileToolOptions } from "@panto/lib/tools";
import { imageMediaType } from "@panto/lib/tools";
import { resolveToolPath } from "@panto/lib/tools";
import { DEFAULT_MAX_BYTES, truncateLine } from "@panto/lib/tools";

/** What the client does with files (each when it offers it). */
export interface ClientFiles {
  /** `fs/read_text_file`: `limit` lines from line `line` (1-based). */
  read?: (path: string, line: number, limit: number) => Promise<string>;
  /** `fs/write_text_file`. */
  write?: (path: string, content: string) => Promise<void>;
}

/** The built-in `read`'s defaults, so a page reads the same either way. */
const DEFAULT_LIMIT = 2000;
const MAX_LINE_LENGTH = 2000;

/**
 * Replacements for the built-in `read` and `write` that go through the
 * client, for those of `builtins` the client can serve. Images are still
 * read from disk by the built-in `read`.
 *
 * @param builtins The tools the session has.
 * @param files What the client offers.
 * @param options Where the file tools may work (as for the built-ins).
 * @returns The replacements (register each in place of the tool of its name).
 */
export function clientFileTools(
  builtins: readonly Tool[],
  files: ClientFiles,
  options: FileToolOptions,
): Tool[] {
  const tools: Tool[] = [];
  const read = builtins.find((tool) => tool.decl.name === "read");
  const { read: readText, write: writeText } = files;
  if (read && readText) {
    tools.push({
      decl: read.decl,
      async execute(args, context): Promise<ToolOutput> {
        const shown = String(args.path);
        const path = await resolveToolPath(options, shown, "read");
        if (imageMediaType(path)) return await read.execute(args, context);
        const window = {
          offset: positive(args.offset, 1),
          limit: positive(args.limit, DEFAULT_LIMIT),
        };
        const text = await readText(path, window.offset, window.limit);
        return ResultParts.fromText(numberedLines(text, window));
      },
    });
  }
  const write = builtins.find((tool) => tool.decl.name === "write");
  if (write && writeText) {
    tools.push({
      decl: write.decl,
      async execute(args): Promise<ToolOutput> {
        const shown = String(args.path);
        const content = String(args.content);
        await writeText(await resolveToolPath(options, shown, "write"), content);
        const bytes = new TextEncoder().encode(content).length;
        return ResultParts.fromText(`Wrote ${shown} through the editor: ${bytes} bytes.`);
      },
    });
  }
  return tools;
}

/**
 * The lines numbered as the built-in `read` numbers them, capped in bytes;
 * a full page says how to read on (the client does not say whether more follow).
 */
function numberedLines(text: string, { offset, limit }: { offset: number; limit: number }): string {
  if (text === "") return offset === 1 ? "The file is empty." : `Offset ${offset} is past the end.`;
  const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  const out: string[] = [];
  let bytes = 0;
  for (const line of lines) {
    const numbered = `${String(offset + out.length).padStart(6)}\t${
      truncateLine(line, MAX_LINE_LENGTH)
    }`;
    bytes += new TextEncoder().encode(numbered).length + 1;
    if (bytes > DEFAULT_MAX_BYTES && out.length) {
      const next = offset + out.length;
      return `${out.join("\n")}\n\n[Showing lines ${offset}-${
        next - 1
      }. Use offset=${next} to read more.]`;
    }
    out.push(numbered);
  }
  if (out.length < limit) return out.join("\n");
  const next = offset + out.length;
  return `${out.join("\n")}\n\n[Showing lines ${offset}-${
    next - 1
  }. Use offset=${next} to read more, if there is more.]`;
}

function positive(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value)
    ? Math.max(1, Math.floor(value))
    : fallback;
}
