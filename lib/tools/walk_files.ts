import { dirname, isAbsolute, relative, sep } from "node:path";
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
  /** Told of each directory not entered for being {@linkcode MAX_WALK_DEPTH} levels down. */
  onTooDeep?: (relative: string) => void;
}

/**
 * Levels below the start a walk enters. Real trees stay far above it; a
 * deeper one is made to hurt: under the `panto` command's permission flags
 * Deno's cost of opening a file grows with its depth (34 ms at 1000 levels),
 * which made a walk through 2000 levels with a `.gitignore` each take six
 * minutes.
 */
export const MAX_WALK_DEPTH = 100;

/** Longest the walk keeps the event loop to itself (with its consumer's work) between breathers. */
const BUSY_MS = 50;

/** One `.gitignore`. */
interface IgnoreRules {
  /** Its directory, ending in a separator. */
  base: string;
  /** Its directory's depth below the walk's start (negative above it). */
  depth: number;
  /** All its rules, for paths relative to `base`. */
  rules: Ignore;
  /** The levels below `base` its patterns with a `/` reach: 0 if none has one, Infinity with `**`. */
  reach: number;
  /** Its rules without a `/` (matching names at any depth), for the name alone deeper than `reach`. */
  nameRules: Ignore;
}

/**
 * Walks a directory tree depth-first in name order, skipping `.git`,
 * `node_modules` and whatever `.gitignore` files ignore (roughly as git
 * does: each file's patterns apply below its directory). Symbolic links are
 * reported but never followed, so the walk cannot leave the tree. An entry
 * costs about one name lookup per `.gitignore` above it (testing whole
 * paths made deep trees cubic), and the walk lets timers and input run at
 * least every 50 ms, so an abort stops it at once.
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
  const walk: Walk = {
    skip: new Set(options.skip),
    signal: options.signal,
    onTooDeep: options.onTooDeep,
  };
  const stack = [await openDirectory(walk, start, "", 0, await rulesAbove(start, options.root))];
  let busySince = performance.now();
  while (stack.length > 0) {
    const frame = stack.at(-1)!;
    const entry = frame.entries[frame.next++];
    if (entry === undefined) {
      stack.pop();
      continue;
    }
    if (entry.isDirectory && ALWAYS_SKIPPED.has(entry.name)) continue;
    const path = childPath(frame.dir, entry.name);
    const depth = frame.depth + 1;
    if (walk.skip.has(path) || isIgnored(frame.rules, path, depth, entry)) continue;
    const rel = frame.relative === "" ? entry.name : `${frame.relative}/${entry.name}`;
    yield { path, relative: rel, isDirectory: entry.isDirectory, isSymlink: entry.isSymlink };
    if (performance.now() - busySince > BUSY_MS) {
      await breather();
      busySince = performance.now();
    }
    walk.signal?.throwIfAborted();
    if (entry.isDirectory && !entry.isSymlink) {
      if (depth >= MAX_WALK_DEPTH) walk.onTooDeep?.(rel);
      else stack.push(await openDirectory(walk, path, rel, depth, frame.rules));
    }
  }
}

/**
 * The note a search adds when it left directories unsearched for their
 * depth (see {@linkcode MAX_WALK_DEPTH}); empty when it left none.
 *
 * @param tooDeep The directories not entered, relative to the start.
 * @param start The start as the model gave it.
 * @returns `\n\n[…]` or `""`.
 *
 * @example
 * ```ts
 * import { tooDeepNote } from "./walk_files.ts";
 * console.assert(tooDeepNote([], ".") === "");
 * console.assert(tooDeepNote(["a/b"], "src").includes("src/a/b/"));
 * ```
 */
export function tooDeepNote(tooDeep: readonly string[], start: string): string {
  const first = tooDeep[0];
  if (first === undefined) return "";
  const path = start === "." ? first : `${start.replace(/\/$/, "")}/${first}`;
  return `\n\n[Not searched: ${tooDeep.length} director${
    tooDeep.length === 1 ? "y" : "ies"
  } more than ${MAX_WALK_DEPTH} levels down, such as ${path}/; to search there, pass it as the path]`;
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
  skip: ReadonlySet<string>;
  signal: AbortSignal | undefined;
  onTooDeep: ((relative: string) => void) | undefined;
}

