/**
 * Saving a setting (the theme picker's choice) into the user's config.json
 * keeps everything else in the file as the user wrote it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "jsonc-parser";
import { saveUserSetting } from "../../../cli/config/save_setting.ts";
import { UsageError } from "../../../cli/errors.ts";

async function withHome(fn: (home: string) => Promise<void>): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "panto_save_" });
  try {
    await fn(home);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

const COMMENTED = `// my settings
{
    "defaultModel": "fast", // quick
    /* later */
    "models": {}
}
`;

Deno.test("save setting: a new key is added; comments, order and indentation stay", async () => {
  await withHome(async (home) => {
    const path = join(home, "config.json");
    await Deno.writeTextFile(path, COMMENTED, { mode: 0o640 });
    await Deno.chmod(path, 0o640);
    assert.equal(await saveUserSetting(home, "theme", "light", home), "~/config.json");
    const saved = await Deno.readTextFile(path);
    assert.equal(
      saved,
      COMMENTED.replace('"models": {}\n', '"models": {},\n    "theme": "light"\n'),
    );
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o640, "the file keeps its mode");
  });
});

Deno.test("save setting: an existing value is replaced in place", async () => {
  await withHome(async (home) => {
    const path = join(home, "config.json");
    const text = '{\n\t"theme": "dark", // was\n\t"defaultModel": "fast"\n}\n';
    await Deno.writeTextFile(path, text);
    await saveUserSetting(home, "theme", "high-contrast", undefined);
    assert.equal(await Deno.readTextFile(path), text.replace('"dark"', '"high-contrast"'));
  });
});

Deno.test("save setting: a missing file is created, readable by the user only", async () => {
  await withHome(async (home) => {
    const pantoHome = join(home, "new");
    assert.equal(
      await saveUserSetting(pantoHome, "theme", "light", undefined),
      `${pantoHome}/config.json`,
    );
    const path = join(pantoHome, "config.json");
    assert.deepEqual(parse(await Deno.readTextFile(path)), { theme: "light" });
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
  });
});

Deno.test("save setting: a file that is not valid JSON is left alone, with how to fix it", async () => {
  await withHome(async (home) => {
    const path = join(home, "config.json");
    await Deno.writeTextFile(path, '{ "defaultModel": "fast" ');
    const error = await saveUserSetting(home, "theme", "light", home).catch((e) => e);
    assert.ok(error instanceof UsageError);
    assert.match(
      error.message,
      /^~\/config\.json is not valid JSON \(.*\): fix it, or set "theme" in it by hand/,
    );
    assert.equal(await Deno.readTextFile(path), '{ "defaultModel": "fast" ');
    const leftovers = (await Array.fromAsync(Deno.readDir(home))).map((entry) => entry.name);
    assert.deepEqual(leftovers, ["config.json"], "no temporary file left");
  });
});
