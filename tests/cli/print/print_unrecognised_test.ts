/**
 * `panto -p` and an answer the provider's stream holds in forms panto does
 * not know (a newer API): an unknown block type or stop reason is named on
 * stderr, and an answer that shows nothing because of it exits 1.
 */
import assert from "node:assert/strict";
import { withFakeHome } from "../../support/fake_config.ts";
import type { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { runPanto } from "../../support/run_panto.ts";

/** An Anthropic stream of `blocks` (as the server sends them) ending with `stopReason`. */
function anthropicSse(blocks: Record<string, unknown>[], stopReason: string): string {
  const event = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  return [
    event("message_start", {
      message: { id: "msg_1", role: "assistant", usage: { input_tokens: 3, output_tokens: 0 } },
    }),
    ...blocks.flatMap((block, index) => [
      event("content_block_start", { index, content_block: block }),
      event("content_block_stop", { index }),
    ]),
    event("message_delta", { delta: { stop_reason: stopReason }, usage: { output_tokens: 5 } }),
    event("message_stop", {}),
  ].join("");
}

/** Runs `panto -p hi` with the `smart` model (the fake server's Anthropic endpoint). */
async function ask(server: FakeLlmServer, home: string, body: string) {
  server.enqueue({ kind: "sse", body });
  return await runPanto(["-p", "hi", "-m", "smart"], { env: { PANTO_HOME: home } });
}

Deno.test("panto -p: an answer of an unknown block type and stop reason warns and exits 1", async () => {
  await withFakeHome(async (server, home) => {
    const run = await ask(
      server,
      home,
      anthropicSse([{ type: "hologram", frames: 3 }], "stopped_by_quantum_event"),
    );
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /block type "hologram"/);
    assert.match(run.stderr, /stop reason "stopped_by_quantum_event"/);
    assert.match(run.stderr, /nothing panto can show/);
  });
});

Deno.test("panto -p: an unknown finish_reason with no text exits 1 (OpenAI protocol)", async () => {
  await withFakeHome(async (server, home) => {
    const chunk = (choice: Record<string, unknown>) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, ...choice }] })}\n\n`;
    server.enqueue({
      kind: "sse",
      body: chunk({ delta: { role: "assistant" } }) +
        chunk({ delta: {}, finish_reason: "new_reason" }) + "data: [DONE]\n\n",
    });
    const run = await runPanto(["-p", "hi"], { env: { PANTO_HOME: home } });
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /finish_reason "new_reason"/);
  });
});

Deno.test("panto -p: text with an unknown stop reason is printed, with a warning, exit 0", async () => {
  await withFakeHome(async (server, home) => {
    const run = await ask(
      server,
      home,
      anthropicSse([{ type: "text", text: "Hello there." }], "stopped_by_quantum_event"),
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "Hello there.\n");
    assert.match(run.stderr, /warning: .*stop reason "stopped_by_quantum_event"/);
  });
});

Deno.test("panto -p: server-tool blocks are left out without a warning", async () => {
  await withFakeHome(async (server, home) => {
    const run = await ask(
      server,
      home,
      anthropicSse([
        { type: "server_tool_use", id: "s1", name: "web_search", input: {} },
        { type: "web_search_tool_result", tool_use_id: "s1", content: [] },
        { type: "text", text: "Found it." },
      ], "end_turn"),
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "Found it.\n");
    assert.doesNotMatch(run.stderr, /warning/);
  });
});
