import { join } from "node:path";

/**
 * The user's skill and prompt template directories of other agents, under
 * the home directory: pi's (`~/.pi/agent/skills`, `~/.pi/agent/prompts`),
 * the shared `~/.agents/skills` and Claude Code's `~/.claude/skills`. The
 * launcher grants reading them; panto looks for skills and templates there
 * besides `$PANTO_HOME`.
 *
 * @param home The user's home directory.
 * @returns The directories, by kind.
 *
 * @example
 * ```ts
 * import { userResourceDirs } from "./user_resource_dirs.ts";
 * console.assert(userResourceDirs("/h").skills.includes("/h/.claude/skills"));
 * ```
 */
export function userResourceDirs(home: string): { skills: string[]; prompts: string[] } {
  return {
    skills: [
      join(home, ".pi", "agent", "skills"),
      join(home, ".agents", "skills"),
      join(home, ".claude", "skills"),
    ],
    prompts: [join(home, ".pi", "agent", "prompts")],
  };
}
