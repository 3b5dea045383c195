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

/** Most files remembered: every skill of a start, and others' while there is room. */
export const MAX_CACHE_ENTRIES = 5000;

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
 * The readings of one discovery: earlier ones (from the file) reused while
 * a file is unchanged, new ones recorded, and the file rewritten when
 * anything changed. Discovery asks for files in the order it found them
 * the last time, which is the order they were saved in: each lookup tries
 * the row after the last one used before it indexes the file by path.
 *
 * @example
 * ```ts
 * import { SkillCache } from "./skill_cache.ts";
 * const dir = await Deno.makeTempDir();
 * const path = `${dir}/SKILL.md`;
 * await Deno.writeTextFile(path, "");
 * await Deno.utime(path, 0, 0); // settled long ago
 * const cache = SkillCache.open(`${dir}/cache/skills.json`);
 * const info = await Deno.stat(path);
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
  /** This discovery's rows (earlier ones reused, new ones), in lookup order. */
  readonly #now: Row[] = [];
  #changed = false;

  private constructor(path: string | undefined, earlier: unknown[]) {
    this.#path = path;
    this.#earlier = earlier;
  }

  /**
   * Reads the cache file (a missing, damaged or older one is an empty cache).
   *
   * @param path The file, or `undefined` for a cache that is never kept.
   * @returns The cache.
   */
  static open(path: string | undefined): SkillCache {
    return new SkillCache(path, path === undefined ? [] : readRows(path));
  }

  /**
   * The earlier reading of a file, when its `stat` is unchanged.
   *
   * @param path The file.
   * @param info Its `stat` now.
   * @param scope Whose the place it was found in is (the skill's scope).
   * @returns The reading, or `undefined` to read the file.
   */
  get(path: string, info: Deno.FileInfo, scope: ResourceScope): SkillReading | undefined {
    const at = this.#offsetOf(path);
    if (at === undefined) return undefined;
    this.#next = at + STRIDE;
    const row = this.#earlier.slice(at, at + STRIDE);
    if (!sameFile(row, info) || !isReading(row)) return undefined;
    this.#now.push(row);
    return readingOf(path, row, scope);
  }

  /**
   * Records a new reading of a file.
   *
   * @param path The file.
   * @param info Its `stat` when read.
   * @param reading What reading it gave.
   */
  put(path: string, info: Deno.FileInfo, reading: SkillReading): void {
    const mtime = info.mtime?.getTime() ?? NaN;
    // Not settled yet (see SETTLED_AFTER_MS): never matches, so the next start reads it again.
    const stamp = Date.now() - mtime >= SETTLED_AFTER_MS ? mtime : null;
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
   * Rewrites the file (atomically) when a file was read: this discovery's
   * readings, then earlier ones of files not seen this time (another
   * project's skills), up to {@linkcode MAX_CACHE_ENTRIES}.
   */
  async save(): Promise<void> {
    if (this.#path === undefined || !this.#changed) return;
    const seen = new Set(this.#now.map((row) => row[PATH]));
    const rows = this.#now.flat();
    for (let at = 0; at < this.#earlier.length; at += STRIDE) {
      if (rows.length >= MAX_CACHE_ENTRIES * STRIDE) break;
      if (!seen.has(this.#earlier[at])) rows.push(...this.#earlier.slice(at, at + STRIDE));
    }
    try {
      await Deno.mkdir(dirname(this.#path), { recursive: true, mode: 0o700 });
      const temporary = `${this.#path}.${crypto.randomUUID()}.tmp`;
      await Deno.writeTextFile(temporary, JSON.stringify({ version: CACHE_VERSION, rows }));
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

function readingOf(path: string, row: Row, scope: ResourceScope): SkillReading {
  const warnings = row[WARNINGS] === 0 ? [] : row[WARNINGS] as string[];
  if (row[NAME] === 0) return { warnings };
  const baseDir = path.slice(0, Math.max(path.lastIndexOf(SEPARATOR), 1));
  const skill: Skill = {
    name: row[NAME] as string,
    description: row[DESCRIPTION] as string,
    filePath: path,
    baseDir,
    scope,
    modelInvocable: row[INVOCABLE] === true,
  };
  return { skill, warnings };
}

function sameFile(row: Row, info: Deno.FileInfo): boolean {
  // An unsettled or missing modification time (null) never matches.
  return row[SIZE] === info.size && row[MTIME] === info.mtime?.getTime() && row[INO] === info.ino;
}

/** Whether a row's reading has the right shape (the file may have been edited by hand). */
function isReading(row: Row): boolean {
  const warnings = row[WARNINGS];
  const shapedWarnings = warnings === 0 ||
    (Array.isArray(warnings) && warnings.every((w) => typeof w === "string"));
  return shapedWarnings &&
    (row[NAME] === 0 || (typeof row[NAME] === "string" && typeof row[DESCRIPTION] === "string"));
}

function readRows(path: string): unknown[] {
  try {
    const parsed = JSON.parse(Deno.readTextFileSync(path));
    const rows = parsed?.rows;
    if (parsed?.version !== CACHE_VERSION || !Array.isArray(rows)) return [];
    return rows.length % STRIDE === 0 ? rows : [];
  } catch {
    return [];
  }
}
