/**
 * `@panto/lib/fs`: the file helpers the built-in tools are built from, apart
 * from the tools, for programs that need them and not the tools: path
 * confinement (resolve a path against a working directory and refuse one
 * that leaves it, after following symbolic links) and bounded reads. They
 * use Deno's file APIs, so this entry point runs on Deno only.
 *
 * @example
 * ```ts
 * import { isInside, joinBytes } from "@panto/lib/fs";
 * console.assert(isInside("/work/project", "/work/project/src/main.ts"));
 * console.assert(!isInside("/work/project", "/work/project-old"));
 * console.assert(joinBytes([new Uint8Array([1]), new Uint8Array([2])]).length === 2);
 * ```
 *
 * @module
 */
export {
  isInside,
  realPathOfExistingPrefix,
  resolveWorkspacePath,
} from "./tools/workspace_path.ts";
export { joinBytes, readAtMost, readOpenFileAtMost } from "./tools/read_at_most.ts";
