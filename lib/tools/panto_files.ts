import { relative, resolve, sep } from "node:path";
import type { FileToolOptions } from "./file_tool_options.ts";
import { isInside, realPathOfExistingPrefix, resolveWorkspacePath } from "./workspace_path.ts";

/** What a tool does with a path. */
export type PathAccess = "read" | "write";

/** The directory panto reads a project's configuration and extensions from. */
const PROJECT_CONFIG_DIR = ".panto";

/**
 * Resolves a path given by the model ({@linkcode resolveWorkspacePath}) and
 * refuses panto's own files (a path in a read-only directory, a skill's, is
 * read wherever that is): `$PANTO_HOME` (config, extensions and every
 * project's sessions) for reading and writing, and any `.panto` directory
 * under the working directory or an allowed one for writing (panto loads a
 * project's `.panto` as configuration and code). Symbolic links are followed,
 * so a link to either is refused too.
 *
 * @param options The working directory, allowed roots and panto's home.
 * @param path The path as the model gave it.
 * @param access Whether the tool reads or writes it.
 * @returns The absolute path.
 * @throws {Error} Naming the path and why it is refused.
 *
 * @example
 * ```ts
 * import { resolveToolPath } from "./panto_files.ts";
 * const root = await Deno.realPath(await Deno.makeTempDir());
 * const refused = await resolveToolPath({ root }, ".panto/config.json", "write").catch((e) => e);
 * console.assert(String(refused).includes("panto's own configuration"));
 * await Deno.remove(root);
 * ```
 */
export async function resolveToolPath(
  options: FileToolOptions,
  path: string,
  access: PathAccess,
): Promise<string> {
  if (access === "read") {
    const readable = await inReadRoot(options, path);
    if (readable !== undefined) return readable;
  }
  const absolute = await resolveWorkspacePath(options.root, path, options.allowedRoots);
  const real = await realPath(absolute);
  const places = [absolute, real];
  if (options.pantoHome !== undefined) {
    const home = resolve(options.pantoHome);
    const homes = await pantoHomePaths(options);
    if (places.some((place) => homes.some((base) => isInside(base, place)))) {
      throw new Error(
        `${access} refused: ${path}${
          via(absolute, real)
        } is in panto's home directory ${home}, which holds its configuration, extensions and every project's sessions; the user manages it`,
      );
    }
  }
  if (access === "write") {
    const bases = await basesOf(options);
    if (places.some((place) => inProjectConfig(place, bases))) {
      throw new Error(
        `write refused: ${path}${
          via(absolute, real)
        } is panto's own configuration (a ${PROJECT_CONFIG_DIR} directory, which panto loads as a project's config and extensions); the user edits it`,
      );
    }
  }
  return absolute;
}

/**
 * panto's home as configured and after symlinks (none when not given): what
 * a directory walk skips.
 *
 * @param options The tools' options.
 * @returns The absolute paths.
 *
 * @example
 * ```ts
 * import { pantoHomePaths } from "./panto_files.ts";
 * console.assert((await pantoHomePaths({ root: "/" })).length === 0);
 * ```
 */
export async function pantoHomePaths(options: FileToolOptions): Promise<string[]> {
  if (options.pantoHome === undefined) return [];
  const home = resolve(options.pantoHome);
  return [home, await realPath(home)];
}

/**
 * The path when it is inside one of the read-only directories (a skill's),
 * as written and after symbolic links, else `undefined`.
 */
async function inReadRoot(options: FileToolOptions, path: string): Promise<string | undefined> {
  if (!options.readRoots?.length || path.trim() === "") return undefined;
  const absolute = resolve(options.root, path);
  const real = await realPath(absolute);
  for (const base of options.readRoots.map((root) => resolve(root))) {
    if (isInside(base, absolute) && isInside(await realPath(base), real)) return absolute;
  }
  return undefined;
}

/** A note for a path that leads elsewhere through a symbolic link. */
function via(absolute: string, real: string): string {
  return absolute === real ? "" : ` (a symbolic link to ${real})`;
}

/** Whether a `.panto` directory lies between a base and the path (or is the path). */
function inProjectConfig(path: string, bases: readonly string[]): boolean {
  return bases.some((base) =>
    isInside(base, path) && relative(base, path).split(sep).includes(PROJECT_CONFIG_DIR)
  );
}

/** The working directory and the allowed ones, as written and after symlinks. */
async function basesOf(options: FileToolOptions): Promise<string[]> {
  const written = [options.root, ...options.allowedRoots ?? []].map((base) => resolve(base));
  return [...written, ...await Promise.all(written.map(realPath))];
}

/** Where a path leads; as written when panto may not look. */
async function realPath(path: string): Promise<string> {
  try {
    return await realPathOfExistingPrefix(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) return path;
    throw error;
  }
}
