/**
 * Approvals in `panto --mode rpc` as a real subprocess against the fake LLM
 * server: an `approval_request` event with the change a write would make,
 * answered with `approval_response` (allow, always, reject with a reason),
 * and closed by an abort.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { writeFakeConfig } from "../../support/fake_config.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { requestMessages, textReply, toolCallReply } from "../../support/fake_replies.ts";
import { RpcClient } from "./rpc_client.ts";

Deno.test("rpc: the client approves and rejects calls of tools.requireApproval", async () => {
  const server = await FakeLlmServer.start();
  const home = await Deno.makeTempDir({ prefix: "panto-rpc-home-" });
  const project = await Deno.makeTempDir({ prefix: "panto-rpc-project-" });
  const notes = join(project, "notes.txt");
  try {
    await writeFakeConfig(home, server, {
      retry: { maxRetries: 0 },
      tools: { requireApproval: ["write", "bash"] },
    });
    await Deno.writeTextFile(notes, "alpha\n");
    const client = RpcClient.start({ home, cwd: project });

    // Allowed once: the request shows the diff before anything is written.
    server.enqueue(
      toolCallReply("call_1", "write", { path: "notes.txt", content: "alpha\nbeta\n" }),
      textReply("Wrote it."),
    );
    await client.ok({ type: "prompt", message: "add beta" });
    const request = await client.nextEvent("approval_request");
    assert.equal(request.requestId, "approval-1");
    assert.deepEqual(request.toolCall, {
      id: "call_1",
      name: "write",
      input: { path: "notes.txt", content: "alpha\nbeta\n" },
    });
    assert.deepEqual(request.preview, {
      path: "notes.txt",
      diff: "@@ -1,1 +1,2 @@\n alpha\n+beta",
    });
    assert.deepEqual(request.options.map((o: { optionId: string }) => o.optionId), [
      "allow",
      "always",
      "reject",
    ]);
    assert.equal(request.options[1].name, "Always allow every write call");
    assert.equal(await Deno.readTextFile(notes), "alpha\n", "nothing written before the answer");
    await client.ok({ type: "approval_response", requestId: "approval-1", optionId: "allow" });
    const resolved = await client.nextEvent("approval_resolved");
    assert.deepEqual(resolved, {
      type: "approval_resolved",
      requestId: "approval-1",
      outcome: "allow",
    });
    assert.equal((await client.nextEvent("run_end")).status, "done");
    assert.equal(await Deno.readTextFile(notes), "alpha\nbeta\n");

    // An answer to a question no longer waiting is an error that says why.
    const late = await client.request({
      type: "approval_response",
      requestId: "approval-1",
      optionId: "allow",
    });
    assert.equal(late.success, false);
    assert.match(late.error, /No approval request "approval-1" is waiting/);

    // Rejected with a reason: the file is not written, and the model reads the reason.
    server.enqueue(
      toolCallReply("call_2", "write", { path: "other.txt", content: "x\n" }),
      textReply("Understood."),
    );
    await client.ok({ type: "prompt", message: "make other.txt" });
    const second = await client.nextEvent("approval_request");
    await client.ok({
      type: "approval_response",
      requestId: second.requestId,
      optionId: "reject",
      reason: "keep the project clean",
    });
    assert.equal((await client.nextEvent("approval_resolved")).outcome, "reject");
    assert.equal((await client.nextEvent("run_end")).status, "done");
    await assert.rejects(Deno.stat(join(project, "other.txt")), Deno.errors.NotFound);
    assert.match(
      requestMessages(server, 3),
      /write was denied: the user rejected this call and said: keep the project clean/,
    );

    // Always for a bash program: the next `echo` runs without a question.
    server.enqueue(
      toolCallReply("call_3", "bash", { command: "echo one" }),
      toolCallReply("call_4", "bash", { command: "echo two" }),
      textReply("Both ran."),
    );
    await client.ok({ type: "prompt", message: "echo twice" });
    const third = await client.nextEvent("approval_request");
    assert.equal(third.options[1].name, "Always allow bash commands starting with `echo`");
    await client.ok({ type: "approval_response", requestId: third.requestId, optionId: "always" });
    const bashEnd = await client.nextEvent("run_end");
    assert.equal(bashEnd.status, "done");
    const asked = client.consumed().filter((r) => r.type === "approval_request");
    assert.equal(asked.length, 3, "the second echo was not asked about");
    const denials = requestMessages(server, 6).match(/was denied/g) ?? [];
    assert.equal(denials.length, 1, "only the earlier write was denied: both commands ran");

    // An abort closes the question as cancelled; the run ends aborted.
    server.enqueue(toolCallReply("call_5", "write", { path: "notes.txt", content: "gone\n" }));
    await client.ok({ type: "prompt", message: "overwrite" });
    const fourth = await client.nextEvent("approval_request");
    await client.ok({ type: "abort" });
    const cancelled = await client.nextEvent("approval_resolved");
    assert.deepEqual(cancelled, {
      type: "approval_resolved",
      requestId: fourth.requestId,
      outcome: "cancelled",
    });
    assert.equal((await client.nextEvent("run_end")).status, "aborted");
    assert.equal(await Deno.readTextFile(notes), "alpha\nbeta\n");

    // The end of input while a question waits: nobody can answer, so the call is refused and panto ends.
    server.enqueue(
      toolCallReply("call_6", "write", { path: "notes.txt", content: "late\n" }),
      textReply("Left as it was."),
    );
    await client.ok({ type: "prompt", message: "one more write" });
    const last = await client.nextEvent("approval_request");
    await client.closeInput();
    const closed = await client.nextEvent("approval_resolved");
    assert.deepEqual([closed.requestId, closed.outcome], [last.requestId, "cancelled"]);
    assert.equal((await client.nextEvent("run_end")).status, "done");
    assert.equal((await client.exit()).code, 0);
    assert.equal(await Deno.readTextFile(notes), "alpha\nbeta\n");
    assert.match(
      requestMessages(server, 9),
      /the RPC client's input has ended, so no one can give it/,
    );
  } finally {
    await server.close();
    await Deno.remove(home, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
});
