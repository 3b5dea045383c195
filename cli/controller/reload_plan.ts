/**
 * `/reload`'s first half: everything read again from the files (config,
 * skills, templates, context files, SYSTEM.md), checked, and nothing
 * applied yet, so that a broken config leaves the running chat as it was.
 *
 * @module
 */
import { loadPromptSetup, type PromptSetup } from "../setup/app_setup.ts";
import type { ChatArgs } from "../setup/args.ts";
import { loadConfig } from "../config/load_config.ts";
import type { PantoConfig } from "../config/panto_config.ts";
import type { UntrustedProjectPolicy } from "../config/project_trust.ts";
import { readEnv } from "../shared/env.ts";
import { loadCatalogModels } from "../models/catalog.ts";
import { modelProviders, usableCatalogProviders } from "../models/usable_models.ts";
import { contextTextsByName } from "./context_file_texts.ts";

/** What a reload would apply. */
export interface ReloadPlan {
  /** The configuration read again. */
  config: PantoConfig;
  /** The tools, system prompt, skills and templates built from it. */
  setup: PromptSetup;
  /** The context files' texts by shown name, as {@linkcode contextTextsByName} gives them. */
  contextTexts: Record<string, string>;
}

/** Where the files are, and the start-up's trust policy and key actions. */
export interface ReloadDirs {
  /** The working directory. */
  cwd: string;
  /** panto's home directory. */
  pantoHome: string;
  /** What the start-up did with an untrusted project (the same applies now). */
  untrustedProject: UntrustedProjectPolicy;
  /** Key actions the config may rebind (others are typos). */
  keybindingActions?: readonly string[] | undefined;
}

/**
 * Reads the config and the prompt's files again, as the start-up does (the
 * same trust policy: a project config that changed since it was trusted
 * is refused or its risky settings ignored, never used silently).
 *
 * @param args The parsed command line.
 * @param dirs Where to look, and the trust policy.
 * @returns What to apply.
 * @throws {UsageError} For a config file with a mistake (nothing is applied).
 *
 * @example
 * ```ts ignore
 * const plan = await readReloadPlan(args, { cwd, pantoHome, untrustedProject: "refuse" });
 * console.log(plan.setup.contextFiles);
 * ```
 */
export async function readReloadPlan(args: ChatArgs, dirs: ReloadDirs): Promise<ReloadPlan> {
  const config = await loadConfig({
    pantoHome: dirs.pantoHome,
    cwd: dirs.cwd,
    env: readEnv,
    untrustedProject: dirs.untrustedProject,
    ...(dirs.keybindingActions ? { keybindingActions: dirs.keybindingActions } : {}),
  });
  // A model added to the config may be a catalog provider's: resolving it needs its models.
  await loadCatalogModels([
    ...usableCatalogProviders(config).map((p) => p.id),
    ...modelProviders(config, args.model),
  ]);
  const setup = await loadPromptSetup(args, config, dirs);
  return {
    config,
    setup,
    contextTexts: contextTextsByName(setup.contextFiles, setup.contextTexts, dirs.cwd),
  };
}
