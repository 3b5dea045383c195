/**
 * A matcher for a glob such as `*.ts`, `src/**\/*_test.ts` or `*.{js,jsx}`
 * against `/`-separated relative paths. Hidden files match like any other;
 * a pattern without `/` matches the file name at any depth.
 *
 * minimatch loads on the first call: a start that never runs find or grep
 * does not pay for it.
 *
 * @param pattern The glob.
 * @returns A predicate on relative paths.
 *
 * @example
 * ```ts
 * import { globMatcher } from "./glob_match.ts";
 * const isTs = await globMatcher("*.ts");
 * console.assert(isTs("src/a.ts") && !isTs("src/a.js"));
 * ```
 */
export async function globMatcher(pattern: string): Promise<(relativePath: string) => boolean> {
  const { Minimatch } = await import("minimatch");
  const matcher = new Minimatch(pattern, { dot: true, matchBase: !pattern.includes("/") });
  return (relativePath) => matcher.match(relativePath);
}
