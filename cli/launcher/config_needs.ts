import { dirname, join, resolve } from "node:path";
import { ENV_NAME_PATTERN } from "../env.ts";

/** What panto's config files and flags ask for beyond the project and `$PANTO_HOME`. */
export interface ConfigNeeds {
  /** Environment variables holding keys (`apiKeyEnv`, `--api-key-env`). */
  keyVariables: string[];
  /** Directories read and written (`tools.allowedPaths`, `--session-dir`, a SQLite store's). */
  readWrite: string[];
  /** Files only read (`-e`/`--extension`). */
  readOnly: string[];
}

/** Where the config files are and how their relative paths resolve. */
export interface NeedsContext {
  /** The working directory. */
  cwd: string;
  /** The user's home directory (for `~`), when known. */
  home: string | undefined;
}

/**
 * Collects what a config file's text names: the `apiKeyEnv` of its providers
 * and its `tools.allowedPaths`. Text that is not a JSON object names nothing
 * (panto itself reports the error, with its place, once started).
 *
 * @param text The file's contents.
 * @param context For `~` and relative paths.
 * @returns Its needs.
 *
 * @example
 * ```ts
 * import { configNeeds } from "./config_needs.ts";
 * const text = '{"providers":{"t":{"apiKeyEnv":"TOGETHER_API_KEY"}},"tools":{"allowedPaths":["~/notes"]}}';
 * const needs = configNeeds(text, { cwd: "/work", home: "/home/ada" });
 * console.assert(needs.keyVariables.join() === "TOGETHER_API_KEY");
 * console.assert(needs.readWrite.join() === "/home/ada/notes");
 * ```
 */
export function configNeeds(text: string, context: NeedsContext): ConfigNeeds {
  const needs: ConfigNeeds = { keyVariables: [], readWrite: [], readOnly: [] };
  let file: unknown;
  try {
    file = JSON.parse(text);
  } catch {
    return needs;
  }
  if (!isRecord(file)) return needs;
  for (const provider of Object.values(isRecord(file.providers) ? file.providers : {})) {
    const name = isRecord(provider) ? provider.apiKeyEnv : undefined;
    if (typeof name === "string" && ENV_NAME_PATTERN.test(name)) needs.keyVariables.push(name);
  }
  const allowed = isRecord(file.tools) ? file.tools.allowedPaths : undefined;
  for (const path of Array.isArray(allowed) ? allowed : []) {
    if (typeof path === "string" && path !== "") needs.readWrite.push(expand(path, context));
  }
  return needs;
}

/**
 * Collects what the command line names: `--api-key-env NAME`,
 * `--session-dir DIR`, a SQLite `--store-url FILE` (its directory, for the
 * journal files beside it) and `-e`/`--extension PATH`. Stops at `--`.
 *
 * @param args panto's arguments.
 * @param context For `~` and relative paths.
 * @returns Their needs.
 *
 * @example
 * ```ts
 * import { flagNeeds } from "./config_needs.ts";
 * const needs = flagNeeds(["--api-key-env=MY_KEY", "--session-dir", "/s"], { cwd: "/w", home: undefined });
 * console.assert(needs.keyVariables.join() === "MY_KEY" && needs.readWrite.join() === "/s");
 * ```
 */
export function flagNeeds(args: readonly string[], context: NeedsContext): ConfigNeeds {
  const needs: ConfigNeeds = { keyVariables: [], readWrite: [], readOnly: [] };
  const take: Record<string, (value: string) => void> = {
    "--api-key-env": (name) => {
      if (ENV_NAME_PATTERN.test(name)) needs.keyVariables.push(name);
    },
    "--session-dir": (dir) => needs.readWrite.push(expand(dir, context)),
    "--store-url": (url) => {
      if (!url.includes("://")) needs.readWrite.push(dirname(expand(url, context)));
    },
    "-e": (path) => needs.readOnly.push(expand(path, context)),
    "--extension": (path) => needs.readOnly.push(expand(path, context)),
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") break;
    const eq = arg.indexOf("=");
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const handle = take[flag];
    if (!handle) continue;
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
    if (value) handle(value);
  }
  return needs;
}

/** `~` and `~/…` from the home directory, relative paths from the working directory. */
function expand(path: string, { cwd, home }: NeedsContext): string {
  if (home !== undefined && (path === "~" || path.startsWith("~/"))) {
    return join(home, path.slice(1));
  }
  return resolve(cwd, path);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
