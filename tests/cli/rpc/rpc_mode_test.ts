/**
 * `panto --mode rpc` as a real subprocess against the fake LLM server: a
 * multi-turn session with tools, malformed input, steering and follow-ups,
 * an abort, models, and new, forked and switched sessions; the end of
 * input, signals and a closed stdout.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { writeFakeConfig } from "../../support/fake_config.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { requestMessages, stalledReply, textReply } from "../../support/fake_replies.ts";
import { savedMessages } from "../../support/saved_session.ts";
import { RpcClient, type RpcRecord } from "./rpc_client.ts";

interface Fixture {
  server: FakeLlmServer;
  home: string;
  project: string;
}

async function withFixture(
  body: (fixture: Fixture) => Promise<void>,
  config: Record<string, unknown> = {},
): Promise<void> {
  const server = await FakeLlmServer.start();
  const home = await Deno.makeTempDir({ prefix: "panto-rpc-home-" });
  const project = await Deno.makeTempDir({ prefix: "panto-rpc-project-" });
  try {
    await writeFakeConfig(home, server, { retry: { maxRetries: 0 }, ...config });
    await body({ server, home, project });
  } finally {
    await server.close();
    await Deno.remove(home, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
}

const KEY = "sk-test-SECRET-rpc-mode-7";

const ONE_PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

function start(
  { home, project }: Fixture,
  args: readonly string[] = [],
  env: Record<string, string> = {},
): RpcClient {
  return RpcClient.start({ home, cwd: project, args, env });
}

/** Waits for the next run's end and returns it. */
async function runEnd(client: RpcClient): Promise<RpcRecord> {
  return await client.nextEvent("run_end");
}

