/**
 * Skills and prompt templates under the installed `panto` command: the
 * launcher grants reading `~/.claude/skills`, the system prompt lists a
 * skill's SKILL.md, and the model (the fake server, scripted) reads it and
 * the files it names with the `read` tool, while the rest of `~/.claude`
 * and of `$PANTO_HOME` stay closed; `-p "/skill:name args"` and
 * `-p "/template args"` send what they stand for.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { childEnv } from "../../support/child_env.ts";
import { writeFakeConfig } from "../../support/fake_config.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { textReply, toolCallReply } from "../../support/fake_replies.ts";
import { withInstalledPanto } from "../../support/installed_panto.ts";

const decoder = new TextDecoder();

interface Place {
  server: FakeLlmServer;
  project: string;
  home: string;
  pantoHome: string;
  run(args: string[]): Promise<Deno.CommandOutput>;
}

async function withPlace(fn: (place: Place) => Promise<void>): Promise<void> {
  await withInstalledPanto(async (panto) => {
    const server = await FakeLlmServer.start();
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "panto-skills-" }));
    const project = join(root, "project");
    const home = join(root, "home");
    const pantoHome = join(home, ".panto");
    try {
      await Deno.mkdir(project);
      await Deno.mkdir(pantoHome, { recursive: true });
      await writeFakeConfig(pantoHome, server, { retry: { maxRetries: 0 } });
      const run = (args: string[]) =>
        new Deno.Command(panto, {
          args,
          cwd: project,
          clearEnv: true,
          env: { ...childEnv(home), NO_COLOR: "1" },
          stdin: "null",
        }).output();
      await fn({ server, project, home, pantoHome, run });
    } finally {
      await server.close();
      await Deno.remove(root, { recursive: true });
    }
  });
}

const SKILL = `---
name: release-notes
description: Writes release notes from the git log. Use when the user asks for release notes or a changelog.
---

# Release notes

Follow the format in references/format.md exactly.
`;

async function writeClaudeSkill(home: string): Promise<{ skillFile: string; format: string }> {
  const dir = join(home, ".claude", "skills", "release-notes");
  await Deno.mkdir(join(dir, "references"), { recursive: true });
  await Deno.writeTextFile(join(dir, "SKILL.md"), SKILL);
  await Deno.writeTextFile(
    join(dir, "references", "format.md"),
    "Group by Added, Fixed, Removed.\n",
  );
  await Deno.writeTextFile(
    join(home, ".claude", "settings.json"),
    '{"private": "claude settings"}',
  );
  return { skillFile: join(dir, "SKILL.md"), format: join(dir, "references", "format.md") };
}

/** A request's body as text (system prompt, messages, tool results). */
const request = (server: FakeLlmServer, index: number) =>
  JSON.stringify(server.requests[index]?.body ?? null);

Deno.test("installed panto: the model reads a skill's SKILL.md in ~/.claude/skills and the file it names; the rest of ~/.claude stays closed", async () => {
  await withPlace(async ({ server, home, run }) => {
    const { skillFile, format } = await writeClaudeSkill(home);
    server.enqueue(
      toolCallReply("r1", "read", { path: skillFile }),
      toolCallReply("r2", "read", { path: format }),
      toolCallReply("r3", "read", { path: join(home, ".claude", "settings.json") }),
      textReply("Notes written."),
    );
    const out = await run(["-p", "write the release notes for v2"]);
    const stderr = decoder.decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.equal(decoder.decode(out.stdout).trim(), "Notes written.");
    assert.ok(
      request(server, 0).includes(`<name>release-notes</name>`) &&
        request(server, 0).includes(`<location>${skillFile}</location>`),
      "the system prompt lists the skill with its path",
    );
    assert.ok(!request(server, 0).includes("Follow the format"), "its body is not in the prompt");
    assert.ok(request(server, 1).includes("Follow the format in references/format.md exactly."));
    assert.ok(request(server, 2).includes("Group by Added, Fixed, Removed."));
    assert.ok(
      !request(server, 3).includes("claude settings"),
      "only skill directories are readable",
    );
    assert.match(request(server, 3), /outside the working directory/);
  });
});

