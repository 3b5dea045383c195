/**
 * The context files' texts as `/reload` compares them, named as the user
 * knows them. Apart from the rest of `/reload` (`reload_plan.ts`), which
 * loads only when the user reloads.
 *
 * @module
 */
import { isAbsolute, relative } from "node:path";
import { shownPath as homeShown } from "../config/config_layers.ts";
import { optionalEnv } from "../shared/env.ts";

/**
 * The context files' texts (as the system prompt included them) by the
 * name the user knows them by (relative to the working directory, else
 * with `~`), to tell which of them `/reload` changed. Nothing is read here:
 * the texts are those the prompt was built from.
 *
 * @param paths The context files' absolute paths.
 * @param texts Their texts, in the same order.
 * @param cwd The working directory.
 * @returns Shown path → text.
 *
 * @example
 * ```ts
 * import { contextTextsByName } from "./context_file_texts.ts";
 * const texts = contextTextsByName(["/work/app/AGENTS.md"], ["Use tabs."], "/work/app");
 * console.assert(texts["AGENTS.md"] === "Use tabs.");
 * ```
 */
export function contextTextsByName(
  paths: readonly string[],
  texts: readonly string[],
  cwd: string,
): Record<string, string> {
  return Object.fromEntries(paths.map((path, at) => [shownPath(path, cwd), texts[at] ?? ""]));
}

function shownPath(path: string, cwd: string): string {
  const inside = relative(cwd, path);
  return inside && !inside.startsWith("..") && !isAbsolute(inside)
    ? inside
    : homeShown(path, optionalEnv("HOME"));
}
