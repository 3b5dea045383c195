/**
 * Finds Agent Skills (agentskills.io): directories holding a `SKILL.md`
 * whose YAML front matter gives a `name` and a `description`. Only each
 * file's front matter is read here; the model reads a whole `SKILL.md`
 * with the `read` tool when it needs it, and `/skill:name` reads it when
 * used.
 *
 * @module
 */
import { sep as SEPARATOR } from "node:path";
import {
  type FileStamp,
  type ListingEntry,
  SkillCache,
  type SkillReading,
  stampOf,
} from "./skill_cache.ts";

/** Whose a skill or prompt template is: the user's (every project) or this project's. */
export type ResourceScope = "user" | "project";

/** A directory skills are looked for in. */
export interface SkillPlace {
  /** The directory. */
  dir: string;
  /** Whose skills these are. */
  scope: ResourceScope;
  /** Whether `.md` files directly in it are skills too (pi's own directories), besides `*\/SKILL.md`. */
  rootFiles: boolean;
}

/** A skill found at start-up (its body is not read). */
export interface Skill {
  /** Its name (`/skill:name`). */
  name: string;
  /** What it does and when to use it. */
  description: string;
  /** Its `SKILL.md` (or root `.md` file), absolute. */
  filePath: string;
  /** The directory its relative paths resolve against. */
  baseDir: string;
  /** Whose it is. */
  scope: ResourceScope;
  /** Whether it is listed in the system prompt (`disable-model-invocation: true` hides it). */
  modelInvocable: boolean;
}

/** Bounds on one discovery, so a huge or deep directory cannot slow the start. */
export interface DiscoveryLimits {
  /** Directory levels below a place that are searched. */
  maxDepth: number;
  /** Most skill files read over all places. */
  maxFiles: number;
  /** Most directories listed over all places. */
  maxDirs: number;
}

/** The default bounds: deep enough for `skills/group/name/SKILL.md`, wide enough for thousands. */
export const DEFAULT_DISCOVERY_LIMITS: DiscoveryLimits = {
  maxDepth: 4,
  maxFiles: 5000,
  maxDirs: 20000,
};

/** The skills found and what was wrong with the files that were not (or not cleanly) loaded. */
export interface SkillDiscovery {
  /** The skills, in discovery order, one per name. */
  skills: Skill[];
  /** One line per problem, each naming its file. */
  warnings: string[];
}

/** A candidate file, the place it was found in and its `stat`'s stamp. */
export interface Candidate {
  path: string;
  place: SkillPlace;
  stamp: FileStamp;
}

/**
 * Finds the skills of the places, in order: a directory holding `SKILL.md`
 * is a skill (nothing below it is searched); other directories are searched
 * down to `maxDepth` (hidden ones and `node_modules` skipped); with
 * `rootFiles`, `.md` files directly in a place are skills too. Invalid
 * skills are warned about and, when they have no front matter or no
 * description, skipped; of two skills with one name the first found wins
 * and the other is named in a warning (as pi does). The same file reached
 * twice (a symbolic link) counts once.
 *
 * @param places Where to look, earlier places first.
 * @param limits Bounds on the search.
 * @param cache Earlier readings of unchanged files (default: none kept).
 * @returns The skills and the warnings.
 *
 * @example
 * ```ts
 * import { discoverSkills } from "./discover_skills.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.mkdirSync(`${dir}/pdf`);
 * Deno.writeTextFileSync(`${dir}/pdf/SKILL.md`, "---\nname: pdf\ndescription: Reads PDFs.\n---\n");
 * const found = await discoverSkills([{ dir, scope: "user", rootFiles: false }]);
 * console.assert(found.skills[0]?.name === "pdf");
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export async function discoverSkills(
  places: readonly SkillPlace[],
  limits: DiscoveryLimits = DEFAULT_DISCOVERY_LIMITS,
  cache: SkillCache = SkillCache.open(undefined),
): Promise<SkillDiscovery> {
  const { candidates, warnings } = findCandidates(places, limits, cache);
  const byName = new Map<string, Skill>();
  const seenFiles = new Map<number, Set<number>>();
  for (const candidate of candidates) {
    if (seenBefore(seenFiles, candidate.stamp)) continue;
    const reading = cache.get(candidate.path, candidate.stamp, candidate.place.scope) ??
      await readAndRemember(candidate, cache);
    if (reading.warnings.length) warnings.push(...reading.warnings);
    const skill = reading.skill;
    if (!skill) continue;
    const winner = byName.get(skill.name);
    if (winner) {
      warnings.push(
        `Skill ${skill.filePath} is not loaded: ${winner.filePath} has the same name "${skill.name}" and was found first`,
      );
      continue;
    }
    byName.set(skill.name, skill);
  }
  await cache.save();
  return { skills: [...byName.values()], warnings };
}

/**
 * Whether a file was reached before (through a symbolic link): its device
 * and inode say so without a realpath call. Inodes are kept by device as
 * numbers: a string key per file is a measurable part of a thousand.
 */
