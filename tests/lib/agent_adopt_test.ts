import assert from "node:assert/strict";
import { Agent, type Config, messageText, ResultParts, scriptedProvider } from "@panto/lib";
import { SQLiteStore } from "@panto/lib/sqlite";

const CONFIG: Config = {
  provider: { api: "openai-chat", baseUrl: "http://localhost:1/v1", model: "m", reasoning: "off" },
};

function texts(messages: readonly { role: string; content: unknown[] }[]): string[] {
  return messages.map((m) => messageText(m as Parameters<typeof messageText>[0]));
}

Deno.test("adopt(conversation) continues a branch with the same tools and hooks", async () => {
  const store = new SQLiteStore({ path: ":memory:" });
  try {
    const session = store.create();
    const provider = scriptedProvider([
      "a1",
      "a2",
      [{ type: "tool_use", id: "c1", name: "now", input: {} }],
      "a3",
    ]);
    let hooked = 0;
    const agent = new Agent({
      config: CONFIG,
      session,
      provider,
      hooks: { afterToolCall: () => void hooked++ },
    });
    agent.registerTool({
      decl: { name: "now", description: "now", inputSchema: { type: "object" } },
      execute: () => ResultParts.fromText("noon"),
    });
    for await (const _ of agent.run("q1"));
    for await (const _ of agent.run("q2"));
    const { path } = await session.tree();
    const branch = await session.branchFrom(path[1]!); // after a1
    await agent.adopt(branch.conversation);
    for await (const _ of agent.run("q2 again"));
    assert.deepEqual(texts(agent.conversation.messages), ["q1", "a1", "q2 again", "", "", "a3"]);
    assert.equal(hooked, 1, "the hooks went on");
    // What the agent holds is what is stored on the new branch.
    assert.deepEqual(agent.conversation.messages, (await store.load(session.id))?.messages);
    assert.deepEqual(texts(provider.requests[2]!.messages), ["q1", "a1", "q2 again"]);
  } finally {
    await store.close();
  }
});

Deno.test("adopt(session) switches to another session and loads it", async () => {
  const store = new SQLiteStore({ path: ":memory:" });
  try {
    const first = store.create();
    const agent = new Agent({
      config: CONFIG,
      session: first,
      provider: scriptedProvider(["a1", "b1"]),
    });
    for await (const _ of agent.run("q1"));
    const second = store.create();
    await agent.adopt(second);
    assert.equal(agent.sessionId, second.id);
    assert.deepEqual(agent.conversation.messages, []);
    for await (const _ of agent.run("other"));
    assert.deepEqual(texts((await store.load(second.id))!.messages), ["other", "b1"]);
    assert.equal(
      (await store.load(first.id))!.messages.length,
      2,
      "the first session is untouched",
    );
  } finally {
    await store.close();
  }
});

Deno.test("session.replaceConversation takes the conversation's messages", async () => {
  const store = new SQLiteStore({ path: ":memory:" });
  try {
    const session = store.create();
    const agent = new Agent({ config: CONFIG, session, provider: scriptedProvider(["a1", "a2"]) });
    for await (const _ of agent.run("q1"));
    for await (const _ of agent.run("q2"));
    agent.conversation.messages.splice(0, 2); // surgery: drop the first exchange
    await session.replaceConversation(agent.conversation.messages);
    assert.deepEqual((await session.load()).messages, agent.conversation.messages);
    assert.deepEqual(texts((await store.load(session.id))!.messages), ["q2", "a2"]);
  } finally {
    await store.close();
  }
});
