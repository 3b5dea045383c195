/**
 * What discovery read from each skill file, kept in `$PANTO_HOME` between
 * starts: a file whose size, modification time and inode are unchanged is
 * not opened again, so a start with a thousand skills costs a thousand
 * `stat` calls rather than four thousand calls (open, read, close).
 *
 * @module
 */
import { dirname, join, sep as SEPARATOR } from "node:path";
import type { ResourceScope, Skill } from "./discover_skills.ts";

/** What reading one skill file gave: the skill (when usable) and the warnings. */
export interface SkillReading {
  /** The skill, when the file is a usable one. */
  skill?: Skill;
  /** Problems with the file, each naming it. */
  warnings: string[];
}

/**
 * What discovery keeps of a `stat`: what tells a changed file or directory.
 * Kept instead of the `FileInfo` (some twenty fields and four dates) so a
 * thousand of those are garbage as soon as they are made.
 */
export interface FileStamp {
  /** Size in bytes. */
  size: number;
  /** Modification time in milliseconds, `NaN` when the file system keeps none. */
  mtime: number;
  /** Inode, when the platform has them. */
  ino: number | null;
  /** Device. */
  dev: number;
}

/**
 * The stamp of a `stat`.
 *
 * @param info The `stat`.
 * @returns Its stamp.
 *
 * @example
 * ```ts
 * import { stampOf } from "./skill_cache.ts";
 * console.assert(stampOf(Deno.statSync(Deno.cwd())).mtime > 0);
 * ```
 */
export function stampOf(info: Deno.FileInfo): FileStamp {
  return { size: info.size, mtime: info.mtime?.getTime() ?? NaN, ino: info.ino, dev: info.dev };
}

/** Most files remembered: every skill of a start, and others' while there is room. */
export const MAX_CACHE_ENTRIES = 5000;

/** Most directory listings remembered: every one of a start, and others' while there is room. */
export const MAX_CACHE_LISTINGS = 500;

/**
 * How recently modified a file may be and still have its reading kept
 * under its `stat`: a file system stamps modification times coarsely (a
 * clock tick; two seconds on FAT), so an edit of the same size in the same
 * tick would leave the stamp as it was. Such a file is read again at the
 * next start, by when its stamp is settled.
 */
export const SETTLED_AFTER_MS = 2000;

/**
 * The cache file under panto's home.
 *
 * @param pantoHome panto's home.
 * @returns `$PANTO_HOME/cache/skills.json`.
 *
 * @example
 * ```ts
 * import { skillCachePath } from "./skill_cache.ts";
 * console.assert(skillCachePath("/h/.panto") === "/h/.panto/cache/skills.json");
 * ```
 */
export function skillCachePath(pantoHome: string): string {
  return join(pantoHome, "cache", "skills.json");
}

/**
 * The version of the file's layout: a file of another version is an empty
 * cache (its files are read again and it is rewritten).
 */
const CACHE_VERSION = 3;

/**
 * The file's `rows` is one flat array, {@linkcode STRIDE} values a file:
 * its path, the `stat` its reading was made from (size, modification time
 * — `null` while not settled — and inode), its warnings (`0` for none),
 * and for a usable skill its name, description and whether the model may
 * use it (`0` for a file that is not one). Flat because a start parses the
 * whole file: a thousand small arrays or an object of a thousand keys cost
 * several times the parse of one array of plain values. The base directory
 * and the scope are not stored: they follow from the path and the place.
 */
const STRIDE = 8;
const PATH = 0;
const SIZE = 1;
const MTIME = 2;
const INO = 3;
const WARNINGS = 4;
const NAME = 5;
const DESCRIPTION = 6;
const INVOCABLE = 7;

/** One file's values, laid out as in the file's `rows`. */
type Row = unknown[];

/**
 * The file's `dirs` is one flat array too, {@linkcode LISTING_STRIDE}
 * values a directory discovery listed: its path, its `stat` (modification
 * time, `null` while not settled, and inode: adding, removing or renaming
 * an entry changes the time) and its entries as one string, each
 * {@linkcode ListingEntry} ended by a `/` (which no name holds).
 */
const LISTING_STRIDE = 4;

/**
 * A directory entry as discovery keeps it: its kind (`d` a directory, `l` a
 * symbolic link, `f` anything else) and then its name.
 */
export type ListingEntry = string;