function seenBefore(seen: Map<number, Set<number>>, stamp: FileStamp): boolean {
  if (stamp.ino === null) return false;
  const inodes = seen.get(stamp.dev) ?? new Set<number>();
  if (inodes.has(stamp.ino)) return true;
  seen.set(stamp.dev, inodes.add(stamp.ino));
  return false;
}

/**
 * Reads a candidate the cache has no (current) reading of, and records it.
 * The reading code (YAML front matter, checks) loads with the first file
 * read: a start whose skills are all cached loads none of it.
 */
async function readAndRemember(candidate: Candidate, cache: SkillCache): Promise<SkillReading> {
  const { readSkill } = await import("./read_skill.ts");
  const reading = await readSkill(candidate);
  cache.put(candidate.path, candidate.stamp, reading);
  return reading;
}

/**
 * Walks the places within the limits (synchronously: thousands of small
 * calls). A directory's `SKILL.md` is looked up before the directory is
 * listed, so a skill costs one `stat` (and, when not cached, one read), and
 * only directories without one are listed — or taken from the cache while
 * their `stat` is unchanged.
 */
function findCandidates(
  places: readonly SkillPlace[],
  limits: DiscoveryLimits,
  cache: SkillCache,
): { candidates: Candidate[]; warnings: string[] } {
  const candidates: Candidate[] = [];
  const warnings: string[] = [];
  let dirs = 0;
  const full = () => candidates.length >= limits.maxFiles || dirs >= limits.maxDirs;
  const walk = (place: SkillPlace, dir: string, depth: number): void => {
    if (full()) return;
    dirs++;
    const skillFile = childPath(dir, "SKILL.md");
    const info = statOf(skillFile);
    if (info?.isFile) {
      candidates.push({ path: skillFile, place, stamp: stampOf(info) });
      return;
    }
    for (const entry of listDir(dir, cache)) {
      const name = entry.slice(1);
      if (name.startsWith(".") || name === "node_modules") continue;
      const path = childPath(dir, name);
      if (isDirectory(entry, path)) {
        if (depth < limits.maxDepth) walk(place, path, depth + 1);
        continue;
      }
      if (depth !== 0 || !place.rootFiles || !name.endsWith(".md") || full()) continue;
      const rootInfo = statOf(path);
      if (rootInfo?.isFile) candidates.push({ path, place, stamp: stampOf(rootInfo) });
    }
  };
  for (const place of places) walk(place, place.dir, 0);
  if (full()) {
    warnings.push(
      `Stopped looking for skills after ${candidates.length} files in ${dirs} directories (panto reads at most ${limits.maxFiles} and lists at most ${limits.maxDirs}): move unused skills out of ${
        places.map((p) => p.dir).join(", ")
      }`,
    );
  }
  return { candidates, warnings };
}

/** A directory's entries, from the cache while its `stat` is unchanged. */
function listDir(dir: string, cache: SkillCache): ListingEntry[] {
  const info = statOf(dir);
  if (!info?.isDirectory) return [];
  const stamp = stampOf(info);
  const cached = cache.listing(dir, stamp);
  if (cached) return cached;
  const entries = readListing(dir);
  cache.putListing(dir, stamp, entries);
  return entries;
}

/**
 * A directory's entries by name: which of two skills with one name wins
 * must not depend on the file system's order. The names are sorted without
 * a comparator (by UTF-16 code unit, as `<` compares): a thousand entries
 * take some ten thousand calls of one.
 */
function readListing(dir: string): ListingEntry[] {
  const kinds = new Map<string, string>();
  try {
    for (const entry of Deno.readDirSync(dir)) {
      kinds.set(entry.name, entry.isSymlink ? "l" : entry.isDirectory ? "d" : "f");
    }
  } catch {
    // Not granted, or gone since its stat: nothing to find there.
    return [];
  }
  return [...kinds.keys()].sort().map((name) => kinds.get(name) + name);
}

function isDirectory(entry: ListingEntry, path: string): boolean {
  return entry.startsWith("l") ? statOf(path)?.isDirectory === true : entry.startsWith("d");
}

/**
 * `dir/name` for a normalised `dir` and a plain entry name: `join` would
 * normalise again, which thousands of entries make a measurable part of
 * the start.
 */
function childPath(dir: string, name: string): string {
  return dir.endsWith(SEPARATOR) ? dir + name : dir + SEPARATOR + name;
}

function statOf(path: string): Deno.FileInfo | undefined {
  try {
    return Deno.statSync(path);
  } catch {
    return undefined;
  }
}
