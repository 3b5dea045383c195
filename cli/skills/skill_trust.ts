/**
 * Trust for a project's own skills (`.panto/skills`, `.claude/skills`,
 * `.pi/skills`, `.agents/skills` in the project): they are listed to the
 * model, which follows them and may run the scripts they ship, and a cloned
 * repository can bring them. As with a project's config and extensions,
 * they are used once the user trusted them as they are (their files' paths,
 * sizes and modification times: start-up reads no skill body, so it hashes
 * none); a changed, added or removed skill asks again.
 *
 * @module
 */
import { isTrusted, rememberTrust, type UntrustedProjectPolicy } from "../config/project_trust.ts";
import type { Skill } from "./discover_skills.ts";

/**
 * What of a project's skills is not trusted yet, or `undefined` when it has
 * none or they are trusted as they are.
 *
 * @param skills The skills found (the project's have scope `project`).
 * @param cwd The working directory (trust is remembered per directory).
 * @param pantoHome panto's home, where trust is remembered.
 * @returns The untrusted project skills and their fingerprint.
 *
 * @example
 * ```ts
 * import { untrustedProjectSkills } from "./skill_trust.ts";
 * const dir = await Deno.makeTempDir();
 * console.assert(await untrustedProjectSkills([], dir, dir) === undefined);
 * await Deno.remove(dir);
 * ```
 */
export async function untrustedProjectSkills(
  skills: readonly Skill[],
  cwd: string,
  pantoHome: string,
): Promise<UntrustedSkills | undefined> {
  const project = skills.filter((skill) => skill.scope === "project");
  if (project.length === 0) return undefined;
  const fingerprint = project.map((skill) => `${skill.filePath}\0${fileStamp(skill.filePath)}`)
    .join("\0");
  if (await isTrusted(pantoHome, "skills", cwd, fingerprint)) return undefined;
  return { projectDir: cwd, skills: project, fingerprint };
}

/** A project's skills that are not trusted as they are now. */
export interface UntrustedSkills {
  /** The project directory. */
  projectDir: string;
  /** The skills. */
  skills: Skill[];
  /** What trust is remembered for. */
  fingerprint: string;
}

/**
 * Remembers that the user trusts the project's skills as they are.
 *
 * @param pantoHome panto's home.
 * @param untrusted The skills shown to the user.
 */
export function trustProjectSkills(pantoHome: string, untrusted: UntrustedSkills): Promise<void> {
  return rememberTrust(pantoHome, "skills", untrusted.projectDir, untrusted.fingerprint);
}

/**
 * The skills as indented lines for a trust question or notice.
 *
 * @param untrusted The skills.
 * @returns One line per skill.
 */
export function formatUntrustedSkills(untrusted: UntrustedSkills): string {
  return untrusted.skills.map((skill) => `  ${skill.name}: ${skill.filePath}`).join("\n");
}

/**
 * Drops the project's untrusted skills according to the policy: `trust`
 * remembers and keeps them; `refuse` and `ignore` leave them out with a
 * notice saying how to trust them. Unlike an untrusted config or extension,
 * they never stop the start: a skill is text the model reads, as an
 * AGENTS.md is, and many repositories ship them.
 *
 * @param skills The skills found.
 * @param cwd The working directory.
 * @param pantoHome panto's home.
 * @param policy What to do with untrusted project skills.
 * @returns The skills to use, and a notice when some were left out.
 */
export async function settleSkillTrust(
  skills: readonly Skill[],
  cwd: string,
  pantoHome: string,
  policy: UntrustedProjectPolicy,
): Promise<{ skills: Skill[]; notice?: string }> {
  const untrusted = await untrustedProjectSkills(skills, cwd, pantoHome);
  if (!untrusted) return { skills: [...skills] };
  if (policy === "trust") {
    await trustProjectSkills(pantoHome, untrusted);
    return { skills: [...skills] };
  }
  return {
    skills: skills.filter((skill) => skill.scope !== "project"),
    notice: `Not using this project's skills, which are not trusted:\n${
      formatUntrustedSkills(untrusted)
    }\nTo use them, run panto in ${cwd} with --trust-project-config once (or answer y in the interactive chat)`,
  };
}

/** Size and modification time: what changes when a skill's file is edited. */
function fileStamp(path: string): string {
  try {
    const info = Deno.statSync(path);
    return `${info.size}\0${info.mtime?.getTime() ?? ""}`;
  } catch {
    return "missing";
  }
}
