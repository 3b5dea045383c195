import { join, resolve } from "node:path";
import { DEFAULT_BASE_URL, DEFAULT_KEY_ENV } from "./ad_hoc_provider.ts";
import { catalogProviders } from "../models/catalog.ts";
import { shownPath } from "./config_layers.ts";
import { didYouMean } from "../shared/did_you_mean.ts";
import { CliError, UsageError } from "../shared/errors.ts";
import type { ConfigFile, ProviderEntry } from "./config_schema.ts";
import { parseConfigFile } from "./parse_config_file.ts";
import type { PantoConfig, ProviderSettings } from "./panto_config.ts";
import {
  type ProjectLayer,
  settleProjectTrust,
  type UntrustedProjectPolicy,
} from "./project_trust.ts";
import {
  FileRefusedError,
  MAX_SETTINGS_FILE_BYTES,
  readRegularTextFile,
} from "./read_regular_file.ts";
import { redactSecrets } from "@panto/lib";

/** Reads an environment variable; tests pass a map lookup, the program `readEnv`. */
export type EnvLookup = (name: string) => string | undefined;

/** Options for {@linkcode loadConfig}. */
export interface LoadConfigOptions {
  /** panto's home directory (see {@linkcode resolvePantoHome}). */
  pantoHome: string;
  /** The working directory: the project whose `.panto/config.json` is read. */
  cwd: string;
  /** Environment lookup, used for `HOME` (`~` in paths and messages). */
  env: EnvLookup;
  /** Valid key binding action names; when given, an unknown action is an error. */
  keybindingActions?: readonly string[];
  /**
   * What to do when the project config changes security-relevant settings
   * (providers' URLs, key variables or headers, allowed paths) and the user
   * has not trusted it (default `refuse`).
   */
  untrustedProject?: UntrustedProjectPolicy;
}

/** Default timeout of a bash command, in seconds. */
export const DEFAULT_BASH_TIMEOUT_SECONDS = 120;

/**
 * Providers that exist without any config: the model catalog's (the
 * vendors' APIs with their conventional key variables, and presets for
 * local servers); a config's provider of the same name wins field by field.
 */
export const BUILTIN_PROVIDERS: Readonly<Record<string, Readonly<ProviderSettings>>> = Object
  .fromEntries(
    catalogProviders().map((provider) => [provider.id, {
      api: provider.api,
      baseUrl: provider.baseUrl,
      ...(provider.keyEnv ? { apiKeyEnv: provider.keyEnv } : {}),
      ...(provider.compat ? { compat: provider.compat } : {}),
    }]),
  );

/**
 * panto's home directory: `$PANTO_HOME`, else `$HOME/.panto`.
 *
 * @param env Environment lookup.
 * @param cwd Base for a relative `PANTO_HOME`.
 * @returns The absolute directory.
 * @throws {UsageError} When neither variable is set.
 *
 * @example
 * ```ts
 * import { resolvePantoHome } from "./load_config.ts";
 * const env = new Map([["HOME", "/home/ada"]]);
 * console.assert(resolvePantoHome((n) => env.get(n), "/") === "/home/ada/.panto");
 * ```
 */
export function resolvePantoHome(env: EnvLookup, cwd: string): string {
  const explicit = env("PANTO_HOME");
  if (explicit) return resolve(cwd, explicit);
  const home = env("HOME");
  if (!home) {
    throw new UsageError(
      "Neither PANTO_HOME nor HOME is set: set PANTO_HOME to panto's config directory",
    );
  }
  return join(home, ".panto");
}

