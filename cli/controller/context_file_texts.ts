/**
 * The context files' texts as `/reload` compares them, read at start and at
 * each reload. Apart from the rest of `/reload` (`reload_plan.ts`), which
 * loads only when the user reloads.
 *
 * @module
 */
import { isAbsolute, relative } from "node:path";
import { shownPath as homeShown } from "../config/config_layers.ts";
import { optionalEnv } from "../shared/env.ts";

/**
 * The context files' texts by the name the user knows them by (relative to
 * the working directory, else with `~`), to tell which of them changed.
 *
 * @param paths The context files' absolute paths.
 * @param cwd The working directory.
 * @returns Shown path → text (`""` when it can no longer be read).
 *
 * @example
 * ```ts ignore
 * const texts = await contextFileTexts(["/work/app/AGENTS.md"], "/work/app");
 * console.log(Object.keys(texts)); // ["AGENTS.md"]
 * ```
 */
export async function contextFileTexts(
  paths: readonly string[],
  cwd: string,
): Promise<Record<string, string>> {
  const entries = await Promise.all(paths.map(async (path) => {
    const text = await Deno.readTextFile(path).catch(() => "");
    return [shownPath(path, cwd), text] as const;
  }));
  return Object.fromEntries(entries);
}

function shownPath(path: string, cwd: string): string {
  const inside = relative(cwd, path);
  return inside && !inside.startsWith("..") && !isAbsolute(inside)
    ? inside
    : homeShown(path, optionalEnv("HOME"));
}
