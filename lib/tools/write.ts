import { dirname } from "node:path";
import { ResultParts, type Tool, type ToolOutput } from "../tool.ts";
import { type FileToolOptions, notRegularFile } from "./file_tool_options.ts";
import { resolveToolPath } from "./panto_files.ts";

const encoder = new TextEncoder();

/**
 * The `write` tool: creates or overwrites a file with the given content,
 * creating missing parent directories.
 *
 * @param options The working directory and extra allowed roots.
 * @returns The tool.
 *
 * @example
 * ```ts
 * import { writeTool } from "./write.ts";
 * const dir = await Deno.makeTempDir();
 * const signal = new AbortController().signal;
 * await writeTool({ root: dir }).execute({ path: "a/b.txt", content: "hi" }, { signal, callId: "1" });
 * console.assert(await Deno.readTextFile(`${dir}/a/b.txt`) === "hi");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function writeTool(options: FileToolOptions): Tool {
  return {
    decl: {
      name: "write",
      description:
        "Create a file, or overwrite one completely, with the given content. Missing parent directories are created. To change part of an existing file, use edit instead.",
      inputSchema: {
        type: "object",
        properties: {
          path: { type: "string", description: "File path, relative to the working directory" },
          content: { type: "string", description: "The complete new content of the file" },
        },
        required: ["path", "content"],
        additionalProperties: false,
      },
    },
    async execute(args, { signal }): Promise<ToolOutput> {
      const shown = String(args.path);
      const content = String(args.content);
      const path = await resolveToolPath(options, shown, "write");
      const existed = await fileExists(path, shown);
      signal.throwIfAborted();
      await Deno.mkdir(dirname(path), { recursive: true });
      const bytes = encoder.encode(content);
      await Deno.writeFile(path, bytes);
      return ResultParts.fromText(
        `${existed ? "Overwrote" : "Created"} ${shown}: wrote ${bytes.length} bytes.`,
      );
    },
  };
}

async function fileExists(path: string, shown: string): Promise<boolean> {
  try {
    const info = await Deno.stat(path);
    if (info.isDirectory) throw new Error(`${shown} is a directory: give a file path`);
    // Opening a named pipe for writing would wait for a reader forever.
    if (!info.isFile) throw new Error(notRegularFile(shown));
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
