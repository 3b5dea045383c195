/**
 * `deno task install` / `deno task uninstall`: writes or removes the `panto`
 * command, a shell script in `$DENO_INSTALL_ROOT/bin` (default
 * `~/.deno/bin`, where `deno install --global` puts commands) that starts
 * this checkout's launcher.
 *
 * The script runs a Deno the install owns: the Deno that ran the install,
 * hard-linked (else copied) to `lib/panto/deno-VERSION` beside `bin`. The
 * README installs with `npx -y deno@… task install`, whose Deno lives in
 * npm's cache; a copy of its own keeps panto working when that cache is
 * cleaned, and keeps the Deno version panto was tested with. Without that
 * copy the script falls back to `deno` on PATH, and without that it says how
 * to re-install.
 *
 * @module
 */
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The first lines of every script this writes: uninstall removes only such a file. */
const MARKER = "# panto command, written by `deno task install`";

/** The owned Denos' names (`deno-2.9.6`) and the temporary names they are written under. */
const OWNED_DENO = /^deno-[0-9A-Za-z.+-]+$/;

/**
 * The launcher's own permissions: read files, read the environment (to
 * start the program without the key variables), listen on loopback (to hand
 * the keys over: `cli/launcher/key_handoff.ts`), start Deno.
 */
export const LAUNCHER_FLAGS: readonly string[] = [
  "--quiet",
  "--no-prompt",
  "--allow-read",
  "--allow-env",
  "--allow-net=127.0.0.1",
  "--allow-run",
];

/**
 * Where the install writes: `$DENO_INSTALL_ROOT`, else `~/.deno`.
 *
 * @param env Environment lookup.
 * @returns The directory.
 * @throws {Error} When neither variable is set.
 *
 * @example
 * ```ts
 * import { installRoot } from "./install.ts";
 * console.assert(installRoot((n) => n === "HOME" ? "/home/ada" : undefined) === "/home/ada/.deno");
 * ```
 */
export function installRoot(env: (name: string) => string | undefined): string {
  const root = env("DENO_INSTALL_ROOT");
  if (root) return root;
  const home = env("HOME");
  if (!home) throw new Error("Neither DENO_INSTALL_ROOT nor HOME is set: set DENO_INSTALL_ROOT");
  return join(home, ".deno");
}

/**
 * Where the install keeps its own Deno: `lib/panto/deno-VERSION` of the install root.
 *
 * @param root The install root ({@linkcode installRoot}).
 * @param version The Deno version, e.g. `Deno.version.deno`.
 * @returns The path.
 *
 * @example
 * ```ts
 * import { ownedDenoPath } from "./install.ts";
 * console.assert(ownedDenoPath("/home/ada/.deno", "2.9.6") === "/home/ada/.deno/lib/panto/deno-2.9.6");
 * ```
 */
export function ownedDenoPath(root: string, version: string): string {
  return join(ownedDenoDir(root), `deno-${version}`);
}

function ownedDenoDir(root: string): string {
  return join(root, "lib", "panto");
}

/** What the command runs. */
export interface CommandTarget {
  /** The Deno the install owns ({@linkcode ownedDenoPath}). */
  deno: string;
  /** `launch.ts` of the checkout. */
  launcher: string;
  /** The checkout, where the re-install command runs. */
  checkout: string;
  /** The Deno version the re-install command fetches. */
  denoVersion: string;
}

/**
 * The command's text: `deno run <launcher flags> <launcher> "$@"` with the
 * owned Deno, else `deno` on PATH, else one line on stderr naming what is
 * missing and the command that re-installs, and exit 127 (the shell's "not
 * found").
 *
 * @param target The Deno, launcher and checkout.
 * @returns A POSIX shell script.
 *
 * @example
 * ```ts
 * import { commandScript } from "./install.ts";
 * const script = commandScript({
 *   deno: "/home/ada/.deno/lib/panto/deno-2.9.6",
 *   launcher: "/src/panto/cli/launcher/launch.ts",
 *   checkout: "/src/panto",
 *   denoVersion: "2.9.6",
 * });
 * console.assert(script.includes("cd /src/panto && npx -y deno@2.9.6 task install"));
 * ```
 */
export function commandScript(target: CommandTarget): string {
  const reinstall = `cd ${
    shellWord(target.checkout)
  } && npx -y deno@${target.denoVersion} task install`;
  const missing =
    `panto: no Deno to run: ${target.deno} is missing and there is no deno on PATH; re-install with: ${reinstall}`;
  return [
    "#!/bin/sh",
    MARKER,
    `deno=${shellQuote(target.deno)}`,
    '[ -x "$deno" ] || deno=$(command -v deno) || {',
    `  printf '%s\\n' ${shellQuote(missing)} >&2`,
    "  exit 127",
    "}",
    `exec "$deno" run ${LAUNCHER_FLAGS.join(" ")} ${shellQuote(target.launcher)} "$@"`,
    "",
  ].join("\n");
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The text as one shell word: as it is when that is safe, so the message reads plainly. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : shellQuote(text);
}