Deno.test("installed panto: a skill in $PANTO_HOME/skills is readable, panto's config beside it is not", async () => {
  await withPlace(async ({ server, pantoHome, run }) => {
    const dir = join(pantoHome, "skills", "commit-style");
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(
      join(dir, "SKILL.md"),
      "---\nname: commit-style\ndescription: How to word commit messages.\n---\nImperative mood, 50 characters.\n",
    );
    server.enqueue(
      toolCallReply("r1", "read", { path: join(dir, "SKILL.md") }),
      toolCallReply("r2", "read", { path: join(pantoHome, "config.json") }),
      textReply("ok"),
    );
    const out = await run(["-p", "commit this"]);
    assert.equal(out.code, 0, decoder.decode(out.stderr));
    assert.ok(request(server, 1).includes("Imperative mood, 50 characters."));
    assert.ok(!request(server, 2).includes("fakeopenai"), "the config stays unreadable");
    assert.match(request(server, 2), /outside the working directory/);
  });
});

Deno.test("installed panto: -p '/skill:name args' and -p '/template args' send what they stand for", async () => {
  await withPlace(async ({ server, home, pantoHome, run }) => {
    const { skillFile } = await writeClaudeSkill(home);
    await Deno.mkdir(join(pantoHome, "prompts"));
    await Deno.writeTextFile(
      join(pantoHome, "prompts", "fix.md"),
      "---\ndescription: Fix an issue\nargument-hint: <issue> [area]\n---\nFix issue #$1 in ${2:-the whole project}. Notes: ${@:3}",
    );
    server.enqueue(textReply("one"), textReply("two"));
    let out = await run(["-p", "/skill:release-notes since v1.9"]);
    assert.equal(out.code, 0, decoder.decode(out.stderr));
    const skillMessage = request(server, 0);
    assert.ok(
      skillMessage.includes(
        JSON.stringify(`<skill name="release-notes" location="${skillFile}">`).slice(1, -1),
      ),
    );
    assert.ok(skillMessage.includes("Follow the format in references/format.md exactly."));
    assert.ok(skillMessage.includes("</skill>\\n\\nsince v1.9"));
    out = await run(["-p", `/fix 42`]);
    assert.equal(out.code, 0, decoder.decode(out.stderr));
    const fix = request(server, 1);
    assert.ok(
      fix.includes("Fix issue #42 in the whole project. Notes:"),
      fix.slice(fix.indexOf('"role":"user"'), fix.indexOf('"role":"user"') + 200),
    );
  });
});

Deno.test("installed panto: a project's .claude/skills are left out with a notice until --trust-project-config", async () => {
  await withPlace(async ({ server, project, run }) => {
    const dir = join(project, ".claude", "skills", "deploy");
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(
      join(dir, "SKILL.md"),
      "---\nname: deploy\ndescription: Deploys the project to production.\n---\nRun ./ship.sh\n",
    );
    server.enqueue(textReply("one"), textReply("two"), textReply("three"));
    let out = await run(["-p", "hi"]);
    assert.equal(out.code, 0, decoder.decode(out.stderr));
    assert.match(
      decoder.decode(out.stderr),
      /Not using this project's skills, which are not trusted:\n {2}deploy: /,
    );
    assert.ok(!request(server, 0).includes("<name>deploy</name>"));
    out = await run(["-p", "hi", "--trust-project-config"]);
    assert.equal(out.code, 0, decoder.decode(out.stderr));
    assert.ok(request(server, 1).includes("<name>deploy</name>"));
    out = await run(["-p", "hi"]);
    assert.doesNotMatch(decoder.decode(out.stderr), /not trusted/, "remembered");
    assert.ok(request(server, 2).includes("<name>deploy</name>"));
  });
});

Deno.test("installed panto: a skill linked into ~/.claude/skills from elsewhere is listed and readable", async () => {
  await withPlace(async ({ server, home, run }) => {
    const elsewhere = join(home, "..", "dotfiles", "skills", "lint");
    await Deno.mkdir(elsewhere, { recursive: true });
    await Deno.writeTextFile(
      join(elsewhere, "SKILL.md"),
      "---\nname: lint\ndescription: Lints the code.\n---\nRun the linter.\n",
    );
    await Deno.mkdir(join(home, ".claude", "skills"), { recursive: true });
    await Deno.symlink(elsewhere, join(home, ".claude", "skills", "lint"));
    const skillFile = join(home, ".claude", "skills", "lint", "SKILL.md");
    server.enqueue(toolCallReply("r1", "read", { path: skillFile }), textReply("linted"));
    const out = await run(["-p", "lint it"]);
    assert.equal(out.code, 0, decoder.decode(out.stderr));
    assert.ok(request(server, 0).includes(`<location>${skillFile}</location>`), "listed");
    assert.ok(request(server, 1).includes("Run the linter."), request(server, 1).slice(-400));
  });
});
