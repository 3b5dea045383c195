import { join } from "node:path";

/** The OS sandbox for the model's commands (config `tools.sandbox`). */
export interface SandboxSettings {
  /** Run the bash tool's commands in the sandbox. */
  enabled: boolean;
  /** Whether commands may use the network (default true). */
  network?: boolean;
}

/** Where the sandbox lets a command write, and what it hides. */
export interface SandboxPlaces {
  /** The working directory: writable. */
  root: string;
  /** More writable directories (`tools.allowedPaths`). */
  writable?: readonly string[];
  /** Directories replaced by an empty one (`$PANTO_HOME`: sessions, config, trust). */
  hidden?: readonly string[];
}

/** A program and its arguments. */
export interface CommandLine {
  /** The program. */
  command: string;
  /** Its arguments. */
  args: string[];
}

/** Why a command was not run in the sandbox (it is never run outside it instead). */
export class SandboxError extends Error {
  /**
   * Creates the error.
   *
   * @param message What is missing and what to do.
   */
  constructor(message: string) {
    super(message);
    this.name = "SandboxError";
  }
}

/**
 * The command line that runs `shell -c command` in bubblewrap (`bwrap`):
 * the whole file system read-only but the working directory, the allowed
 * paths and `/tmp`; `$PANTO_HOME` replaced by an empty directory and the
 * project's `.panto` read-only (neither panto's sessions nor its config are
 * the model's to read or change); a fresh process namespace with its own
 * `/proc`, so panto's processes and their environments are out of sight;
 * with `network: false`, no network but loopback of its own. The sandbox
 * dies with panto.
 *
 * @param settings The sandbox settings.
 * @param places The writable and hidden directories.
 * @param shell The shell.
 * @param command The command line.
 * @param os The operating system (default: this one's).
 * @returns What to spawn.
 * @throws {SandboxError} Off Linux, where bubblewrap does not exist.
 *
 * @example
 * ```ts
 * import { sandboxedCommand } from "./sandbox.ts";
 * const line = sandboxedCommand({ enabled: true, network: false }, { root: "/work/app" }, "bash", "make", "linux");
 * console.assert(line.command === "bwrap" && line.args.includes("--unshare-net"));
 * ```
 */
export function sandboxedCommand(
  settings: SandboxSettings,
  places: SandboxPlaces,
  shell: string,
  command: string,
  os: string = Deno.build.os,
): CommandLine {
  if (os !== "linux") {
    throw new SandboxError(
      `tools.sandbox runs commands in bubblewrap, which exists on Linux only (this is ${os}): turn tools.sandbox off to run commands here`,
    );
  }
  // In this order: a later mount covers an earlier one (a project under /tmp stays writable).
  const binds = ["/tmp", places.root, ...places.writable ?? []].flatMap((dir) => [
    "--bind",
    dir,
    dir,
  ]);
  const hidden = (places.hidden ?? []).filter(exists).flatMap((dir) => ["--tmpfs", dir]);
  const config = join(places.root, ".panto");
  const readOnly = exists(config) ? ["--ro-bind", config, config] : [];
  return {
    command: "bwrap",
    args: [
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      ...binds,
      ...hidden,
      ...readOnly,
      "--unshare-pid",
      ...(settings.network === false ? ["--unshare-net"] : []),
      "--die-with-parent",
      "--chdir",
      places.root,
      "--",
      shell,
      "-c",
      command,
    ],
  };
}

/** Whether `path` exists (panto may be unable to look: then it is left alone). */
function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}
