/**
 * The MCP servers an ACP client sends with `session/new` and
 * `session/load`, as panto's server settings.
 *
 * @module
 */
import type { McpServer } from "@agentclientprotocol/sdk";
import type { McpServerSettings } from "../config/panto_config.ts";

/** Where such servers come from, in `/mcp` listings and failure messages. */
const SOURCE = "the ACP client";

/**
 * Stdio and Streamable HTTP servers by name; SSE servers (which panto does
 * not speak) are left out and returned by name.
 *
 * @param servers The client's list.
 * @returns The settings, and the names of the servers left out.
 */
export function clientMcpServers(
  servers: readonly McpServer[],
): { settings: Record<string, McpServerSettings>; skipped: string[] } {
  const settings: Record<string, McpServerSettings> = {};
  const skipped: string[] = [];
  for (const server of servers) {
    if ("type" in server && server.type === "sse") {
      skipped.push(server.name);
    } else if ("url" in server) {
      settings[server.name] = {
        type: "http",
        url: server.url,
        headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])),
        source: SOURCE,
      };
    } else {
      settings[server.name] = {
        command: server.command,
        args: server.args,
        env: Object.fromEntries(server.env.map((v) => [v.name, v.value])),
        source: SOURCE,
      };
    }
  }
  return { settings, skipped };
}
