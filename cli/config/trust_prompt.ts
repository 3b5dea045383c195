import { readEnv } from "../shared/env.ts";
import {
  formatUntrustedExtensions,
  trustProjectExtensions,
  untrustedProjectExtensions,
} from "../extensions/extension_trust.ts";
import { readTerminalLine, writeStderr } from "../shared/stdio.ts";
import { type ResourceDirs, untrustedSkillsIn } from "../skills/load_resources.ts";
import { formatUntrustedSkills, trustProjectSkills } from "../skills/skill_trust.ts";
import { loadConfigLayers, type LoadConfigOptions, resolvePantoHome } from "./load_config.ts";
import {
  formatRiskySettings,
  isProjectTrusted,
  riskySettings,
  trustProject,
  type UntrustedProjectPolicy,
} from "./project_trust.ts";

/** How the trust question reaches the user. */
export interface TrustPromptIo {
  /** Writes text for the user (standard error). */
  write(text: string): void;
  /** Reads the user's answer line. */
  readLine(): Promise<string>;
}

/**
 * Asks, before the chat starts, whether to trust a project config that
 * changes security-relevant settings, and the project's own extensions and
 * skills, when they are not trusted yet. "y" trusts the
 * file as shown (remembered until it changes); anything else runs without
 * those settings.
 *
 * @param options Where the config files are.
 * @param trustFlag `--trust-project-config` was given: trust without asking.
 * @param io The terminal.
 * @param askAboutExtensions Also ask about the project's own extension
 *   modules (`.panto/extensions`), which run as code (false with `--no-extensions`).
 * @param askAboutSkills Also ask about the project's skills (false with `--no-skills`).
 * @returns The policy for loading the config: `ignore` when declined; else
 *   `refuse`, which loads the now trusted file as it is and refuses one
 *   changed since the question; `trust` for the flag.
 *
 * @example
 * ```ts
 * import { confirmProjectTrust } from "./trust_prompt.ts";
 * const dir = await Deno.makeTempDir();
 * const io = { write: () => {}, readLine: () => Promise.resolve("") };
 * console.assert(await confirmProjectTrust({ pantoHome: dir, cwd: dir, env: () => undefined }, false, io) === "refuse");
 * await Deno.remove(dir);
 * ```
 */
export async function confirmProjectTrust(
  options: LoadConfigOptions,
  trustFlag: boolean,
  io: TrustPromptIo,
  askAboutExtensions = true,
  askAboutSkills = true,
): Promise<UntrustedProjectPolicy> {
  if (trustFlag) return "trust";
  const { project } = await loadConfigLayers(options);
  const risky = project ? riskySettings(project.before, project.after) : [];
  const configQuestion = project && risky.length > 0 &&
      !await isProjectTrusted(options.pantoHome, project)
    ? `${project.shown} changes security-relevant settings:\n${formatRiskySettings(risky)}\n`
    : undefined;
  const extensions = askAboutExtensions
    ? await untrustedProjectExtensions(options.cwd, options.pantoHome)
    : undefined;
  const skills = askAboutSkills ? await untrustedSkillsIn(resourceDirs(options)) : undefined;
  if (!configQuestion && !extensions && !skills) return "refuse";
  const extensionQuestion = extensions
    ? `This project ships extensions:\n${formatUntrustedExtensions(extensions)}\n`
    : "";
  const skillQuestion = skills
    ? `This project ships skills, which the model follows:\n${formatUntrustedSkills(skills)}\n`
    : "";
  io.write(
    `${configQuestion ?? ""}${extensionQuestion}${skillQuestion}Trust ${
      [configQuestion, extensions, skills].filter(Boolean).length > 1
        ? "them"
        : configQuestion
        ? "this file and use them"
        : "and load them"
    }? panto asks again if they change. [y/N] `,
  );
  if (isYes(await io.readLine())) {
    if (configQuestion && project) await trustProject(options.pantoHome, project);
    if (extensions) await trustProjectExtensions(options.pantoHome, extensions);
    if (skills) await trustProjectSkills(options.pantoHome, skills);
    return "refuse";
  }
  const without = [
    configQuestion && project ? `these settings of ${project.shown}` : "",
    extensions ? "this project's extensions" : "",
    skills ? "this project's skills" : "",
  ].filter(Boolean).join(" and ");
  io.write(`panto: running without ${without}\n`);
  return "ignore";
}

/** Where the config's options say skills are looked for. */
function resourceDirs(options: LoadConfigOptions): ResourceDirs {
  return { cwd: options.cwd, pantoHome: options.pantoHome, home: options.env("HOME") || undefined };
}

/**
 * {@linkcode confirmProjectTrust} on the process's terminal, for the
 * interactive mode: call it before the terminal UI takes over.
 *
 * @param trustFlag `--trust-project-config` was given.
 * @param askAboutExtensions Also ask about the project's extensions (false with `--no-extensions`).
 * @param askAboutSkills Also ask about the project's skills (false with `--no-skills`).
 * @returns The policy to pass to `setupApp`.
 */
export function confirmProjectTrustOnTerminal(
  trustFlag: boolean,
  askAboutExtensions = true,
  askAboutSkills = true,
): Promise<UntrustedProjectPolicy> {
  const cwd = Deno.cwd();
  return confirmProjectTrust(
    { pantoHome: resolvePantoHome(readEnv, cwd), cwd, env: readEnv },
    trustFlag,
    { write: writeStderr, readLine: readTerminalLine },
    askAboutExtensions,
    askAboutSkills,
  );
}

function isYes(answer: string): boolean {
  return /^\s*y(es)?\s*$/i.test(answer);
}
