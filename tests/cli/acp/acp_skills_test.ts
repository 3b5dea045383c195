/**
 * Skills and prompt templates in `panto acp`: advertised as the session's
 * commands, and a prompt of `/skill:name args` or `/template args` sends
 * what it stands for, as in the chat, RPC and print modes.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { join } from "node:path";
import { withFakeHome } from "../../support/fake_config.ts";
import { requestMessages, textReply } from "../../support/fake_replies.ts";
import { AcpTestClient } from "./acp_client.ts";

function commandNames(updates: SessionUpdate[]): string[][] {
  return updates.flatMap((u) =>
    u.sessionUpdate === "available_commands_update" ? [u.availableCommands.map((c) => c.name)] : []
  );
}

Deno.test("acp: skills and prompt templates are advertised and expand when prompted", async () => {
  await withFakeHome(async (server, home) => {
    await Deno.mkdir(join(home, "skills", "pdf"), { recursive: true });
    await Deno.writeTextFile(
      join(home, "skills", "pdf", "SKILL.md"),
      "---\nname: pdf\ndescription: Reads PDF files.\n---\n\nUse pdftotext on the file.\n",
    );
    await Deno.mkdir(join(home, "prompts"));
    await Deno.writeTextFile(
      join(home, "prompts", "review.md"),
      "---\ndescription: Reviews a file\n---\nReview $1 for bugs.\n",
    );
    const run = await AcpTestClient.run({ home, cwd: home }, async (ctx, test) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await ctx.request("session/new", { cwd: home, mcpServers: [] });
      const updates = () => test.updatesOf(sessionId);
      await test.waitFor("the commands", () => commandNames(updates()).length > 0);
      assert.deepEqual(commandNames(updates()).at(-1)?.toSorted(), ["review", "skill:pdf"]);

      server.enqueue(textReply("Reading it."), textReply("Reviewed."));
      const skill = await ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "/skill:pdf report.pdf" }],
      });
      assert.equal(skill.stopReason, "end_turn");
      assert.match(requestMessages(server, 0), /Use pdftotext on the file\./);
      assert.match(requestMessages(server, 0), /report\.pdf/);

      await ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "/review main.ts" }],
      });
      assert.match(requestMessages(server, 1), /Review main\.ts for bugs\./);
    });
    assert.equal(run.code, 0, run.stderr);
  });
});
