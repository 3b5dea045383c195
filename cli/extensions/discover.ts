/**
 * Finding extension modules: the files directly in `$PANTO_HOME/extensions`
 * and `<cwd>/.panto/extensions`, then the `-e` paths.
 *
 * @module
 */
import { basename, extname, join, resolve } from "node:path";
import { CliError, UsageError } from "../shared/errors.ts";

/** File name endings of loadable extension modules. */
export const EXTENSION_SUFFIXES: readonly string[] = [".ts", ".mts", ".js", ".mjs"];

/** Options for {@linkcode discoverExtensions}. */
export interface DiscoverOptions {
  /** panto's home directory (`$PANTO_HOME`, default `~/.panto`). */
  pantoHome: string;
  /** The working directory, whose `.panto/extensions` is searched and against which `extra` resolves. */
  cwd: string;
  /** `-e` paths, in command-line order. */
  extra: readonly string[];
  /** Search the two extension directories (false with `--no-extensions`). */
  includeDefaults: boolean;
}

/**
 * Lists the extension files to load, in load order: each directory's
 * modules sorted by name (`$PANTO_HOME/extensions` first), then the `-e`
 * paths. A path found twice is listed once, at its first place. Missing
 * directories are fine; declaration files (`.d.ts`) and hidden files are
 * skipped.
 *
 * @param options Where to look.
 * @returns Absolute paths.
 * @throws {UsageError} When an `-e` path does not exist or is not a module file.
 * @throws {CliError} When panto may not read a directory or an `-e` file
 * (checked before touching it, so Deno never prompts).
 *
 * @example
 * ```ts ignore
 * import { discoverExtensions } from "./discover.ts";
 * const paths = await discoverExtensions({ pantoHome: "/home/ada/.panto", cwd: Deno.cwd(), extra: ["my_ext.ts"], includeDefaults: true });
 * console.log(paths);
 * ```
 */
export async function discoverExtensions(options: DiscoverOptions): Promise<string[]> {
  const found: string[] = [];
  if (options.includeDefaults) {
    for (const dir of extensionDirectories(options.pantoHome, options.cwd)) {
      found.push(...await modulesIn(dir));
    }
  }
  for (const path of options.extra) found.push(await checkExtraPath(options.cwd, path));
  return [...new Set(found)];
}

/** The two directories extensions load from, in load order. */
function extensionDirectories(pantoHome: string, cwd: string): string[] {
  return [join(pantoHome, "extensions"), projectExtensionDirectory(cwd)];
}

/**
 * The directory of the project's own extensions, which a cloned repository
 * may ship: they load only once the user trusts them.
 *
 * @param cwd The working directory.
 * @returns `<cwd>/.panto/extensions`.
 */
export function projectExtensionDirectory(cwd: string): string {
  return join(cwd, ".panto", "extensions");
}

/**
 * The extension modules directly in the project's `.panto/extensions`,
 * sorted by name (none when the directory is missing).
 *
 * @param cwd The working directory.
 * @returns Absolute paths.
 */
export function projectExtensionModules(cwd: string): Promise<string[]> {
  return modulesIn(projectExtensionDirectory(cwd));
}

/** Whether a file name looks like an extension module. */
function isModuleName(name: string): boolean {
  return !name.startsWith(".") && !name.endsWith(".d.ts") &&
    EXTENSION_SUFFIXES.includes(extname(name));
}

async function modulesIn(dir: string): Promise<string[]> {
  assertReadable(dir, `the extensions directory ${dir}`, "or pass --no-extensions");
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (isModuleName(entry.name) && await isFile(join(dir, entry.name), entry)) {
        names.push(entry.name);
      }
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    if (error instanceof Deno.errors.PermissionDenied) {
      throw new CliError(
        `Cannot read the extensions directory ${dir}: the file system denies access; fix its permissions or pass --no-extensions`,
      );
    }
    throw error;
  }
  // Code-point order: the same on every machine, unlike localeCompare.
  return names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((name) => join(dir, name));
}

/** Regular files and symlinks to them (a dangling link is skipped). */
async function isFile(path: string, entry: Deno.DirEntry): Promise<boolean> {
  if (!entry.isSymlink) return entry.isFile;
  try {
    return (await Deno.stat(path)).isFile;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

async function checkExtraPath(cwd: string, given: string): Promise<string> {
  const path = resolve(cwd, given);
  if (!EXTENSION_SUFFIXES.includes(extname(path))) {
    throw new UsageError(
      `-e ${given}: an extension must be a ${EXTENSION_SUFFIXES.join(", ")} file, got ${
        JSON.stringify(basename(path))
      }`,
    );
  }
  assertReadable(path, `the extension ${path}`, `or drop -e ${given}`);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(`-e ${given}: no such file ${path}; check the path`);
    }
    throw error;
  }
  if (!info.isFile) throw new UsageError(`-e ${given}: ${path} is not a file`);
  return path;
}

/** Asks Deno before reading, so a missing grant is a message instead of a prompt. */
function assertReadable(path: string, what: string, alternative: string): void {
  if (Deno.permissions.querySync({ name: "read", path }).state === "granted") return;
  throw new CliError(
    `panto may not read ${what}: run it with --allow-read=${path} (add it to the panto task's --allow-read list), ${alternative}`,
  );
}
