/**
 * Starts the MCP servers whose settings (JSON) are its argument, waits until
 * every one is connected, then leaves with `Deno.exit` without closing them,
 * as panto does on a second ctrl+c: only the transport's `unload` kill stops
 * them.
 *
 * @module
 */
import { McpServers } from "../../lib/mcp/mcp_servers.ts";

if (import.meta.main) {
  const servers = McpServers.start(JSON.parse(Deno.args[0]!), {
    cwd: Deno.cwd(),
    report: (message) => {
      console.error(message);
      Deno.exit(1);
    },
  });
  const deadline = Date.now() + 60_000;
  while (!servers.status().every((s) => s.state === "connected")) {
    if (Date.now() > deadline) {
      console.error("the servers did not connect");
      Deno.exit(1);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  Deno.exit(0);
}
