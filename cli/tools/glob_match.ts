import { Minimatch } from "minimatch";

/**
 * A matcher for a glob such as `*.ts`, `src/**\/*_test.ts` or `*.{js,jsx}`
 * against `/`-separated relative paths. Hidden files match like any other;
 * a pattern without `/` matches the file name at any depth.
 *
 * @param pattern The glob.
 * @returns A predicate on relative paths.
 *
 * @example
 * ```ts
 * import { globMatcher } from "./glob_match.ts";
 * const isTs = globMatcher("*.ts");
 * console.assert(isTs("src/a.ts") && !isTs("src/a.js"));
 * ```
 */
export function globMatcher(pattern: string): (relativePath: string) => boolean {
  const matcher = new Minimatch(pattern, { dot: true, matchBase: !pattern.includes("/") });
  return (relativePath) => matcher.match(relativePath);
}
