import { dirname, join } from "node:path";

/**
 * The current git branch of `cwd` (read from `.git/HEAD`, no subprocess),
 * or a short commit id when detached, or `undefined` outside a repository.
 *
 * @param cwd The working directory.
 * @returns The branch.
 */
export function gitBranch(cwd: string): string | undefined {
  for (let dir = cwd;; dir = dirname(dir)) {
    try {
      const head = Deno.readTextFileSync(join(dir, ".git", "HEAD")).trim();
      const ref = head.match(/^ref: refs\/heads\/(.+)$/);
      return ref ? ref[1] : head.slice(0, 8);
    } catch {
      // not here (or not readable): look further up
    }
    if (dirname(dir) === dir) return undefined;
  }
}
