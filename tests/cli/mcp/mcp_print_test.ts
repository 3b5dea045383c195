/**
 * MCP servers under the `panto` command's own permissions (the launcher):
 * print mode starts a stdio server and reaches a Streamable HTTP one, and
 * the model's calls to their tools come back with the servers' answers.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { LAUNCHER_FLAGS } from "../../../cli/launcher/install.ts";
import { childEnv } from "../../support/child_env.ts";
import { withFakeHome } from "../../support/fake_config.ts";
import {
  ECHO_BOTH_REPLIES,
  startHttpMcpServer,
  STDIO_SERVER_COMMAND,
} from "../../support/mcp_test_server.ts";

const LAUNCHER = new URL("../../../cli/launcher/launch.ts", import.meta.url).pathname;
const DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;

Deno.test("print mode through the launcher calls a stdio and an HTTP server's tools", async () => {
  const http = await startHttpMcpServer();
  try {
    await withFakeHome(async (llm, pantoHome) => {
      const file = join(pantoHome, "servers.json");
      await Deno.writeTextFile(
        file,
        JSON.stringify({
          mcpServers: {
            local: { ...STDIO_SERVER_COMMAND, env: { DENO_DIR } },
            remote: { url: http.url },
          },
        }),
      );
      llm.enqueue(...ECHO_BOTH_REPLIES);
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", ...LAUNCHER_FLAGS, LAUNCHER, "-p", "call both", "--mcp-config", file],
        cwd: pantoHome,
        clearEnv: true,
        env: { ...childEnv(join(pantoHome, "home")), PANTO_HOME: pantoHome, NO_COLOR: "1" },
        stdin: "null",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, stderr);
      assert.equal(new TextDecoder().decode(out.stdout).trim(), "Both answered.");
      const second = JSON.stringify(llm.requests[1]?.body);
      assert.ok(second.includes("echo: from stdio"), second);
      assert.ok(second.includes("echo: from http"), second);
    });
  } finally {
    await http.close();
  }
});
