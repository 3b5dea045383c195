import type { Tool } from "../tool.ts";
import { bashTool, type BashToolOptions } from "./bash.ts";
import type { SandboxSettings } from "./sandbox.ts";
import { editTool } from "./edit.ts";
import type { FileToolOptions } from "./file_tool_options.ts";
import { findTool } from "./find.ts";
import { grepTool } from "./grep.ts";
import { lsTool } from "./ls.ts";
import { readTool } from "./read.ts";
import { writeTool } from "./write.ts";

/** Options for {@linkcode builtinTools}. */
export interface BuiltinToolsOptions {
  /** The working directory: file tools are confined to it, bash runs in it. */
  root: string;
  /** Directories outside it that file tools may use (config `tools.allowedPaths`). */
  allowedRoots?: readonly string[];
  /** Directories the file tools may read but not write, even inside panto's home (skills' directories). */
  readRoots?: readonly string[];
  /** panto's home, which the file tools neither read nor write. */
  pantoHome?: string;
  /** Default bash timeout in seconds (config `tools.bashTimeoutSeconds`). Default 120. */
  bashTimeoutSeconds?: number;
  /** The shell the bash tool runs (default `bash`). */
  shell?: string;
  /** The OS sandbox for bash's commands (config `tools.sandbox`). */
  sandbox?: SandboxSettings;
}

/**
 * The built-in tools, in the order they are offered: read, write, edit,
 * bash, ls, grep, find.
 *
 * @param options Working directory, allowed roots, panto's home, bash settings.
 * @returns The tools.
 *
 * @example
 * ```ts
 * import { builtinTools } from "@panto/lib/tools";
 * const names = builtinTools({ root: "/tmp" }).map((tool) => tool.decl.name);
 * console.assert(names.join() === "read,write,edit,bash,ls,grep,find");
 * ```
 */
export function builtinTools(options: BuiltinToolsOptions): Tool[] {
  const files: FileToolOptions = { root: options.root };
  if (options.allowedRoots) files.allowedRoots = options.allowedRoots;
  if (options.readRoots?.length) files.readRoots = options.readRoots;
  if (options.pantoHome !== undefined) files.pantoHome = options.pantoHome;
  const bash: BashToolOptions = { root: options.root };
  if (options.bashTimeoutSeconds !== undefined) bash.timeoutSeconds = options.bashTimeoutSeconds;
  if (options.shell !== undefined) bash.shell = options.shell;
  if (options.sandbox?.enabled) {
    bash.sandbox = {
      settings: options.sandbox,
      writable: options.allowedRoots ?? [],
      hidden: options.pantoHome === undefined ? [] : [options.pantoHome],
    };
  }
  return [
    readTool(files),
    writeTool(files),
    editTool(files),
    bashTool(bash),
    lsTool(files),
    grepTool(files),
    findTool(files),
  ];
}