/**
 * Loads the configuration: built-in providers, then `$PANTO_HOME/config.json`,
 * then `<cwd>/.panto/config.json`. Later files win: providers and models are
 * replaced whole by name, key bindings by action, other settings field by
 * field; `tools.allowedPaths` of both files add up. Missing files are fine.
 * Security-relevant settings of the project file are used only when the
 * user trusted it (see `untrustedProject`).
 *
 * @param options Where to look and how to read the environment.
 * @returns The merged, validated configuration.
 * @throws {UsageError} For invalid JSON (file, line, column), a bad field
 *   (file, JSON path, what was expected and found), a model naming an
 *   unknown provider, a file that is not a regular file or is over 1 MiB,
 *   or an untrusted project file under the `refuse` policy.
 * @throws {CliError} When panto may not read a config file.
 *
 * @example
 * ```ts ignore
 * import { loadConfig } from "./load_config.ts";
 * const config = await loadConfig({ pantoHome: "/home/ada/.panto", cwd: "/work/app", env: (n) => Deno.env.get(n) });
 * console.log(Object.keys(config.models));
 * ```
 */
export async function loadConfig(options: LoadConfigOptions): Promise<PantoConfig> {
  const { base, project } = await loadConfigLayers(options);
  const config = project
    ? await settleProjectTrust(project, options.pantoHome, options.untrustedProject ?? "refuse")
    : base;
  checkReferences(config);
  return config;
}

/**
 * The configuration without the project file, and the project file's layer
 * (when there is one), before any trust decision.
 *
 * @param options Where to look and how to read the environment.
 * @returns The layers.
 * @throws {UsageError} As {@linkcode loadConfig}, except for trust.
 * @throws {CliError} When panto may not read a config file.
 */
export async function loadConfigLayers(
  options: LoadConfigOptions,
): Promise<{ base: PantoConfig; project?: ProjectLayer }> {
  const home = options.env("HOME");
  const base: PantoConfig = {
    providers: { ...BUILTIN_PROVIDERS },
    models: {},
    compaction: {},
    retry: {},
    keybindings: {},
    keybindingSources: {},
    tools: { allowedPaths: [], bashTimeoutSeconds: DEFAULT_BASH_TIMEOUT_SECONDS },
    parallelTools: false,
    files: [],
    notices: [],
  };
  const homePath = join(options.pantoHome, "config.json");
  await readLayer(base, homePath, options, home);
  const projectPath = join(options.cwd, ".panto", "config.json");
  if (projectPath === homePath) return { base };
  const after = structuredClone(base);
  const text = await readLayer(after, projectPath, options, home);
  if (text === undefined) return { base };
  const layer = { projectDir: resolve(options.cwd), shown: shownPath(projectPath, home), text };
  return { base, project: { ...layer, before: base, after } };
}

/** Reads, checks and applies one file; gives its text, or `undefined` when it does not exist. */
async function readLayer(
  config: PantoConfig,
  path: string,
  options: LoadConfigOptions,
  home: string | undefined,
): Promise<string | undefined> {
  const shown = shownPath(path, home);
  const text = await readIfExists(path, shown);
  if (text === undefined) return undefined;
  const file = await parseConfigFile(text, shown);
  if (options.keybindingActions) checkActions(file, shown, options.keybindingActions);
  applyFile(config, file, { shown, cwd: options.cwd, home });
  config.files.push(path);
  return text;
}

interface FileContext {
  shown: string;
  cwd: string;
  home: string | undefined;
}