/**
 * The readings of one discovery: earlier ones (from the file) reused while
 * a file is unchanged, new ones recorded, and the file rewritten when
 * anything changed. Discovery asks for files in the order it found them
 * the last time, which is the order they were saved in: each lookup tries
 * the row after the last one used before it indexes the file by path.
 *
 * @example
 * ```ts
 * import { SkillCache, stampOf } from "./skill_cache.ts";
 * const dir = await Deno.makeTempDir();
 * const path = `${dir}/SKILL.md`;
 * await Deno.writeTextFile(path, "");
 * await Deno.utime(path, 0, 0); // settled long ago
 * const cache = SkillCache.open(`${dir}/cache/skills.json`);
 * const info = stampOf(await Deno.stat(path));
 * cache.put(path, info, { warnings: ["w"] });
 * await cache.save();
 * console.assert(SkillCache.open(`${dir}/cache/skills.json`).get(path, info, "user")?.warnings[0] === "w");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class SkillCache {
  readonly #path: string | undefined;
  readonly #earlier: unknown[];
  /** Where the next lookup looks first: the row after the last one found. */
  #next = 0;
  /** The earlier rows' offsets by path, made at the first lookup not found at `#next`. */
  #offsets: Map<unknown, number> | undefined;
  /**
   * This discovery's rows in lookup order: new ones, and earlier ones by
   * their offset (not copied: they are written again only when the file is).
   */
  readonly #now: (Row | number)[] = [];
  readonly #earlierListings: unknown[];
  /** This discovery's listings (earlier ones reused, new ones), flat as in the file. */
  readonly #listings: unknown[] = [];
  #changed = false;

  private constructor(path: string | undefined, earlier: CacheFile) {
    this.#path = path;
    this.#earlier = earlier.rows;
    this.#earlierListings = earlier.dirs;
  }

  /**
   * Reads the cache file (a missing, damaged or older one is an empty cache).
   *
   * @param path The file, or `undefined` for a cache that is never kept.
   * @returns The cache.
   */
  static open(path: string | undefined): SkillCache {
    return new SkillCache(path, path === undefined ? { rows: [], dirs: [] } : readFile(path));
  }

  /**
   * The earlier reading of a file, when its `stat` is unchanged.
   *
   * @param path The file.
   * @param info Its `stat` now.
   * @param scope Whose the place it was found in is (the skill's scope).
   * @returns The reading, or `undefined` to read the file.
   */
  get(path: string, info: FileStamp, scope: ResourceScope): SkillReading | undefined {
    const at = this.#offsetOf(path);
    if (at === undefined) return undefined;
    this.#next = at + STRIDE;
    const earlier = this.#earlier;
    if (!sameFile(earlier, at, info) || !isReading(earlier, at)) return undefined;
    this.#now.push(at);
    return readingOf(path, earlier, at, scope);
  }

  /**
   * Records a new reading of a file.
   *
   * @param path The file.
   * @param info Its `stat` when read.
   * @param reading What reading it gave.
   */
  put(path: string, info: FileStamp, reading: SkillReading): void {
    const stamp = settledTime(info);
    const { skill } = reading;
    const warnings = reading.warnings.length ? reading.warnings : 0;
    this.#now.push(
      skill
        ? [
          path,
          info.size,
          stamp,
          info.ino,
          warnings,
          skill.name,
          skill.description,
          skill.modelInvocable,
        ]
        : [path, info.size, stamp, info.ino, warnings, 0, 0, 0],
    );
    this.#changed = true;
  }

  /**
   * A directory's earlier listing, when its `stat` is unchanged: a start
   * with a thousand skills in one directory then lists none.
   *
   * @param dir The directory.
   * @param info Its `stat` now.
   * @returns Its entries in name order, or `undefined` to list it.
   */
  listing(dir: string, info: FileStamp): ListingEntry[] | undefined {
    const earlier = this.#earlierListings;
    for (let at = 0; at < earlier.length; at += LISTING_STRIDE) {
      if (earlier[at] !== dir) continue;
      const entries = earlier[at + 3];
      if (earlier[at + 1] !== info.mtime || earlier[at + 2] !== info.ino) {
        return undefined;
      }
      if (typeof entries !== "string") return undefined;
      this.#listings.push(...earlier.slice(at, at + LISTING_STRIDE));
      return entries === "" ? [] : entries.slice(0, -1).split("/");
    }
    return undefined;
  }

  /**
   * Records a new listing of a directory.
   *
   * @param dir The directory.
   * @param info Its `stat` before it was listed.
   * @param entries Its entries in name order.
   */
  putListing(dir: string, info: FileStamp, entries: readonly ListingEntry[]): void {
    const kept = entries.length ? `${entries.join("/")}/` : "";
    this.#listings.push(dir, settledTime(info), info.ino, kept);
    this.#changed = true;
  }

  /**
   * Rewrites the file (atomically) when a file was read or a directory
   * listed: this discovery's readings and listings, then earlier ones not
   * seen this time (another project's skills), up to
   * {@linkcode MAX_CACHE_ENTRIES} readings and {@linkcode MAX_CACHE_LISTINGS}
   * listings.
   */
  async save(): Promise<void> {
    if (this.#path === undefined || !this.#changed) return;
    const now = this.#now.flatMap((row) =>
      typeof row === "number" ? this.#earlier.slice(row, row + STRIDE) : row
    );
    const rows = withEarlier(now, this.#earlier, STRIDE, MAX_CACHE_ENTRIES);
    const dirs = withEarlier(
      this.#listings,
      this.#earlierListings,
      LISTING_STRIDE,
      MAX_CACHE_LISTINGS,
    );
    try {
      await Deno.mkdir(dirname(this.#path), { recursive: true, mode: 0o700 });
      const temporary = `${this.#path}.${crypto.randomUUID()}.tmp`;
      await Deno.writeTextFile(temporary, JSON.stringify({ version: CACHE_VERSION, rows, dirs }));
      await Deno.rename(temporary, this.#path);
    } catch {
      // Only a speed-up: the next start reads the files again.
    }
  }

  #offsetOf(path: string): number | undefined {
    if (this.#earlier[this.#next + PATH] === path) return this.#next;
    if (!this.#offsets) {
      this.#offsets = new Map();
      for (let at = 0; at < this.#earlier.length; at += STRIDE) {
        this.#offsets.set(this.#earlier[at + PATH], at);
      }
    }
    return this.#offsets.get(path);
  }
}

/** The reading of the row at offset `at` of `rows`. */
function readingOf(path: string, rows: unknown[], at: number, scope: ResourceScope): SkillReading {
  const warnings = rows[at + WARNINGS] === 0 ? [] : rows[at + WARNINGS] as string[];
  if (rows[at + NAME] === 0) return { warnings };
  const baseDir = path.slice(0, Math.max(path.lastIndexOf(SEPARATOR), 1));
  const skill: Skill = {
    name: rows[at + NAME] as string,
    description: rows[at + DESCRIPTION] as string,
    filePath: path,
    baseDir,
    scope,
    modelInvocable: rows[at + INVOCABLE] === true,
  };
  return { skill, warnings };
}

/** Whether the row at offset `at` of `rows` was made from this `stat`. */
function sameFile(rows: unknown[], at: number, info: FileStamp): boolean {
  // An unsettled modification time (null) matches none, and a missing one (NaN) none either.
  return rows[at + SIZE] === info.size && rows[at + MTIME] === info.mtime &&
    rows[at + INO] === info.ino;
}

/** Whether the row at offset `at` of `rows` has a reading's shape (the file may have been edited by hand). */
function isReading(rows: unknown[], at: number): boolean {
  const warnings = rows[at + WARNINGS];
  const name = rows[at + NAME];
  const shapedWarnings = warnings === 0 ||
    (Array.isArray(warnings) && warnings.every((w) => typeof w === "string"));
  return shapedWarnings &&
    (name === 0 || (typeof name === "string" && typeof rows[at + DESCRIPTION] === "string"));
}

/**
 * A `stat`'s modification time, or `null` while it is not settled (see
 * {@linkcode SETTLED_AFTER_MS}): `null` never matches, so the next start
 * reads the file or lists the directory again.
 */
function settledTime(info: FileStamp): number | null {
  return Date.now() - info.mtime >= SETTLED_AFTER_MS ? info.mtime : null;
}

/** `now`'s entries, then `earlier`'s whose path (each entry's first value) `now` has not, up to `most` entries. */
function withEarlier(now: unknown[], earlier: unknown[], stride: number, most: number): unknown[] {
  const seen = new Set<unknown>();
  for (let at = 0; at < now.length; at += stride) seen.add(now[at]);
  const all = now.slice(0, most * stride);
  for (let at = 0; at < earlier.length && all.length < most * stride; at += stride) {
    if (!seen.has(earlier[at])) all.push(...earlier.slice(at, at + stride));
  }
  return all;
}

/** The parsed file: both flat arrays, empty for a missing, damaged or older file. */
interface CacheFile {
  rows: unknown[];
  dirs: unknown[];
}

function readFile(path: string): CacheFile {
  try {
    const parsed = JSON.parse(Deno.readTextFileSync(path));
    const { rows, dirs } = parsed ?? {};
    if (
      parsed?.version === CACHE_VERSION && Array.isArray(rows) && rows.length % STRIDE === 0 &&
      Array.isArray(dirs) && dirs.length % LISTING_STRIDE === 0
    ) return { rows, dirs };
  } catch {
    // Missing or damaged: an empty cache.
  }
  return { rows: [], dirs: [] };
}
