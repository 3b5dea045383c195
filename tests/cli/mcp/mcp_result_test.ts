import assert from "node:assert/strict";
import { mcpResultParts } from "../../../cli/mcp/mcp_result.ts";
import { mcpToolName } from "../../../cli/mcp/mcp_tool_name.ts";
import { parseConfigFile } from "../../../cli/config/parse_config_file.ts";
import { UsageError } from "../../../cli/errors.ts";

Deno.test("MCP results: what panto cannot send becomes a line saying what was left out", () => {
  const { parts, isError } = mcpResultParts({
    content: [
      { type: "image", data: "AAAA", mimeType: "image/tiff" },
      { type: "audio", data: "AAAAAAAA", mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "file:///a.png", mimeType: "image/png", blob: "iVBO" } },
      {
        type: "resource",
        resource: { uri: "file:///a.zip", mimeType: "application/zip", blob: "UEsD" },
      },
    ],
  });
  assert.equal(isError, false);
  assert.deepEqual(parts, [
    { type: "text", text: "[image image/tiff, 3 bytes not shown]" },
    { type: "text", text: "[audio audio/wav, 6 bytes not shown]" },
    { type: "image", mediaType: "image/png", data: "iVBO" },
    { type: "text", text: "[resource <file:///a.zip> application/zip, 3 bytes not shown]" },
  ]);
});

Deno.test("MCP results: structured content alone is sent as JSON; nothing at all says so", () => {
  assert.deepEqual(mcpResultParts({ content: [], structuredContent: { n: 1 } }).parts, [
    { type: "text", text: '{\n  "n": 1\n}' },
  ]);
  assert.deepEqual(mcpResultParts({}).parts, [{ type: "text", text: "(no output)" }]);
});

Deno.test("MCP tool names: namespaced, wire-safe, long ones cut with a stable hash", () => {
  assert.equal(mcpToolName("my.server", "read file"), "my_server__read_file");
  const long = mcpToolName("s", `${"x".repeat(80)}a`);
  const other = mcpToolName("s", `${"x".repeat(80)}b`);
  assert.equal(long.length, 64);
  assert.match(long, /^[A-Za-z0-9_-]+$/);
  assert.notEqual(long, other);
  assert.equal(long, mcpToolName("s", `${"x".repeat(80)}a`));
});

Deno.test("mcpServers config: a server needs command or url, not both; env values never shown", async () => {
  const parse = (servers: unknown) =>
    parseConfigFile(JSON.stringify({ mcpServers: servers }), "config.json");
  assert.deepEqual((await parse({ git: { command: "mcp-git", args: ["-v"] } })).mcpServers, {
    git: { command: "mcp-git", args: ["-v"] },
  });
  await assert.rejects(
    () => parse({ both: { command: "x", url: "https://example.com/mcp" } }),
    (error: Error) =>
      error instanceof UsageError && /mcpServers\.both\.command/.test(error.message) &&
      /either command \(stdio\) or url \(http\)/.test(error.message),
  );
  await assert.rejects(
    () => parse({ web: { type: "http", command: "x" } }),
    (error: Error) => error instanceof UsageError && /needs "url"/.test(error.message),
  );
  await assert.rejects(
    () => parse({ git: { command: "x", env: { TOKEN: 12345 } } }),
    (error: Error) => error instanceof UsageError && !error.message.includes("12345"),
  );
});
