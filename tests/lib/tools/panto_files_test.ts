import assert from "node:assert/strict";
import { editTool } from "../../../lib/tools/edit.ts";
import type { FileToolOptions } from "../../../lib/tools/file_tool_options.ts";
import { findTool } from "../../../lib/tools/find.ts";
import { grepTool } from "../../../lib/tools/grep.ts";
import { lsTool } from "../../../lib/tools/ls.ts";
import { readTool } from "../../../lib/tools/read.ts";
import { writeTool } from "../../../lib/tools/write.ts";
import { call, withProject } from "./tool_fixture.ts";

const CONFIG = '{"defaultModel":"m"}\n';

/** A project with a .panto config, and a panto home beside it (allowed, as a user might). */
async function withHome(
  fn: (options: FileToolOptions & { root: string; pantoHome: string }) => Promise<void>,
): Promise<void> {
  await withProject({ ".panto/config.json": CONFIG, "src/a.ts": "token\n" }, async (root) => {
    const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "panto_home_" }));
    try {
      await Deno.mkdir(`${home}/sessions`);
      await Deno.writeTextFile(`${home}/sessions/s1.jsonl`, "token in a session\n");
      await Deno.writeTextFile(`${home}/config.json`, CONFIG);
      await fn({ root, pantoHome: home, allowedRoots: [home] });
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  });
}

Deno.test("write and edit refuse the project's .panto directory, at any depth, and change nothing", async () => {
  await withHome(async (options) => {
    const write = await call(writeTool(options), { path: ".panto/config.json", content: "{}" });
    assert.equal(write.isError, true);
    assert.match(write.text, /^write refused: \.panto\/config\.json is panto's own configuration/);
    assert.match(write.text, /the user edits it/);
    const edit = await call(editTool(options), {
      path: ".panto/config.json",
      oldText: '"m"',
      newText: '"x"',
    });
    assert.match(edit.text, /^write refused: \.panto\/config\.json/);
    const created = await call(writeTool(options), {
      path: "pkg/.panto/extensions/x.ts",
      content: "export default () => {};",
    });
    assert.match(created.text, /^write refused: pkg\/\.panto\/extensions\/x\.ts/);
    assert.equal(await Deno.readTextFile(`${options.root}/.panto/config.json`), CONFIG);
    await assert.rejects(Deno.stat(`${options.root}/pkg`), Deno.errors.NotFound);
  });
});

Deno.test("reading the project's .panto/config.json stays allowed", async () => {
  await withHome(async (options) => {
    const read = await call(readTool(options), { path: ".panto/config.json" });
    assert.equal(read.isError, false, read.text);
    assert.match(read.text, /defaultModel/);
  });
});

Deno.test("$PANTO_HOME is refused for reading and writing even when an allowed path", async () => {
  await withHome(async (options) => {
    const home = options.pantoHome;
    for (
      const [tool, args] of [
        [readTool(options), { path: `${home}/sessions/s1.jsonl` }],
        [writeTool(options), { path: `${home}/config.json`, content: "{}" }],
        [editTool(options), { path: `${home}/config.json`, oldText: '"m"', newText: '"x"' }],
        [lsTool(options), { path: home }],
        [grepTool(options), { pattern: "token", path: home }],
        [findTool(options), { pattern: "*", path: `${home}/sessions` }],
      ] as const
    ) {
      const result = await call(tool, args);
      assert.equal(result.isError, true, `${tool.decl.name}: ${result.text}`);
      assert.match(
        result.text,
        /refused: .* is in panto's home directory .*every project's sessions/,
      );
    }
    assert.equal(await Deno.readTextFile(`${home}/config.json`), CONFIG);
  });
});

Deno.test("a $PANTO_HOME inside the working directory is skipped by grep and find", async () => {
  await withProject(
    { "src/a.ts": "token\n", "home/sessions/s1.jsonl": "token\n" },
    async (root) => {
      const options = { root, pantoHome: `${root}/home` };
      const grep = await call(grepTool(options), { pattern: "token" });
      assert.equal(grep.text, "src/a.ts:1:token");
      const find = await call(findTool(options), { pattern: "**/*" });
      assert.equal(find.text, "src/\nsrc/a.ts");
      const read = await call(readTool(options), { path: "home/sessions/s1.jsonl" });
      assert.match(read.text, /^read refused/);
    },
  );
});

Deno.test("symbolic links to .panto or to $PANTO_HOME are refused too", async () => {
  await withHome(async (options) => {
    const { root, pantoHome } = options;
    await Deno.symlink(`${root}/.panto`, `${root}/settings`);
    await Deno.symlink(pantoHome, `${root}/home-link`);
    await Deno.symlink(`${root}/.panto/new.json`, `${root}/dangling.json`);
    const viaDir = await call(writeTool(options), { path: "settings/config.json", content: "{}" });
    assert.match(
      viaDir.text,
      /^write refused: settings\/config\.json \(a symbolic link to .*\.panto\/config\.json\) is panto's own configuration/,
    );
    const dangling = await call(writeTool(options), { path: "dangling.json", content: "{}" });
    assert.match(dangling.text, /^write refused: dangling\.json/);
    await assert.rejects(Deno.stat(`${root}/.panto/new.json`), Deno.errors.NotFound);
    const read = await call(readTool(options), { path: "home-link/sessions/s1.jsonl" });
    assert.match(read.text, /^read refused: home-link\/sessions\/s1\.jsonl \(a symbolic link to /);
    const write = await call(writeTool(options), { path: "home-link/config.json", content: "{}" });
    assert.match(write.text, /^write refused: home-link\/config\.json/);
    assert.equal(await Deno.readTextFile(`${root}/.panto/config.json`), CONFIG);
    assert.equal(await Deno.readTextFile(`${pantoHome}/config.json`), CONFIG);
  });
});

Deno.test("a skill's directory is readable, even in $PANTO_HOME; not writable; a link out of it is refused", async () => {
  await withHome(async (options) => {
    const skill = `${options.pantoHome}/skills/pdf`;
    await Deno.mkdir(skill, { recursive: true });
    await Deno.writeTextFile(`${skill}/SKILL.md`, "---\nname: pdf\ndescription: d\n---\nSteps.\n");
    await Deno.symlink(`${options.pantoHome}/config.json`, `${skill}/leak.json`);
    const withSkill = { ...options, allowedRoots: [], readRoots: [skill] };
    const read = await call(readTool(withSkill), { path: `${skill}/SKILL.md` });
    assert.equal(read.isError, false, read.text);
    assert.match(read.text, /Steps\./);
    const leak = await call(readTool(withSkill), { path: `${skill}/leak.json` });
    assert.equal(leak.isError, true);
    assert.doesNotMatch(leak.text, /defaultModel/);
    const beside = await call(readTool(withSkill), { path: `${options.pantoHome}/config.json` });
    assert.equal(beside.isError, true);
    const write = await call(writeTool(withSkill), { path: `${skill}/SKILL.md`, content: "x" });
    assert.equal(write.isError, true);
    assert.match(await Deno.readTextFile(`${skill}/SKILL.md`), /Steps\./);
    const listed = await call(lsTool(withSkill), { path: skill });
    assert.match(listed.text, /SKILL\.md/, "ls reads a skill's directory too");
  });
});
