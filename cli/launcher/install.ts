/**
 * `deno task install` / `deno task uninstall`: writes or removes the `panto`
 * command, a shell script in `$DENO_INSTALL_ROOT/bin` (default
 * `~/.deno/bin`, where `deno install --global` puts commands) that starts
 * this checkout's launcher with the Deno that ran the install — by absolute
 * path, so it also works where Deno came from `npx` and is not on PATH, and
 * keeps the Deno version panto was tested with.
 *
 * @module
 */
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The first lines of every script this writes: uninstall removes only such a file. */
const MARKER = "# panto command, written by `deno task install`";

/** The launcher's own permissions: read files and three variables, start Deno. */
export const LAUNCHER_FLAGS: readonly string[] = [
  "--quiet",
  "--no-prompt",
  "--allow-read",
  "--allow-env=HOME,PANTO_HOME,PANTO_CWD",
  "--allow-run",
];

/**
 * The directory the command goes in: `$DENO_INSTALL_ROOT/bin`, else `~/.deno/bin`.
 *
 * @param env Environment lookup.
 * @returns The directory.
 * @throws {Error} When neither variable is set.
 *
 * @example
 * ```ts
 * import { binDir } from "./install.ts";
 * console.assert(binDir((n) => n === "HOME" ? "/home/ada" : undefined) === "/home/ada/.deno/bin");
 * ```
 */
export function binDir(env: (name: string) => string | undefined): string {
  const root = env("DENO_INSTALL_ROOT");
  if (root) return join(root, "bin");
  const home = env("HOME");
  if (!home) throw new Error("Neither DENO_INSTALL_ROOT nor HOME is set: set DENO_INSTALL_ROOT");
  return join(home, ".deno", "bin");
}

/**
 * The command's text: `deno run <launcher flags> <launcher> "$@"`.
 *
 * @param deno The Deno executable.
 * @param launcher `launch.ts` of the checkout.
 * @returns A POSIX shell script.
 *
 * @example
 * ```ts
 * import { commandScript } from "./install.ts";
 * console.assert(commandScript("/usr/bin/deno", "/src/panto/cli/launcher/launch.ts").includes("'/usr/bin/deno' run"));
 * ```
 */
export function commandScript(deno: string, launcher: string): string {
  return [
    "#!/bin/sh",
    MARKER,
    `exec ${shellQuote(deno)} run ${LAUNCHER_FLAGS.join(" ")} ${shellQuote(launcher)} "$@"`,
    "",
  ].join("\n");
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * Writes the command.
 *
 * @param env Environment lookup.
 * @returns What to tell the user.
 */
export async function install(env: (name: string) => string | undefined): Promise<string> {
  const dir = binDir(env);
  const path = join(dir, "panto");
  const launcher = fileURLToPath(new URL("./launch.ts", import.meta.url));
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(path, commandScript(Deno.execPath(), launcher), { mode: 0o755 });
  await Deno.chmod(path, 0o755);
  const onPath = (env("PATH") ?? "").split(delimiter).includes(dir);
  return onPath
    ? `Installed ${path}: run panto from any directory.`
    : `Installed ${path}. Add ${dir} to PATH to run panto from any directory, e.g. export PATH="${dir}:$PATH"`;
}

/**
 * Removes the command, if it is the one `install` wrote.
 *
 * @param env Environment lookup.
 * @returns What to tell the user.
 * @throws {Error} When a different `panto` is there (it is left alone).
 */
export async function uninstall(env: (name: string) => string | undefined): Promise<string> {
  const path = join(binDir(env), "panto");
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return `No panto command at ${path}.`;
    throw error;
  }
  if (!text.includes(MARKER)) {
    throw new Error(
      `${path} was not written by deno task install; remove it yourself if you mean to`,
    );
  }
  await Deno.remove(path);
  return `Removed ${path}.`;
}

if (import.meta.main) {
  const env = (name: string) => Deno.env.get(name);
  const action = Deno.args[0];
  try {
    if (action !== "install" && action !== "uninstall") {
      throw new Error(`usage: install.ts install|uninstall (got ${JSON.stringify(action)})`);
    }
    console.log(await (action === "install" ? install(env) : uninstall(env)));
  } catch (error) {
    console.error(`panto ${action}: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
}
