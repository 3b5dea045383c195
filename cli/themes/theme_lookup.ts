/**
 * Where themes come from: the built-in ones, `$PANTO_HOME/themes/NAME.json`
 * and the project's `.panto/themes/NAME.json`. A theme's name is its file's
 * name. Loading reads only the one file asked for; listing reads only
 * directory entries, never the files.
 *
 * @module
 */
import { join } from "node:path";
import { BUILTIN_THEMES, isBuiltinTheme, parseThemeFile, type ThemePalette } from "@panto/tui";
import { UsageError } from "../shared/errors.ts";
import { shownPath } from "../config/config_layers.ts";
import { NAME_PATTERN } from "../config/config_shape.ts";
import {
  FileRefusedError,
  MAX_SETTINGS_FILE_BYTES,
  readRegularTextFile,
} from "../config/read_regular_file.ts";

/** A directory themes are read from. */
export interface ThemeDirectory {
  /** Its absolute path. */
  path: string;
  /** How it is shown (`~/.panto/themes`, `.panto/themes`). */
  shown: string;
  /** Whose themes they are. */
  scope: "user" | "project";
}

/** A theme that can be chosen. */
export interface ThemeEntry {
  /** Its name (a file's name without `.json`). */
  name: string;
  /** Where it is: `built in`, or the file as shown. */
  source: string;
  /** Whose it is. */
  scope: "builtin" | "user" | "project";
}

/**
 * The theme directories, in lookup order: the user's, then the project's
 * (a project theme cannot take the name of a user's or built-in one).
 *
 * @param pantoHome panto's home directory.
 * @param cwd The working directory (the project whose `.panto/themes` is read).
 * @param home `HOME`, to show paths under it as `~/…`.
 * @returns The two directories.
 *
 * @example
 * ```ts
 * import { themeDirectories } from "./theme_lookup.ts";
 * const [user, project] = themeDirectories("/home/ada/.panto", "/src/app", "/home/ada");
 * console.assert(user!.shown === "~/.panto/themes" && project!.path === "/src/app/.panto/themes");
 * ```
 */
export function themeDirectories(
  pantoHome: string,
  cwd: string,
  home: string | undefined,
): ThemeDirectory[] {
  const user = join(pantoHome, "themes");
  const project = join(cwd, ".panto", "themes");
  return [
    { path: user, shown: shownPath(user, home), scope: "user" },
    { path: project, shown: shownPath(project, home), scope: "project" },
  ];
}

/**
 * The colours of the theme `name`: a built-in one, else the first
 * `NAME.json` in `directories`. Only that file is read.
 *
 * @param name The theme's name.
 * @param directories Where to look ({@linkcode themeDirectories}).
 * @returns Its palette.
 * @throws {UsageError} When no theme has that name, or its file is not a
 *   regular file of at most 1 MiB.
 * @throws {ThemeFileError} When the file has mistakes (each named with its fix).
 *
 * @example
 * ```ts
 * import { loadTheme } from "./theme_lookup.ts";
 * const palette = await loadTheme("light", []);
 * console.assert(palette.colors.accent === 25);
 * ```
 */
export async function loadTheme(
  name: string,
  directories: readonly ThemeDirectory[],
): Promise<ThemePalette> {
  if (isBuiltinTheme(name)) return BUILTIN_THEMES[name];
  if (NAME_PATTERN.test(name)) {
    for (const directory of directories) {
      const text = await readThemeFile(directory, name);
      if (text !== undefined) return parseThemeFile(text, `${directory.shown}/${name}.json`);
    }
  }
  throw new UsageError(
    `No theme is called ${JSON.stringify(name)}: the built-in themes are ${
      Object.keys(BUILTIN_THEMES).join(", ")
    }, and a theme file is NAME.json in ${
      directories.map((d) => d.shown).join(" or ")
    } (/theme lists them)`,
  );
}

async function readThemeFile(directory: ThemeDirectory, name: string): Promise<string | undefined> {
  const shown = `${directory.shown}/${name}.json`;
  try {
    return await readRegularTextFile(join(directory.path, `${name}.json`), MAX_SETTINGS_FILE_BYTES);
  } catch (error) {
    if (error instanceof FileRefusedError) {
      throw new UsageError(
        `${shown} ${error.message}: a theme must be a JSON file of at most 1 MiB`,
      );
    }
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      throw new UsageError(`panto may not read ${shown}: ${(error as Error).message}`);
    }
    throw error;
  }
}

/**
 * Every theme that can be chosen: the built-in ones, then each directory's
 * `*.json` files by name (a name already listed, or one that is not a valid
 * name, is left out). Files are not read: a broken one shows its mistakes
 * when chosen. A missing directory lists nothing.
 *
 * @param directories Where to look ({@linkcode themeDirectories}).
 * @returns The themes.
 *
 * @example
 * ```ts
 * import { listThemes } from "./theme_lookup.ts";
 * const names = (await listThemes([])).map((entry) => entry.name);
 * console.assert(names.join() === "dark,light,high-contrast");
 * ```
 */
export async function listThemes(directories: readonly ThemeDirectory[]): Promise<ThemeEntry[]> {
  const entries: ThemeEntry[] = Object.keys(BUILTIN_THEMES).map((name) => ({
    name,
    source: "built in",
    scope: "builtin",
  }));
  for (const directory of directories) {
    const names = (await jsonFileNames(directory.path)).filter((name) =>
      NAME_PATTERN.test(name) && !entries.some((entry) => entry.name === name)
    );
    for (const name of names.sort()) {
      entries.push({ name, source: `${directory.shown}/${name}.json`, scope: directory.scope });
    }
  }
  return entries;
}

async function jsonFileNames(path: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(path)) {
      if (!entry.isDirectory && entry.name.endsWith(".json")) names.push(entry.name.slice(0, -5));
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names;
}
