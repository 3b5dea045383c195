/**
 * `panto acp` as a real subprocess at its edges: a prompt cancelled before
 * any answer is not sent again; only the allow options panto offered allow
 * a call; a message over 32 MiB is answered with an error while every
 * session goes on; `session/new` and `session/load` refuse bad ids and
 * directories, and a failed load leaves the open session of that id open.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { join } from "node:path";
import { writeFakeConfig } from "../../support/fake_config.ts";
import { FakeLlmServer, type FakeReply } from "../../support/fake_llm_server.ts";
import { requestMessages, textReply, toolCallReply } from "../../support/fake_replies.ts";
import { AcpTestClient } from "./acp_client.ts";

/** A reply that sends nothing at all until the client leaves. */
const SILENT: FakeReply = { kind: "stall", afterBytes: 0, source: { kind: "sse", body: "" } };

/** Generous: the machine may be busy. */
const TIMEOUT_MS = 60_000;

/** JSON-RPC's invalid params. */
const INVALID_PARAMS = -32602;

async function withAcpFixture(
  config: Record<string, unknown>,
  fn: (fixture: { server: FakeLlmServer; home: string; project: string }) => Promise<void>,
): Promise<void> {
  const server = await FakeLlmServer.start();
  const home = await Deno.makeTempDir({ prefix: "panto-acp-home-" });
  const project = await Deno.makeTempDir({ prefix: "panto-acp-project-" });
  try {
    await writeFakeConfig(home, server, { retry: { maxRetries: 0 }, ...config });
    await fn({ server, home, project });
  } finally {
    await server.close();
    await Deno.remove(home, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
}

/** Checks a rejection: invalid params, with a message matching `message`. */
function invalidParams(message: RegExp): (error: unknown) => boolean {
  return (error) => {
    const { code, message: text } = error as { code?: number; message?: string };
    assert.equal(code, INVALID_PARAMS, text);
    assert.match(text ?? "", message);
    return true;
  };
}

function toolStatus(updates: SessionUpdate[], id: string): string | null | undefined {
  return updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === id)
    .map((u) => u.sessionUpdate === "tool_call_update" ? u.status : undefined)
    .filter((status) => status !== undefined).at(-1);
}

Deno.test("acp: a prompt cancelled before any answer is not sent with the next prompt", async () => {
  await withAcpFixture({}, async ({ server, home, project }) => {
    const run = await AcpTestClient.run({ home, cwd: project }, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await ctx.request("session/new", { cwd: project, mcpServers: [] });
      server.enqueue(textReply("Hello."));
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });

      server.enqueue(SILENT);
      const cancelled = ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "hang DELETE EVERYTHING" }],
      });
      const deadline = Date.now() + TIMEOUT_MS;
      while (server.requests.length < 2) {
        assert.ok(Date.now() < deadline, "the request reached the server");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await ctx.notify("session/cancel", { sessionId });
      assert.equal((await cancelled).stopReason, "cancelled");

      server.enqueue(textReply("4"));
      const next = await ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "what is 2+2" }],
      });
      assert.equal(next.stopReason, "end_turn");
      const sent = requestMessages(server, 2);
      assert.doesNotMatch(sent, /DELETE EVERYTHING/);
      assert.match(sent, /Hello\./);
      assert.match(sent, /what is 2\+2/);
    });
    assert.equal(run.code, 0, run.stderr);
  });
});

Deno.test("acp: only the allow options panto offered allow a call; any other answer rejects", async () => {
  await withAcpFixture(
    { tools: { requireApproval: ["bash"] } },
    async ({ server, home, project }) => {
      const denied: [string, string | undefined | { raw: unknown }][] = [
        ["an unknown option", "yes-please"],
        ["an option kind, not an id", "allow_once"],
        ["a cancelled request", undefined],
        ["a selection without an option", { raw: { outcome: { outcome: "selected" } } }],
        ["an option id that is not a string", {
          raw: { outcome: { outcome: "selected", optionId: 1 } },
        }],
        ["no outcome at all", { raw: {} }],
      ];
      const run = await AcpTestClient.run({ home, cwd: project }, async (ctx, test) => {
        await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
        const { sessionId } = await ctx.request("session/new", { cwd: project, mcpServers: [] });
        const answers: [string, string | undefined | { raw: unknown }][] = [
          ...denied,
          ["the allow option", "allow"],
        ];
        for (const [index, [what, answer]] of answers.entries()) {
          test.permissionAnswers.push(answer);
          server.enqueue(
            toolCallReply(`call_${index}`, "bash", { command: `echo ran > ran${index}.txt` }),
            textReply("Done."),
          );
          await ctx.request("session/prompt", {
            sessionId,
            prompt: [{ type: "text", text: `Make file ${index}` }],
          });
          assert.equal(test.permissionRequests.length, index + 1, `asked for ${what}`);
          const ran = await Deno.stat(join(project, `ran${index}.txt`)).then(
            () => true,
            () => false,
          );
          const allowed = index === denied.length;
          assert.equal(ran, allowed, `${what}: ${allowed ? "runs" : "does not run"}`);
          const status = toolStatus(test.updatesOf(sessionId), `call_${index}`);
          assert.equal(status, allowed ? "completed" : "failed", what);
        }
      });
      assert.equal(run.code, 0, run.stderr);
    },
  );
});

