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
const CACHE_VERSION = 2;

/**
 * One file's reading, compact because a start parses the whole file: the
 * `stat` it was made from (size, modification time, inode), the warnings,
 * and for a usable skill its name, description and whether the model may
 * use it. The path, the base directory and the scope are not stored: the
 * path is the entry's key and the others follow from it and the place.
 */
type CacheRow =
  | [size: number, mtime: number, ino: number | null, warnings: string[]]
  | [
    size: number,
    mtime: number,
    ino: number | null,
    warnings: string[],
    name: string,
    description: string,
    modelInvocable: boolean,
  ];

/**
 * The readings of one discovery: earlier ones (from the file) reused while
 * a file is unchanged, new ones recorded, and the file rewritten when
 * anything changed.
 *
 * @example
 * ```ts
 * import { SkillCache } from "./skill_cache.ts";
 * const dir = await Deno.makeTempDir();
 * const cache = SkillCache.open(`${dir}/cache/skills.json`);
 * const info = await Deno.stat(dir);
 * cache.put("/s/SKILL.md", info, { warnings: ["w"] });
 * await cache.save();
 * console.assert(SkillCache.open(`${dir}/cache/skills.json`).get("/s/SKILL.md", info, "user")?.warnings[0] === "w");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class SkillCache {
  readonly #path: string | undefined;
  readonly #earlier: Map<string, CacheRow>;
  readonly #now = new Map<string, CacheRow>();
  #changed = false;

  private constructor(path: string | undefined, earlier: Map<string, CacheRow>) {
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
    return new SkillCache(path, path === undefined ? new Map() : readRows(path));
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
    const row = this.#earlier.get(path);
    if (!row || !sameFile(row, info)) return undefined;
    this.#now.set(path, row);
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
    const stamp = [info.size, info.mtime?.getTime() ?? NaN, info.ino] as const;
    const { skill } = reading;
    this.#now.set(
      path,
      skill
        ? [...stamp, reading.warnings, skill.name, skill.description, skill.modelInvocable]
        : [...stamp, reading.warnings],
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
    const kept = [...this.#now, ...[...this.#earlier].filter(([path]) => !this.#now.has(path))]
      .slice(0, MAX_CACHE_ENTRIES);
    try {
      await Deno.mkdir(dirname(this.#path), { recursive: true, mode: 0o700 });
      const temporary = `${this.#path}.${crypto.randomUUID()}.tmp`;
      const file = { version: CACHE_VERSION, files: Object.fromEntries(kept) };
      await Deno.writeTextFile(temporary, JSON.stringify(file));
      await Deno.rename(temporary, this.#path);
    } catch {
      // Only a speed-up: the next start reads the files again.
    }
  }
}

function readingOf(path: string, row: CacheRow, scope: ResourceScope): SkillReading {
  const warnings = row[3];
  if (row.length === 4) return { warnings };
  const [, , , , name, description, modelInvocable] = row;
  const baseDir = path.slice(0, Math.max(path.lastIndexOf(SEPARATOR), 1));
  return { skill: { name, description, filePath: path, baseDir, scope, modelInvocable }, warnings };
}

function sameFile(row: CacheRow, info: Deno.FileInfo): boolean {
  // A file system without modification times (NaN, stored as null) never matches.
  return row[0] === info.size && row[1] === info.mtime?.getTime() && row[2] === info.ino;
}

function readRows(path: string): Map<string, CacheRow> {
  try {
    const parsed = JSON.parse(Deno.readTextFileSync(path));
    if (parsed?.version !== CACHE_VERSION || typeof parsed.files !== "object") return new Map();
    return new Map(
      Object.entries(parsed.files as Record<string, unknown>).filter((entry): entry is [
        string,
        CacheRow,
      ] => isRow(entry[1])),
    );
  } catch {
    return new Map();
  }
}

function isRow(value: unknown): value is CacheRow {
  if (!Array.isArray(value) || !Array.isArray(value[3])) return false;
  return value.length === 4 ||
    (value.length === 7 && typeof value[4] === "string" && typeof value[5] === "string");
}
