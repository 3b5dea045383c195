/** `panto acp`'s flags and `tools.requireApproval` in the config. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseArgs } from "../../../cli/setup/args.ts";
import { loadConfig } from "../../../cli/config/load_config.ts";
import { UsageError } from "../../../cli/shared/errors.ts";
import { withFakeHome } from "../../support/fake_config.ts";
import { AcpTestClient } from "./acp_client.ts";

Deno.test("panto acp takes the chat's model, tool and store flags", () => {
  const args = parseArgs(["acp", "-m", "smart", "--tools", "read,bash", "--store", "sqlite"]);
  assert.ok(args.command === "chat");
  assert.deepEqual([args.mode, args.model, args.tools, args.store], [
    "acp",
    "smart",
    ["read", "bash"],
    "sqlite",
  ]);
});

Deno.test("panto acp refuses prompts, -p, --mode and session picks: the editor sends those", () => {
  for (const argv of [["acp", "hello"], ["acp", "-p"], ["acp", "--mode", "json"], ["acp", "-c"]]) {
    assert.throws(() => parseArgs(argv), (error: unknown) => {
      assert.ok(error instanceof UsageError, String(error));
      assert.match(error.message, /panto acp takes model, tool and store flags only/);
      return true;
    });
  }
});

Deno.test("panto acp with a bad model: session/new fails naming it, and panto keeps serving", async () => {
  await withFakeHome(async (_server, home) => {
    const run = await AcpTestClient.run(
      { home, cwd: home, args: ["-m", "nonesuch"] },
      async (ctx) => {
        await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
        const attempt = () => ctx.request("session/new", { cwd: home, mcpServers: [] });
        await assert.rejects(attempt(), /Unknown model "nonesuch"/);
        await assert.rejects(attempt(), /Unknown model "nonesuch"/);
      },
    );
    assert.equal(run.code, 0, run.stderr);
  });
});

Deno.test("tools.requireApproval: the project's list adds to the user's, even untrusted", async () => {
  const home = await Deno.makeTempDir({ prefix: "panto-acp-config-" });
  const project = await Deno.makeTempDir({ prefix: "panto-acp-project-" });
  try {
    await Deno.writeTextFile(
      join(home, "config.json"),
      JSON.stringify({ tools: { requireApproval: ["bash"] } }),
    );
    await Deno.mkdir(join(project, ".panto"));
    await Deno.writeTextFile(
      join(project, ".panto", "config.json"),
      JSON.stringify({ tools: { requireApproval: ["write", "bash"] } }),
    );
    const config = await loadConfig({
      pantoHome: home,
      cwd: project,
      env: () => undefined,
      untrustedProject: "refuse",
    });
    assert.deepEqual(config.tools.requireApproval, ["bash", "write"]);
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("panto acp --auto-approve: sessions start in the auto mode (nothing asked)", async () => {
  await withFakeHome(async (_server, home) => {
    const run = await AcpTestClient.run(
      { home, cwd: home, args: ["--auto-approve"] },
      async (ctx) => {
        await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
        const created = await ctx.request("session/new", { cwd: home, mcpServers: [] }) as {
          modes?: { currentModeId: string };
        };
        assert.equal(created.modes?.currentModeId, "auto");
      },
    );
    assert.equal(run.code, 0, run.stderr);
  });
});
