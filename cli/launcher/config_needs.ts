import { dirname, join, resolve } from "node:path";
import { ENV_NAME_PATTERN } from "../shared/env.ts";

/** What panto's config files and flags ask for beyond the project and `$PANTO_HOME`. */
export interface ConfigNeeds {
  /**
   * Environment variables the program reads or withholds from the processes
   * it starts (`apiKeyEnv`, `--api-key-env`, `tools.hideEnv`): removing one
   * from its environment needs the grant too.
   */
  variables: string[];
  /** Paths read and written (`tools.allowedPaths`, `--session-dir`, a SQLite store's files). */
  readWrite: string[];
  /** Files only read (`-e`/`--extension`, `--mcp-config`). */
  readOnly: string[];
}

/** Where the config files are and how their relative paths resolve. */
export interface NeedsContext {
  /** The working directory. */
  cwd: string;
  /** The user's home directory (for `~`), when known. */
  home: string | undefined;
  /** Whether a path exists (default: assume it does). */
  exists?: (path: string) => boolean;
}

/**
 * Collects what a config file's text names: the `apiKeyEnv` of its
 * providers, its `tools.hideEnv` and its `tools.allowedPaths`. Text that is not a JSON object names nothing
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
 * console.assert(needs.variables.join() === "TOGETHER_API_KEY");
 * console.assert(needs.readWrite.join() === "/home/ada/notes");
 * ```
 */
export function configNeeds(text: string, context: NeedsContext): ConfigNeeds {
  const needs: ConfigNeeds = { variables: [], readWrite: [], readOnly: [] };
  let file: unknown;
  try {
    file = JSON.parse(text);
  } catch {
    return needs;
  }
  if (!isRecord(file)) return needs;
  for (const provider of Object.values(isRecord(file.providers) ? file.providers : {})) {
    const name = isRecord(provider) ? provider.apiKeyEnv : undefined;
    if (typeof name === "string" && ENV_NAME_PATTERN.test(name)) needs.variables.push(name);
  }
  const tools = isRecord(file.tools) ? file.tools : {};
  for (const name of Array.isArray(tools.hideEnv) ? tools.hideEnv : []) {
    if (typeof name === "string" && ENV_NAME_PATTERN.test(name)) needs.variables.push(name);
  }
  const allowed = tools.allowedPaths;
  for (const path of Array.isArray(allowed) ? allowed : []) {
    if (typeof path === "string" && path !== "") needs.readWrite.push(expand(path, context));
  }
  return needs;
}

/**
 * Collects what the command line names, each granted exactly: `--api-key-env
 * NAME`, `--session-dir DIR`, a SQLite `--store-url FILE` (the database,
 * the journal files SQLite keeps beside it and panto's lock directory; its
 * directory only when it does not exist yet, to create it),
 * `-e`/`--extension PATH`, `--mcp-config FILE`, and the file `panto sessions
 * export ID PATH` writes or `panto sessions import FILE` reads. Stops at `--`.
 *
 * @param args panto's arguments.
 * @param context For `~` and relative paths.
 * @returns Their needs.
 *
 * @example
 * ```ts
 * import { flagNeeds } from "./config_needs.ts";
 * const needs = flagNeeds(["--api-key-env=MY_KEY", "--session-dir", "/s"], { cwd: "/w", home: undefined });
 * console.assert(needs.variables.join() === "MY_KEY" && needs.readWrite.join() === "/s");
 * ```
 */
export function flagNeeds(args: readonly string[], context: NeedsContext): ConfigNeeds {
  const needs: ConfigNeeds = { variables: [], readWrite: [], readOnly: [] };
  const take: Record<string, (value: string) => void> = {
    "--api-key-env": (name) => {
      if (ENV_NAME_PATTERN.test(name)) needs.variables.push(name);
    },
    "--session-dir": (dir) => needs.readWrite.push(expand(dir, context)),
    "--store-url": (url) => {
      if (!url.includes("://")) needs.readWrite.push(...sqliteFiles(expand(url, context), context));
    },
    "-e": (path) => needs.readOnly.push(expand(path, context)),
    "--extension": (path) => needs.readOnly.push(expand(path, context)),
    "--mcp-config": (path) => needs.readOnly.push(expand(path, context)),
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
  transferNeeds(args, context, needs);
  return needs;
}

/** Options of `panto sessions` that take a value: the value is not a positional word. */
const VALUE_OPTIONS = new Set([
  "--api-key-env",
  "--session-dir",
  "--store",
  "--store-url",
  "--stale",
  "--to",
  "--to-url",
  "--wait",
  "--format",
]);

/**
 * `panto sessions export ID PATH` writes PATH (and creates the directories
 * missing above it: the highest of them is granted, which holds nothing
 * yet); `panto sessions import FILE` reads FILE.
 */
function transferNeeds(args: readonly string[], context: NeedsContext, needs: ConfigNeeds): void {
  // Only the command itself: the same words in a chat's prompt grant nothing.
  if (args[0] !== "sessions") return;
  const words: string[] = [];
  for (let i = 1; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith("-")) words.push(arg);
    else if (VALUE_OPTIONS.has(arg)) i++;
  }
  const [action, first, second] = words;
  if (action === "export" && second) {
    needs.readWrite.push(creatable(expand(second, context), context));
  }
  if (action === "import" && first) needs.readOnly.push(expand(first, context));
}

/** The path itself when its directory exists, else the highest directory missing above it. */
function creatable(path: string, context: NeedsContext): string {
  const exists = context.exists ?? (() => true);
  let highest = path;
  for (let dir = dirname(path); dir !== dirname(dir) && !exists(dir); dir = dirname(dir)) {
    highest = dir;
  }
  return highest;
}

/**
 * A SQLite database's files: itself, the journals SQLite opens beside it,
 * the store's `<database>.locks` directory, and the directory when missing.
 */
function sqliteFiles(database: string, context: NeedsContext): string[] {
  const files = ["", "-wal", "-shm", "-journal", ".locks"].map((suffix) => database + suffix);
  const dir = dirname(database);
  return (context.exists ?? (() => true))(dir) ? files : [dir];
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