Deno.test("rpc: a multi-turn session with tools, bad input, an abort, models and sessions", async () => {
  await withFixture(async (fixture) => {
    const { server, project } = fixture;
    await Deno.writeTextFile(join(project, "notes.txt"), "alpha\nbeta\n");
    const client = start(fixture, ["--api-key-env", "RPC_TEST_KEY"], { RPC_TEST_KEY: KEY });

    const state = await client.ok({ type: "get_state" });
    assert.equal(state?.model.alias, "fast");
    assert.equal(state?.busy, false);
    const firstSession = state?.sessionId as string;

    // Turn 1: the model reads a file with a tool, then answers.
    server.enqueue(
      {
        kind: "turn",
        blocks: [{ type: "tool_use", id: "call_1", name: "read", input: { path: "notes.txt" } }],
      },
      textReply("The notes say alpha and beta."),
    );
    const accepted = await client.request({ type: "prompt", message: "What is in notes.txt?" });
    assert.deepEqual(accepted, {
      type: "response",
      id: accepted.id,
      command: "prompt",
      success: true,
    });
    const toolDone = await client.nextEvent("tool_dispatch_complete");
    assert.equal(toolDone.call.name, "read");
    assert.equal(toolDone.isError, false);
    const first = await runEnd(client);
    assert.equal(first.status, "done");
    assert.match(requestMessages(server, 1), /1\\talpha/, "the tool result went to the model");
    const types = new Set(client.consumed().map((r) => r.type));
    for (
      const type of ["user_prompt", "content_delta", "message_complete", "tool_dispatch_start"]
    ) {
      assert.ok(types.has(type), `a ${type} event was streamed`);
    }

    // Malformed input gets an error response naming the problem; the process keeps running.
    await client.writeRaw("this is not json\n");
    const bad = await client.next((r) => r.type === "response" && !r.success, "an error response");
    assert.match(bad.error, /^invalid JSON/);
    const typo = await client.request({ type: "promt", message: "hi" });
    assert.equal(typo.success, false);
    assert.match(typo.error, /unknown command "promt" \(did you mean "prompt"\?\)/);
    const missing = await client.request({ type: "switch_session" });
    assert.deepEqual([missing.command, missing.success], ["switch_session", false]);
    assert.match(missing.error, /sessionId: missing; expected a string/);

    // Turn 2 sees turn 1.
    server.enqueue(textReply("Still alpha and beta."));
    await client.ok({ type: "prompt", message: "And now?" });
    assert.equal((await runEnd(client)).status, "done");
    assert.match(requestMessages(server, 2), /The notes say alpha and beta\./);

    // Turn 3 is aborted mid-answer; a second prompt meanwhile is refused.
    server.enqueue(stalledReply("PARTIAL-ANSWER"));
    await client.ok({ type: "prompt", message: "Write a long essay" });
    await client.next(
      (r) => r.type === "content_delta" && r.text.includes("PARTIAL"),
      "the partial text",
    );
    const busy = await client.request({ type: "prompt", message: "another" });
    assert.equal(busy.success, false);
    assert.match(busy.error, /abort/);
    await client.ok({ type: "abort" });
    assert.equal((await runEnd(client)).status, "aborted");
    const messages = (await client.ok({ type: "get_messages" }))?.messages as RpcRecord[];
    const last = messages.at(-1)!;
    assert.equal(last.role, "assistant");
    assert.equal(last.stopReason, "aborted");
    assert.match(JSON.stringify(last.content), /PARTIAL-ANSWER/);

    // Another model for the next turn.
    const smart = await client.ok({ type: "set_model", model: "smart", thinkingLevel: "off" });
    assert.deepEqual(smart?.alias, "smart");
    assert.equal((await client.nextEvent("model_changed")).alias, "smart");
    const unknown = await client.request({ type: "set_model", model: "nonesuch" });
    assert.equal(unknown.success, false);
    assert.match(unknown.error, /nonesuch/);

    // A new session, then back to the first one.
    const fresh = await client.ok({ type: "new_session" });
    assert.notEqual(fresh?.sessionId, firstSession);
    assert.equal((await client.nextEvent("session_changed")).reason, "new");
    server.enqueue(textReply("Hello from the second session."));
    await client.ok({ type: "prompt", message: "Second session here" });
    assert.equal((await runEnd(client)).status, "done");
    assert.equal(server.requests.at(-1)?.protocol, "anthropic", "the smart model's endpoint");
    const sessions = (await client.ok({ type: "get_sessions" }))?.sessions as RpcRecord[];
    assert.deepEqual(new Set(sessions.map((s) => s.id)), new Set([firstSession, fresh?.sessionId]));

    const switched = await client.ok({ type: "switch_session", sessionId: firstSession });
    assert.equal(switched?.sessionId, firstSession);
    assert.equal((await client.nextEvent("session_changed")).reason, "switch");
    const back = (await client.ok({ type: "get_messages" }))?.messages as RpcRecord[];
    assert.match(JSON.stringify(back), /PARTIAL-ANSWER/);
    assert.doesNotMatch(JSON.stringify(back), /Second session here/);
    const noSuch = await client.request({ type: "switch_session", sessionId: "ffffffff" });
    assert.equal(noSuch.success, false);
    assert.match(noSuch.error, /No session matches "ffffffff"/);

    // The end of input ends the process.
    await client.closeInput();
    const { code, stderr } = await client.exit();
    assert.equal(code, 0, stderr);
    assert.equal(server.pendingReplies, 0);
    assert.match(server.requests[0]!.headers.authorization ?? "", new RegExp(KEY));
    assert.ok(!JSON.stringify(client.records).includes(KEY), "the key never reaches stdout");
  });
});

