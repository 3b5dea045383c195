import { ResultParts, type Tool, type ToolOutput } from "@panto/lib";
import type { FileToolOptions } from "./file_tool_options.ts";
import { globMatcher } from "./glob_match.ts";
import { formatBytes, truncateLine, truncateText } from "./truncate.ts";
import { displayPath, walkFiles } from "./walk_files.ts";
import { resolveWorkspacePath } from "./workspace_path.ts";

const DEFAULT_LIMIT = 100;
const MAX_CONTEXT = 20;
const MAX_LINE_CHARS = 500;
/** Larger files are skipped: they are data or build output, rarely worth searching line by line. */
const MAX_FILE_BYTES = 10 * 1024 * 1024;

interface GrepQuery {
  regex: RegExp;
  context: number;
  limit: number;
}

/**
 * The `grep` tool: searches file contents for a regular expression (or a
 * literal string) under a directory, skipping `.git`, `node_modules`,
 * `.gitignore`d paths, binary files and files over 10 MB. Results are
 * `path:line:text` (context lines `path-line-text`, groups separated by
 * `--`), paths relative to the working directory. Pure TypeScript (no
 * ripgrep), so it needs only read permission.
 *
 * @param options The working directory and extra allowed roots.
 * @returns The tool.
 *
 * @example
 * ```ts
 * import { grepTool } from "./grep.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.txt`, "one\ntwo\n");
 * const signal = new AbortController().signal;
 * const output = await grepTool({ root: dir }).execute({ pattern: "tw." }, { signal, callId: "1" });
 * console.assert(JSON.stringify(output).includes("a.txt:2:two"));
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function grepTool(options: FileToolOptions): Tool {
  return {
    decl: {
      name: "grep",
      description:
        `Search file contents with a regular expression (JavaScript syntax) under a directory, skipping .git, node_modules, .gitignored and binary files. Results are path:line:text, at most ${DEFAULT_LIMIT} matches unless you pass limit. Filter files with glob (e.g. "*.ts" or "src/**/*.test.ts").`,
      inputSchema: {
        type: "object",
        properties: {
          pattern: {
            type: "string",
            description: "Regular expression (or text, with literal: true)",
          },
          path: {
            type: "string",
            description: "Directory or file to search (default: the working directory)",
          },
          glob: {
            type: "string",
            description: 'Only files whose path matches this glob, e.g. "*.ts"',
          },
          ignoreCase: { type: "boolean", description: "Case-insensitive search" },
          literal: {
            type: "boolean",
            description: "Treat pattern as plain text, not a regular expression",
          },
          context: {
            type: "integer",
            minimum: 0,
            maximum: MAX_CONTEXT,
            description: "Lines of context around each match",
          },
          limit: { type: "integer", minimum: 1, description: "Most matches to return" },
        },
        required: ["pattern"],
        additionalProperties: false,
      },
    },
    async execute(args, { signal }): Promise<ToolOutput> {
      const shown = typeof args.path === "string" && args.path !== "" ? args.path : ".";
      const start = await resolveWorkspacePath(options.root, shown, options.allowedRoots);
      const query: GrepQuery = {
        regex: compilePattern(
          String(args.pattern),
          args.ignoreCase === true,
          args.literal === true,
        ),
        context: typeof args.context === "number" ? Math.min(args.context, MAX_CONTEXT) : 0,
        limit: typeof args.limit === "number" ? args.limit : DEFAULT_LIMIT,
      };
      const matchesGlob = typeof args.glob === "string" && args.glob !== ""
        ? globMatcher(args.glob)
        : () => true;
      const lines: string[] = [];
      let matches = 0;
      for await (const file of filesToSearch(start, shown, options.root, signal)) {
        if (!matchesGlob(file.relative)) continue;
        const text = await readText(file.path);
        if (text === undefined) continue;
        const found = searchText(
          text,
          displayPath(options.root, file.path),
          query,
          query.limit - matches,
        );
        if (found.count === 0) continue;
        if (query.context > 0 && lines.length > 0) lines.push("--");
        lines.push(...found.lines);
        matches += found.count;
        if (matches >= query.limit) break;
      }
      if (matches === 0) {
        return ResultParts.fromText(
          `No matches for ${String(args.pattern)} in ${shown}${
            args.glob ? ` (files matching ${args.glob})` : ""
          }.`,
        );
      }
      return ResultParts.fromText(withNotes(lines, matches, query.limit));
    },
  };
}

