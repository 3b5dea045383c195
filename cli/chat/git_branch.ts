import { dirname, join, resolve } from "node:path";

/**
 * The current git branch of `cwd` (read from `.git/HEAD`, no subprocess),
 * or a short commit id when detached, or `undefined` outside a repository.
 *
 * @param cwd The working directory.
 * @returns The branch.
 */
export function gitBranch(cwd: string): string | undefined {
  for (let dir = cwd;; dir = dirname(dir)) {
    const head = readHead(join(dir, ".git"));
    if (head !== undefined) {
      const ref = head.match(/^ref: refs\/heads\/(.+)$/);
      return ref ? ref[1] : head.slice(0, 8);
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** HEAD of a `.git` directory, or of the directory a `.git` file points to (worktrees, submodules). */
function readHead(dotGit: string): string | undefined {
  try {
    if (Deno.statSync(dotGit).isFile) {
      const target = Deno.readTextFileSync(dotGit).match(/^gitdir: (.+)$/m)?.[1]?.trim();
      return target
        ? Deno.readTextFileSync(resolve(dirname(dotGit), target, "HEAD")).trim()
        : undefined;
    }
    return Deno.readTextFileSync(join(dotGit, "HEAD")).trim();
  } catch {
    return undefined; // not here (or not readable): look further up
  }
}
