import { basename, dirname, isAbsolute, relative, resolve } from "node:path";

/**
 * Resolves a path given by the model against the working directory and
 * refuses one that leaves it (after following symlinks), unless allowed.
 *
 * @param root The working directory (absolute).
 * @param path The path the model gave, relative or absolute.
 * @param allowedRoots Extra directories the config allows.
 * @returns The absolute path.
 * @throws {Error} Naming the path and the directory when it is outside.
 */
export async function resolveWorkspacePath(
  root: string,
  path: string,
  allowedRoots: readonly string[] = [],
): Promise<string> {
  if (path.trim() === "") {
    throw new Error("The path is empty: give a file path relative to the working directory");
  }
  const absolute = resolve(root, path);
  const bases = [root, ...allowedRoots].map((base) => resolve(base));
  // Lexically outside: refused before touching the file system (where panto
  // may not even have permission to look).
  if (bases.some((base) => isInside(base, absolute)) && await followsInside(absolute, bases)) {
    return absolute;
  }
  throw new Error(
    `Path ${
      JSON.stringify(path)
    } is outside the working directory ${root}: use a path inside it, or allow the directory in the config ("tools.allowedPaths")`,
  );
}

/** After symlinks: still inside? A link to where panto may not look counts as outside. */
async function followsInside(absolute: string, bases: readonly string[]): Promise<boolean> {
  try {
    const real = await realPathOfExistingPrefix(absolute);
    for (const base of bases) {
      if (isInside(await realPathOfExistingPrefix(base), real)) return true;
    }
    return false;
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) return false;
    throw error;
  }
}

/**
 * Whether `path` is `base` or below it (both absolute, compared as written).
 *
 * @param base The directory.
 * @param path The path.
 * @returns True when inside.
 *
 * @example
 * ```ts
 * import { isInside } from "./workspace_path.ts";
 * console.assert(isInside("/a", "/a/b") && !isInside("/a", "/ab"));
 * ```
 */
export function isInside(base: string, path: string): boolean {
  const rel = relative(base, path);
  return rel === "" || (rel !== ".." && !rel.startsWith("../") && !isAbsolute(rel));
}

/** Dangling symbolic links followed before giving up (as the kernel's ELOOP limit). */
const MAX_DANGLING_LINKS = 40;

/**
 * realpath of the longest existing prefix, so a new file's parent symlinks are
 * followed too. A dangling symlink is followed to its target: writing through
 * it would create the target, wherever that is.
 *
 * @param path An absolute path.
 * @returns Where it leads.
 *
 * @example
 * ```ts
 * import { realPathOfExistingPrefix } from "./workspace_path.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * console.assert(await realPathOfExistingPrefix(`${dir}/new/file`) === `${dir}/new/file`);
 * await Deno.remove(dir);
 * ```
 */
export async function realPathOfExistingPrefix(path: string): Promise<string> {
  const missing: string[] = [];
  let current = path;
  let links = 0;
  while (true) {
    try {
      const real = await Deno.realPath(current);
      return missing.length ? resolve(real, ...missing.reverse()) : real;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      const target = await danglingLinkTarget(current);
      if (target !== undefined && links++ < MAX_DANGLING_LINKS) {
        current = resolve(dirname(current), target);
        continue;
      }
      const parent = dirname(current);
      if (parent === current) return path;
      missing.push(basename(current));
      current = parent;
    }
  }
}

/** The target of `path` when it is a symbolic link (one that realpath could not follow). */
async function danglingLinkTarget(path: string): Promise<string | undefined> {
  try {
    return (await Deno.lstat(path)).isSymlink ? await Deno.readLink(path) : undefined;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}
