/** Characters both wire protocols accept in a tool name. */
const UNSAFE = /[^A-Za-z0-9_-]/g;
/** The longest name sent as it is (the wire limit of both APIs). */
const MAX_NAME = 64;

/**
 * The name a server's tool is registered under: `server__tool`, with
 * characters the model APIs refuse replaced by `_`. A name over 64
 * characters keeps its start and ends in a hash of the whole, so two long
 * names stay apart and the same tool always gets the same name.
 *
 * @param server The server's name in the config.
 * @param tool The tool's name on the server.
 * @returns The registered name.
 *
 * @example
 * ```ts
 * import { mcpToolName } from "./mcp_tool_name.ts";
 * console.assert(mcpToolName("git", "log") === "git__log");
 * console.assert(mcpToolName("docs", "search.v2") === "docs__search_v2");
 * console.assert(mcpToolName("s", "x".repeat(100)).length === 64);
 * ```
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `${server}__${tool}`.replace(UNSAFE, "_");
  if (name.length <= MAX_NAME) return name;
  const hash = fnv1a(`${server}\0${tool}`).toString(16).padStart(8, "0");
  return `${name.slice(0, MAX_NAME - 9)}_${hash}`;
}

/** 32-bit FNV-1a: short, stable, and enough to keep long names apart. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const char of text) {
    hash ^= char.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
