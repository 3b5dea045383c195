import { readEnv } from "../env.ts";
import { readTerminalLine, writeStderr } from "../stdio.ts";
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
 * changes security-relevant settings and is not trusted yet. "y" trusts the
 * file as shown (remembered until it changes); anything else runs without
 * those settings.
 *
 * @param options Where the config files are.
 * @param trustFlag `--trust-project-config` was given: trust without asking.
 * @param io The terminal.
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
): Promise<UntrustedProjectPolicy> {
  if (trustFlag) return "trust";
  const { project } = await loadConfigLayers(options);
  if (!project) return "refuse";
  const risky = riskySettings(project.before, project.after);
  if (risky.length === 0 || await isProjectTrusted(options.pantoHome, project)) return "refuse";
  io.write(
    `${project.shown} changes security-relevant settings:\n${
      formatRiskySettings(risky)
    }\nTrust this file and use them? panto asks again if the file changes. [y/N] `,
  );
  if (isYes(await io.readLine())) {
    await trustProject(options.pantoHome, project);
    return "refuse";
  }
  io.write(`panto: running without these settings of ${project.shown}\n`);
  return "ignore";
}

/**
 * {@linkcode confirmProjectTrust} on the process's terminal, for the
 * interactive mode: call it before the terminal UI takes over.
 *
 * @param trustFlag `--trust-project-config` was given.
 * @returns The policy to pass to `setupApp`.
 */
export function confirmProjectTrustOnTerminal(
  trustFlag: boolean,
): Promise<UntrustedProjectPolicy> {
  const cwd = Deno.cwd();
  return confirmProjectTrust(
    { pantoHome: resolvePantoHome(readEnv, cwd), cwd, env: readEnv },
    trustFlag,
    { write: writeStderr, readLine: readTerminalLine },
  );
}

function isYes(answer: string): boolean {
  return /^\s*y(es)?\s*$/i.test(answer);
}