function applyFile(config: PantoConfig, file: ConfigFile, context: FileContext): void {
  if (file.defaultModel !== undefined) {
    config.defaultModel = file.defaultModel;
    config.defaultModelSource = context.shown;
  }
  for (const [name, entry] of Object.entries(file.providers ?? {})) {
    config.providers[name] = providerSettings(entry, context.shown);
  }
  for (const [alias, entry] of Object.entries(file.models ?? {})) {
    config.models[alias] = { ...entry, source: context.shown };
  }
  if (file.cycleModels !== undefined) {
    config.cycleModels = file.cycleModels;
    config.cycleModelsSource = context.shown;
  }
  Object.assign(config.compaction, file.compaction);
  Object.assign(config.retry, file.retry);
  for (const [action, keys] of Object.entries(file.keybindings ?? {})) {
    config.keybindings[action] = typeof keys === "string" ? [keys] : keys;
    config.keybindingSources[action] = context.shown;
  }
  const allowed = (file.tools?.allowedPaths ?? []).map((path, index) =>
    expandPath(path, context, `tools.allowedPaths[${index}]`)
  );
  config.tools.allowedPaths = [...new Set([...config.tools.allowedPaths, ...allowed])];
  if (file.tools?.requireApproval) {
    // Both files add up: a project cannot drop an approval the user asked for.
    const required = [...config.tools.requireApproval ?? [], ...file.tools.requireApproval];
    config.tools.requireApproval = [...new Set(required)];
  }
  if (file.tools?.sandbox) {
    // A later file can only make it stricter: on, and the network off.
    const earlier = config.tools.sandbox;
    config.tools.sandbox = {
      enabled: (earlier?.enabled ?? false) || file.tools.sandbox.enabled,
      network: (earlier?.network ?? true) && (file.tools.sandbox.network ?? true),
    };
  }
  if (file.tools?.hideEnv) {
    // Both files add up: hiding more is always safe, so a project needs no trust for it.
    config.tools.hideEnv = [...new Set([...config.tools.hideEnv ?? [], ...file.tools.hideEnv])];
  }
  if (file.tools?.bashTimeoutSeconds !== undefined) {
    config.tools.bashTimeoutSeconds = file.tools.bashTimeoutSeconds;
  }
  if (file.parallelTools !== undefined) config.parallelTools = file.parallelTools;
  if (file.idleTimeoutMs !== undefined) config.idleTimeoutMs = file.idleTimeoutMs;
  if (file.defaultThinkingLevel !== undefined) {
    config.defaultThinkingLevel = file.defaultThinkingLevel;
  }
  if (file.hideThinkingBlock !== undefined) config.hideThinkingBlock = file.hideThinkingBlock;
  if (file.theme !== undefined) {
    config.theme = file.theme;
    config.themeSource = context.shown;
  }
  for (const [name, entry] of Object.entries(file.mcpServers ?? {})) {
    config.mcpServers = { ...config.mcpServers, [name]: { ...entry, source: context.shown } };
  }
}

/** A provider without `baseUrl` is the vendor's API, and then reads the vendor's key variable by default. */
function providerSettings(entry: ProviderEntry, source: string): ProviderSettings {
  const settings: ProviderSettings = {
    api: entry.api,
    baseUrl: entry.baseUrl ?? DEFAULT_BASE_URL[entry.api],
    source,
  };
  const keyEnv = entry.apiKeyEnv ??
    (entry.baseUrl === undefined ? DEFAULT_KEY_ENV[entry.api] : undefined);
  if (keyEnv) settings.apiKeyEnv = keyEnv;
  if (entry.headers) settings.headers = entry.headers;
  if (entry.compat) settings.compat = entry.compat;
  if (entry.idleTimeoutMs !== undefined) settings.idleTimeoutMs = entry.idleTimeoutMs;
  return settings;
}

/** `~` is the home directory; relative paths are relative to the working directory. */
function expandPath(path: string, context: FileContext, field: string): string {
  if (path === "~" || path.startsWith("~/")) {
    if (!context.home) {
      throw new UsageError(
        `${context.shown}: ${field}: "~" needs HOME to be set; use an absolute path`,
      );
    }
    return join(context.home, path.slice(1));
  }
  return resolve(context.cwd, path);
}

function checkActions(file: ConfigFile, shown: string, actions: readonly string[]): void {
  for (const action of Object.keys(file.keybindings ?? {})) {
    if (actions.includes(action)) continue;
    const guess = didYouMean(action, actions);
    throw new UsageError(
      `${shown}: keybindings[${redactSecrets(JSON.stringify(action))}]: unknown action${
        guess ? ` (did you mean "${guess}"?)` : ""
      }; actions: ${actions.join(", ")}`,
    );
  }
}

