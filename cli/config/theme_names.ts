import { join } from "node:path";

/** The themes panto has without any file. */
export const BUILTIN_THEME_NAMES: readonly string[] = ["dark", "light", "high-contrast"];

/**
 * The theme names to offer: the built-in ones, then those of the `*.json`
 * files in `$PANTO_HOME/themes` and the project's `.panto/themes` (a name
 * once, sorted). A directory that is missing or may not be read adds none.
 *
 * @param pantoHome panto's home directory.
 * @param cwd The working directory, whose `.panto/themes` is looked at.
 * @returns The names.
 *
 * @example
 * ```ts
 * import { themeNames } from "./theme_names.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.mkdir(`${dir}/themes`);
 * await Deno.writeTextFile(`${dir}/themes/solarized.json`, "{}");
 * console.assert((await themeNames(dir, dir)).join() === "dark,light,high-contrast,solarized");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function themeNames(pantoHome: string, cwd: string): Promise<string[]> {
  const found = await Promise.all(
    [join(pantoHome, "themes"), join(cwd, ".panto", "themes")].map(jsonFileNames),
  );
  const files = [...new Set(found.flat())].filter((name) => !BUILTIN_THEME_NAMES.includes(name));
  return [...BUILTIN_THEME_NAMES, ...files.sort()];
}

async function jsonFileNames(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.name.endsWith(".json") && entry.name.length > ".json".length) {
        names.push(entry.name.slice(0, -".json".length));
      }
    }
  } catch {
    // Missing, not a directory, or outside panto's permissions: no themes there.
  }
  return names;
}
