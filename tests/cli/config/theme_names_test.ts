import assert from "node:assert/strict";
import { join } from "node:path";
import { themeNames } from "../../../cli/config/theme_names.ts";

Deno.test("themeNames: the built-in ones, then each *.json name of both themes directories once, sorted", async () => {
  const root = await Deno.makeTempDir({ prefix: "panto-theme-names-" });
  try {
    const home = join(root, "home");
    const project = join(root, "project");
    await Deno.mkdir(join(home, "themes"), { recursive: true });
    await Deno.mkdir(join(project, ".panto", "themes"), { recursive: true });
    for (const name of ["zen.json", "ocean.json", "light.json", "notes.txt", ".json"]) {
      await Deno.writeTextFile(join(home, "themes", name), "{}");
    }
    await Deno.writeTextFile(join(project, ".panto", "themes", "ocean.json"), "{}");
    await Deno.writeTextFile(join(project, ".panto", "themes", "forest.json"), "{}");
    assert.deepEqual(await themeNames(home, project), [
      "dark",
      "light",
      "high-contrast",
      "forest",
      "ocean",
      "zen",
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("themeNames: missing directories give the built-in themes", async () => {
  assert.deepEqual(await themeNames("/nonexistent/home", "/nonexistent/project"), [
    "dark",
    "light",
    "high-contrast",
  ]);
});
