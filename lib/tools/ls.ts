import { join } from "node:path";
import { ResultParts, type Tool, type ToolOutput } from "../tool.ts";
import type { FileToolOptions } from "./file_tool_options.ts";
import { truncateText } from "./truncate.ts";
import { resolveToolPath } from "./panto_files.ts";

const DEFAULT_LIMIT = 500;

/**
 * The `ls` tool: the entries of one directory, sorted by name
 * (case-insensitively), directories marked with a trailing `/`, dotfiles
 * included.
 *
 * @param options The working directory and extra allowed roots.
 * @returns The tool.
 *
 * @example
 * ```ts
 * import { lsTool } from "./ls.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.mkdir(`${dir}/src`);
 * const signal = new AbortController().signal;
 * const output = await lsTool({ root: dir }).execute({}, { signal, callId: "1" });
 * console.assert(JSON.stringify(output).includes("src/"));
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function lsTool(options: FileToolOptions): Tool {
  return {
    decl: {
      name: "ls",
      description:
        `List a directory: one entry per line, sorted by name, directories ending in "/", hidden files included. At most ${DEFAULT_LIMIT} entries unless you pass limit.`,
      inputSchema: {
        type: "object",
        properties: {
          path: {
            type: "string",
            description:
              "Directory, relative to the working directory (default: the working directory)",
          },
          limit: { type: "integer", minimum: 1, description: "Most entries to list" },
        },
        additionalProperties: false,
      },
    },
    async execute(args): Promise<ToolOutput> {
      const shown = typeof args.path === "string" && args.path !== "" ? args.path : ".";
      const limit = typeof args.limit === "number" ? args.limit : DEFAULT_LIMIT;
      const dir = await resolveToolPath(options, shown, "read");
      const names = await listNames(dir, shown);
      if (names.length === 0) return ResultParts.fromText(`${shown} is empty.`);
      const kept = truncateText(names.slice(0, limit).join("\n"));
      const listed = kept.lastLine;
      if (listed === names.length) return ResultParts.fromText(kept.text);
      return ResultParts.fromText(
        `${kept.text}\n\n[Listed ${listed} of ${names.length} entries. Pass a larger limit, list a subdirectory, or use find with a pattern.]`,
      );
    },
  };
}

async function listNames(dir: string, shown: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      names.push((await isDirectory(join(dir, entry.name), entry)) ? `${entry.name}/` : entry.name);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new Error(`${shown} does not exist`);
    if (error instanceof Deno.errors.NotADirectory) {
      throw new Error(`${shown} is a file, not a directory: use read`);
    }
    throw error;
  }
  return names.sort((a, b) => compare(a.toLowerCase(), b.toLowerCase()) || compare(a, b));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Directories, including symbolic links to directories (a broken link counts as a file). */
async function isDirectory(path: string, entry: Deno.DirEntry): Promise<boolean> {
  if (!entry.isSymlink) return entry.isDirectory;
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}
