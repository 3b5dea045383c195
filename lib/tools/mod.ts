/**
 * `@panto/lib/tools`: panto's built-in tools — `read`, `write`, `edit`,
 * `bash`, `ls`, `grep`, `find` — confined to a working directory (and the
 * directories you allow), plus the helpers they are built from (path
 * confinement and bounded reads are `@panto/lib/fs`). They use
 * Deno's file and process APIs, so this entry point runs on Deno only.
 *
 * @example Give an agent the built-in tools, confined to a directory
 * ```ts
 * import { Agent, scriptedProvider } from "@panto/lib";
 * import { builtinTools } from "@panto/lib/tools";
 *
 * const root = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${root}/notes.txt`, "remember the milk\n");
 * const provider = scriptedProvider([
 *   [{ type: "tool_use", id: "call_1", name: "read", input: { path: "notes.txt" } }],
 *   "It says to remember the milk.",
 * ]);
 * const agent = new Agent({
 *   config: { provider: { api: "openai-chat", baseUrl: "http://localhost/v1", model: "m", reasoning: "off" } },
 *   provider,
 * });
 * for (const tool of builtinTools({ root })) agent.registerTool(tool);
 * for await (const _ of agent.run("What do my notes say?"));
 * const toolResult = agent.conversation.messages.find((m) => m.role === "tool");
 * console.assert(JSON.stringify(toolResult).includes("remember the milk"));
 * await Deno.remove(root, { recursive: true });
 * ```
 *
 * @module
 */
export { builtinTools, type BuiltinToolsOptions } from "./builtin_tools.ts";
export { type BashSandbox, bashTool, type BashToolOptions, splitBashResult } from "./bash.ts";
export { type EditPlan, editTool, planEdit } from "./edit.ts";
export { applyReplacement, editDiff, type Replacement } from "./edit_diff.ts";
export { findTool } from "./find.ts";
export { grepTool, type GrepToolOptions } from "./grep.ts";
export { lsTool } from "./ls.ts";
export { readTool } from "./read.ts";
export { writeTool } from "./write.ts";
export { type FileToolOptions, notRegularFile } from "./file_tool_options.ts";
export { pantoHomePaths, type PathAccess, resolveToolPath } from "./panto_files.ts";
export {
  type CommandLine,
  sandboxedCommand,
  SandboxError,
  type SandboxPlaces,
  type SandboxSettings,
} from "./sandbox.ts";
export {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  formatBytes,
  type TruncatedText,
  truncateLine,
  type TruncateOptions,
  truncateText,
  truncationNotice,
} from "./truncate.ts";
export { looksBinary, SNIFF_BYTES } from "./binary_sniff.ts";
export { IMAGE_MEDIA_TYPES, imageMediaType, MAX_IMAGE_BYTES } from "./image_types.ts";
