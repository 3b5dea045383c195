/**
 * MCP servers an ACP client sends with `session/new`: panto starts the
 * stdio one and reaches the Streamable HTTP one, the model calls their
 * tools; an SSE server is left out and named on stderr.
 */
import assert from "node:assert/strict";
import { withFakeHome } from "../../support/fake_config.ts";
import {
  ECHO_BOTH_REPLIES,
  startHttpMcpServer,
  STDIO_SERVER_COMMAND,
} from "../../support/mcp_test_server.ts";
import { AcpTestClient } from "./acp_client.ts";

const DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;

Deno.test("acp: the client's stdio and HTTP MCP servers are started and their tools called", async () => {
  const http = await startHttpMcpServer();
  try {
    await withFakeHome(async (llm, home) => {
      llm.enqueue(...ECHO_BOTH_REPLIES);
      const run = await AcpTestClient.run({ home, cwd: home }, async (ctx, test) => {
        const init = await ctx.request("initialize", {
          protocolVersion: 1,
          clientCapabilities: {},
        });
        assert.deepEqual(init.agentCapabilities?.mcpCapabilities, { http: true, sse: false });
        const { sessionId } = await ctx.request("session/new", {
          cwd: home,
          mcpServers: [
            {
              name: "local",
              command: STDIO_SERVER_COMMAND.command,
              args: STDIO_SERVER_COMMAND.args,
              env: [{ name: "DENO_DIR", value: DENO_DIR }],
            },
            { type: "http", name: "remote", url: http.url, headers: [] },
            { type: "sse", name: "old", url: "http://127.0.0.1:9/sse", headers: [] },
          ],
        });
        const { stopReason } = await ctx.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "call both" }],
        });
        assert.equal(stopReason, "end_turn");
        const done = test.updatesOf(sessionId).filter((u) =>
          u.sessionUpdate === "tool_call_update" && u.status === "completed"
        );
        assert.match(JSON.stringify(done), /echo: from stdio/);
        assert.match(JSON.stringify(done), /echo: from http/);
      });
      assert.equal(run.code, 0, run.stderr);
      assert.match(
        run.stderr,
        /SSE MCP servers are not supported \(use stdio or http\); ignored: old/,
      );
    });
  } finally {
    await http.close();
  }
});
