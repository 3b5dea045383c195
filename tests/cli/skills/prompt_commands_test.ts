import assert from "node:assert/strict";
import { join } from "node:path";
import type { Skill } from "../../../cli/skills/discover_skills.ts";
import { expandPromptCommand, promptCommands } from "../../../cli/skills/prompt_commands.ts";
import { discoverTemplates } from "../../../cli/skills/prompt_templates.ts";

async function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    await run(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("templates: description from front matter, else the first line cut at 60; argument-hint kept", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(
      join(dir, "pr.md"),
      '---\ndescription: Review PRs from URLs\nargument-hint: "<PR-URL>"\n---\nReview $1',
    );
    await Deno.writeTextFile(join(dir, "wr.md"), `\n\n${"Finish the task ".repeat(6)}\n$@`);
    await Deno.writeTextFile(join(dir, "notes.txt"), "not a template");
    await Deno.mkdir(join(dir, "sub"));
    await Deno.writeTextFile(join(dir, "sub", "deep.md"), "not searched");
    const { templates, warnings } = await discoverTemplates([{ dir, scope: "user" }]);
    assert.deepEqual(warnings, []);
    assert.deepEqual(templates.map((t) => [t.name, t.description, t.argumentHint]), [
      ["pr", "Review PRs from URLs", "<PR-URL>"],
      ["wr", `${"Finish the task ".repeat(6).trim().slice(0, 60)}...`, undefined],
    ]);
    assert.deepEqual(
      promptCommands({ skills: [], templates }).map((c) => c.description)[0],
      "<PR-URL> — Review PRs from URLs",
    );
  });
});

Deno.test("templates: the earlier place wins a name; a built-in command's name is refused, both with warnings", async () => {
  await withDir(async (dir) => {
    for (const place of ["project", "user"]) {
      await Deno.mkdir(join(dir, place));
      await Deno.writeTextFile(join(dir, place, "review.md"), `${place} review`);
      await Deno.writeTextFile(join(dir, place, "model.md"), "shadowed");
    }
    const { templates, warnings } = await discoverTemplates(
      [{ dir: join(dir, "project"), scope: "project" }, { dir: join(dir, "user"), scope: "user" }],
      new Set(["model"]),
    );
    assert.deepEqual(templates.map((t) => `${t.scope} ${t.name}`), ["project review"]);
    assert.ok(warnings.includes(
      `Prompt template ${join(dir, "user", "review.md")} is not loaded: ${
        join(dir, "project", "review.md")
      } has the name /review and was found first`,
    ));
    assert.ok(warnings.includes(
      `Prompt template ${
        join(dir, "project", "model.md")
      } is not loaded: a built-in command has the name /model`,
    ));
  });
});

Deno.test("commands: /template args sends the body with the arguments filled in", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(
      join(dir, "component.md"),
      "---\ndescription: Create a component\n---\nCreate a React component named $1 with features: ${@:2}",
    );
    const { templates } = await discoverTemplates([{ dir, scope: "user" }]);
    const resources = { skills: [], templates };
    assert.equal(
      await expandPromptCommand(`/component Button "onClick handler" disabled`, resources),
      "Create a React component named Button with features: onClick handler disabled",
    );
    assert.equal(await expandPromptCommand("/unknown x", resources), undefined);
    assert.equal(await expandPromptCommand("plain text", resources), undefined);
  });
});

Deno.test("commands: /skill:name args sends pi's <skill> block with the body, then the arguments", async () => {
  await withDir(async (dir) => {
    const baseDir = join(dir, "pdf");
    await Deno.mkdir(baseDir);
    const filePath = join(baseDir, "SKILL.md");
    await Deno.writeTextFile(
      filePath,
      "---\nname: pdf\ndescription: Reads PDFs.\n---\n\n# PDF\n\nRun ./extract.sh FILE\n",
    );
    const pdf: Skill = {
      name: "pdf",
      description: "Reads PDFs.",
      filePath,
      baseDir,
      scope: "user",
      modelInvocable: true,
    };
    const resources = { skills: [pdf], templates: [] };
    assert.equal(
      await expandPromptCommand("/skill:pdf report.pdf", resources),
      `<skill name="pdf" location="${filePath}">\nReferences are relative to ${baseDir}.\n\n# PDF\n\nRun ./extract.sh FILE\n</skill>\n\nreport.pdf`,
    );
    assert.ok((await expandPromptCommand("/skill:pdf", resources))?.endsWith("</skill>"));
    assert.equal(await expandPromptCommand("/skill:nope", resources), undefined);
    assert.deepEqual(promptCommands(resources), [{
      name: "skill:pdf",
      description: "Reads PDFs.",
    }]);
    await Deno.remove(filePath);
    await assert.rejects(
      expandPromptCommand("/skill:pdf", resources),
      new RegExp(`Cannot read the skill pdf \\(${filePath}\\)`),
    );
  });
});
