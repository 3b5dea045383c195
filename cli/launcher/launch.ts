/**
 * The `panto` command: works out what this start needs — the project (the git
 * root above the working directory, else the directory) read and written, the
 * `AGENTS.md` and `CLAUDE.md` files above it and the user's skill and prompt
 * directories of other agents (`~/.claude/skills`, …) read, `$PANTO_HOME`
 * wherever it points, the key
 * variables the config and flags name — and runs the program (`cli/main.ts`)
 * with exactly those permissions, handing it the key variables outside its
 * environment (`cli/launcher/key_handoff.ts`). The launcher itself only reads files
 * and variables, listens on loopback for the handoff and starts Deno:
 * `deno run --allow-read --allow-env --allow-net=127.0.0.1 --allow-run
 * cli/launcher/launch.ts` (as `deno task panto` and `deno task install` do).
 *
 * @module
 */
import { BUILTIN_KEY_VARIABLES } from "../tools/child_env.ts";
import { readRegularTextFile } from "../config/read_regular_file.ts";
import { parseJsonc } from "../config/jsonc.ts";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { VERSION } from "../version.ts";
import { type ConfigNeeds, configNeeds, flagNeeds, type NeedsContext } from "./config_needs.ts";
import { AWS_VARIABLES } from "../config/provider_credentials.ts";
import { BASE_VARIABLES, type Grants, permissionFlags } from "./permission_flags.ts";
import { type KeyOffer, offerKeys } from "./key_handoff.ts";
import { agentsFilesAbove, pathExists, projectRoot } from "./project_root.ts";
import { userResourceDirs } from "../skills/user_resource_dirs.ts";

/** Where a start happens. */
export interface LaunchSite {
  /** The working directory. */
  cwd: string;
  /** Environment lookup. */
  env: (name: string) => string | undefined;
  /** panto's arguments. */
  args: readonly string[];
}

/** The grants of one start, and the two places among them panto cannot do without. */
export interface LaunchGrants extends Grants {
  /** The project: the git root above the working directory, else the directory. */
  project: string;
  /** `$PANTO_HOME`, when `HOME` or `PANTO_HOME` names it. */
  pantoHome: string | undefined;
}

/**
 * The permissions one start of panto gets (see the module comment).
 *
 * @param site Working directory, environment and arguments.
 * @returns The grants.
 *
 * @example
 * ```ts
 * import { grantsFor } from "./launch.ts";
 * const grants = await grantsFor({ cwd: Deno.cwd(), env: (n) => Deno.env.get(n), args: [] });
 * console.assert(grants.variables.includes("PATH"));
 * ```
 */
export async function grantsFor(site: LaunchSite): Promise<LaunchGrants> {
  const home = site.env("HOME") || undefined;
  const explicitHome = site.env("PANTO_HOME");
  const pantoHome = explicitHome ? resolve(site.cwd, explicitHome) : home && join(home, ".panto");
  const root = projectRoot(site.cwd, home, pathExists);
  const context: NeedsContext = { cwd: site.cwd, home, exists: pathExists };
  const configs = [
    pantoHome && join(pantoHome, "config.json"),
    join(site.cwd, ".panto", "config.json"),
  ];
  const needs = [
    ...(await Promise.all(configs.map((path) => path ? readConfig(path) : undefined)))
      .map((text) => text === undefined ? undefined : configNeeds(text, context)),
    flagNeeds(site.args, context),
  ].filter((n): n is ConfigNeeds => n !== undefined);
  return {
    project: root,
    pantoHome,
    readWrite: [root, ...(pantoHome ? [pantoHome] : []), ...needs.flatMap((n) => n.readWrite)],
    readOnly: [
      ...agentsFilesAbove(root, isFile),
      ...(home ? Object.values(userResourceDirs(home)).flat().filter(pathExists) : []),
      ...needs.flatMap((n) => n.readOnly),
    ],
    variables: [
      ...BASE_VARIABLES,
      ...AWS_VARIABLES,
      ...BUILTIN_KEY_VARIABLES,
      ...needs.flatMap((n) => n.variables),
    ],
  };
}

/**
 * Deno flags for this start. Every mode: Deno reads a dynamic import's
 * modules when it runs, not all of them before the start
 * (`--unstable-lazy-dynamic-imports`: what a start does not run stays
 * unread — the terminal UI, print, RPC and ACP modes, the full argument
 * parser, `panto sessions` — about 3 to 5 MiB less memory in each mode; see
 * docs/benchmarks.md). V8's young generation stays small (V8 grows it to
 * 16 MiB a half, and the chat's RSS with it: 25–30 MiB more after a long
 * streamed answer, for no less CPU): at most 1 MiB a half in print mode
 * (`-p`), which answers once and exits (about 8 MiB less), 2 MiB in the
 * modes that run on. Those also get `gc` (`--expose-gc`): the chat collects
 * once it goes idle after a burst of work (`cli/chat/idle_gc.ts`).
 *
 * @param args panto's arguments.
 * @returns The `deno run` flags.
 *
 * @example
 * ```ts
 * import { modeFlags } from "./launch.ts";
 * console.assert(modeFlags(["-p", "hi"])[1] === "--v8-flags=--max-semi-space-size=1");
 * ```
 */
export function modeFlags(args: readonly string[]): string[] {
  const print = args.some((arg) => arg === "-p" || arg === "--print");
  return [
    LAZY_DYNAMIC_IMPORTS,
    print ? "--v8-flags=--max-semi-space-size=1" : "--v8-flags=--max-semi-space-size=2,--expose-gc",
  ];
}

