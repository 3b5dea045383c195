/**
 * Extensions in `panto acp`: each session loads them (its own tools and
 * commands), their tools are offered and run, their commands are
 * advertised and run when typed as a prompt, their messages reach the
 * chat; a project's untrusted extensions refuse the session as in RPC mode.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { join } from "node:path";
import { withFakeHome } from "../../support/fake_config.ts";
import { requestMessages, textReply, toolCallReply } from "../../support/fake_replies.ts";
import { AcpTestClient } from "./acp_client.ts";

/** Counts its loads at module level: the module is imported once, its default export called per session. */
const FIXTURE = `
let loads = 0;
export default (panto) => {
  const load = ++loads;
  panto.registerTool({
    decl: {
      name: "acp_echo",
      description: "Echo text",
      inputSchema: { type: "object", properties: { text: { type: "string" } } },
    },
    execute: (args) => [{ type: "text", text: \`echo: \${args.text} in \${panto.mode}\` }],
  });
  panto.registerCommand("greet", {
    description: "Greets",
    run: (args, ctx) => ctx.notify(\`hello \${args} from load \${load}\`),
  });
  panto.registerCommand("ask", {
    description: "Asks the model",
    run: (args, ctx) => ctx.sendUserMessage(\`Question: \${args}\`),
  });
  panto.registerCommand("boom", {
    description: "Throws",
    run: () => { throw new Error("boom from a command"); },
  });
  panto.registerCommand("pick", {
    description: "Picks",
    run: async (_args, ctx) => ctx.notify(\`picked \${await ctx.select("Pick", [{ value: 1, label: "one" }])}\`),
  });
};
`;

const BROKEN = `export default () => { throw new Error("broken on purpose"); };`;

function chat(
  updates: SessionUpdate[],
  kind: "agent_message_chunk" | "user_message_chunk",
): string {
  return updates.map((u) =>
    u.sessionUpdate === kind && u.content.type === "text" ? u.content.text : ""
  ).join("");
}

function commandNames(updates: SessionUpdate[]): string[][] {
  return updates.flatMap((u) =>
    u.sessionUpdate === "available_commands_update" ? [u.availableCommands.map((c) => c.name)] : []
  );
}

