import assert from "node:assert/strict";
import { ProviderError } from "@panto/lib";
import { streamAnthropicMessages } from "../../../lib/providers/anthropic_messages.ts";
import { streamOpenAIChat } from "../../../lib/providers/openai_chat.ts";
import { drainProviderStream } from "../../support/provider_stream.ts";
import { withFakeServer } from "../../support/fake_llm_server.ts";

const KEY = "ABCD-plain-looking-key-9999";

Deno.test("a mid-stream error that echoes the request's key is scrubbed, for both providers", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({
      kind: "sse",
      body:
        `event: error\ndata: {"type":"error","error":{"type":"invalid_request_error","message":"key ${KEY} is not allowed"}}\n\n`,
    });
    server.enqueue({
      kind: "sse",
      body: `data: {"error":{"message":"key ${KEY} is not allowed","code":400}}\n\n`,
    });
    const common = { reasoning: "off" as const, model: "m", apiKey: KEY };
    const runs = [
      streamAnthropicMessages({
        config: { ...common, api: "anthropic-messages", baseUrl: server.anthropicBaseUrl },
        system: "",
        messages: [{ role: "user", content: [{ type: "text", text: "hi" }], timestamp: "" }],
        tools: [],
        signal: new AbortController().signal,
        idleTimeoutMs: 5000,
      }),
      streamOpenAIChat({
        config: { ...common, api: "openai-chat", baseUrl: server.openaiBaseUrl },
        system: "",
        messages: [{ role: "user", content: [{ type: "text", text: "hi" }], timestamp: "" }],
        tools: [],
        signal: new AbortController().signal,
        idleTimeoutMs: 5000,
      }),
    ];
    for (const run of runs) {
      const error = await drainProviderStream(run).then(() => null, (e) => e);
      assert.ok(error instanceof ProviderError, String(error));
      assert.match(error.message, /is not allowed/);
      assert.ok(!error.message.includes(KEY), error.message);
      assert.ok(!String(error.stack).includes(KEY));
    }
  });
});