Deno.test("acp: a 33 MiB message is answered with an error; every session goes on", async () => {
  await withAcpFixture({}, async ({ server, home, project }) => {
    const run = await AcpTestClient.run({ home, cwd: project }, async (ctx, test) => {
      await ctx.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true } },
      });
      const first = await ctx.request("session/new", { cwd: project, mcpServers: [] });
      const second = await ctx.request("session/new", { cwd: project, mcpServers: [] });
      const huge = "x".repeat(33 * 1024 * 1024);
      await assert.rejects(
        ctx.request("session/prompt", {
          sessionId: first.sessionId,
          prompt: [{ type: "text", text: huge }],
        }),
        /session\/prompt\) is 33(\.\d+)? MiB, over the limit of 32 MiB/,
      );
      assert.equal(server.requests.length, 0, "nothing of it reached the model");
      for (const { sessionId } of [first, second]) {
        server.enqueue(textReply("Still here."));
        const answer = await ctx.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "Are you there?" }],
        });
        assert.equal(answer.stopReason, "end_turn");
      }
      // The client's answer to panto's own request is too large: that request fails, the run goes on.
      test.buffers.set(join(project, "big.txt"), huge);
      server.enqueue(toolCallReply("read_big", "read", { path: "big.txt" }), textReply("Too big."));
      const read = await ctx.request("session/prompt", {
        sessionId: first.sessionId,
        prompt: [{ type: "text", text: "Read big.txt" }],
      });
      assert.equal(read.stopReason, "end_turn");
      assert.equal(toolStatus(test.updatesOf(first.sessionId), "read_big"), "failed");
      assert.match(requestMessages(server, 3), /a response\) is 33(\.\d+)? MiB/);
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /over the limit of 32 MiB/);
  });
});

Deno.test("acp: session/new and session/load refuse bad ids and directories; a failed load keeps the open session", async () => {
  await withAcpFixture({}, async ({ server, home, project }) => {
    const broken = join(project, "broken");
    await Deno.mkdir(join(broken, ".panto"), { recursive: true });
    await Deno.writeTextFile(join(broken, ".panto", "config.json"), "{ not json");
    const run = await AcpTestClient.run({ home, cwd: project }, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      await assert.rejects(
        ctx.request("session/new", { cwd: "relative/dir", mcpServers: [] }),
        invalidParams(/"relative\/dir" is not an absolute path/),
      );
      await assert.rejects(
        ctx.request("session/new", { cwd: join(project, "missing"), mcpServers: [] }),
        invalidParams(/is not a directory/),
      );
      await assert.rejects(
        ctx.request("session/load", { sessionId: "", cwd: project, mcpServers: [] }),
        invalidParams(/needs the id of a stored session/),
      );

      const { sessionId } = await ctx.request("session/new", { cwd: project, mcpServers: [] });
      server.enqueue(textReply("Hello."));
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
      await assert.rejects(
        ctx.request("session/load", {
          sessionId: sessionId.slice(0, 8),
          cwd: project,
          mcpServers: [],
        }),
        invalidParams(/is only the start of the session id/),
      );
      // The load fails after it began (the project's config is broken): the open session stays.
      await assert.rejects(
        ctx.request("session/load", { sessionId, cwd: broken, mcpServers: [] }),
      );
      server.enqueue(textReply("Still open."));
      const next = await ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "are you there?" }],
      });
      assert.equal(next.stopReason, "end_turn");
      assert.match(requestMessages(server, 1), /Hello\./, "the same conversation");
      // A load that succeeds replaces it.
      await ctx.request("session/load", { sessionId, cwd: project, mcpServers: [] });
      server.enqueue(textReply("Loaded."));
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] });
      assert.match(requestMessages(server, 2), /Still open\./);
    });
    assert.equal(run.code, 0, run.stderr);
  });
});
