/**
 * Trust for a project's own extensions: modules in `<cwd>/.panto/extensions`
 * run as code with panto's permissions, and a cloned repository can ship
 * them, so they load only once the user trusted exactly those files and
 * every local module they load (a helper in a subdirectory, a file of the
 * project they import).
 *
 * @module
 */
import { basename, dirname, relative } from "node:path";
import { UsageError } from "../shared/errors.ts";
import { isTrusted, rememberTrust, type UntrustedProjectPolicy } from "../config/project_trust.ts";
import { projectExtensionDirectory, projectExtensionModules } from "./discover.ts";
import { localModules } from "./local_modules.ts";

/** A project's extension modules not trusted as they are now. */
export interface UntrustedExtensions {
  /** The project directory. */
  projectDir: string;
  /** The modules, absolute paths. */
  paths: string[];
  /** The local modules each one loads besides itself, absolute paths. */
  loads: Map<string, string[]>;
  /** Names and contents of every module: trust holds while this is unchanged. */
  fingerprint: string;
}

/**
 * The project's extension modules when the user has not trusted them as
 * they are now (a new, changed, added or removed module needs trust again).
 *
 * @param cwd The working directory.
 * @param pantoHome panto's home, where trust is remembered.
 * @returns `undefined` when there are none or they are trusted.
 *
 * @example
 * ```ts
 * import { untrustedProjectExtensions } from "./extension_trust.ts";
 * const dir = await Deno.makeTempDir();
 * console.assert(await untrustedProjectExtensions(dir, dir) === undefined);
 * await Deno.remove(dir);
 * ```
 */
export async function untrustedProjectExtensions(
  cwd: string,
  pantoHome: string,
): Promise<UntrustedExtensions | undefined> {
  const paths = await projectExtensionModules(cwd);
  if (paths.length === 0) return undefined;
  const loads = new Map<string, string[]>();
  const problems: string[] = [];
  for (const path of paths) {
    try {
      loads.set(path, (await localModules(path)).filter((module) => module !== path));
    } catch (error) {
      // Such a module cannot load either; once it can, its graph changes the fingerprint.
      problems.push((error as Error).message);
    }
  }
  const fingerprint = await fingerprintOf(cwd, paths, loads) + problems.join("\0");
  if (await isTrusted(pantoHome, "extensions", cwd, fingerprint)) return undefined;
  return { projectDir: cwd, paths, loads, fingerprint };
}

/**
 * Remembers that the user trusts these modules as they are.
 *
 * @param pantoHome panto's home.
 * @param untrusted The modules shown to the user.
 */
export function trustProjectExtensions(
  pantoHome: string,
  untrusted: UntrustedExtensions,
): Promise<void> {
  return rememberTrust(pantoHome, "extensions", untrusted.projectDir, untrusted.fingerprint);
}

/**
 * The modules as indented lines for a trust question or refusal.
 *
 * @param untrusted The modules.
 * @returns One line per module.
 */
export function formatUntrustedExtensions(untrusted: UntrustedExtensions): string {
  return untrusted.paths.map((path) => {
    const loads = (untrusted.loads.get(path) ?? []).map((module) =>
      relative(untrusted.projectDir, module)
    );
    const also = loads.length ? `, and what it loads: ${loads.join(", ")}` : "";
    return `  .panto/extensions/${basename(path)}: code that runs with panto's permissions${also}`;
  }).join("\n");
}

/**
 * Drops the project's untrusted extension modules from `paths` according to
 * the policy: `trust` remembers them and keeps them, `ignore` drops them
 * with a notice, `refuse` throws.
 *
 * @param paths The discovered modules, in load order.
 * @param cwd The working directory.
 * @param pantoHome panto's home.
 * @param policy What to do with untrusted modules.
 * @returns The modules to load, and a notice when some were dropped.
 * @throws {UsageError} Under `refuse`, naming the modules and how to trust them.
 */
export async function settleExtensionTrust(
  paths: readonly string[],
  cwd: string,
  pantoHome: string,
  policy: UntrustedProjectPolicy,
): Promise<{ paths: string[]; notice?: string }> {
  const directory = projectExtensionDirectory(cwd);
  const fromProject = (path: string) => dirname(path) === directory;
  if (!paths.some(fromProject)) return { paths: [...paths] };
  const untrusted = await untrustedProjectExtensions(cwd, pantoHome);
  if (!untrusted) return { paths: [...paths] };
  if (policy === "trust") {
    await trustProjectExtensions(pantoHome, untrusted);
    return { paths: [...paths] };
  }
  const listed = formatUntrustedExtensions(untrusted);
  if (policy === "ignore") {
    return {
      paths: paths.filter((path) => !fromProject(path)),
      notice:
        `Not loading this project's extensions, which are not trusted:\n${listed}\nTo load them, run panto there with --trust-project-config`,
    };
  }
  throw new UsageError(
    `This project ships extensions, which panto loads only once you trust them:\n${listed}\nIf you expect them, run panto in ${cwd} with --trust-project-config once (or answer y in the interactive chat); or pass --no-extensions`,
  );
}

/** Names and contents of the modules and of every local module they load. */
async function fingerprintOf(
  cwd: string,
  paths: readonly string[],
  loads: ReadonlyMap<string, readonly string[]>,
): Promise<string> {
  const parts = await Promise.all(paths.map(async (path) => {
    const loaded = await Promise.all(
      (loads.get(path) ?? []).map(async (module) =>
        `${relative(cwd, module)}\0${await Deno.readTextFile(module)}\0`
      ),
    );
    return `${basename(path)}\0${await Deno.readTextFile(path)}\0${loaded.join("")}`;
  }));
  return parts.join("");
}
