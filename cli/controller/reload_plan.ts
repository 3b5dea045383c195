/**
 * `/reload`'s first half: everything read again from the files (config,
 * skills, templates, context files, SYSTEM.md), checked, and nothing
 * applied yet, so that a broken config leaves the running chat as it was.
 *
 * @module
 */
import type { Agent, Tool } from "@panto/lib";
import { loadPromptSetup, type PromptSetup } from "../setup/app_setup.ts";
import type { ChatArgs } from "../setup/args.ts";
import { loadConfig } from "../config/load_config.ts";
import type { PantoConfig } from "../config/panto_config.ts";
import type { UntrustedProjectPolicy } from "../config/project_trust.ts";
import { readEnv, withholdFromCommands } from "../shared/env.ts";
import type { PromptResources } from "../skills/prompt_commands.ts";
import { withheldVariables } from "../tools/child_env.ts";
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

/** What the controller built from the files at start-up, and a reload replaces. */
export interface ReloadableSetup {
  config: PantoConfig;
  /** The skills and prompt templates. */
  resources: PromptResources;
  /** The AGENTS.md (or similar) files the system prompt includes. */
  contextFiles: readonly string[];
  /** Their texts by shown name, for the next reload to tell which changed. */
  contextTexts: Record<string, string>;
  /** The built-in tools. */
  tools: Tool[];
  systemPrompt: string;
}

/**
 * `/reload`'s second half, on the agent: the variables withheld from
 * commands, the built-in tools swapped, and a changed system prompt set
 * (recorded in the session). The model and the extensions are the
 * controller's to redo.
 *
 * @param agent The current agent.
 * @param before What it runs with.
 * @param plan What {@linkcode readReloadPlan} read.
 * @param apiKeyEnv The `--api-key-env` variable, withheld too.
 * @returns What it runs with now.
 *
 * @example
 * ```ts ignore
 * setup = await applyReloadPlan(agent, setup, await readReloadPlan(args, dirs), args.apiKeyEnv);
 * ```
 */
export async function applyReloadPlan(
  agent: Agent,
  before: ReloadableSetup,
  plan: ReloadPlan,
  apiKeyEnv: string | undefined,
): Promise<ReloadableSetup> {
  withholdFromCommands(withheldVariables(plan.config, apiKeyEnv));
  for (const tool of before.tools) agent.unregisterTool(tool.decl.name);
  for (const tool of plan.setup.tools) agent.registerTool(tool);
  if (agent.conversation.systemPrompt() !== plan.setup.systemPrompt) {
    await agent.setSystemPrompt(plan.setup.systemPrompt);
  }
  const { resources, contextFiles, tools, systemPrompt } = plan.setup;
  return {
    config: plan.config,
    resources,
    contextFiles,
    contextTexts: plan.contextTexts,
    tools,
    systemPrompt,
  };
}
