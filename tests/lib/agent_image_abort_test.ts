/**
 * An abort while the agent resizes an image (a tool's or the user's) stops
 * the resize and ends the run as aborted, the image replaced by a note.
 */
import assert from "node:assert/strict";
import { Agent, type Config, type ContentBlock, ResultParts } from "@panto/lib";
import { FakeLlmServer } from "../support/fake_llm_server.ts";
import { craftPng } from "../support/crafted_png.ts";

const NOTE = "[image omitted: the run was aborted while it was being resized]";

function openai(server: FakeLlmServer): Config {
  return {
    provider: {
      api: "openai-chat",
      baseUrl: server.openaiBaseUrl,
      model: "gpt-b",
      reasoning: "off",
    },
  };
}

/** Allowed but slow to resize: a 16-bit RGBA PNG just under its pixel bound. */
function slowImage(): Promise<Uint8Array> {
  return craftPng({ width: 2896, height: 2896, depth: 16 });
}

Deno.test("an abort while a tool's image is resized ends the run as aborted, the image a note", async () => {
  const server = await FakeLlmServer.start();
  try {
    server.enqueue({
      kind: "turn",
      blocks: [{ type: "tool_use", id: "c1", name: "shot", input: {} }],
    });
    const image = await slowImage();
    const controller = new AbortController();
    const agent = new Agent({ config: openai(server) });
    agent.registerTool({
      decl: { name: "shot", description: "Screenshot", inputSchema: { type: "object" } },
      execute: () => {
        // Once the result is handed back, i.e. while it is being resized.
        setTimeout(() => controller.abort(), 0);
        return ResultParts.image(image, "image/png");
      },
    });
    const started = performance.now();
    const stream = agent.run("look", { signal: controller.signal });
    for await (const _ of stream) { /* consume */ }
    console.log(`run ended ${(performance.now() - started).toFixed(0)} ms after it started`);
    assert.equal(stream.state, "aborted");
    const results = agent.conversation.messages[2]?.content[0];
    assert.ok(results?.type === "tool_result", JSON.stringify(agent.conversation.messages));
    assert.deepEqual(results.content, [{ type: "text", text: NOTE }]);
    assert.equal(server.requests.length, 1, "no request is sent after the abort");
  } finally {
    await server.close();
  }
});

Deno.test("an abort while a user's image is resized ends the run as aborted, the text kept", async () => {
  const server = await FakeLlmServer.start();
  try {
    const data = (await slowImage()).toBase64();
    const controller = new AbortController();
    const agent = new Agent({ config: openai(server) });
    const stream = agent.run(
      { text: "what is this?", images: [{ type: "image", mediaType: "image/png", data }] },
      { signal: controller.signal },
    );
    controller.abort();
    for await (const _ of stream) { /* consume */ }
    assert.equal(stream.state, "aborted");
    const expected: ContentBlock[] = [
      { type: "text", text: "what is this?" },
      { type: "text", text: NOTE },
    ];
    assert.deepEqual(agent.conversation.messages[0]?.content, expected);
    assert.equal(server.requests.length, 0);
  } finally {
    await server.close();
  }
});
