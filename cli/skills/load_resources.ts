/**
 * Where skills and prompt templates are found — panto's own directories,
 * and those of Claude Code and pi, so their users' files work as they are —
 * and loading them for a session.
 *
 * @module
 */
import { join, resolve } from "node:path";
import type { UntrustedProjectPolicy } from "../config/project_trust.ts";
import { pathExists, projectRoot } from "../launcher/project_root.ts";
import { DEFAULT_DISCOVERY_LIMITS, discoverSkills, type SkillPlace } from "./discover_skills.ts";
import { SkillCache, skillCachePath } from "./skill_cache.ts";
import type { PromptResources } from "./prompt_commands.ts";
import { discoverTemplates, type TemplatePlace } from "./prompt_templates.ts";
import { settleSkillTrust, untrustedProjectSkills, type UntrustedSkills } from "./skill_trust.ts";
import { userResourceDirs } from "./user_resource_dirs.ts";

/** Where a session's skills and templates come from. */
export interface ResourceDirs {
  /** The working directory. */
  cwd: string;
  /** panto's home. */
  pantoHome: string;
  /** The user's home directory, when known. */
  home: string | undefined;
}

/**
 * The skill directories, in the order they win a name: the project's first
 * (`.panto/skills`, `.pi/skills`, `.claude/skills`, then `.agents/skills`
 * from the working directory up to the project's root), then the user's
 * (`$PANTO_HOME/skills`, `~/.pi/agent/skills`, `~/.agents/skills`,
 * `~/.claude/skills`) — pi's order. `.md` files directly in panto's and
 * pi's own directories are skills too, as in pi.
 *
 * @param dirs Working directory, panto's home, the user's home.
 * @returns The places.
 *
 * @example
 * ```ts
 * import { skillPlaces } from "./load_resources.ts";
 * const places = skillPlaces({ cwd: "/work", pantoHome: "/h/.panto", home: "/h" });
 * console.assert(places.some((p) => p.dir === "/h/.claude/skills" && p.scope === "user"));
 * ```
 */
export function skillPlaces(dirs: ResourceDirs): SkillPlace[] {
  const cwd = resolve(dirs.cwd);
  const project = (dir: string, rootFiles = false): SkillPlace => ({
    dir,
    scope: "project",
    rootFiles,
  });
  const user = (dir: string, rootFiles = false): SkillPlace => ({ dir, scope: "user", rootFiles });
  const users = [
    user(join(resolve(dirs.pantoHome), "skills"), true),
    // pi's own directory takes `.md` files as skills too; the others do not.
    ...(dirs.home ? userResourceDirs(dirs.home).skills : []).map((dir) =>
      user(dir, dir.endsWith(join(".pi", "agent", "skills")))
    ),
  ];
  const projects = [
    project(join(cwd, ".panto", "skills"), true),
    project(join(cwd, ".pi", "skills"), true),
    project(join(cwd, ".claude", "skills")),
    ...ancestorsToRoot(cwd, dirs.home).map((dir) => project(join(dir, ".agents", "skills"))),
  ];
  // Started in the home directory, ~/.claude/skills is the user's, not a project's.
  const userDirs = new Set(users.map((place) => place.dir));
  return [...projects.filter((place) => !userDirs.has(place.dir)), ...users];
}

/**
 * The prompt template directories, in the order they win a name: the
 * project's `.panto/prompts` and `.pi/prompts`, then `$PANTO_HOME/prompts`
 * and `~/.pi/agent/prompts`.
 *
 * @param dirs Working directory, panto's home, the user's home.
 * @returns The places.
 *
 * @example
 * ```ts
 * import { templatePlaces } from "./load_resources.ts";
 * const places = templatePlaces({ cwd: "/work", pantoHome: "/h/.panto", home: "/h" });
 * console.assert(places[0]?.dir === "/work/.panto/prompts");
 * ```
 */
