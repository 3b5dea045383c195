import { ResultParts, type Tool, type ToolOutput } from "../tool.ts";
import type { FileToolOptions } from "./file_tool_options.ts";
import { LineMatcher, MatchTimeout } from "./line_matcher.ts";
import { looksBinary, SNIFF_BYTES } from "./binary_sniff.ts";
import { globMatcher } from "./glob_match.ts";
import { formatBytes, truncateLine, truncateText } from "./truncate.ts";
import { displayPath, tooDeepNote, walkFiles, type WalkOptions } from "./walk_files.ts";
import { pantoHomePaths, resolveToolPath } from "./panto_files.ts";

const DEFAULT_LIMIT = 100;
const MAX_CONTEXT = 20;
const MAX_LINE_CHARS = 500;
/** Larger files are skipped: they are data or build output, rarely worth searching line by line. */
const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Time the matching of one search may take before it is stopped (a runaway pattern). */
const DEFAULT_MATCH_BUDGET_MS = 5000;

/** Options for {@linkcode grepTool}. */
export interface GrepToolOptions extends FileToolOptions {
  /** Time the regex matching of one call may take, in ms (default 5000). */
  matchBudgetMs?: number;
}

interface GrepQuery {
  regex: RegExp;
  context: number;
  limit: number;
  matchesGlob: (path: string) => boolean;
}

/**
 * The `grep` tool: searches file contents for a regular expression (or a
 * literal string) under a directory, skipping `.git`, `node_modules`,
 * `.gitignore`d paths, binary files and files over 10 MB. Results are
 * `path:line:text` (context lines `path-line-text`, groups separated by
 * `--`), paths relative to the working directory. Pure TypeScript (no
 * ripgrep), so it needs only read permission. Matching runs in a worker with
 * a time budget (5 s), so a runaway pattern is stopped with an error and an
 * abort stops it at once.
 *
 * @param options The working directory, extra allowed roots, the matching budget.
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
export function grepTool(options: GrepToolOptions): Tool {
  const budgetMs = options.matchBudgetMs ?? DEFAULT_MATCH_BUDGET_MS;
  return {
    decl: {
      name: "grep",
      description:
        `Search file contents with a regular expression (JavaScript syntax) under a directory, skipping .git, node_modules, .gitignored and binary files. Results are path:line:text, at most ${DEFAULT_LIMIT} matches unless you pass limit. Filter files with glob (e.g. "*.ts" or "src/**/*.test.ts"). A search whose matching takes over ${
          budgetMs / 1000
        } s is stopped: avoid nested repetition such as (a+)+.`,
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
      const start = await resolveToolPath(options, shown, "read");
      const pattern = String(args.pattern);
      const query: GrepQuery = {
        regex: compilePattern(pattern, args.ignoreCase === true, args.literal === true),
        context: typeof args.context === "number" ? Math.min(args.context, MAX_CONTEXT) : 0,
        limit: typeof args.limit === "number" ? args.limit : DEFAULT_LIMIT,
        matchesGlob: typeof args.glob === "string" && args.glob !== ""
          ? await globMatcher(args.glob)
          : () => true,
      };
      const matcher = new LineMatcher(query.regex, budgetMs, signal);
      const tooDeep: string[] = [];
      const walk = {
        root: options.root,
        signal,
        skip: await pantoHomePaths(options),
        onTooDeep: (rel: string) => void tooDeep.push(rel),
      };
      let found: Found;
      try {
        found = await search(filesToSearch(start, shown, walk), query, matcher);
      } catch (error) {
        if (!(error instanceof MatchTimeout)) throw error;
        return ResultParts.error(
          `grep stopped: the pattern ${JSON.stringify(pattern)} took longer than ${
            budgetMs / 1000
          } s to match; simplify it (nested repetition such as (a+)+ can backtrack without end), or narrow the path or glob`,
        );
      } finally {
        matcher.close();
      }
      const note = tooDeepNote(tooDeep, shown);
      if (found.matches === 0) {
        return ResultParts.fromText(
          `No matches for ${pattern} in ${shown}${
            args.glob ? ` (files matching ${args.glob})` : ""
          }.${note}`,
        );
      }
      return ResultParts.fromText(withNotes(found.lines, found.matches, query.limit) + note);
    },
  };
}

interface Found {
  lines: string[];
  matches: number;
}

async function search(
  files: AsyncIterable<SearchTarget>,
  query: GrepQuery,
  matcher: LineMatcher,
): Promise<Found> {
  const found: Found = { lines: [], matches: 0 };
  for await (const file of files) {
    if (!query.matchesGlob(file.relative)) continue;
    const text = await readText(file.path);
    if (text === undefined) continue;
    const lines = splitLines(text);
    const hits = await matcher.matchingLines(lines, query.limit - found.matches);
    if (hits.length === 0) continue;
    if (query.context > 0 && found.lines.length > 0) found.lines.push("--");
    found.lines.push(...formatHits(lines, hits, file.shown, query.context));
    found.matches += hits.length;
    if (found.matches >= query.limit) break;
  }
  return found;
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
  /** As shown in results: relative to the working directory when inside it. */
  shown: string;
}

async function* filesToSearch(
  start: string,
  shown: string,
  walk: WalkOptions & { root: string },
): AsyncGenerator<SearchTarget> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(start);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new Error(`${shown} does not exist`);
    throw error;
  }
  if (!info.isDirectory) {
    yield { path: start, relative: start.split("/").at(-1)!, shown: displayPath(walk.root, start) };
    return;
  }
  for await (const entry of walkFiles(start, walk)) {
    if (entry.isDirectory || entry.isSymlink) continue;
    yield { ...entry, shown: displayPath(walk.root, entry.path) };
  }
}

/** The file's text, or `undefined` for binary, oversized and special (pipe, device, socket) files. */
async function readText(path: string): Promise<string | undefined> {
  try {
    const info = await Deno.stat(path);
    // Reading a named pipe would wait for a writer forever.
    if (!info.isFile || info.size > MAX_FILE_BYTES) return undefined;
    const bytes = await Deno.readFile(path);
    if (looksBinary(bytes.subarray(0, SNIFF_BYTES))) return undefined;
    return new TextDecoder().decode(bytes);
  } catch (error) {
    // A file that vanished or cannot be read is skipped, as grep -s does.
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied) {
      return undefined;
    }
    throw error;
  }
}

function splitLines(text: string): string[] {
  const lines = text.split("\n").map((line) => line.replace(/\r$/, ""));
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** The hit lines of one file with their context, in `path:line:text` form. */
function formatHits(
  lines: readonly string[],
  hits: readonly number[],
  path: string,
  context: number,
): string[] {
  const isHit = new Set(hits);
  const out: string[] = [];
  let printedUpTo = -1;
  for (const hit of hits) {
    const from = Math.max(hit - context, printedUpTo + 1);
    if (context > 0 && printedUpTo >= 0 && from > printedUpTo + 1) out.push("--");
    const to = Math.min(hit + context, lines.length - 1);
    for (let i = from; i <= to; i++) {
      const separator = isHit.has(i) ? ":" : "-";
      out.push(`${path}${separator}${i + 1}${separator}${truncateLine(lines[i]!, MAX_LINE_CHARS)}`);
    }
    printedUpTo = Math.max(printedUpTo, to);
  }
  return out;
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