/**
 * Writes the command and the Deno it runs.
 *
 * @param env Environment lookup.
 * @returns What to tell the user.
 *
 * @example
 * ```ts
 * import { install, uninstall } from "./install.ts";
 * const root = await Deno.makeTempDir();
 * const env = (name: string) => name === "DENO_INSTALL_ROOT" ? root : undefined;
 * console.assert((await install(env)).startsWith(`Installed ${root}/bin/panto`));
 * await uninstall(env);
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export async function install(env: (name: string) => string | undefined): Promise<string> {
  const root = installRoot(env);
  const dir = join(root, "bin");
  const path = join(dir, "panto");
  const launcher = fileURLToPath(new URL("./launch.ts", import.meta.url));
  const deno = ownedDenoPath(root, Deno.version.deno);
  await refuseForeignCommand(path);
  await ownDeno(Deno.execPath(), deno);
  await Deno.mkdir(dir, { recursive: true });
  const script = commandScript({
    deno,
    launcher,
    checkout: join(dirname(launcher), "..", ".."),
    denoVersion: Deno.version.deno,
  });
  // Written beside it and renamed over it: a link at the path is replaced, never followed.
  const temp = `${path}.${crypto.randomUUID()}.tmp`;
  await Deno.writeTextFile(temp, script, { mode: 0o755 });
  await Deno.chmod(temp, 0o755);
  await Deno.rename(temp, path);
  // A Deno of an earlier install is no longer run by anything.
  await removeOwnedDenos(dirname(deno), deno);
  const onPath = (env("PATH") ?? "").split(delimiter).includes(dir);
  return onPath
    ? `Installed ${path} (running ${deno}): run panto from any directory.`
    : `Installed ${path} (running ${deno}). Add ${dir} to PATH to run panto from any directory, e.g. export PATH=${
      shellQuote(dir)
    }:"$PATH"`;
}

/**
 * Refuses to replace a `panto` that `install` did not write (another
 * program of that name, or a symbolic link, which the user made).
 */
async function refuseForeignCommand(path: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  const ours = info.isFile && (await Deno.readTextFile(path)).includes(MARKER);
  if (ours) return;
  throw new Error(
    `${path} exists and was not written by deno task install (${
      info.isSymlink ? "it is a symbolic link" : "it is another program"
    }): remove it yourself if you mean to replace it, or install elsewhere with DENO_INSTALL_ROOT=DIR`,
  );
}

/**
 * Puts `source` at `target`: written under a temporary name in the same
 * directory and renamed, so a panto starting meanwhile finds the old file or
 * the new one, never half of one.
 */
async function ownDeno(source: string, target: string): Promise<void> {
  await Deno.mkdir(dirname(target), { recursive: true });
  // Installing with the owned Deno itself: renaming a link onto its own file does nothing.
  if (await sameFile(source, target)) return;
  const temp = `${target}.${crypto.randomUUID()}.tmp`;
  try {
    if (!await linked(source, temp)) {
      await Deno.copyFile(source, temp);
      await Deno.chmod(temp, 0o755);
    }
    await Deno.rename(temp, target);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
}

/**
 * Hard-links `source` as `temp`: no copy of ~100 MB. False when linking
 * fails (another filesystem, a file of another user) or the file's mode is
 * not 0755 — a link shares it, and changing it would change the source's too.
 */
async function linked(source: string, temp: string): Promise<boolean> {
  try {
    await Deno.link(source, temp);
  } catch {
    return false;
  }
  if ((((await Deno.stat(temp)).mode ?? 0) & 0o777) === 0o755) return true;
  await Deno.remove(temp);
  return false;
}

async function sameFile(a: string, b: string): Promise<boolean> {
  const [first, second] = await Promise.all(
    [a, b].map((path) => Deno.stat(path).catch(() => null)),
  );
  return !!first && !!second && first.dev === second.dev && first.ino !== null &&
    first.ino === second.ino;
}

/**
 * Removes the owned Denos in `dir` but `keep` (and `dir` itself once empty).
 *
 * @returns The paths removed.
 */
async function removeOwnedDenos(dir: string, keep?: string): Promise<string[]> {
  const removed: string[] = [];
  let left = 0;
  try {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isFile && OWNED_DENO.test(entry.name) && path !== keep) {
        await Deno.remove(path);
        removed.push(path);
      } else {
        left++;
      }
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return removed;
    throw error;
  }
  if (left === 0) await Deno.remove(dir);
  return removed;
}

/**
 * Removes the command, if it is the one `install` wrote, and the Deno it ran.
 *
 * @param env Environment lookup.
 * @returns What to tell the user.
 * @throws {Error} When a different `panto` is there (it is left alone, and so is the Deno).
 *
 * @example
 * ```ts
 * import { uninstall } from "./install.ts";
 * const root = await Deno.makeTempDir();
 * const said = await uninstall((name) => name === "DENO_INSTALL_ROOT" ? root : undefined);
 * console.assert(said === `No panto command at ${root}/bin/panto.`);
 * await Deno.remove(root);
 * ```
 */
export async function uninstall(env: (name: string) => string | undefined): Promise<string> {
  const root = installRoot(env);
  const path = join(root, "bin", "panto");
  let text: string | undefined;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  if (text !== undefined && !text.includes(MARKER)) {
    throw new Error(
      `${path} was not written by deno task install; remove it yourself if you mean to`,
    );
  }
  if (text !== undefined) await Deno.remove(path);
  const removed = await removeOwnedDenos(ownedDenoDir(root));
  if (text === undefined && removed.length === 0) return `No panto command at ${path}.`;
  return `Removed ${[...(text === undefined ? [] : [path]), ...removed].join(", ")}.`;
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
