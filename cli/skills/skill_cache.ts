/**
 * What discovery read from each skill file, kept in `$PANTO_HOME` between
 * starts: a file whose size, modification time and inode are unchanged is
 * not opened again, so a start with a thousand skills costs a thousand
 * `stat` calls rather than four thousand calls (open, read, close).
 *
 * @module
 */
import { dirname, join } from "node:path";
import type { Skill } from "./discover_skills.ts";

/** What reading one skill file gave: the skill (when usable) and the warnings. */
export interface SkillReading {
  /** The skill, when the file is a usable one. */
  skill?: Skill;
  /** Problems with the file, each naming it. */
  warnings: string[];
}

/** Most files remembered: every skill of a start, and others' while there is room. */
export const MAX_CACHE_ENTRIES = 5000;

/** One file's reading and the `stat` it was made from. */
interface CacheEntry extends SkillReading {
  size: number;
  mtime: number | null;
  ino: number | null;
}

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
 * console.assert(SkillCache.open(`${dir}/cache/skills.json`).get("/s/SKILL.md", info)?.warnings[0] === "w");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class SkillCache {
  readonly #path: string | undefined;
  readonly #earlier: Map<string, CacheEntry>;
  readonly #now = new Map<string, CacheEntry>();
  #changed = false;

  private constructor(path: string | undefined, earlier: Map<string, CacheEntry>) {
    this.#path = path;
    this.#earlier = earlier;
  }

  /**
   * Reads the cache file (a missing or damaged one is an empty cache).
   *
   * @param path The file, or `undefined` for a cache that is never kept.
   * @returns The cache.
   */
  static open(path: string | undefined): SkillCache {
    return new SkillCache(path, path === undefined ? new Map() : readEntries(path));
  }

  /**
   * The earlier reading of a file, when its `stat` is unchanged.
   *
   * @param path The file.
   * @param info Its `stat` now.
   * @returns The reading, or `undefined` to read the file.
   */
  get(path: string, info: Deno.FileInfo): SkillReading | undefined {
    const entry = this.#earlier.get(path);
    if (!entry || !sameFile(entry, info)) return undefined;
    this.#now.set(path, entry);
    return entry;
  }

  /**
   * Records a new reading of a file.
   *
   * @param path The file.
   * @param info Its `stat` when read.
   * @param reading What reading it gave.
   */
  put(path: string, info: Deno.FileInfo, reading: SkillReading): void {
    this.#now.set(path, { ...reading, ...stamp(info) });
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
      await Deno.writeTextFile(temporary, JSON.stringify(Object.fromEntries(kept)));
      await Deno.rename(temporary, this.#path);
    } catch {
      // Only a speed-up: the next start reads the files again.
    }
  }
}

function stamp(info: Deno.FileInfo): Pick<CacheEntry, "size" | "mtime" | "ino"> {
  return { size: info.size, mtime: info.mtime?.getTime() ?? null, ino: info.ino };
}

function sameFile(entry: CacheEntry, info: Deno.FileInfo): boolean {
  const now = stamp(info);
  return entry.mtime !== null && entry.size === now.size && entry.mtime === now.mtime &&
    entry.ino === now.ino;
}

function readEntries(path: string): Map<string, CacheEntry> {
  try {
    const parsed = JSON.parse(Deno.readTextFileSync(path));
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return new Map();
    return new Map(
      Object.entries(parsed as Record<string, CacheEntry>).filter(([, entry]) =>
        typeof entry === "object" && entry !== null && Array.isArray(entry.warnings)
      ),
    );
  } catch {
    return new Map();
  }
}
