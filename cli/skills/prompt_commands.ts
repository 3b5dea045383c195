/**
 * The commands skills and prompt templates add: `/skill:name [args]` sends
 * the skill's instructions (and the arguments) as the user's message, and
 * `/template [args]` sends the template with the arguments filled in — the
 * messages pi sends for them.
 *
 * @module
 */
import type { Skill } from "./discover_skills.ts";
import type { PromptTemplate } from "./prompt_templates.ts";

/** The skills and prompt templates of a session. */
export interface PromptResources {
  /** Skills, one per name. */
  skills: readonly Skill[];
  /** Prompt templates, one per name. */
  templates: readonly PromptTemplate[];
}

/** A command for `/help` and completion. */
export interface PromptCommand {
  /** The name after `/` (`skill:pdf`, `review`). */
  name: string;
  /** One line: the argument hint, then the description. */
  description: string;
}

/** The prefix of skill commands. */
export const SKILL_COMMAND_PREFIX = "skill:";

/**
 * The commands of the skills and templates: templates first, then skills.
 *
 * @param resources The skills and templates.
 * @returns One command each.
 *
 * @example
 * ```ts
 * import { promptCommands } from "./prompt_commands.ts";
 * const skills = [{ name: "pdf", description: "Reads PDFs", filePath: "/s/pdf/SKILL.md", baseDir: "/s/pdf", scope: "user" as const, modelInvocable: true }];
 * console.assert(promptCommands({ skills, templates: [] })[0]?.name === "skill:pdf");
 * ```
 */
export function promptCommands(resources: PromptResources): PromptCommand[] {
  return [
    ...resources.templates.map((t) => ({
      name: t.name,
      description: t.argumentHint ? `${t.argumentHint} — ${t.description}` : t.description,
    })),
    ...resources.skills.map((s) => ({
      name: `${SKILL_COMMAND_PREFIX}${s.name}`,
      description: s.description,
    })),
  ];
}

/**
 * The prompt a `/skill:name` or template command line stands for, or
 * `undefined` when the line is no such command (another command, or an
 * unknown name). The skill's or template's file is read now, in full.
 *
 * @param line The submitted line, starting with `/`.
 * @param resources The skills and templates.
 * @returns The user's message to send.
 * @throws {Error} When the file cannot be read any more, naming it.
 *
 * @example
 * ```ts
 * import { expandPromptCommand } from "./prompt_commands.ts";
 * console.assert(await expandPromptCommand("/nothing", { skills: [], templates: [] }) === undefined);
 * ```
 */
export async function expandPromptCommand(
  line: string,
  resources: PromptResources,
): Promise<string | undefined> {
  if (!line.startsWith("/")) return undefined;
  const space = line.search(/\s/);
  const name = space === -1 ? line.slice(1) : line.slice(1, space);
  const args = space === -1 ? "" : line.slice(space + 1).trim();
  if (name.startsWith(SKILL_COMMAND_PREFIX)) {
    const skill = resources.skills.find((s) => s.name === name.slice(SKILL_COMMAND_PREFIX.length));
    return skill && await skillMessage(skill, args);
  }
  const template = resources.templates.find((t) => t.name === name);
  if (!template) return undefined;
  // Filling in a template loads with the first one used.
  const [{ templateBody }, { splitCommandArgs, substituteArgs }] = await Promise.all([
    import("./read_template.ts"),
    import("./template_args.ts"),
  ]);
  return substituteArgs(await templateBody(template), splitCommandArgs(args));
}

/**
 * pi's message for `/skill:name args`: the skill's body in a `<skill>`
 * element naming it and its file, saying where relative paths resolve,
 * then the arguments.
 */
async function skillMessage(skill: Skill, args: string): Promise<string> {
  const { readMarkdownBody } = await import("./front_matter.ts");
  const body = await readMarkdownBody(skill.filePath, `the skill ${skill.name}`);
  const block = `<skill name="${skill.name}" location="${skill.filePath}">\n` +
    `References are relative to ${skill.baseDir}.\n\n${body}\n</skill>`;
  return args ? `${block}\n\n${args}` : block;
}
