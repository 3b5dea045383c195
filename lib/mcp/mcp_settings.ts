/**
 * An MCP server: a command run over stdio (`command`, `args`, `env`, `cwd`)
 * or a Streamable HTTP endpoint (`url`, `headers`). The shape other agents
 * use in their `mcpServers`.
 */
export interface McpServerEntry {
  /** `stdio` or `http`; inferred from `command` or `url` when unset. */
  type?: "stdio" | "http";
  /** The program to run (stdio). */
  command?: string;
  /** Its arguments. */
  args?: string[];
  /** Variables added to its environment (on top of this process's own; the panto CLI removes its API keys from those first). */
  env?: Record<string, string>;
  /** Its working directory (default: panto's). */
  cwd?: string;
  /** The endpoint (Streamable HTTP). */
  url?: string;
  /** HTTP headers sent with every request (e.g. authorization). */
  headers?: Record<string, string>;
}

/** An MCP server and the file that defined it. */
export interface McpServerSettings extends McpServerEntry {
  /** The config file that defined it, for messages. */
  source: string;
}
