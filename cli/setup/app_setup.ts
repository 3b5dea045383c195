import {
  type Conversation,
  type Message,
  modelsMatchingSession,
  type Session,
  type SessionStore,
  type Tool,
} from "@panto/lib";
import type { ChatArgs } from "./args.ts";
import { loadConfig, resolvePantoHome } from "../config/load_config.ts";
import { modelChoices, type ModelSelection, resolveModel } from "../config/model_registry.ts";
import type { PantoConfig } from "../config/panto_config.ts";
import type { UntrustedProjectPolicy } from "../config/project_trust.ts";
import { readEnv, withholdFromCommands } from "../shared/env.ts";
import { UsageError } from "../shared/errors.ts";
import { openWritableStore } from "./session_store.ts";
import { latestIn } from "./sessions_here.ts";
import { buildSystemPrompt } from "./system_prompt.ts";
import { loadPromptResources } from "../skills/load_resources.ts";
import type { PromptResources } from "../skills/prompt_commands.ts";
import { builtinTools } from "@panto/lib/tools";
import { selectTools } from "../tools/select_tools.ts";
import { withheldVariables } from "../tools/child_env.ts";
import { loadCatalogModels } from "../models/catalog.ts";
import { modelProviders, usableCatalogProviders } from "../models/usable_models.ts";

/**
 * What a session controller starts from: config, store, the session to
 * open (with its stored conversation), the model, the built-in tools and
 * the system prompt. No agent yet: the controller builds one per session.
 */
export interface Startup extends PromptSetup {
  /** The working directory. */
  cwd: string;
  /** panto's home directory. */
  pantoHome: string;
  /** The loaded configuration. */
  config: PantoConfig;
  /** The session store (close it on exit). */
  store: SessionStore;
  /** The session to open. */
  session: Session;
  /** Its stored (or buffered) conversation, without prompts never answered. */
  conversation: Conversation;
  /** The prompt left unanswered at its end (a crash or quit right after sending it). */
  danglingUser?: Message;
  /** Whether an existing session was resumed. */
  resumed: boolean;
  /** The model in use. */
  selection: ModelSelection;
  /** What the user must be told at the start (ignored project settings, skipped AGENTS.md files). */
  notices: string[];
  /** What to do with the project's untrusted extensions (as for its config). */
  untrustedProject: UntrustedProjectPolicy;
}

/** How to pick a session when `-r` is given without an id (interactive only). */
export type SessionPicker = (store: SessionStore) => Promise<Session | null>;

/** Options for {@linkcode loadStartup}. */
export interface SetupOptions {
  /** Chooses a session for a bare `-r`. */
  pick?: SessionPicker;
  /** Key actions the config may rebind (others are reported as typos). */
  keybindingActions?: readonly string[];
  /** The working directory (default `Deno.cwd()`). */
  cwd?: string;
  /** panto's home (default from `PANTO_HOME`, else `~/.panto`). */
  pantoHome?: string;
  /** An untrusted project config's risky settings: refused (default), ignored, or trusted (`--trust-project-config`). */
  untrustedProject?: UntrustedProjectPolicy;
}

/**
 * Loads config, opens the store (checking that it can be written), resolves
 * the session (`-c`: the latest of this directory, `-r`) and the model (flag, else the session's last
 * model when exactly one configured model matches it, else the default),
 * and builds the built-in tools and the system prompt.
 *
 * @param args The parsed command line.
 * @param options A session picker, the known key actions, directories.
 * @returns What the controller starts from (close its store on failure).
 */
