/**
 * Finding themes: built-in names first, then the user's directory, then the
 * project's; loading reads only the theme asked for; listing reads no file.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { BUILTIN_THEMES, ThemeFileError } from "@panto/tui";
import {
  listThemes,
  loadTheme,
  themeDirectories,
  type ThemeDirectory,
} from "../../../cli/themes/theme_lookup.ts";
import { UsageError } from "../../../cli/shared/errors.ts";

/** A HOME with `.panto/themes` and a project with `.panto/themes`, holding `files`. */
async function withThemes(
  files: { user?: Record<string, string>; project?: Record<string, string> },
  fn: (directories: ThemeDirectory[], home: string) => Promise<void>,
): Promise<void> {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "panto_themes_" }));
  const directories = themeDirectories(join(home, ".panto"), join(home, "app"), home);
  try {
    for (
      const [directory, set] of [[directories[0]!, files.user], [
        directories[1]!,
        files.project,
      ]] as const
    ) {
      if (set === undefined) continue;
      await Deno.mkdir(directory.path, { recursive: true });
      for (const [name, text] of Object.entries(set)) {
        await Deno.writeTextFile(join(directory.path, name), text);
      }
    }
    await fn(directories, home);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test("theme lookup: only the chosen file is read; a broken neighbour does not matter", async () => {
  await withThemes({
    user: { "sea.json": '{"colors": {"accent": 33}}', "broken.json": "{not json" },
  }, async (directories) => {
    assert.equal((await loadTheme("sea", directories)).colors.accent, 33);
    await assert.rejects(loadTheme("broken", directories), ThemeFileError);
  });
});

Deno.test("theme lookup: built-in names win, then the user's themes, then the project's", async () => {
  await withThemes({
    user: { "dark.json": '{"colors": {"accent": 1}}', "sea.json": '{"colors": {"accent": 2}}' },
    project: { "sea.json": '{"colors": {"accent": 3}}', "reef.json": '{"colors": {"accent": 4}}' },
  }, async (directories) => {
    assert.equal(await loadTheme("dark", directories), BUILTIN_THEMES.dark);
    assert.equal((await loadTheme("sea", directories)).colors.accent, 2);
    assert.equal((await loadTheme("reef", directories)).colors.accent, 4);
  });
});

Deno.test("theme lookup: a missing theme names the built-in ones and where files go", async () => {
  await withThemes({}, async (directories) => {
    const error = await loadTheme("nord", directories).catch((e) => e);
    assert.ok(error instanceof UsageError);
    assert.match(
      error.message,
      /^No theme is called "nord": the built-in themes are dark, light, high-contrast, and a theme file is NAME\.json in ~\/\.panto\/themes or ~\/app\/\.panto\/themes/,
    );
    const escape = await loadTheme("../../etc/passwd", directories).catch((e) => e);
    assert.ok(escape instanceof UsageError, "a name with a slash is never a path");
  });
});

Deno.test("theme lookup: a theme file's mistakes name it as the user sees it", async () => {
  await withThemes({ user: { "sea.json": '{"colors": {"accent": "#12345"}}' } }, async (dirs) => {
    const error = await loadTheme("sea", dirs).catch((e) => e);
    assert.match(
      error.message,
      /^~\/\.panto\/themes\/sea\.json: colors\.accent: "#12345" is not a colour/,
    );
  });
});

Deno.test("theme lookup: a theme that is a directory is refused, not read", async () => {
  await withThemes({ user: {} }, async (directories) => {
    await Deno.mkdir(join(directories[0]!.path, "odd.json"));
    await assert.rejects(
      loadTheme("odd", directories),
      /odd\.json is a directory, not a regular file/,
    );
  });
});

Deno.test("theme lookup: the list has the built-in themes, then files by directory, without reading them", async () => {
  await withThemes({
    user: { "zen.json": "{not json", "sea.json": "{}", "light.json": "{}", "notes.txt": "" },
    project: { "sea.json": "{}", "reef.json": "{}", "bad name.json": "{}" },
  }, async (directories) => {
    const entries = await listThemes(directories);
    assert.deepEqual(entries.map((entry) => `${entry.name} ${entry.scope} ${entry.source}`), [
      "dark builtin built in",
      "light builtin built in",
      "high-contrast builtin built in",
      "sea user ~/.panto/themes/sea.json",
      "zen user ~/.panto/themes/zen.json",
      "reef project ~/app/.panto/themes/reef.json",
    ]);
  });
  assert.equal(
    (await listThemes(themeDirectories("/nonexistent", "/nonexistent", undefined))).length,
    3,
  );
});