Deno.test("acp: extension tools run and commands are advertised and run, in each session", async () => {
  await withFakeHome(async (server, home) => {
    await Deno.mkdir(join(home, "extensions"));
    await Deno.writeTextFile(join(home, "extensions", "acp_fixture.ts"), FIXTURE);
    await Deno.writeTextFile(join(home, "extensions", "broken.ts"), BROKEN);
    const run = await AcpTestClient.run({ home, cwd: home }, async (ctx, test) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await ctx.request("session/new", { cwd: home, mcpServers: [] });
      // Nothing comes before the response: the client would not know the session.
      assert.deepEqual(test.updatesOf(sessionId), []);
      const updates = () => test.updatesOf(sessionId);
      await test.waitFor("the commands", () => commandNames(updates()).length > 0);
      assert.deepEqual(commandNames(updates()), [["greet", "ask", "boom", "pick"]]);
      assert.match(chat(updates(), "agent_message_chunk"), /error: .*broken on purpose/);

      // The tool is offered to the model and runs.
      server.enqueue(toolCallReply("c1", "acp_echo", { text: "hi" }), textReply("Echoed."));
      const turn = await ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "echo hi" }],
      });
      assert.equal(turn.stopReason, "end_turn");
      assert.match(JSON.stringify(server.requests[0]?.body), /"acp_echo"/);
      const done = updates().filter((u) =>
        u.sessionUpdate === "tool_call_update" && u.status === "completed"
      );
      assert.match(JSON.stringify(done), /echo: hi in acp/);

      // A command typed as the prompt runs without a request; its message is shown.
      const requests = server.requests.length;
      const greet = await ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "/greet  world " }],
      });
      assert.equal(greet.stopReason, "end_turn");
      assert.equal(server.requests.length, requests);
      assert.match(chat(updates(), "agent_message_chunk"), /hello world from load 1/);

      // No picker in an editor: select resolves null.
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/pick" }] });
      assert.match(chat(updates(), "agent_message_chunk"), /picked null/);

      // A prompt the command sends is part of the turn, shown as the user's.
      server.enqueue(textReply("Blue."));
      const ask = await ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "/ask colour?" }],
      });
      assert.equal(ask.stopReason, "end_turn");
      assert.equal(chat(updates(), "user_message_chunk"), "Question: colour?");
      assert.match(chat(updates(), "agent_message_chunk"), /Blue\.$/);
      assert.match(requestMessages(server, requests), /Question: colour\?/);

      // An unknown command is a prompt like any other.
      server.enqueue(textReply("No such command."));
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/nope" }] });
      assert.match(requestMessages(server, requests + 1), /\/nope/);

      // A command that throws disables its extension here: its commands are withdrawn.
      const boom = await ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "/boom" }],
      });
      assert.equal(boom.stopReason, "end_turn");
      assert.match(chat(updates(), "agent_message_chunk"), /error: .*boom from a command/);
      assert.deepEqual(commandNames(updates()).at(-1), []);

      // A second session calls the extension again: its own tool and commands, still enabled.
      const second = await ctx.request("session/new", { cwd: home, mcpServers: [] });
      const secondUpdates = () => test.updatesOf(second.sessionId);
      await test.waitFor("the second session's commands", () =>
        commandNames(secondUpdates()).length > 0);
      server.enqueue(toolCallReply("c2", "acp_echo", { text: "again" }), textReply("Done."));
      await ctx.request("session/prompt", {
        sessionId: second.sessionId,
        prompt: [{ type: "text", text: "echo again" }],
      });
      assert.match(JSON.stringify(secondUpdates()), /echo: again in acp/);
      await ctx.request("session/prompt", {
        sessionId: second.sessionId,
        prompt: [{ type: "text", text: "/greet you" }],
      });
      assert.match(chat(secondUpdates(), "agent_message_chunk"), /hello you from load 2/);

      // Loading the first session again loads the extensions afresh, commands before the replay.
      const before = updates().length;
      await ctx.request("session/load", { sessionId, cwd: home, mcpServers: [] });
      const loaded = updates().slice(before);
      assert.deepEqual(commandNames(loaded), [["greet", "ask", "boom", "pick"]]);
      const commandsAt = loaded.findIndex((u) => u.sessionUpdate === "available_commands_update");
      const replayAt = loaded.findIndex((u) => u.sessionUpdate === "user_message_chunk");
      assert.ok(commandsAt < replayAt, `commands at ${commandsAt}, replay from ${replayAt}`);
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /panto: error: .*broken on purpose/);
  });
});

Deno.test("acp: a project's untrusted extensions refuse the session; trusted, they load; notices as notices", async () => {
  await withFakeHome(async (_server, home) => {
    const project = await Deno.makeTempDir({ prefix: "panto-acp-project-" });
    try {
      await Deno.mkdir(join(project, ".panto", "extensions"), { recursive: true });
      await Deno.writeTextFile(join(project, ".panto", "extensions", "local.ts"), FIXTURE);
      const refused = await AcpTestClient.run({ home, cwd: project }, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
        await assert.rejects(
          ctx.request("session/new", { cwd: project, mcpServers: [] }),
          (error) => /local\.ts[\s\S]*--trust-project-config/.test(String(error)),
        );
      });
      assert.equal(refused.code, 0, refused.stderr);

      const trusted = await AcpTestClient.run(
        { home, cwd: project, args: ["--trust-project-config"] },
        async (ctx, test) => {
          await ctx.request("initialize", {
            protocolVersion: 1,
            clientCapabilities: { session: { notices: {} } },
          });
          const { sessionId } = await ctx.request("session/new", { cwd: project, mcpServers: [] });
          await ctx.request("session/prompt", {
            sessionId,
            prompt: [{ type: "text", text: "/greet there" }],
          });
          const notices = test.updatesOf(sessionId).filter((u) => u.sessionUpdate === "notice");
          assert.deepEqual(
            notices.map((u) => [u.severity, u.title]),
            [["info", "hello there from load 1"]],
          );
          assert.equal(chat(test.updatesOf(sessionId), "agent_message_chunk"), "");
        },
      );
      assert.equal(trusted.code, 0, trusted.stderr);
    } finally {
      await Deno.remove(project, { recursive: true });
    }
  });
});
