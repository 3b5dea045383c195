/**
 * `panto acp` as a real subprocess, driven by the ACP SDK's client side
 * against the fake LLM server: a multi-turn session with tools, diffs, a
 * permission prompt (rejected, then allowed), a cancel, models and modes,
 * then `session/load` in a new process.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { join } from "node:path";
import { writeFakeConfig } from "../../support/fake_config.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import {
  requestMessages,
  stalledReply,
  textReply,
  toolCallReply,
} from "../../support/fake_replies.ts";
import { savedMessages } from "../../support/saved_session.ts";
import { AcpTestClient, WAIT_FOR_CANCEL } from "./acp_client.ts";

type Update<K extends SessionUpdate["sessionUpdate"]> = Extract<
  SessionUpdate,
  { sessionUpdate: K }
>;

function ofKind<K extends SessionUpdate["sessionUpdate"]>(
  updates: SessionUpdate[],
  kind: K,
): Update<K>[] {
  return updates.filter((u): u is Update<K> => u.sessionUpdate === kind);
}

function messageText(updates: SessionUpdate[], kind: "agent_message_chunk" | "user_message_chunk") {
  return ofKind(updates, kind).map((u) => u.content.type === "text" ? u.content.text : "").join("");
}

const ONE_PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** Runs `fn` with a fake server, a home configured for it with `config`, and a project directory; all gone afterwards. */
async function withAcpFixture(
  config: Record<string, unknown>,
  fn: (fixture: { server: FakeLlmServer; home: string; project: string }) => Promise<void>,
): Promise<void> {
  const server = await FakeLlmServer.start();
  const home = await Deno.makeTempDir({ prefix: "panto-acp-home-" });
  const project = await Deno.makeTempDir({ prefix: "panto-acp-project-" });
  try {
    await writeFakeConfig(home, server, config);
    await fn({ server, home, project });
  } finally {
    await server.close();
    await Deno.remove(home, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
}

Deno.test("acp: tools, diffs, a permission prompt, a cancel, models, then session/load", async () => {
  await withAcpFixture({
    retry: { maxRetries: 0 },
    tools: { requireApproval: ["bash"] },
  }, async ({ server, home, project }) => {
    await Deno.writeTextFile(join(project, "notes.txt"), "alpha\nbeta\n");
    let sessionId = "";

    const first = await AcpTestClient.run({ home, cwd: project }, async (ctx, test) => {
      const init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      assert.equal(init.agentCapabilities?.loadSession, true);
      assert.equal(init.agentCapabilities?.promptCapabilities?.image, true);
      assert.equal(init.agentCapabilities?.promptCapabilities?.embeddedContext, true);

      const created = await ctx.request("session/new", { cwd: project, mcpServers: [] });
      sessionId = created.sessionId;
      const model = created.configOptions?.find((o) => o.id === "model");
      assert.equal(model?.type === "select" && model.currentValue, "fast");
      assert.equal(created.modes?.currentModeId, "ask");
      const updates = () => test.updatesOf(sessionId);

      // Turn 1: a read, then the answer.
      server.enqueue(
        toolCallReply("call_read", "read", { path: "notes.txt" }),
        textReply("The notes say alpha and beta."),
      );
      const turn1 = await ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "What is in notes.txt?" }],
      });
      assert.equal(turn1.stopReason, "end_turn");
      const readCall = ofKind(updates(), "tool_call").find((u) => u.toolCallId === "call_read");
      assert.equal(readCall?.kind, "read");
      const readDone = ofKind(updates(), "tool_call_update").filter((u) =>
        u.toolCallId === "call_read"
      );
      const described = readDone.find((u) => u.title);
      assert.equal(described?.title, "read notes.txt");
      assert.deepEqual(described?.locations, [{ path: join(project, "notes.txt") }]);
      assert.equal(readDone.at(-1)?.status, "completed");
      assert.match(JSON.stringify(readDone.at(-1)?.content), /alpha/);
      assert.equal(messageText(updates(), "agent_message_chunk"), "The notes say alpha and beta.");

      // Turn 2: an embedded resource, a resource link and an image; an edit comes back as a diff.
      server.enqueue(
        toolCallReply("call_edit", "edit", {
          path: "notes.txt",
          oldText: "alpha",
          newText: "gamma",
        }),
        textReply("Edited."),
      );
      await ctx.request("session/prompt", {
        sessionId,
        prompt: [
          { type: "text", text: "Rename alpha." },
          {
            type: "resource",
            resource: { uri: "file:///buffer.ts", text: "UNSAVED-BUFFER-TEXT" },
          },
          { type: "resource_link", name: "spec.md", uri: "file:///spec.md" },
          { type: "image", mimeType: "image/png", data: ONE_PIXEL_PNG },
        ],
      });
      const sent = requestMessages(server, 2);
      assert.match(sent, /UNSAVED-BUFFER-TEXT/);
      assert.match(sent, /file:\/\/\/spec\.md/);
      assert.match(sent, /image/);
      const editDone = ofKind(updates(), "tool_call_update").filter((u) =>
        u.toolCallId === "call_edit"
      ).at(-1);
      assert.equal(editDone?.status, "completed");
      const diff = editDone?.content?.find((c) => c.type === "diff");
      assert.deepEqual(diff, {
        type: "diff",
        path: join(project, "notes.txt"),
        oldText: "alpha\nbeta\n",
        newText: "gamma\nbeta\n",
      });

      // Turn 3: bash needs approval; the user rejects it, so it does not run.
      test.permissionAnswers.push("reject");
      server.enqueue(
        toolCallReply("call_bash1", "bash", { command: "echo made > made.txt" }),
        textReply("It was not allowed."),
      );
      await ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "Make a file" }],
      });
      assert.equal(test.permissionRequests.length, 1);
      const asked = test.permissionRequests[0]!;
      assert.equal(asked.toolCall.toolCallId, "call_bash1");
      assert.equal(asked.toolCall.title, "bash: echo made > made.txt");
      assert.deepEqual(asked.options.map((o) => o.kind), [
        "allow_once",
        "allow_always",
        "reject_once",
      ]);
      await assert.rejects(Deno.stat(join(project, "made.txt")));
      assert.match(requestMessages(server, 5), /did not allow/);

      // Turn 4: allowed this time; its output is the call's content.
      test.permissionAnswers.push("allow");
      server.enqueue(
        toolCallReply("call_bash2", "bash", { command: "echo made > made.txt && echo BASH-RAN" }),
        textReply("Done."),
      );
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Again" }] });
      assert.equal(test.permissionRequests.length, 2);
      assert.equal(await Deno.readTextFile(join(project, "made.txt")), "made\n");
      const bashDone = ofKind(updates(), "tool_call_update").filter((u) =>
        u.toolCallId === "call_bash2"
      ).at(-1);
      assert.equal(bashDone?.status, "completed");
      assert.match(JSON.stringify(bashDone?.content), /BASH-RAN/);
      assert.equal(
        ofKind(updates(), "tool_call").find((u) => u.toolCallId === "call_bash2")?.kind,
        "execute",
      );

      // Turn 5: cancelled mid-answer.
      server.enqueue(stalledReply("PARTIAL-ANSWER"));
      const cancelled = ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "Write a long essay" }],
      });
      await test.waitFor("the partial answer", () =>
        messageText(updates(), "agent_message_chunk").includes("PARTIAL-ANSWER"));
      await ctx.notify("session/cancel", { sessionId });
      assert.equal((await cancelled).stopReason, "cancelled");

      // Models and modes.
      const changed = await ctx.request("session/set_config_option", {
        sessionId,
        configId: "model",
        value: "smart",
      });
      const smart = changed.configOptions.find((o) => o.id === "model");
      assert.equal(smart?.type === "select" && smart.currentValue, "smart");
      await assert.rejects(
        ctx.request("session/set_config_option", { sessionId, configId: "model", value: "nope" }),
        /nope/,
      );
      await ctx.request("session/set_mode", { sessionId, modeId: "auto" });
      await test.waitFor("the mode update", () =>
        ofKind(updates(), "current_mode_update").some((u) => u.currentModeId === "auto"));

      // In auto mode bash runs without asking, on the model chosen above.
      server.enqueue(
        toolCallReply("call_bash3", "bash", { command: "echo AUTO" }),
        textReply("Ran it."),
      );
      await ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "Once more" }],
      });
      assert.equal(test.permissionRequests.length, 2);
      assert.equal(server.requests.at(-1)!.protocol, "anthropic", "the smart model answered");
    });
    assert.equal(first.code, 0, first.stderr);

    // A new process loads the stored session and replays it.
    const second = await AcpTestClient.run({ home, cwd: project }, async (ctx, test) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      await ctx.request("session/load", { sessionId, cwd: project, mcpServers: [] });
      const replayed = test.updatesOf(sessionId);
      assert.match(messageText(replayed, "user_message_chunk"), /What is in notes\.txt\?/);
      assert.match(messageText(replayed, "user_message_chunk"), /UNSAVED-BUFFER-TEXT/);
      assert.match(messageText(replayed, "agent_message_chunk"), /The notes say alpha and beta\./);
      assert.match(messageText(replayed, "agent_message_chunk"), /PARTIAL-ANSWER/);
      const calls = ofKind(replayed, "tool_call").map((u) => [u.toolCallId, u.kind]);
      assert.deepEqual(calls, [
        ["call_read", "read"],
        ["call_edit", "edit"],
        ["call_bash1", "execute"],
        ["call_bash2", "execute"],
        ["call_bash3", "execute"],
      ]);
      const results = ofKind(replayed, "tool_call_update").map((u) => [u.toolCallId, u.status]);
      assert.deepEqual(results, [
        ["call_read", "completed"],
        ["call_edit", "completed"],
        ["call_bash1", "failed"],
        ["call_bash2", "completed"],
        ["call_bash3", "completed"],
      ]);

      // The loaded session goes on where it stopped.
      server.enqueue(textReply("Still here."));
      const next = await ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "Are you there?" }],
      });
      assert.equal(next.stopReason, "end_turn");
      assert.match(JSON.stringify(server.requests.at(-1)!.body), /Ran it\./);

      // The session is listed for its directory, titled by its first prompt; none elsewhere.
      const { sessions } = await ctx.request("session/list", { cwd: project });
      assert.deepEqual(sessions.map((s) => [s.sessionId, s.cwd, s.title]), [
        [sessionId, project, "What is in notes.txt?"],
      ]);
      assert.deepEqual((await ctx.request("session/list", { cwd: "/elsewhere" })).sessions, []);

      // A closed session takes no more prompts.
      await ctx.request("session/close", { sessionId });
      await assert.rejects(
        ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] }),
        /No open session/,
      );
    });
    assert.equal(second.code, 0, second.stderr);
  });
});