Deno.test("rpc: a startup notice, steer at the tool boundary, follow-ups after the run", async () => {
  await withFixture(async (fixture) => {
    const { server, project } = fixture;
    await Deno.writeTextFile(join(project, "a.txt"), "A\n");
    // A named pipe is not read (it could block forever): skipped, and the client is told first thing.
    const fifo = await new Deno.Command("mkfifo", { args: [join(project, "AGENTS.md")] }).output();
    assert.ok(fifo.success);
    const client = start(fixture);
    const notice = await client.nextEvent("notice");
    assert.equal(client.cursor, 1, "the notice is the first record");
    assert.equal(notice.level, "warning");
    assert.match(notice.text, /Skipped .*AGENTS\.md/);
    server.enqueue(
      {
        kind: "turn",
        blocks: [{ type: "tool_use", id: "call_1", name: "read", input: { path: "a.txt" } }],
        // Long enough for the commands below to reach the running run.
        headerDelayMs: 1000,
      },
      textReply("Done reading."),
      textReply("Follow-up answered."),
      textReply("Second follow-up answered."),
    );
    await client.ok({ type: "prompt", message: "Read a.txt" });
    await client.ok({ type: "steer", message: "STEER-ME: be brief" });
    await client.ok({ type: "follow_up", message: "FOLLOW-ME: one more thing" });
    // pi's spelling of a follow-up: a prompt with a streaming behaviour.
    await client.ok({ type: "prompt", message: "AND-ME", streamingBehavior: "followUp" });
    const queued = await client.next(
      (r) => r.type === "queue_update" && r.followUp.length === 2,
      "the follow-ups queued",
    );
    assert.deepEqual(queued.followUp, ["FOLLOW-ME: one more thing", "AND-ME"]);
    const withImage = await client.request({
      type: "prompt",
      message: "look",
      images: [{ data: ONE_PIXEL_PNG, mediaType: "image/png" }],
      streamingBehavior: "steer",
    });
    assert.equal(withImage.success, false);
    assert.match(withImage.error, /Images cannot be queued/);
    assert.equal((await runEnd(client)).status, "done");
    assert.match(requestMessages(server, 1), /STEER-ME/, "steering went with the tool result");
    const followUp = await client.nextEvent("user_prompt");
    assert.deepEqual([followUp.text, followUp.followUp], ["FOLLOW-ME: one more thing", true]);
    assert.equal((await runEnd(client)).status, "done");
    assert.match(requestMessages(server, 2), /FOLLOW-ME/);
    assert.equal((await client.nextEvent("user_prompt")).text, "AND-ME");
    assert.equal((await runEnd(client)).status, "done");
    await client.closeInput();
    assert.equal((await client.exit()).code, 0);
  });
});

Deno.test("rpc: the end of input waits for the running run, which is saved", async () => {
  await withFixture(async (fixture) => {
    const { server, home } = fixture;
    const client = start(fixture);
    server.enqueue(textReply("Answered after the input ended.", { headerDelayMs: 300 }));
    await client.send({ type: "prompt", message: "Slow question" });
    await client.closeInput();
    const { code, stderr } = await client.exit();
    assert.equal(code, 0, stderr);
    const ends = client.records.filter((r) => r.type === "run_end");
    assert.deepEqual(ends.map((r) => r.status), ["done"]);
    const saved = await savedMessages(home);
    assert.deepEqual(saved.map((m) => m.role), ["user", "assistant"]);
    assert.match(JSON.stringify(saved[1]?.content), /Answered after the input ended/);
  });
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`rpc: ${signal} aborts the run, saves the partial answer and exits with 128 + n`, async () => {
    await withFixture(async (fixture) => {
      const { server, home } = fixture;
      const client = start(fixture);
      server.enqueue(stalledReply("HALF-DONE"));
      await client.ok({ type: "prompt", message: "Go on forever" });
      await client.next(
        (r) => r.type === "content_delta" && r.text.includes("HALF"),
        "the partial text",
      );
      client.kill(signal);
      const { code } = await client.exit(10_000);
      assert.equal(code, signal === "SIGTERM" ? 143 : 130);
      const saved = await savedMessages(home);
      assert.equal(saved.at(-1)?.stopReason, "aborted");
      assert.match(JSON.stringify(saved.at(-1)?.content), /HALF-DONE/);
    });
  });
}

