import { dirname, isAbsolute, join, relative, sep } from "node:path";
import type { Ignore } from "ignore";

/** Directories never searched: version control data and installed dependencies. */
const ALWAYS_SKIPPED = new Set([".git", "node_modules"]);

/** One entry found by {@linkcode walkFiles}. */
export interface WalkEntry {
  /** Absolute path. */
  path: string;
  /** Path relative to the walk's start, with `/` separators. */
  relative: string;
  /** A directory (entered after it is yielded). */
  isDirectory: boolean;
  /** A symbolic link (never followed). */
  isSymlink: boolean;
}

/** Options for {@linkcode walkFiles}. */
export interface WalkOptions {
  /** The working directory: `.gitignore` files from here down to the start also apply. */
  root: string;
  /** Stops the walk (it then throws the signal's reason). */
  signal?: AbortSignal;
  /** Absolute paths neither reported nor entered (panto's home). */
  skip?: readonly string[];
}

interface IgnoreRules {
  base: string;
  rules: Ignore;
}

/**
 * Walks a directory tree depth-first in name order, skipping `.git`,
 * `node_modules` and whatever `.gitignore` files ignore (roughly as git
 * does: each file's patterns apply below its directory). Symbolic links are
 * reported but never followed, so the walk cannot leave the tree.
 *
 * @param start The directory to walk (absolute).
 * @param options The working directory and an abort signal.
 * @returns The entries, directories before their contents.
 *
 * @example
 * ```ts
 * import { walkFiles } from "./walk_files.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.txt`, "a");
 * const names = [];
 * for await (const entry of walkFiles(dir, { root: dir })) names.push(entry.relative);
 * console.assert(names.join() === "a.txt");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function* walkFiles(start: string, options: WalkOptions): AsyncGenerator<WalkEntry> {
  const inherited = await rulesAbove(start, options.root);
  const walk = { start, skip: new Set(options.skip), signal: options.signal };
  yield* walkDirectory(walk, start, inherited);
}

/**
 * How a tool shows a path: relative to the working directory when inside it,
 * absolute otherwise.
 *
 * @param root The working directory.
 * @param path An absolute path.
 * @returns The path to show.
 *
 * @example
 * ```ts
 * import { displayPath } from "./walk_files.ts";
 * console.assert(displayPath("/work", "/work/src/a.ts") === "src/a.ts");
 * console.assert(displayPath("/work", "/etc/hosts") === "/etc/hosts");
 * ```
 */
export function displayPath(root: string, path: string): string {
  const rel = relative(root, path);
  if (rel === "") return ".";
  if (isOutside(rel)) return path;
  return rel.split(sep).join("/");
}

/** What stays the same throughout one walk. */
interface Walk {
  start: string;
  skip: ReadonlySet<string>;
  signal: AbortSignal | undefined;
}

async function* walkDirectory(
  walk: Walk,
  dir: string,
  inherited: readonly IgnoreRules[],
): AsyncGenerator<WalkEntry> {
  walk.signal?.throwIfAborted();
  const own = await loadRules(dir);
  const rules = own ? [...inherited, own] : inherited;
  const entries = await readSortedDir(dir);
  for (const entry of entries) {
    if (entry.isDirectory && ALWAYS_SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (walk.skip.has(path) || isIgnored(rules, path, entry.isDirectory)) continue;
    const rel = relative(walk.start, path).split(sep).join("/");
    yield { path, relative: rel, isDirectory: entry.isDirectory, isSymlink: entry.isSymlink };
    if (entry.isDirectory && !entry.isSymlink) yield* walkDirectory(walk, path, rules);
  }
}

async function readSortedDir(dir: string): Promise<Deno.DirEntry[]> {
  const entries: Deno.DirEntry[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) entries.push(entry);
  } catch (error) {
    // An unreadable subdirectory should not end the whole search.
    if (error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.NotFound) {
      return [];
    }
    throw error;
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function isIgnored(rules: readonly IgnoreRules[], path: string, isDirectory: boolean): boolean {
  for (const { base, rules: ignored } of rules) {
    const rel = relative(base, path).split(sep).join("/");
    if (rel === "" || isOutside(rel)) continue;
    if (ignored.ignores(isDirectory ? `${rel}/` : rel)) return true;
  }
  return false;
}

/** The `.gitignore` rules of the directories from the working directory down to (not including) `start`. */
async function rulesAbove(start: string, root: string): Promise<IgnoreRules[]> {
  const rel = relative(root, start);
  if (rel === "" || isOutside(rel)) return [];
  const dirs: string[] = [];
  for (let dir = dirname(start);; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dir === root || dir === dirname(dir)) break;
  }
  const found = await Promise.all(dirs.map(loadRules));
  return found.filter((rules): rules is IgnoreRules => rules !== undefined);
}

/** Whether a `relative()` result leaves its base. */
function isOutside(rel: string): boolean {
  return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

async function loadRules(dir: string): Promise<IgnoreRules | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(join(dir, ".gitignore"));
  } catch {
    // No .gitignore (or an unreadable one) just means no extra rules.
    return undefined;
  }
  // Loaded on first use: a CommonJS package, costly to load at every start.
  const { default: ignore } = await import("ignore");
  return { base: dir, rules: ignore().add(text) };
}
