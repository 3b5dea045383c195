/**
 * What the agent sends after a model switch mid-session, images from tools
 * downsized before they are sent, and how a user message is laid out.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { imageSize } from "image-size";
import { PNG } from "pngjs";
import { Agent, type Config, ResultParts, scriptedProvider } from "@panto/lib";
import { FakeLlmServer } from "../support/fake_llm_server.ts";

function anthropic(server: FakeLlmServer): Config {
  return {
    provider: {
      api: "anthropic-messages",
      baseUrl: server.anthropicBaseUrl,
      model: "claude-a",
      reasoning: "high",
    },
  };
}

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

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream) { /* consume */ }
}

Deno.test("switching from Anthropic to OpenAI mid-session replays history the new provider accepts", async () => {
  const server = await FakeLlmServer.start();
  try {
    server.enqueue({
      kind: "turn",
      blocks: [
        { type: "thinking", thinking: "Deliberating about colours.", signature: "sig-xyz" },
        { type: "tool_use", id: "toolu_01.with:odd", name: "pick", input: {} },
      ],
    });
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Blue." }] });
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Still blue." }] });
    const agent = new Agent({ config: anthropic(server) });
    agent.registerTool({
      decl: { name: "pick", description: "Pick", inputSchema: { type: "object" } },
      execute: () => ResultParts.fromText("blue"),
    });
    await drain(agent.run("favourite colour?"));
    const second = JSON.stringify(server.requests[1]!.body);
    assert.match(second, /"signature":"sig-xyz"/, "the same model gets its signed thinking back");

    agent.setConfig(openai(server));
    await drain(agent.run("sure?"));
    const body = server.requests[2]!.body as {
      messages: {
        role: string;
        content: unknown;
        tool_calls?: { id: string }[];
        tool_call_id?: string;
      }[];
    };
    const text = JSON.stringify(body);
    assert.ok(!text.includes("sig-xyz"), "no signature is sent to another provider");
    assert.match(text, /Deliberating about colours\./, "the thinking is kept as text");
    const call = body.messages.find((m) => m.tool_calls)?.tool_calls?.[0];
    const result = body.messages.find((m) => m.role === "tool");
    assert.ok(call && result);
    assert.match(call.id, /^[A-Za-z0-9_-]+$/);
    assert.equal(result.tool_call_id, call.id, "the result still answers its call");
  } finally {
    await server.close();
  }
});

Deno.test("an image a tool returns is downsized before it is stored and sent", async () => {
  const server = await FakeLlmServer.start();
  try {
    const png: Uint8Array = PNG.sync.write({
      width: 3000,
      height: 1000,
      data: new Uint8Array(3000 * 1000 * 4).fill(200),
    });
    server.enqueue({
      kind: "turn",
      blocks: [{ type: "tool_use", id: "c1", name: "shot", input: {} }],
    });
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "I see a grey rectangle." }] });
    const agent = new Agent({ config: { ...anthropic(server), imageMaxSide: 1500 } });
    agent.registerTool({
      decl: { name: "shot", description: "Screenshot", inputSchema: { type: "object" } },
      execute: () => ResultParts.image(png, "image/png"),
    });
    await drain(agent.run("look"));
    const stored = agent.conversation.messages[2]!.content[0];
    assert.ok(stored?.type === "tool_result" && stored.content[0]?.type === "image");
    const size = imageSize(Buffer.from(stored.content[0].data, "base64"));
    assert.deepEqual([size.width, size.height], [1500, 500]);
    const sent = JSON.stringify(server.requests[1]!.body);
    assert.ok(sent.includes(stored.content[0].data), "the downsized image is what was sent");
  } finally {
    await server.close();
  }
});

Deno.test("a user message is stored as its text, its images, then its attachments, images downsized", async () => {
  const pixel = {
    type: "image",
    mediaType: "image/png",
    data:
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  } as const;
  const wide = PNG.sync.write({
    width: 3000,
    height: 1000,
    data: new Uint8Array(3000 * 1000 * 4).fill(200),
  });
  const agent = new Agent({
    config: {
      provider: { api: "scripted", baseUrl: "http://127.0.0.1:9", model: "s", reasoning: "off" },
      imageMaxSide: 1500,
    },
    provider: scriptedProvider(["Seen."]),
  });
  await drain(agent.run({
    text: "compare @wide.png",
    images: [pixel],
    attachments: [
      { type: "text", text: '<file path="wide.png">[image]</file>' },
      { type: "image", mediaType: "image/png", data: Buffer.from(wide).toString("base64") },
    ],
  }));
  const [typed, pasted, label, attached] = agent.conversation.messages[0]!.content;
  assert.deepEqual([typed, pasted, label], [
    { type: "text", text: "compare @wide.png" },
    pixel,
    { type: "text", text: '<file path="wide.png">[image]</file>' },
  ]);
  assert.ok(attached?.type === "image");
  const size = imageSize(Buffer.from(attached.data, "base64"));
  assert.deepEqual([size.width, size.height], [1500, 500]);
});