Deno.test("acp: read and write go through the client's buffers when it offers them", async () => {
  await withAcpFixture({ retry: { maxRetries: 0 } }, async ({ server, home, project }) => {
    const notes = join(project, "notes.txt");
    await Deno.writeTextFile(notes, "saved on disk\n");
    const run = await AcpTestClient.run({ home, cwd: project }, async (ctx, test) => {
      test.buffers.set(notes, "one\nUNSAVED EDIT\nthree");
      await ctx.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
      });
      const { sessionId } = await ctx.request("session/new", { cwd: project, mcpServers: [] });
      server.enqueue(
        toolCallReply("r1", "read", { path: "notes.txt", offset: 2, limit: 1 }),
        toolCallReply("w1", "write", { path: "out.txt", content: "from the model\n" }),
        toolCallReply("w2", "write", { path: "../outside.txt", content: "no" }),
        textReply("Done."),
      );
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Go" }] });
      // The read saw the buffer, numbered from the offset, with a note to read on.
      const read = requestMessages(server, 1);
      assert.match(read, / {5}2\\tUNSAVED EDIT/);
      assert.match(read, /Use offset=3 to read more/);
      assert.doesNotMatch(read, /saved on disk/);
      // The write landed in the editor, not on disk; a path outside the project is refused as ever.
      assert.equal(test.buffers.get(join(project, "out.txt")), "from the model\n");
      await assert.rejects(Deno.stat(join(project, "out.txt")));
      assert.equal(test.buffers.has(join(project, "..", "outside.txt")), false);
      const refused = ofKind(test.updatesOf(sessionId), "tool_call_update").filter((u) =>
        u.toolCallId === "w2"
      ).at(-1);
      assert.equal(refused?.status, "failed");
      const wrote = ofKind(test.updatesOf(sessionId), "tool_call_update").filter((u) =>
        u.toolCallId === "w1"
      ).at(-1);
      assert.deepEqual(wrote?.content?.find((c) => c.type === "diff"), {
        type: "diff",
        path: join(project, "out.txt"),
        oldText: null,
        newText: "from the model\n",
      });
    });
    assert.equal(run.code, 0, run.stderr);
  });
});

