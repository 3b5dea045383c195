/**
 * `panto --mode rpc` as a subprocess: a prompt aborted before any answer is
 * not sent again with the next prompt (`get_state` offers it as
 * `danglingPrompt`); a `bash` command does not see the `--api-key-env` key.
 */
import assert from "node:assert/strict";
import { writeFakeConfig } from "../../support/fake_config.ts";
import { FakeLlmServer, type FakeReply } from "../../support/fake_llm_server.ts";
import { requestMessages, textReply } from "../../support/fake_replies.ts";
import { RpcClient } from "./rpc_client.ts";

/** A reply that sends nothing at all until the client leaves. */
const SILENT: FakeReply = { kind: "stall", afterBytes: 0, source: { kind: "sse", body: "" } };

/** Generous: the machine may be busy. */
const TIMEOUT_MS = 60_000;

async function withRpc(
  args: readonly string[],
  env: Record<string, string>,
  body: (client: RpcClient, server: FakeLlmServer) => Promise<void>,
): Promise<void> {
  const server = await FakeLlmServer.start();
  const home = await Deno.makeTempDir({ prefix: "panto-rpc-home-" });
  const project = await Deno.makeTempDir({ prefix: "panto-rpc-project-" });
  try {
    await writeFakeConfig(home, server, { retry: { maxRetries: 0 } });
    const client = RpcClient.start({ home, cwd: project, args, env });
    let exited: { code: number; stderr: string } | undefined;
    try {
      await body(client, server);
    } finally {
      // Also after a failure: the process must be gone before the next test.
      await client.closeInput().catch(() => {});
      exited = await client.exit(TIMEOUT_MS);
    }
    assert.equal(exited.code, 0, exited.stderr);
  } finally {
    await server.close();
    await Deno.remove(home, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
}

Deno.test("rpc: a prompt aborted before any answer is not sent with the next prompt", async () => {
  await withRpc([], {}, async (client, server) => {
    server.enqueue(textReply("Hello."));
    await client.ok({ type: "prompt", message: "hi" });
    assert.equal((await client.nextEvent("run_end", TIMEOUT_MS)).status, "done");

    server.enqueue(SILENT);
    await client.ok({ type: "prompt", message: "hang DELETE EVERYTHING" });
    await client.nextEvent("message_start", TIMEOUT_MS);
    const deadline = Date.now() + TIMEOUT_MS;
    while (server.requests.length < 2) {
      assert.ok(Date.now() < deadline, "the request reached the server");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await client.ok({ type: "abort" });
    assert.equal((await client.nextEvent("run_end", TIMEOUT_MS)).status, "aborted");
    const state = await client.ok({ type: "get_state" });
    assert.equal(state?.danglingPrompt, "hang DELETE EVERYTHING");

    server.enqueue(textReply("4"));
    await client.ok({ type: "prompt", message: "what is 2+2" });
    assert.equal((await client.nextEvent("run_end", TIMEOUT_MS)).status, "done");
    const sent = requestMessages(server, 2);
    assert.doesNotMatch(sent, /DELETE EVERYTHING/);
    assert.match(sent, /Hello\./);
    assert.match(sent, /what is 2\+2/);
    // The session keeps it as the user's message.
    const messages = await client.ok({ type: "get_messages" });
    assert.match(JSON.stringify(messages), /hang DELETE EVERYTHING/);
  });
});

Deno.test("rpc: a bash command does not see the --api-key-env key", async () => {
  const key = "sk-test-WITHHELD-from-rpc-bash";
  await withRpc(["--api-key-env", "MY_KEY"], { MY_KEY: key }, async (client) => {
    const result = await client.ok({ type: "bash", command: "env" });
    assert.equal(result?.failed, false);
    assert.match(result?.output, /PANTO_HOME=/, "the environment was printed");
    assert.ok(!result?.output.includes(key), "the key's value is withheld");
    assert.doesNotMatch(result?.output, /^MY_KEY=/m);
  });
});
