import { ResultParts, type Tool, type ToolOutput } from "../tool.ts";
import type { FileToolOptions } from "./file_tool_options.ts";
import { globMatcher } from "./glob_match.ts";
import { truncateText } from "./truncate.ts";
import { displayPath, tooDeepNote, walkFiles } from "./walk_files.ts";
import { pantoHomePaths, resolveToolPath } from "./panto_files.ts";

const DEFAULT_LIMIT = 1000;

/**
 * The `find` tool: paths under a directory whose relative path matches a
 * glob (a pattern without `/` matches file names at any depth), skipping
 * `.git`, `node_modules` and `.gitignore`d paths. Directories end in `/`;
 * paths are relative to the working directory, in name order.
 *
 * @param options The working directory and extra allowed roots.
 * @returns The tool.
 *
 * @example
 * ```ts
 * import { findTool } from "./find.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.mkdir(`${dir}/src`);
 * await Deno.writeTextFile(`${dir}/src/a.ts`, "");
 * const signal = new AbortController().signal;
 * const output = await findTool({ root: dir }).execute({ pattern: "*.ts" }, { signal, callId: "1" });
 * console.assert(JSON.stringify(output).includes("src/a.ts"));
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function findTool(options: FileToolOptions): Tool {
  return {
    decl: {
      name: "find",
      description:
        `Find files by glob pattern, e.g. "*.ts" (any depth), "src/**/*_test.ts" or "*.{js,jsx}", skipping .git, node_modules and .gitignored paths. Returns paths relative to the working directory (directories end in "/"), at most ${DEFAULT_LIMIT} unless you pass limit.`,
      inputSchema: {
        type: "object",
        properties: {
          pattern: { type: "string", description: "Glob matched against paths relative to path" },
          path: {
            type: "string",
            description: "Directory to search (default: the working directory)",
          },
          limit: { type: "integer", minimum: 1, description: "Most paths to return" },
        },
        required: ["pattern"],
        additionalProperties: false,
      },
    },
    async execute(args, { signal }): Promise<ToolOutput> {
      const pattern = String(args.pattern);
      const shown = typeof args.path === "string" && args.path !== "" ? args.path : ".";
      const limit = typeof args.limit === "number" ? args.limit : DEFAULT_LIMIT;
      const start = await resolveToolPath(options, shown, "read");
      await requireDirectory(start, shown);
      const matches = await globMatcher(pattern);
      const found: string[] = [];
      let more = false;
      const skip = await pantoHomePaths(options);
      const tooDeep: string[] = [];
      const onTooDeep = (rel: string) => void tooDeep.push(rel);
      for await (const entry of walkFiles(start, { root: options.root, signal, skip, onTooDeep })) {
        if (!matches(entry.relative)) continue;
        if (found.length === limit) {
          more = true;
          break;
        }
        const path = displayPath(options.root, entry.path);
        found.push(entry.isDirectory ? `${path}/` : path);
      }
      const note = tooDeepNote(tooDeep, shown);
      if (found.length === 0) {
        return ResultParts.fromText(
          `No paths match ${JSON.stringify(pattern)} under ${shown}.${note}`,
        );
      }
      const kept = truncateText(found.join("\n"), { maxLines: Infinity });
      if (!more && !kept.truncated) return ResultParts.fromText(kept.text + note);
      const count = more
        ? `the first ${kept.lastLine} paths`
        : `${kept.lastLine} of ${found.length} paths`;
      return ResultParts.fromText(
        `${kept.text}\n\n[Showing ${count}. Use a narrower pattern or path, or pass a larger limit.]${note}`,
      );
    },
  };
}

async function requireDirectory(path: string, shown: string): Promise<void> {
  try {
    if (!(await Deno.stat(path)).isDirectory) {
      throw new Error(`${shown} is a file, not a directory`);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new Error(`${shown} does not exist`);
    throw error;
  }
}