export function templatePlaces(dirs: ResourceDirs): TemplatePlace[] {
  const cwd = resolve(dirs.cwd);
  return [
    { dir: join(cwd, ".panto", "prompts"), scope: "project" },
    { dir: join(cwd, ".pi", "prompts"), scope: "project" },
    { dir: join(resolve(dirs.pantoHome), "prompts"), scope: "user" },
    ...(dirs.home ? userResourceDirs(dirs.home).prompts : []).map((dir) => ({
      dir,
      scope: "user" as const,
    })),
  ];
}

/** Options for {@linkcode loadPromptResources}. */
export interface LoadResourcesOptions extends ResourceDirs {
  /** Look for skills (`--no-skills` turns this off). */
  skills: boolean;
  /** Look for prompt templates (`--no-prompt-templates` turns this off). */
  templates: boolean;
  /** Command names templates may not take (the built-in ones). */
  reserved?: ReadonlySet<string>;
  /** What to do with the project's skills when they are not trusted. */
  untrustedProject: UntrustedProjectPolicy;
}

/** A session's skills and templates, and what the user must be told about them. */
export interface LoadedResources extends PromptResources {
  /** Invalid files, collisions, skipped project skills. */
  notices: string[];
}

/**
 * Finds the skills and prompt templates of a session (front matter only),
 * leaving out the project's skills when they are not trusted.
 *
 * @param options Where to look, what to skip, the trust policy.
 * @returns The skills, templates and notices.
 *
 * @example
 * ```ts
 * import { loadPromptResources } from "./load_resources.ts";
 * const dir = await Deno.makeTempDir();
 * const loaded = await loadPromptResources({ cwd: dir, pantoHome: dir, home: undefined, skills: true, templates: true, untrustedProject: "ignore" });
 * console.assert(loaded.skills.length === 0);
 * await Deno.remove(dir);
 * ```
 */
export async function loadPromptResources(options: LoadResourcesOptions): Promise<LoadedResources> {
  const notices: string[] = [];
  let skills: LoadedResources["skills"] = [];
  if (options.skills) {
    const found = await discoverSkills(
      skillPlaces(options),
      DEFAULT_DISCOVERY_LIMITS,
      SkillCache.open(skillCachePath(options.pantoHome)),
    );
    notices.push(...found.warnings);
    const settled = await settleSkillTrust(
      found.skills,
      options.cwd,
      options.pantoHome,
      options.untrustedProject,
    );
    if (settled.notice) notices.push(settled.notice);
    skills = settled.skills;
  }
  let templates: LoadedResources["templates"] = [];
  if (options.templates) {
    const found = await discoverTemplates(templatePlaces(options), options.reserved);
    notices.push(...found.warnings);
    templates = found.templates;
  }
  return { skills, templates, notices };
}

/**
 * The project's skills when they are not trusted as they are (for the
 * interactive trust question), else `undefined`.
 *
 * @param dirs Working directory, panto's home, the user's home.
 * @returns The untrusted skills.
 *
 * @example
 * ```ts
 * import { untrustedSkillsIn } from "./load_resources.ts";
 * const dir = await Deno.makeTempDir();
 * console.assert(await untrustedSkillsIn({ cwd: dir, pantoHome: dir, home: undefined }) === undefined);
 * await Deno.remove(dir);
 * ```
 */
export async function untrustedSkillsIn(dirs: ResourceDirs): Promise<UntrustedSkills | undefined> {
  const places = skillPlaces(dirs).filter((place) => place.scope === "project");
  // The start's own cache: the discovery that follows finds these files read already.
  const found = await discoverSkills(
    places,
    DEFAULT_DISCOVERY_LIMITS,
    SkillCache.open(skillCachePath(dirs.pantoHome)),
  );
  return await untrustedProjectSkills(found.skills, dirs.cwd, dirs.pantoHome);
}

/** The working directory and its parents up to the project's root (the git root, else itself). */
function ancestorsToRoot(cwd: string, home: string | undefined): string[] {
  const root = projectRoot(cwd, home, pathExists);
  const dirs: string[] = [];
  for (let dir = cwd; dir.startsWith(root); dir = resolve(dir, "..")) {
    dirs.push(dir);
    if (dir === root) break;
  }
  return dirs;
}