Deno.test("acp: a cancel while a permission prompt waits withdraws it, and the call does not run", async () => {
  await withAcpFixture({
    retry: { maxRetries: 0 },
    tools: { requireApproval: ["write"] },
  }, async ({ server, home, project }) => {
    const run = await AcpTestClient.run({ home, cwd: project }, async (ctx, test) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await ctx.request("session/new", { cwd: project, mcpServers: [] });
      test.permissionAnswers.push(WAIT_FOR_CANCEL);
      server.enqueue(toolCallReply("w1", "write", { path: "new.txt", content: "hello\n" }));
      const prompt = ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "Write it" }],
      });
      await test.waitFor("the permission request", () => test.permissionRequests.length === 1);
      // The prompt shows the file the write would create.
      assert.deepEqual(test.permissionRequests[0]!.toolCall.content, [
        { type: "diff", path: join(project, "new.txt"), oldText: null, newText: "hello\n" },
      ]);
      await ctx.notify("session/cancel", { sessionId });
      assert.equal((await prompt).stopReason, "cancelled");
      await test.waitFor("the withdrawn request", () => test.cancelledPermissions === 1);
      await assert.rejects(Deno.stat(join(project, "new.txt")));
      assert.equal(server.requests.length, 1, "nothing was sent after the cancel");
    });
    assert.equal(run.code, 0, run.stderr);
  });
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`acp: ${signal} mid-answer saves the partial answer and exits 128 + its number`, async () => {
    await withAcpFixture({ retry: { maxRetries: 0 } }, async ({ server, home }) => {
      const run = await AcpTestClient.run({ home, cwd: home, leaves: true }, async (ctx, test) => {
        await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
        const { sessionId } = await ctx.request("session/new", { cwd: home, mcpServers: [] });
        server.enqueue(stalledReply("HALF-DONE"));
        const prompt = ctx.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "Go on" }],
        });
        await test.waitFor("the partial answer", () =>
          messageText(test.updatesOf(sessionId), "agent_message_chunk").includes("HALF-DONE"));
        test.kill(signal);
        // Answered as cancelled when the response is written before panto leaves, else cut off.
        await prompt.catch(() => {});
      });
      assert.equal(run.code, signal === "SIGTERM" ? 143 : 130, run.stderr);
      const saved = await savedMessages(home);
      assert.match(JSON.stringify(saved), /HALF-DONE/);
    });
  });
}

