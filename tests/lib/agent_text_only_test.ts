/**
 * A model that takes text only (`ProviderConfig.input` without `"image"`)
 * never receives an image: the user's and a tool's become a note.
 */
import assert from "node:assert/strict";
import { Agent, ResultParts } from "@panto/lib";
import { FakeLlmServer } from "../support/fake_llm_server.ts";

const PIXEL =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

Deno.test("Agent: a text-only model gets a note in place of the user's image and a tool's image", async () => {
  const server = await FakeLlmServer.start();
  try {
    server.enqueue(
      { kind: "turn", blocks: [{ type: "tool_use", id: "c1", name: "shot", input: {} }] },
      { kind: "turn", blocks: [{ type: "text", text: "done" }] },
    );
    const agent = new Agent({
      config: {
        provider: {
          api: "openai-chat",
          baseUrl: server.openaiBaseUrl,
          model: "text-model",
          reasoning: "off",
          input: ["text"],
        },
      },
    });
    agent.registerTool({
      decl: { name: "shot", description: "Screenshot", inputSchema: { type: "object" } },
      execute: () => ResultParts.image(PIXEL, "image/png"),
    });
    const run = agent.run({
      text: "what is this?",
      images: [{ type: "image", mediaType: "image/png", data: PIXEL }],
    });
    for await (const _ of run);
    assert.equal(run.state, "done");
    for (const request of server.requests) {
      const body = JSON.stringify(request.body);
      assert.ok(!body.includes(PIXEL), "an image reached the text-only model");
      assert.match(body, /\[image omitted: text-model takes text only\]/);
    }
    assert.equal(server.requests.length, 2);
  } finally {
    await server.close();
  }
});