const LAZY_DYNAMIC_IMPORTS = "--unstable-lazy-dynamic-imports";

/** How to start the program, and the directories of the modules it may import as it runs. */
interface Program {
  /** `deno run` arguments naming the program. */
  args: string[];
  /** Where its own modules are. */
  moduleDirs: string[];
}

/**
 * The bundle's `panto_main.js` beside the launcher when bundled (no config;
 * one file that imports no module of its own), else `cli/main.ts` with the
 * checkout's `deno.json` (never the config of the project panto works in).
 */
function program(): Program {
  const bundled = new URL("./panto_main.js", import.meta.url);
  if (bundled.protocol === "file:" && isFile(fileURLToPath(bundled))) {
    return { args: ["--no-config", fileURLToPath(bundled)], moduleDirs: [] };
  }
  const config = fileURLToPath(new URL("../../deno.json", import.meta.url));
  return {
    args: ["--config", config, fileURLToPath(new URL("../main.ts", import.meta.url))],
    moduleDirs: ["../../lib", "../../tui", "../"].map((dir) =>
      fileURLToPath(new URL(dir, import.meta.url))
    ),
  };
}

/**
 * Runs panto with the grants of this start; stdin, stdout and stderr are the
 * launcher's. SIGTERM is passed on; SIGINT and SIGHUP come from the terminal
 * to both processes (one process group), so the launcher only outlives them.
 *
 * @param args panto's arguments.
 * @returns The program's exit code (128 + the signal's number when a signal ended it).
 */
export async function launch(args: readonly string[]): Promise<number> {
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-v" || args[0] === "-V")) {
    console.log(VERSION);
    return 0;
  }
  const cwd = Deno.env.get("PANTO_CWD") || Deno.cwd();
  const site = await grantsFor({ cwd, env: (name) => Deno.env.get(name), args });
  const flags = modeFlags(args);
  const started = program();
  // A dynamic import read as it runs (`modeFlags`) needs read access to the module, as any file does.
  const grants: Grants = {
    readWrite: site.readWrite,
    readOnly: [...site.readOnly, ...started.moduleDirs],
    variables: site.variables,
  };
  const ungrantable = ungrantablePlace(site, started.moduleDirs);
  if (ungrantable) {
    console.error(`panto: ${ungrantable}`);
    return 2;
  }
  // The AWS variables are the user's, kept for their commands: no handoff.
  const kept = new Set([...BASE_VARIABLES, ...AWS_VARIABLES]);
  const offer = keyOffer(site.variables.filter((name) => !kept.has(name)));
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", ...permissionFlags(grants), ...flags, ...started.args, ...args],
    cwd,
    ...(offer ? { clearEnv: true, env: offer.env } : {}),
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  const forward = () => child.kill("SIGTERM");
  const outlive = () => {};
  const listening = Deno.build.os !== "windows";
  if (listening) {
    Deno.addSignalListener("SIGTERM", forward);
    Deno.addSignalListener("SIGINT", outlive);
    Deno.addSignalListener("SIGHUP", outlive);
  }
  try {
    return (await child.status).code;
  } finally {
    offer?.close();
    if (listening) {
      Deno.removeSignalListener("SIGTERM", forward);
      Deno.removeSignalListener("SIGINT", outlive);
      Deno.removeSignalListener("SIGHUP", outlive);
    }
  }
}

/**
 * The key variables (and `tools.hideEnv` names) go to the program through
 * the handoff, not its environment (see `cli/launcher/key_handoff.ts`). A launcher
 * started with an older `panto` script, which may read only a few
 * variables, cannot build the program's environment: it passes its own on
 * as it always did.
 */
function keyOffer(withheld: readonly string[]): KeyOffer | undefined {
  if (Deno.permissions.querySync({ name: "env" }).state !== "granted") return undefined;
  if (Deno.permissions.querySync({ name: "net", host: "127.0.0.1" }).state !== "granted") {
    return undefined;
  }
  return offerKeys(Deno.env.toObject(), withheld);
}

/**
 * What cannot be granted because its path holds a comma (Deno splits its
 * permission lists at commas, with no escape): panto's own modules, the
 * project, `$PANTO_HOME`. Without them panto cannot work, so the start
 * stops with what to do instead of a raw import error later.
 */
function ungrantablePlace(site: LaunchGrants, moduleDirs: readonly string[]): string | undefined {
  const { project, pantoHome } = site;
  const places: [string | undefined, string][] = [
    [
      moduleDirs[0],
      "panto's checkout is in a path with a comma, which Deno's permission flags cannot name: move it to a path without one and install again",
    ],
    [
      project,
      "the project's path has a comma, which Deno's permission flags cannot name: start panto in a directory whose path has none",
    ],
    [
      pantoHome,
      "$PANTO_HOME's path has a comma, which Deno's permission flags cannot name: set PANTO_HOME to a path without one",
    ],
  ];
  const found = places.find(([path]) => path?.includes(","));
  return found && `${found[1]} (${found[0]})`;
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/**
 * A config file's text as plain JSON (its comments and trailing commas
 * dropped), read with the program's own guard (a regular file of at most
 * 1 MiB: a named pipe or a device must not hang the start), or `undefined`
 * when it is missing, refused or broken — the program then reports why.
 */
async function readConfig(path: string): Promise<string | undefined> {
  const text = await readRegularTextFile(path).catch(() => undefined);
  if (text === undefined) return undefined;
  return await parseJsonc(text).then(JSON.stringify, () => undefined);
}

if (import.meta.main) Deno.exit(await launch(Deno.args));
