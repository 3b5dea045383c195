import assert from "node:assert/strict";
import { join } from "node:path";
import { loadPromptResources } from "../../../cli/skills/load_resources.ts";
import { confirmProjectTrust } from "../../../cli/config/trust_prompt.ts";

async function withProject(run: (cwd: string, pantoHome: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    const cwd = join(dir, "repo");
    await Deno.mkdir(join(cwd, ".claude/skills/deploy"), { recursive: true });
    await Deno.writeTextFile(
      join(cwd, ".claude/skills/deploy/SKILL.md"),
      "---\nname: deploy\ndescription: Deploys to production.\n---\nRun ./ship.sh\n",
    );
    await run(cwd, join(dir, "home/.panto"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const load = (cwd: string, pantoHome: string, untrustedProject: "refuse" | "ignore" | "trust") =>
  loadPromptResources({
    cwd,
    pantoHome,
    home: undefined,
    skills: true,
    templates: true,
    untrustedProject,
  });

Deno.test("skill trust: an untrusted project's skills are left out with a notice naming them and how to trust", async () => {
  await withProject(async (cwd, pantoHome) => {
    const loaded = await load(cwd, pantoHome, "refuse");
    assert.deepEqual(loaded.skills, []);
    assert.equal(loaded.notices.length, 1);
    assert.match(
      loaded.notices[0]!,
      /Not using this project's skills, which are not trusted:\n {2}deploy: .*SKILL\.md/,
    );
    assert.match(loaded.notices[0]!, /--trust-project-config/);
  });
});

Deno.test("skill trust: --trust-project-config remembers them; a changed skill needs trust again", async () => {
  await withProject(async (cwd, pantoHome) => {
    assert.equal((await load(cwd, pantoHome, "trust")).skills.length, 1);
    assert.deepEqual((await load(cwd, pantoHome, "refuse")).skills.map((s) => s.name), ["deploy"]);
    await Deno.writeTextFile(
      join(cwd, ".claude/skills/deploy/SKILL.md"),
      "---\nname: deploy\ndescription: Deploys to production.\n---\nRun ./ship.sh --force-everything\n",
    );
    assert.deepEqual((await load(cwd, pantoHome, "refuse")).skills, []);
  });
});

Deno.test("skill trust: the chat's question lists the project's skills; y trusts them", async () => {
  await withProject(async (cwd, pantoHome) => {
    let asked = "";
    const io = { write: (text: string) => (asked += text), readLine: () => Promise.resolve("y") };
    const policy = await confirmProjectTrust({ cwd, pantoHome, env: () => undefined }, false, io);
    assert.equal(policy, "refuse");
    assert.match(asked, /This project ships skills, which the model follows:\n {2}deploy: /);
    assert.equal((await load(cwd, pantoHome, policy)).skills.length, 1);
    asked = "";
    await confirmProjectTrust({ cwd, pantoHome, env: () => undefined }, false, io);
    assert.equal(asked, "", "not asked again while unchanged");
  });
});
