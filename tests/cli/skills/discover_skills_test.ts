import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { discoverSkills, type SkillPlace } from "../../../cli/skills/discover_skills.ts";
import { skillPlaces } from "../../../cli/skills/load_resources.ts";
import { SkillCache } from "../../../cli/skills/skill_cache.ts";

const FIXTURES = fileURLToPath(new URL("../../fixtures/skills", import.meta.url));

async function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    await run(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function skill(
  dir: string,
  name: string,
  frontMatter: string,
  body = "Body.",
): Promise<string> {
  await Deno.mkdir(join(dir, name), { recursive: true });
  const path = join(dir, name, "SKILL.md");
  await Deno.writeTextFile(path, `${frontMatter}\n${body}\n`);
  return path;
}

const user = (dir: string, rootFiles = false): SkillPlace => ({ dir, scope: "user", rootFiles });

/** A skill "fmt" in `dir/skills`, where a cache in `dir` keeps it. */
async function fmtSkill(
  dir: string,
): Promise<{ path: string; cachePath: string; places: SkillPlace[] }> {
  const path = await skill(
    join(dir, "skills"),
    "fmt",
    "---\nname: fmt\ndescription: Formats.\n---",
  );
  return {
    path,
    cachePath: join(dir, "cache", "skills.json"),
    places: [user(join(dir, "skills"))],
  };
}

/** Replaces the description the cache file keeps for `path` (its rows are 8 values a file, the path first). */
async function plantDescription(cachePath: string, path: string, description: string) {
  const cached = JSON.parse(await Deno.readTextFile(cachePath));
  const at = cached.rows.indexOf(path);
  assert.ok(at >= 0 && at % 8 === 0, `the cache keeps ${path}`);
  cached.rows[at + 6] = description;
  await Deno.writeTextFile(cachePath, JSON.stringify(cached));
}

Deno.test("skills: the real template skill loads, warning that its name differs from its directory", async () => {
  const found = await discoverSkills([user(FIXTURES)]);
  assert.equal(found.skills.length, 1);
  const [template] = found.skills;
  assert.equal(template?.name, "template-skill", "the YAML comment is not part of the name");
  assert.equal(
    template?.description,
    "Replace with description of the skill and when Claude should use it.",
  );
  assert.equal(template?.filePath, join(FIXTURES, "template", "SKILL.md"));
  assert.equal(template?.baseDir, join(FIXTURES, "template"));
  assert.deepEqual(found.warnings, [
    `Skill ${
      join(FIXTURES, "template", "SKILL.md")
    }: its name "template-skill" differs from its directory "template"`,
  ]);
});

Deno.test("skills: invalid ones are warned about by file; without front matter or description they are skipped", async () => {
  await withDir(async (dir) => {
    const none = await skill(dir, "plain", "# Just markdown");
    const noDescription = await skill(dir, "nodesc", "---\nname: nodesc\n---");
    const noName = await skill(dir, "noname", "---\ndescription: Has no name.\n---");
    const long = "a".repeat(65);
    const tooLong = await skill(dir, long, `---\nname: ${long}\ndescription: Long name.\n---`);
    const badYaml = await skill(dir, "bad", "---\nname: [bad\ndescription: x\n---");
    const upper = await skill(dir, "Upper", "---\nname: Upper\ndescription: Capitals.\n---");
    const found = await discoverSkills([user(dir)]);
    assert.deepEqual(found.skills.map((s) => s.name).sort(), [long, "Upper", "noname"].sort());
    const about = (path: string) => found.warnings.filter((w) => w.startsWith(`Skill ${path}: `));
    assert.match(about(none).join(), /no YAML front matter .*not loaded/);
    assert.match(about(noDescription).join(), /no description .*not loaded/);
    assert.match(about(noName).join(), /no name \(add `name: noname`.*using "noname"/);
    assert.match(about(tooLong).join(), /65 characters long \(at most 64\)/);
    assert.match(about(badYaml).join(), /invalid YAML front matter.*not loaded/);
    assert.match(about(upper).join(), /other than a-z, 0-9 and hyphens/);
  });
});

Deno.test("skills: the first of two with one name wins; the other is named with the winner", async () => {
  await withDir(async (dir) => {
    const first = await skill(join(dir, "a"), "lint", "---\nname: lint\ndescription: First.\n---");
    const second = await skill(
      join(dir, "b"),
      "lint",
      "---\nname: lint\ndescription: Second.\n---",
    );
    const found = await discoverSkills([user(join(dir, "a")), user(join(dir, "b"))]);
    assert.deepEqual(found.skills.map((s) => s.description), ["First."]);
    assert.deepEqual(found.warnings, [
      `Skill ${second} is not loaded: ${first} has the same name "lint" and was found first`,
    ]);
  });
});

Deno.test("skills: a skill reached twice through a symbolic link counts once, without a warning", async () => {
  await withDir(async (dir) => {
    await skill(join(dir, "real"), "fmt", "---\nname: fmt\ndescription: Formats.\n---");
    await Deno.mkdir(join(dir, "linked"));
    await Deno.symlink(join(dir, "real", "fmt"), join(dir, "linked", "fmt"));
    const found = await discoverSkills([user(join(dir, "real")), user(join(dir, "linked"))]);
    assert.equal(found.skills.length, 1);
    assert.deepEqual(found.warnings, []);
  });
});

Deno.test("skills: nested groups are found; below a SKILL.md, hidden dirs and node_modules are not", async () => {
  await withDir(async (dir) => {
    await skill(join(dir, "group"), "deep", "---\nname: deep\ndescription: Nested.\n---");
    await skill(join(dir, "outer"), "inner", "---\nname: inner\ndescription: Under a skill.\n---");
    await Deno.writeTextFile(
      join(dir, "outer", "SKILL.md"),
      "---\nname: outer\ndescription: Outer.\n---\n",
    );
    await skill(join(dir, ".hidden"), "secret", "---\nname: secret\ndescription: Hidden.\n---");
    await skill(
      join(dir, "node_modules"),
      "dep",
      "---\nname: dep\ndescription: A dependency.\n---",
    );
    await Deno.writeTextFile(
      join(dir, "root.md"),
      "---\nname: root\ndescription: A root file.\n---\n",
    );
    const found = await discoverSkills([user(dir)]);
    assert.deepEqual(found.skills.map((s) => s.name).sort(), ["deep", "outer"]);
    const withRoot = await discoverSkills([user(dir, true)]);
    assert.deepEqual(withRoot.skills.map((s) => s.name).sort(), ["deep", "outer", "root"]);
    assert.deepEqual(withRoot.warnings, [], "a root file's name is checked against its file name");
  });
});

Deno.test("skills: discovery is bounded in depth, files and directories, and says when it stopped", async () => {
  await withDir(async (dir) => {
    await skill(join(dir, "1/2/3/4/5"), "too-deep", "---\nname: too-deep\ndescription: Deep.\n---");
    for (const name of ["a", "b", "c"]) {
      await skill(dir, name, `---\nname: ${name}\ndescription: ${name}.\n---`);
    }
    const deep = await discoverSkills([user(dir)]);
    assert.ok(!deep.skills.some((s) => s.name === "too-deep"), "below the depth limit");
    const few = await discoverSkills([user(dir)], { maxDepth: 4, maxFiles: 2, maxDirs: 100 });
    assert.equal(few.skills.length, 2);
    assert.match(few.warnings.join(), /Stopped looking for skills after 2 files/);
  });
});

Deno.test("skills: a disable-model-invocation skill is kept for /skill: but marked not listed", async () => {
  await withDir(async (dir) => {
    await skill(
      dir,
      "deploy",
      "---\nname: deploy\ndescription: Deploys.\ndisable-model-invocation: true\n---",
    );
    const found = await discoverSkills([user(dir)]);
    assert.equal(found.skills[0]?.modelInvocable, false);
  });
});

Deno.test("skill places: the project's first (up to its git root), then panto's, pi's, ~/.agents and Claude Code's", async () => {
  await withDir(async (root) => {
    await Deno.mkdir(join(root, "repo/.git"), { recursive: true });
    await Deno.mkdir(join(root, "repo/pkg"), { recursive: true });
    const places = skillPlaces({
      cwd: join(root, "repo/pkg"),
      pantoHome: "/h/.panto",
      home: "/h",
    });
    assert.deepEqual(places.map((p) => `${p.scope} ${p.dir}${p.rootFiles ? " +md" : ""}`), [
      `project ${root}/repo/pkg/.panto/skills +md`,
      `project ${root}/repo/pkg/.pi/skills +md`,
      `project ${root}/repo/pkg/.claude/skills`,
      `project ${root}/repo/pkg/.agents/skills`,
      `project ${root}/repo/.agents/skills`,
      "user /h/.panto/skills +md",
      "user /h/.pi/agent/skills +md",
      "user /h/.agents/skills",
      "user /h/.claude/skills",
    ]);
  });
});

Deno.test("skills: a project's skill wins a name over the user's (pi's order)", async () => {
  await withDir(async (dir) => {
    const cwd = join(dir, "work");
    const home = join(dir, "home");
    await skill(
      join(cwd, ".claude/skills"),
      "review",
      "---\nname: review\ndescription: Project's.\n---",
    );
    await skill(
      join(home, ".claude/skills"),
      "review",
      "---\nname: review\ndescription: User's.\n---",
    );
    const found = await discoverSkills(skillPlaces({ cwd, pantoHome: join(home, ".panto"), home }));
    assert.deepEqual(found.skills.map((s) => `${s.scope}: ${s.description}`), [
      "project: Project's.",
    ]);
    assert.equal(found.warnings.length, 1);
  });
});

Deno.test("skills: an unchanged file's reading comes from the cache; a changed one is read again", async () => {
  await withDir(async (dir) => {
    const { path, cachePath, places } = await fmtSkill(dir);
    // Written long ago: a file modified just now is read again at the next start (see the next test).
    await Deno.utime(path, 0, 0);
    const first = await discoverSkills(places, undefined, SkillCache.open(cachePath));
    assert.equal(first.skills[0]?.description, "Formats.");
    // Plant a different reading under the unchanged stat: used as it is, so the file was not read.
    await plantDescription(cachePath, path, "From the cache.");
    const second = await discoverSkills(places, undefined, SkillCache.open(cachePath));
    assert.equal(second.skills[0]?.description, "From the cache.");
    await Deno.writeTextFile(path, "---\nname: fmt\ndescription: Formats code, now.\n---\n");
    const third = await discoverSkills(places, undefined, SkillCache.open(cachePath));
    assert.equal(third.skills[0]?.description, "Formats code, now.");
    await Deno.writeTextFile(cachePath, "not json");
    const damaged = await discoverSkills(places, undefined, SkillCache.open(cachePath));
    assert.equal(
      damaged.skills[0]?.description,
      "Formats code, now.",
      "a damaged cache is ignored",
    );
    await Deno.writeTextFile(cachePath, JSON.stringify({ [path]: { warnings: [] } }));
    const older = await discoverSkills(places, undefined, SkillCache.open(cachePath));
    assert.equal(older.skills[0]?.description, "Formats code, now.", "an older layout is ignored");
    assert.equal(older.skills[0]?.baseDir, join(dir, "skills", "fmt"));
  });
});

Deno.test("skills: a file modified within the last seconds is read again at the next start, in case it changes again within its time stamp's tick", async () => {
  await withDir(async (dir) => {
    const { path, cachePath, places } = await fmtSkill(dir);
    await discoverSkills(places, undefined, SkillCache.open(cachePath));
    await plantDescription(cachePath, path, "From the cache.");
    const again = await discoverSkills(places, undefined, SkillCache.open(cachePath));
    assert.equal(again.skills[0]?.description, "Formats.", "the fresh file was read again");
  });
});

Deno.test("skills: many skills come from the cache in any order, and a changed, added or removed one is seen", async () => {
  await withDir(async (dir) => {
    const root = join(dir, "skills");
    const paths: string[] = [];
    for (let n = 0; n < 30; n++) {
      const name = `s${String(n).padStart(2, "0")}`;
      const path = await skill(root, name, `---\nname: ${name}\ndescription: Skill ${n}.\n---`);
      await Deno.utime(path, 0, 0);
      paths.push(path);
    }
    const cachePath = join(dir, "cache", "skills.json");
    const places = [user(root)];
    await discoverSkills(places, undefined, SkillCache.open(cachePath));
    // Reverse the saved order: each lookup then misses the row after the last one.
    const cached = JSON.parse(await Deno.readTextFile(cachePath));
    const rows: unknown[][] = [];
    for (let at = 0; at < cached.rows.length; at += 8) rows.push(cached.rows.slice(at, at + 8));
    cached.rows = rows.reverse().flat();
    await Deno.writeTextFile(cachePath, JSON.stringify(cached));
    for (const path of paths) await plantDescription(cachePath, path, `Cached ${path}.`);
    const reversed = await discoverSkills(places, undefined, SkillCache.open(cachePath));
    assert.deepEqual(reversed.skills.map((s) => s.description), paths.map((p) => `Cached ${p}.`));
    await Deno.writeTextFile(paths[3]!, "---\nname: s03\ndescription: Edited.\n---\n");
    await Deno.remove(join(root, "s05"), { recursive: true });
    await skill(root, "s10b", "---\nname: s10b\ndescription: Added.\n---");
    const changed = await discoverSkills(places, undefined, SkillCache.open(cachePath));
    const described = new Map(changed.skills.map((s) => [s.name, s.description]));
    assert.equal(described.get("s03"), "Edited.");
    assert.equal(described.has("s05"), false);
    assert.equal(described.get("s10b"), "Added.");
    assert.equal(described.get("s11"), `Cached ${paths[11]}.`);
    assert.deepEqual(
      changed.skills.map((s) => s.name),
      [...described.keys()].sort(),
      "in name order",
    );
  });
});

Deno.test("skills: a directory's listing comes from the cache while its stat is unchanged; an added skill changes it", async () => {
  await withDir(async (dir) => {
    const root = join(dir, "skills");
    for (const name of ["a", "b", "c"]) {
      await skill(root, name, `---\nname: ${name}\ndescription: Skill ${name}.\n---`);
    }
    await Deno.utime(root, 0, 0);
    const cachePath = join(dir, "cache", "skills.json");
    const places = [user(root)];
    await discoverSkills(places, undefined, SkillCache.open(cachePath));
    // Plant a listing without "b" under the unchanged stat: used as it is, so the directory was not listed.
    const cached = JSON.parse(await Deno.readTextFile(cachePath));
    const at = cached.dirs.indexOf(root);
    assert.equal(cached.dirs[at + 3], "da/db/dc/", "kind and name of each entry, each ended by /");
    cached.dirs[at + 3] = "da/dc/";
    await Deno.writeTextFile(cachePath, JSON.stringify(cached));
    const planted = await discoverSkills(places, undefined, SkillCache.open(cachePath));
    assert.deepEqual(planted.skills.map((s) => s.name), ["a", "c"]);
    await skill(root, "d", "---\nname: d\ndescription: Skill d.\n---");
    const listed = await discoverSkills(places, undefined, SkillCache.open(cachePath));
    assert.deepEqual(listed.skills.map((s) => s.name), ["a", "b", "c", "d"]);
  });
});