export async function loadStartup(args: ChatArgs, options: SetupOptions = {}): Promise<Startup> {
  const cwd = options.cwd ?? Deno.cwd();
  const pantoHome = options.pantoHome ?? resolvePantoHome(readEnv, cwd);
  const untrustedProject = options.untrustedProject ??
    (args.trustProjectConfig ? "trust" : "refuse");
  const config = await loadConfig({
    pantoHome,
    cwd,
    env: readEnv,
    untrustedProject,
    ...(options.keybindingActions ? { keybindingActions: options.keybindingActions } : {}),
  });
  // Before any process starts (tools, MCP servers, extensions): none may inherit a key.
  withholdFromCommands(withheldVariables(config, args.apiKeyEnv));
  // Checked before any request: an answer that cannot be saved would be lost.
  const store = await openWritableStore(args, pantoHome);
  try {
    // The catalog's models of the providers a key is set for: resolving a model needs them.
    await loadCatalogModels([
      ...usableCatalogProviders(config).map((p) => p.id),
      ...modelProviders(config, args.model),
    ]);
    const { session, resumed, notice } = await chooseSession(args, store, cwd, options.pick);
    const { conversation, danglingUser } = await session.loadWithDangling();
    const { selection, modelNotice } = chooseModel(args, config, resumed ? session : undefined);
    const prompted = await loadPromptSetup(args, config, { cwd, pantoHome, untrustedProject });
    return {
      cwd,
      pantoHome,
      config,
      store,
      session,
      conversation,
      ...(danglingUser ? { danglingUser } : {}),
      resumed,
      selection,
      ...prompted,
      notices: [
        ...config.notices,
        ...prompted.notices,
        ...[notice, modelNotice].filter((n) => n !== undefined),
      ],
      untrustedProject,
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** What is built from the config and the files beside it: what `/reload` builds again. */
export interface PromptSetup {
  /** The built-in tools offered. */
  tools: Tool[];
  /** The system prompt every session is seeded or reconciled with. */
  systemPrompt: string;
  /** The AGENTS.md (or similar) files the system prompt includes. */
  contextFiles: string[];
  /** Their texts as the system prompt includes them, in the same order. */
  contextTexts: string[];
  /** The skills (`/skill:name`, listed in the system prompt) and prompt templates (`/name`). */
  resources: PromptResources;
  /** Skipped instruction files, invalid skills or templates, untrusted project skills. */
  notices: string[];
}

/**
 * Finds the skills and prompt templates, builds the built-in tools and the
 * system prompt (SYSTEM.md, AGENTS.md files, skills) for `config`.
 *
 * @param args The parsed command line (`--no-skills`, `--tools`, `--system-prompt`…).
 * @param config The loaded configuration.
 * @param dirs The working directory, panto's home and the untrusted-project policy.
 * @returns The tools, the prompt and what it was built from.
 *
 * @example
 * ```ts ignore
 * const setup = await loadPromptSetup(args, config, { cwd, pantoHome, untrustedProject: "refuse" });
 * console.log(setup.contextFiles);
 * ```
 */
export async function loadPromptSetup(
  args: ChatArgs,
  config: PantoConfig,
  dirs: { cwd: string; pantoHome: string; untrustedProject: UntrustedProjectPolicy },
): Promise<PromptSetup> {
  const { cwd, pantoHome, untrustedProject } = dirs;
  const resources = await loadPromptResources({
    cwd,
    pantoHome,
    home: readEnv("HOME") || undefined,
    skills: !args.noSkills,
    templates: !args.noPromptTemplates,
    untrustedProject,
  });
  const tools = selectTools(
    builtinTools({
      root: cwd,
      allowedRoots: config.tools.allowedPaths,
      // The model reads a skill's SKILL.md and the files it names, wherever the skill is.
      readRoots: resources.skills.map((skill) => skill.baseDir),
      pantoHome,
      bashTimeoutSeconds: config.tools.bashTimeoutSeconds,
      ...(config.tools.sandbox ? { sandbox: config.tools.sandbox } : {}),
    }),
    args.noTools ? "none" : args.tools,
  );
  const prompt = await buildSystemPrompt({
    cwd,
    pantoHome,
    toolNames: tools.map((t) => t.decl.name),
    override: args.systemPrompt,
    append: args.appendSystemPrompt,
    contextFiles: !args.noContextFiles,
    skills: resources.skills,
  });
  return {
    tools,
    systemPrompt: prompt.text,
    contextFiles: prompt.agentsFiles,
    contextTexts: prompt.agentsTexts,
    resources: { skills: resources.skills, templates: resources.templates },
    notices: [...prompt.warnings, ...resources.notices],
  };
}

async function chooseSession(
  args: ChatArgs,
  store: SessionStore,
  cwd: string,
  pick: SessionPicker | undefined,
): Promise<{ session: Session; resumed: boolean; notice?: string }> {
  if (args.continueLast && args.resume !== undefined) {
    throw new UsageError("-c/--continue and -r/--resume cannot be combined: pick one");
  }
  if (args.fork !== undefined) return await forkedSession(args, store, cwd);
  if (args.continueLast) {
    // Another project's latest session is not "this" conversation: -c stays in its directory.
    const latest = await latestIn(store, cwd);
    const session = latest && await store.resolve(latest.id);
    if (session) return { session, resumed: true };
    return {
      session: store.create({ cwd }),
      resumed: false,
      notice: `No session of ${cwd} to continue: started a new one ` +
        "(-r picks one of any directory)",
    };
  }
  if (args.resume === "") {
    if (!pick) {
      throw new UsageError(
        "-r without a session id needs the interactive mode: pass an id (see `panto sessions`)",
      );
    }
    const picked = await pick(store);
    if (!picked) throw new UsageError("No session chosen");
    return { session: picked, resumed: true };
  }
  if (args.resume !== undefined) {
    const session = await store.resolve(args.resume);
    if (!session) {
      throw new UsageError(
        `No session matches ${JSON.stringify(args.resume)}: run \`panto sessions\` to list them`,
      );
    }
    return { session, resumed: true };
  }
  return { session: store.create({ cwd }), resumed: false };
}

/** `--fork ID`: a new session holding a copy of session ID's active path, naming it as its parent. */
async function forkedSession(
  args: ChatArgs,
  store: SessionStore,
  cwd: string,
): Promise<{ session: Session; resumed: boolean; notice: string }> {
  if (args.continueLast || args.resume !== undefined) {
    throw new UsageError("--fork cannot be combined with -c or -r: it starts its own session");
  }
  const source = args.fork === undefined ? null : await store.resolve(args.fork);
  if (!source) {
    throw new UsageError(
      `No session matches ${JSON.stringify(args.fork)}: run \`panto sessions\` to list them`,
    );
  }
  const { leafId } = await source.tree();
  const notice = `Forked session ${source.id} into a new session`;
  if (leafId !== null && store.fork) {
    return { session: await store.fork(source.id, leafId), resumed: true, notice };
  }
  return {
    session: store.create({ cwd, parentSessionId: source.id }),
    resumed: false,
    notice: `Session ${source.id} is empty (or its store cannot fork): started a new one`,
  };
}

/**
 * The model named on the command line; else, on resume, the session's own
 * model at its own reasoning level when an alias still has it (a notice
 * says which model is used when none does); else the default.
 */
function chooseModel(
  args: ChatArgs,
  config: PantoConfig,
  resumed: Session | undefined,
): { selection: ModelSelection; modelNotice?: string } {
  const adHoc = args.api !== undefined || args.baseUrl !== undefined;
  const wire = resumed?.info.wire;
  const fallback = () =>
    resolveModel(config, args.model ?? (adHoc ? undefined : defaultFromKeys(config)), args);
  if (args.model || adHoc || !wire) return { selection: fallback() };
  // The level is matched apart: a session at "high" still resumes an alias configured "off".
  const choices = modelChoices(config).map((choice) => ({
    alias: choice.alias,
    provider: { ...choice.provider, reasoning: wire.reasoning },
  }));
  const candidates = modelsMatchingSession(choices, resumed!.info);
  const best = candidates.find((c) => config.models[c.alias]?.reasoning === wire.reasoning) ??
    candidates[0];
  if (best) {
    const thinking = args.thinking ?? wire.reasoning;
    return { selection: resolveModel(config, best.alias, { ...args, thinking }) };
  }
  const selection = fallback();
  return {
    selection,
    modelNotice: `The session's model (${wire.model} at ${wire.baseUrl}) is not in the config: ` +
      `using ${selection.alias} (${selection.provider.model}, thinking ${selection.provider.reasoning}).`,
  };
}

/**
 * Without a model flag or a configured default: the first default model of
 * the first catalog provider whose key is set (Anthropic, then OpenAI,
 * Google, …).
 */
function defaultFromKeys(config: PantoConfig): string | undefined {
  if (config.defaultModel) return undefined;
  const provider = usableCatalogProviders(config).find((p) => p.defaults.length > 0);
  return provider && `${provider.id}/${provider.defaults[0]}`;
}
