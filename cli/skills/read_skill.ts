/**
 * Reading one skill file's front matter into a skill and the problems with
 * it; loaded only when a file is read (not when the cache has it).
 *
 * @module
 */
import { basename, dirname } from "node:path";
import type { Candidate, Skill, SkillPlace } from "./discover_skills.ts";
import {
  FrontMatterError,
  parseFrontMatterYaml,
  splitFrontMatter,
  stringField,
} from "./front_matter.ts";
import { readHead } from "./read_head.ts";
import type { SkillReading } from "./skill_cache.ts";
import { skillDescriptionProblems, skillNameProblems } from "./skill_checks.ts";

/**
 * Reads one candidate's front matter: the skill, unless it is no usable one, and the warnings.
 *
 * @param candidate The file, its place and its `stat`.
 * @returns The reading.
 */
export async function readSkill(candidate: Candidate): Promise<SkillReading> {
  const { path, place } = candidate;
  const warnings: string[] = [];
  const warn = (problem: string) => warnings.push(`Skill ${path}: ${problem}`);
  const skill = await skillOf(path, place, candidate.stamp.size, warn);
  return skill ? { skill, warnings } : { warnings };
}

async function skillOf(
  path: string,
  place: SkillPlace,
  size: number,
  warn: (problem: string) => void,
): Promise<Skill | undefined> {
  const head = readHead(path, { isFile: true, size });
  if (!head) return undefined;
  const parts = splitFrontMatter(head.text);
  if (!parts) {
    warn(
      "it has no YAML front matter (a first line `---`, then `name:` and `description:`, then `---`): not loaded",
    );
    return undefined;
  }
  let fields: Record<string, unknown>;
  try {
    fields = await parseFrontMatterYaml(parts.yaml);
  } catch (error) {
    if (!(error instanceof FrontMatterError)) throw error;
    warn(`it ${error.message}: not loaded`);
    return undefined;
  }
  const isSkillFile = basename(path) === "SKILL.md";
  const directory = isSkillFile ? basename(dirname(path)) : basename(path, ".md");
  const description = stringField(fields, "description");
  skillDescriptionProblems(description).forEach(warn);
  let name = stringField(fields, "name");
  if (name === undefined) {
    warn(`it has no name (add \`name: ${directory}\` to its front matter): using "${directory}"`);
    name = directory;
  } else skillNameProblems(name, directory).forEach(warn);
  if (description === undefined) return undefined;
  if (/\s/.test(name)) {
    warn(`its name "${name}" has spaces, so /skill:name cannot name it: not loaded`);
    return undefined;
  }
  return {
    name,
    description,
    filePath: path,
    baseDir: dirname(path),
    scope: place.scope,
    modelInvocable: fields["disable-model-invocation"] !== true,
  };
}