Deno.test("rpc: a client that closes stdout ends panto with 141, the answer saved as aborted", async () => {
  await withFixture(async (fixture) => {
    const { server, home } = fixture;
    const client = start(fixture);
    server.enqueue({ kind: "long", deltas: Infinity });
    await client.ok({ type: "prompt", message: "Count forever" });
    await client.nextEvent("content_delta");
    await client.closeOutput();
    const { code } = await client.exit(10_000);
    assert.equal(code, 141);
    const saved = await savedMessages(home);
    assert.equal(saved.at(-1)?.stopReason, "aborted");
    assert.match(JSON.stringify(saved.at(-1)?.content), /line 0\\n/);
  });
});

/** An extension that says hello and offers a `shout` tool. */
const EXTENSION = `export default (panto) => {
  panto.notify("shout extension ready in " + panto.mode + " mode");
  panto.registerTool({
    decl: {
      name: "shout",
      description: "Upper-cases text",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    },
    execute: (args) => [{ type: "text", text: args.text.toUpperCase() }],
  });
};
`;

Deno.test("rpc: an extension's notice and tool, a shell command, an image, a name, and forks", async () => {
  await withFixture(async (fixture) => {
    const { server, home } = fixture;
    const extension = join(home, "shout.js");
    await Deno.writeTextFile(extension, EXTENSION);
    const client = start(fixture, ["-e", extension]);
    const ready = await client.nextEvent("notice");
    assert.deepEqual([ready.level, ready.text], ["info", "shout extension ready in rpc mode"]);
    server.enqueue(
      {
        kind: "turn",
        blocks: [{ type: "tool_use", id: "s1", name: "shout", input: { text: "hey" } }],
      },
      textReply("Shouted."),
    );
    await client.ok({ type: "prompt", message: "Shout hey" });
    const shouted = await client.nextEvent("tool_dispatch_complete");
    assert.deepEqual(shouted.result, [{ type: "text", text: "HEY" }]);
    assert.equal((await runEnd(client)).status, "done");
    const shell = await client.ok({ type: "bash", command: "echo SHELL-OUT" });
    assert.equal(shell?.failed, false);
    assert.match(shell?.output, /SHELL-OUT/);
    server.enqueue(textReply("A picture."));
    // A 1x1 PNG, sent the way pi's clients name its type.
    const image = { data: ONE_PIXEL_PNG, mimeType: "image/png" };
    await client.ok({ type: "prompt", message: "What is this?", images: [image] });
    assert.equal((await runEnd(client)).status, "done");
    assert.match(requestMessages(server, 2), /data:image\/png;base64,/);
    assert.match(
      requestMessages(server, 2),
      /echo SHELL-OUT.*SHELL-OUT/,
      "the output went with the prompt",
    );

    const named = await client.ok({ type: "set_session_name", name: "pictures" });
    assert.deepEqual(named, { name: "pictures", pending: false });
    const before = (await client.ok({ type: "get_state" }))?.messageCount;
    assert.ok(before >= 7, "system prompt, two questions, the tool call and result, two answers");
    const forked = await client.ok({ type: "fork" });
    const state = await client.ok({ type: "get_state" });
    assert.equal(state?.sessionId, forked?.sessionId);
    assert.equal(state?.messageCount, before, "the whole conversation");
    assert.equal(state?.sessionName, undefined, "the name stays with the original");
    // Up to the first question: the new session ends with the prompt, unanswered (offered again).
    const atQuestion = await client.ok({ type: "fork", messageIndex: 2 });
    const forkedAgain = await client.ok({ type: "get_state" });
    assert.equal(forkedAgain?.sessionId, atQuestion?.sessionId);
    assert.equal(forkedAgain?.messageCount, 1, "the system prompt");
    assert.equal(forkedAgain?.danglingPrompt, "Shout hey", "the question waits, unanswered");
    const outOfRange = await client.request({ type: "fork", messageIndex: 99 });
    assert.equal(outOfRange.success, false);
    assert.match(outOfRange.error, /99/);
    await client.closeInput();
    assert.equal((await client.exit()).code, 0);
  });
});

