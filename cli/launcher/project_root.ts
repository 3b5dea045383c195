import { dirname, join, resolve } from "node:path";
import { CONTEXT_FILE_NAMES } from "../setup/system_prompt.ts";
import { isInside } from "@panto/lib/fs";

/**
 * The project a working directory belongs to: the nearest directory at or
 * above it holding `.git` (a directory, or a file for worktrees and
 * submodules), else the working directory itself. A repository at or above
 * `home` (dotfiles kept in git) is no project: granting it would open the
 * whole home directory.
 *
 * @param cwd The working directory (absolute).
 * @param home The user's home directory, when known.
 * @param exists Whether a path exists (injected for tests).
 * @returns The project root.
 *
 * @example
 * ```ts
 * import { projectRoot } from "./project_root.ts";
 * const root = projectRoot("/work/app/src", "/home/ada", (p) => p === "/work/app/.git");
 * console.assert(root === "/work/app");
 * ```
 */
export function projectRoot(
  cwd: string,
  home: string | undefined,
  exists: (path: string) => boolean,
): string {
  for (let dir = resolve(cwd);; dir = dirname(dir)) {
    if (home !== undefined && isInside(dir, resolve(home))) return resolve(cwd);
    if (exists(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return resolve(cwd);
  }
}

/**
 * Whether a path exists, not following a last link: what
 * {@linkcode projectRoot} is given outside tests.
 *
 * @param path The path.
 * @returns False as well when it cannot be looked at.
 *
 * @example
 * ```ts
 * import { pathExists } from "./project_root.ts";
 * console.assert(pathExists("/") && !pathExists("/no/such/path"));
 * ```
 */
export function pathExists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The context files (`AGENTS.md`, `CLAUDE.md`) that exist in the
 * directories above `root` (from the file system root down), which panto
 * reads but may not change.
 *
 * @param root The project root (absolute).
 * @param isFile Whether a path is a regular file (injected for tests).
 * @returns Their absolute paths.
 *
 * @example
 * ```ts
 * import { agentsFilesAbove } from "./project_root.ts";
 * const files = agentsFilesAbove("/work/app", (p) => p === "/work/AGENTS.md" || p === "/work/CLAUDE.md");
 * console.assert(files.join() === "/work/AGENTS.md,/work/CLAUDE.md");
 * ```
 */
export function agentsFilesAbove(root: string, isFile: (path: string) => boolean): string[] {
  const found: string[] = [];
  for (let dir = dirname(resolve(root));; dir = dirname(dir)) {
    const files = CONTEXT_FILE_NAMES.map((name) => join(dir, name)).filter(isFile);
    found.unshift(...files);
    if (dirname(dir) === dir) return found;
  }
}