/**
 * The providers, for an error message: the config's own (a built-in one it
 * changed included), then the first built-in ones and how many there are.
 *
 * @param config The configuration.
 * @returns e.g. `local, router; built in: anthropic, openai, google, … (25: panto models lists them)`.
 *
 * @example
 * ```ts
 * import { BUILTIN_PROVIDERS, providerList } from "./load_config.ts";
 * const text = providerList({ providers: { ...BUILTIN_PROVIDERS, mine: { api: "openai-chat", baseUrl: "", source: "x" } } });
 * console.assert(text.startsWith("mine; built in: anthropic, openai"));
 * ```
 */
export function providerList(config: Pick<PantoConfig, "providers">): string {
  const own = Object.entries(config.providers).filter(([, settings]) => settings.source)
    .map(([name]) => name);
  const builtin = Object.keys(BUILTIN_PROVIDERS);
  const first = `${builtin.slice(0, 5).join(", ")}, … (${builtin.length}: panto models lists them)`;
  return own.length ? `${own.join(", ")}; built in: ${first}` : first;
}

function checkReferences(config: PantoConfig): void {
  const providers = Object.keys(config.providers);
  for (const [alias, model] of Object.entries(config.models)) {
    if (Object.hasOwn(config.providers, model.provider)) continue;
    const guess = didYouMean(model.provider, providers);
    throw new UsageError(
      `${model.source}: ${
        redactSecrets(
          `models.${alias}.provider: model "${alias}" names the unknown provider ${
            JSON.stringify(model.provider)
          }${guess ? ` (did you mean "${guess}"?)` : ""}; providers: ${providerList(config)}`,
        )
      }`,
    );
  }
  checkCycleModels(config);
  const spec = config.defaultModel;
  if (spec === undefined || Object.hasOwn(config.models, spec)) return;
  const slash = spec.indexOf("/");
  if (
    slash > 0 && slash < spec.length - 1 && Object.hasOwn(config.providers, spec.slice(0, slash))
  ) return;
  throw new UsageError(
    `${config.defaultModelSource}: ${
      redactSecrets(
        `defaultModel: ${JSON.stringify(spec)} is neither a model alias (${
          Object.keys(config.models).join(", ") || "none defined"
        }) nor provider/model with a known provider (${providerList(config)})`,
      )
    }`,
  );
}

/** `cycleModels`: aliases, `provider/model` specs and globs (those are checked when used). */
function checkCycleModels(config: PantoConfig): void {
  const unknown = config.cycleModels?.find((entry) =>
    !Object.hasOwn(config.models, entry) && !entry.includes("/") && !entry.includes("*")
  );
  if (unknown === undefined) return;
  const aliases = Object.keys(config.models);
  const guess = didYouMean(unknown, aliases);
  throw new UsageError(
    `${config.cycleModelsSource}: ${
      redactSecrets(
        `cycleModels: ${JSON.stringify(unknown)} is not a model alias${
          guess ? ` (did you mean "${guess}"?)` : ""
        }, provider/model or glob (anthropic/*); aliases: ${aliases.join(", ") || "none defined"}`,
      )
    }`,
  );
}

async function readIfExists(path: string, shown: string): Promise<string | undefined> {
  // Asking first avoids Deno's interactive permission prompt, which would hang a raw-mode terminal.
  const permission = await Deno.permissions.query({ name: "read", path });
  if (permission.state !== "granted") {
    throw new CliError(
      `panto may not read its config file ${shown}: run it with --allow-read=${path}`,
    );
  }
  try {
    return await readRegularTextFile(path, MAX_SETTINGS_FILE_BYTES);
  } catch (error) {
    if (error instanceof FileRefusedError) {
      throw new UsageError(
        `${shown} ${error.message}: the config must be a JSON file of at most 1 MiB`,
      );
    }
    throw new CliError(`Could not read ${shown}: ${(error as Error).message}`);
  }
}