Deno.test("rpc: models listed without keys, cycled and re-leveled; a compaction aborted, then done", async () => {
  await withFixture(async (fixture) => {
    const { server } = fixture;
    const client = start(fixture, ["--thinking", "low"]);
    const { models } = (await client.ok({ type: "get_available_models" }))!;
    assert.deepEqual(models.map((m: RpcRecord) => [m.alias, m.model]), [
      ["fast", "fast-model"],
      ["smart", "smart-model"],
    ]);
    assert.ok(models.every((m: RpcRecord) => !("apiKey" in m) && !("headers" in m)));
    const cycled = await client.ok({ type: "cycle_model" });
    assert.deepEqual([cycled?.alias, cycled?.reasoning], ["smart", "low"]);
    const leveled = await client.ok({ type: "set_thinking_level", level: "high" });
    assert.deepEqual([leveled?.alias, leveled?.reasoning], ["smart", "high"]);
    const back = await client.ok({ type: "cycle_model", direction: -1 });
    assert.equal(back?.alias, "fast");

    // A line over 64 MiB is skipped (not kept) with an error response; the next line is read.
    await client.writeRaw(`{"type":"prompt","message":"${"x".repeat(65 * 1024 * 1024)}"}\n`);
    const tooLong = await client.next((r) => r.type === "response" && !r.success, "the refusal");
    assert.equal(tooLong.command, undefined);
    assert.match(
      tooLong.error,
      /^the line is 65 MiB, over the limit of 64 MiB: send smaller images \(each at most 10 MiB\)$/,
    );
    assert.equal((await client.ok({ type: "get_state" }))?.busy, false);

    server.enqueue(textReply("First answer."), textReply("Second answer."));
    for (const message of ["one", "two"]) {
      await client.ok({ type: "prompt", message });
      assert.equal((await runEnd(client)).status, "done");
    }
    // The summarising request stalls; abort reaches it while `compact` waits for its answer.
    server.enqueue(stalledReply("SUMMARY-START"));
    const compacting = client.request({ type: "compact", instructions: "keep the numbers" });
    await client.nextEvent("compaction_start");
    await client.ok({ type: "abort" });
    const aborted = await compacting;
    assert.deepEqual([aborted.success, aborted.error], [false, "Compaction was aborted"]);
    assert.ok((await client.nextEvent("compaction_end")).failure);
    assert.match(requestMessages(server, 2), /keep the numbers/);

    // Nothing is kept verbatim: the earlier run and the start of the last one are summarised.
    server.enqueue(textReply("The user said one."), textReply("Then two."));
    const { result } = (await client.ok({ type: "compact" }))!;
    assert.match(result.summary, /The user said one\.[\s\S]*Then two\./);
    assert.equal((await client.nextEvent("compaction_end")).result.summary, result.summary);
    const state = await client.ok({ type: "get_state" });
    assert.equal(state?.activity, "idle");
    await client.closeInput();
    assert.equal((await client.exit()).code, 0);
  }, { compaction: { keepRecentTokens: 0 } });
});

Deno.test("rpc: a prompt of /template args sends the filled-in template, as the chat does", async () => {
  await withFixture(async (fixture) => {
    const { server, home } = fixture;
    await Deno.mkdir(join(home, "prompts"));
    await Deno.writeTextFile(join(home, "prompts", "fix.md"), "Fix issue #$1 in ${2:-everything}.");
    const client = start(fixture);
    server.enqueue(textReply("fixed"));
    await client.ok({ type: "prompt", message: "/fix 7" });
    assert.equal((await runEnd(client)).status, "done");
    assert.match(requestMessages(server, 0), /Fix issue #7 in everything\./);
    await client.closeInput();
    assert.equal((await client.exit()).code, 0);
  });
});