function compilePattern(pattern: string, ignoreCase: boolean, literal: boolean): RegExp {
  const source = literal ? pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : pattern;
  const flags = ignoreCase ? "i" : "";
  try {
    return new RegExp(source, flags + "u");
  } catch {
    // Some everyday patterns (like "\-") are only valid outside Unicode mode.
    try {
      return new RegExp(source, flags);
    } catch (error) {
      throw new Error(
        `Invalid regular expression ${JSON.stringify(pattern)}: ${
          (error as Error).message
        }. Escape special characters, or pass literal: true to search for the text as it is`,
      );
    }
  }
}

interface SearchTarget {
  path: string;
  relative: string;
}

async function* filesToSearch(
  start: string,
  shown: string,
  root: string,
  signal: AbortSignal,
): AsyncGenerator<SearchTarget> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(start);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new Error(`${shown} does not exist`);
    throw error;
  }
  if (!info.isDirectory) {
    yield { path: start, relative: start.split("/").at(-1)! };
    return;
  }
  for await (const entry of walkFiles(start, { root, signal })) {
    if (!entry.isDirectory && !entry.isSymlink) yield entry;
  }
}

/** The file's text, or `undefined` for binary, oversized and special (pipe, device, socket) files. */
async function readText(path: string): Promise<string | undefined> {
  try {
    const info = await Deno.stat(path);
    // Reading a named pipe would wait for a writer forever.
    if (!info.isFile || info.size > MAX_FILE_BYTES) return undefined;
    const bytes = await Deno.readFile(path);
    if (bytes.subarray(0, 8000).includes(0)) return undefined;
    return new TextDecoder().decode(bytes);
  } catch (error) {
    // A file that vanished or cannot be read is skipped, as grep -s does.
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied) {
      return undefined;
    }
    throw error;
  }
}

/** Matching lines of one file (at most `budget`), with context, in `path:line:text` form. */
function searchText(
  text: string,
  path: string,
  query: GrepQuery,
  budget: number,
): { lines: string[]; count: number } {
  const lines = text.split("\n").map((line) => line.replace(/\r$/, ""));
  if (lines.at(-1) === "") lines.pop();
  const hits: number[] = [];
  for (let i = 0; i < lines.length && hits.length < budget; i++) {
    if (query.regex.test(lines[i]!)) hits.push(i);
  }
  const isHit = new Set(hits);
  const out: string[] = [];
  let printedUpTo = -1;
  for (const hit of hits) {
    const from = Math.max(hit - query.context, printedUpTo + 1);
    if (query.context > 0 && printedUpTo >= 0 && from > printedUpTo + 1) out.push("--");
    const to = Math.min(hit + query.context, lines.length - 1);
    for (let i = from; i <= to; i++) {
      const separator = isHit.has(i) ? ":" : "-";
      out.push(`${path}${separator}${i + 1}${separator}${truncateLine(lines[i]!, MAX_LINE_CHARS)}`);
    }
    printedUpTo = Math.max(printedUpTo, to);
  }
  return { lines: out, count: hits.length };
}

function withNotes(lines: string[], matches: number, limit: number): string {
  const kept = truncateText(lines.join("\n"), { maxLines: Infinity });
  const notes: string[] = [];
  if (matches >= limit) {
    notes.push(
      `[Stopped at ${limit} matches; there may be more. Narrow the pattern, path or glob, or pass a larger limit.]`,
    );
  }
  if (kept.truncated) {
    notes.push(
      `[Output cut to ${
        formatBytes(new TextEncoder().encode(kept.text).length)
      }: showing ${kept.lastLine} of ${kept.totalLines} lines. Narrow the search (path, glob, pattern) or use less context.]`,
    );
  }
  return notes.length ? `${kept.text}\n\n${notes.join("\n")}` : kept.text;
}
