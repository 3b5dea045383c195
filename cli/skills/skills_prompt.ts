import type { Skill } from "./discover_skills.ts";
import { escapeMarkup } from "../shared/escape_markup.ts";

/**
 * The system prompt's list of skills (the XML the Agent Skills integration
 * guide and pi use): each skill's name, description and `SKILL.md` path,
 * which the model reads with the `read` tool when a task matches. Skills
 * with `disable-model-invocation: true` are left out (only `/skill:name`
 * uses them); without any, the section is empty.
 *
 * @param skills The skills.
 * @returns The section, or `""`.
 *
 * @example
 * ```ts
 * import { skillsPromptSection } from "./skills_prompt.ts";
 * const pdf = { name: "pdf", description: "Reads <PDF> files", filePath: "/s/pdf/SKILL.md", baseDir: "/s/pdf", scope: "user" as const, modelInvocable: true };
 * console.assert(skillsPromptSection([pdf]).includes("<description>Reads &lt;PDF&gt; files</description>"));
 * ```
 */
export function skillsPromptSection(skills: readonly Skill[]): string {
  // One string grown in place: a thousand skills made arrays of lines and joins a measurable part of the start.
  let entries = "";
  for (const skill of skills) {
    if (!skill.modelInvocable) continue;
    entries += `\n  <skill>\n    <name>${escapeMarkup(skill.name)}</name>\n    <description>${
      escapeMarkup(skill.description)
    }</description>\n    <location>${escapeMarkup(skill.filePath)}</location>\n  </skill>`;
  }
  if (entries === "") return "";
  return [
    "# Skills",
    "",
    "The following skills provide specialized instructions for specific tasks.",
    "Use the read tool to load a skill's file when the task matches its description.",
    "When a skill file references a relative path, resolve it against the skill directory (parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.",
    "",
    `<available_skills>${entries}`,
    "</available_skills>",
  ].join("\n");
}
