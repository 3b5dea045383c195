/** The Agent Skills specification's limit on a name. */
export const MAX_SKILL_NAME_LENGTH = 64;
/** The specification's limit on a description. */
export const MAX_SKILL_DESCRIPTION_LENGTH = 1024;

/**
 * What a skill's name breaks of the Agent Skills specification
 * (agentskills.io): 1–64 characters of lowercase letters, digits and
 * hyphens, no hyphen at either end or twice in a row, the same as its
 * directory. Like pi, panto still loads such a skill and warns.
 *
 * @param name The `name` field.
 * @param directory The name of the directory holding `SKILL.md`.
 * @returns One message per rule broken (none when valid).
 *
 * @example
 * ```ts
 * import { skillNameProblems } from "./skill_checks.ts";
 * console.assert(skillNameProblems("pdf-tools", "pdf-tools").length === 0);
 * console.assert(skillNameProblems("PDF", "pdf").length === 2);
 * ```
 */
export function skillNameProblems(name: string, directory: string): string[] {
  const problems: string[] = [];
  if (name !== directory) {
    problems.push(`its name "${name}" differs from its directory "${directory}"`);
  }
  if (name.length > MAX_SKILL_NAME_LENGTH) {
    problems.push(`its name is ${name.length} characters long (at most ${MAX_SKILL_NAME_LENGTH})`);
  }
  if (!/^[a-z0-9-]*$/.test(name)) {
    problems.push(`its name "${name}" has characters other than a-z, 0-9 and hyphens`);
  }
  if (name.startsWith("-") || name.endsWith("-") || name.includes("--")) {
    problems.push(`its name "${name}" starts or ends with a hyphen, or has two in a row`);
  }
  return problems;
}

/**
 * What a skill's description breaks of the specification: it is required
 * and at most 1024 characters.
 *
 * @param description The `description` field, if any.
 * @returns One message per rule broken.
 *
 * @example
 * ```ts
 * import { skillDescriptionProblems } from "./skill_checks.ts";
 * console.assert(skillDescriptionProblems(undefined)[0]?.includes("no description"));
 * ```
 */
export function skillDescriptionProblems(description: string | undefined): string[] {
  if (description === undefined) {
    return ["it has no description (add `description:` to its front matter): not loaded"];
  }
  if (description.length > MAX_SKILL_DESCRIPTION_LENGTH) {
    return [
      `its description is ${description.length} characters long (at most ${MAX_SKILL_DESCRIPTION_LENGTH})`,
    ];
  }
  return [];
}