Deno.test("acp: bash runs in the client's terminal when it offers one, shown in the call", async () => {
  await withAcpFixture({ retry: { maxRetries: 0 } }, async ({ server, home }) => {
    const run = await AcpTestClient.run({ home, cwd: home }, async (ctx, test) => {
      await ctx.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: { terminal: true },
      });
      const { sessionId } = await ctx.request("session/new", { cwd: home, mcpServers: [] });
      server.enqueue(
        toolCallReply("b1", "bash", { command: "echo VIA-TERMINAL; pwd" }),
        toolCallReply("b2", "bash", { command: "echo failing; exit 3" }),
        textReply("Ran both."),
      );
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Run" }] });
      assert.deepEqual(test.terminals, [
        { command: "bash", args: ["-c", "echo VIA-TERMINAL; pwd"], cwd: home },
        { command: "bash", args: ["-c", "echo failing; exit 3"], cwd: home },
      ]);
      assert.match(requestMessages(server, 1), new RegExp(`VIA-TERMINAL\\\\n${home}`));
      assert.match(requestMessages(server, 2), /failing[^"]*Exit code: 3/);
      const updates = ofKind(test.updatesOf(sessionId), "tool_call_update");
      const last = (id: string) => updates.filter((u) => u.toolCallId === id).at(-1);
      assert.deepEqual(last("b1")?.content, [{ type: "terminal", terminalId: "terminal-1" }]);
      assert.equal(last("b1")?.status, "completed");
      assert.equal(last("b2")?.status, "failed");
    });
    assert.equal(run.code, 0, run.stderr);
  });
});
