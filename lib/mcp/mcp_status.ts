import type { McpServerState } from "./mcp_server.ts";

/** One server as `/mcp` shows it. */
export interface McpServerStatus {
  /** Its name in the config. */
  name: string;
  /** `stdio` or `http`. */
  transport: "stdio" | "http";
  /** Where it stands. */
  state: McpServerState;
  /** Its tools' registered names (none unless connected). */
  tools: string[];
  /** Why it failed or is restarting. */
  error?: string;
  /** The config file that defined it. */
  source: string;
}
