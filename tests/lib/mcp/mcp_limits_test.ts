/**
 * A server whose tool names encode alike and whose answer is huge, over
 * Streamable HTTP in this process: every tool stays callable under a name of
 * its own, and the answer reaching the model is cut to the built-in limits.
 */
import assert from "node:assert/strict";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Agent } from "@panto/lib";
import { McpServers } from "../../../lib/mcp/mcp_servers.ts";

/** The server's answer to `flood`: 8 MB of text in 160,000 lines. */
const FLOOD = `${"z".repeat(49)}\n`.repeat(160_000);

async function serve(): Promise<{ url: string; close: () => Promise<void> }> {
  const mcp = new McpServer({ name: "panto-limits-test", version: "1.0.0" });
  // Names MCP allows ("." included) that the model APIs do not.
  for (const name of ["a.b", "a_b", "x.y_z", "x_y.z"]) {
    mcp.registerTool(name, { description: `The tool ${name}` }, () => ({
      content: [{ type: "text", text: `I am ${JSON.stringify(name)}` }],
    }));
  }
  mcp.registerTool("flood", { description: "Answers with 8 MB" }, () => ({
    content: [{ type: "text", text: FLOOD }],
  }));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
  });
  await mcp.connect(transport);
  const { promise: listening, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: ({ port }) => resolve(port) },
    (request) => transport.handleRequest(request),
  );
  const port = await listening;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await mcp.close();
      await server.shutdown();
    },
  };
}

Deno.test("MCP: tools whose names encode alike all stay callable; a huge answer is cut", async () => {
  const http = await serve();
  const reports: string[] = [];
  const servers = McpServers.start(
    { srv: { url: http.url, source: "test config" } },
    { cwd: Deno.cwd(), report: (message) => reports.push(message) },
    30_000,
  );
  try {
    const agent = new Agent({
      config: {
        provider: {
          api: "anthropic-messages",
          baseUrl: "http://127.0.0.1:9",
          model: "m",
          apiKey: "k",
          reasoning: "off",
        },
      },
    });
    await servers.sync(agent);
    const names = agent.tools.map((t) => t.decl.name).filter((name) => name !== "srv__flood");
    assert.equal(names.length, 4, `${names}`);
    assert.ok(names.includes("srv__a_b"));
    assert.equal(names.filter((name) => /^srv__x_y_z_[0-9a-f]{8}$/.test(name)).length, 2);
    const answers = new Set<string>();
    for (const name of names) {
      const tool = agent.tools.find((t) => t.decl.name === name)!;
      const output = await tool.execute({}, { signal: new AbortController().signal, callId: "c" });
      const parts = Array.isArray(output) ? output : output.parts;
      answers.add(parts.map((p) => (p.type === "text" ? p.text : "")).join(""));
    }
    assert.deepEqual([...answers].sort(), [
      'I am "a.b"',
      'I am "a_b"',
      'I am "x.y_z"',
      'I am "x_y.z"',
    ]);

    const flood = agent.tools.find((t) => t.decl.name === "srv__flood")!;
    const output = await flood.execute({}, { signal: new AbortController().signal, callId: "c" });
    const text = (Array.isArray(output) ? output : output.parts)
      .map((p) => (p.type === "text" ? p.text : "")).join("\n");
    assert.ok(new TextEncoder().encode(text).length < 52 * 1024, `${text.length} characters`);
    assert.match(text, /\[Output truncated: showing lines 1-1024 of 160000 \(7\.6 MB in all\)\./);
    assert.deepEqual(reports, []);
  } finally {
    await servers.close();
    await http.close();
  }
});
