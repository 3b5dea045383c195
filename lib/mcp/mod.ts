/**
 * `@panto/lib/mcp`: MCP servers as tool sources. {@linkcode McpServer} is
 * one server (a command over stdio, or a Streamable HTTP endpoint) whose
 * tools are named `server__tool`; {@linkcode McpServers} starts several in
 * the background and puts their current tools on an agent before each run.
 * Stdio servers are started with `Deno.Command`, so this entry point runs
 * on Deno only.
 *
 * @example Offer an MCP server's tools to an agent
 * ```ts ignore
 * import { Agent } from "@panto/lib";
 * import { McpServers } from "@panto/lib/mcp";
 *
 * const servers = McpServers.start(
 *   { git: { command: "mcp-server-git", args: ["--repository", "."], source: "my app" } },
 *   { cwd: Deno.cwd(), report: (message) => console.error(message) },
 * );
 * const agent = new Agent({ config });
 * await servers.sync(agent); // registers git__status, git__diff, …
 * for await (const event of agent.run("What changed?")) console.log(event.type);
 * await servers.close();
 * ```
 *
 * @module
 */
export type { McpServerEntry, McpServerSettings } from "./mcp_settings.ts";
export { McpServer, type McpServerOptions, type McpServerState } from "./mcp_server.ts";
export { McpServers } from "./mcp_servers.ts";
export type { McpServerStatus } from "./mcp_status.ts";
export { mcpToolName, mcpToolNames } from "./mcp_tool_name.ts";