/** A directory being listed: the walk keeps a stack of these rather than nest a generator per level. */
interface Frame {
  dir: string;
  /** `dir` relative to the walk's start, with `/` separators (`""` for the start). */
  relative: string;
  /** Levels below the start (0 for the start). */
  depth: number;
  rules: readonly IgnoreRules[];
  entries: Deno.DirEntry[];
  next: number;
}

async function openDirectory(
  walk: Walk,
  dir: string,
  rel: string,
  depth: number,
  inherited: readonly IgnoreRules[],
): Promise<Frame> {
  walk.signal?.throwIfAborted();
  const entries = await readSortedDir(dir);
  // Opened only where the listing shows one: an open costs far more than the listing.
  const hasRules = entries.some((entry) => entry.name === ".gitignore" && !entry.isDirectory);
  const own = hasRules ? await loadRules(dir, depth) : undefined;
  const rules = own ? [...inherited, own] : inherited;
  return { dir, relative: rel, depth, rules, entries, next: 0 };
}

/** `dir` and `name` joined by string concatenation: `join` re-normalizes the whole path each time. */
function childPath(dir: string, name: string): string {
  return dir.endsWith(sep) ? dir + name : dir + sep + name;
}

/** Lets timers and input run (an interrupt, a redraw): awaiting the walk alone only runs microtasks. */
function breather(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
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

/**
 * Whether a `.gitignore` ignores the entry. Only the entry itself needs a
 * test, as the walk never enters an ignored directory, so below the reach of
 * a file's patterns with a `/` its other rules get the name alone: the cost
 * of a test does not grow with the depth (the whole path made a walk through
 * 2000 levels, each with a `.gitignore`, take minutes).
 */
function isIgnored(
  rules: readonly IgnoreRules[],
  path: string,
  depth: number,
  entry: Deno.DirEntry,
): boolean {
  for (const { base, depth: baseDepth, rules: all, reach, nameRules } of rules) {
    const near = depth - baseDepth <= reach;
    const tested = near ? toSlashes(path.slice(base.length)) : entry.name;
    if ((near ? all : nameRules).ignores(entry.isDirectory ? `${tested}/` : tested)) return true;
  }
  return false;
}

function toSlashes(path: string): string {
  return sep === "/" ? path : path.replaceAll(sep, "/");
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
  const found = await Promise.all(
    dirs.map((dir) => loadRules(dir, -relative(dir, start).split(sep).length)),
  );
  return found.filter((rules): rules is IgnoreRules => rules !== undefined);
}

/** Whether a `relative()` result leaves its base. */
function isOutside(rel: string): boolean {
  return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

async function loadRules(dir: string, depth: number): Promise<IgnoreRules | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(childPath(dir, ".gitignore"));
  } catch {
    // No .gitignore (or an unreadable one) just means no extra rules.
    return undefined;
  }
  // Loaded on first use: a CommonJS package, costly to load at every start.
  const { default: ignore } = await import("ignore");
  let reach = 0;
  const nameLines: string[] = [];
  for (const line of text.split("\n")) {
    // A last `/` only limits a pattern to directories; any other makes it a path pattern.
    const pattern = line.trimEnd().replace(/^!/, "").replace(/\/$/, "");
    if (line.startsWith("#") || !pattern.includes("/")) {
      nameLines.push(line);
      continue;
    }
    // Without `**`, each `/` of a pattern is one level (`*`, `?` and classes never match `/`).
    const levels = pattern.replace(/^\//, "").split("/").length;
    reach = Math.max(reach, pattern.includes("**") ? Infinity : levels);
  }
  const rules = ignore().add(text);
  const nameRules = reach === 0 ? rules : ignore().add(nameLines.join("\n"));
  return { base: childPath(dir, ""), depth, rules, reach, nameRules };
}
