import type { McpServerStatus } from "@panto/lib/mcp";

/**
 * The `/mcp` listing: one line per server (name, transport, state, source),
 * its tools below, and why it failed.
 *
 * @param statuses What `McpServers.describe` gave.
 * @returns Lines of text.
 *
 * @example
 * ```ts
 * import { formatMcpStatus } from "./format_mcp_status.ts";
 * const text = formatMcpStatus([{ name: "git", transport: "stdio", state: "connected", tools: ["git__log"], source: "config.json" }]);
 * console.assert(text.includes("git__log"));
 * ```
 */
export function formatMcpStatus(statuses: readonly McpServerStatus[]): string {
  if (statuses.length === 0) {
    return "No MCP servers configured: add mcpServers to the config or pass --mcp-config FILE";
  }
  return statuses.map((s) => {
    const lines = [`${s.name} (${s.transport}, from ${s.source}): ${s.state}`];
    if (s.tools.length > 0) lines.push(`  tools: ${s.tools.join(", ")}`);
    if (s.error !== undefined) lines.push(...s.error.split("\n").map((line) => `  ${line}`));
    return lines.join("\n");
  }).join("\n");
}
