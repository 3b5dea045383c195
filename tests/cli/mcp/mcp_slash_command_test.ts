import assert from "node:assert/strict";
import { type CommandContext, slashCommands } from "../../../cli/chat/slash_commands.ts";
import type { McpServerStatus } from "../../../lib/mcp/mcp_status.ts";

async function runMcp(statuses: McpServerStatus[]): Promise<string[]> {
  const shown: string[] = [];
  const context = {
    controller: { mcpStatus: () => Promise.resolve(statuses) },
    notify: (text: string) => void shown.push(text),
  } as unknown as CommandContext;
  await slashCommands().get("mcp")!.run(context, "");
  return shown;
}

Deno.test("/mcp lists each server's state, tools and failure", async () => {
  const shown = await runMcp([
    {
      name: "git",
      transport: "stdio",
      state: "connected",
      tools: ["git__log", "git__diff"],
      source: "~/.panto/config.json",
    },
    {
      name: "docs",
      transport: "http",
      state: "failed",
      tools: [],
      error: "could not be started: fetch failed\nIts stderr ended with:\nboom",
      source: ".mcp.json",
    },
  ]);
  assert.deepEqual(shown, [
    [
      "git (stdio, from ~/.panto/config.json): connected",
      "  tools: git__log, git__diff",
      "docs (http, from .mcp.json): failed",
      "  could not be started: fetch failed",
      "  Its stderr ended with:",
      "  boom",
    ].join("\n"),
  ]);
});

Deno.test("/mcp without servers says how to add one", async () => {
  assert.match(
    (await runMcp([]))[0] ?? "",
    /No MCP servers configured: add mcpServers .* --mcp-config/,
  );
});
