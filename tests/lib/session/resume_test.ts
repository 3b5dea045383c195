// Resuming through a real store gives the agent back what it had: the
// producer of each assistant message (so signed thinking from the same
// model is sent back as thinking) and the compaction's kept-message count.
import assert from "node:assert/strict";
import { join } from "node:path";
import { Agent, type Config, Conversation, type SessionStore } from "@panto/lib";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import { SQLiteStore } from "@panto/lib/sqlite";
import { drain, fakeServerConfig, textTurn } from "../../support/agent_fixtures.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";

const STORES: Record<string, (dir: string) => SessionStore> = {
  jsonl: (dir) => new FileSystemJSONLStore({ dir }),
  sqlite: (dir) => new SQLiteStore({ path: join(dir, "sessions.db") }),
};

/** Runs `body` against each store kind, with a fresh directory and fake server. */
function eachStore(
  name: string,
  body: (open: () => SessionStore, server: FakeLlmServer, config: Config) => Promise<void>,
): void {
  for (const [kind, make] of Object.entries(STORES)) {
    Deno.test(`${kind}: ${name}`, async () => {
      const dir = await Deno.makeTempDir({ prefix: "panto-resume-" });
      const server = await FakeLlmServer.start();
      try {
        await body(() => make(dir), server, fakeServerConfig(server, "anthropic-messages", "k"));
      } finally {
        await server.close();
        await Deno.remove(dir, { recursive: true });
      }
    });
  }
}

/** A new agent on the store's latest session, as `-c` makes it. */
async function resumeLatest(store: SessionStore, config: Config): Promise<Agent> {
  const session = await store.latest();
  assert.ok(session, "the first run saved a session");
  return new Agent({ config, session, conversation: await session.load() });
}

eachStore(
  "signed thinking from the same model is sent back as thinking",
  async (open, server, config) => {
    server.enqueue({
      kind: "turn",
      blocks: [
        { type: "thinking", thinking: "ponder", signature: "sig-1" },
        { type: "text", text: "first answer" },
      ],
    });
    server.enqueue(textTurn("second answer"));
    const first = open();
    await drain(new Agent({ config, session: first.create() }).run("first"));
    await first.close();

    const store = open();
    try {
      await drain((await resumeLatest(store, config)).run("second"));
    } finally {
      await store.close();
    }
    const body = server.requests[1]!.body as { messages: { role: string; content: unknown }[] };
    const previous = body.messages.find((m) => m.role === "assistant");
    assert.deepStrictEqual(
      (previous?.content as { type: string }[]).map((block) => block.type),
      ["thinking", "text"],
    );
    assert.match(JSON.stringify(previous?.content), /"signature":"sig-1"/);
  },
);

eachStore(
  "a resume after a compaction keeps the kept-message count and sends only the summary and the kept messages",
  async (open, server, config) => {
    server.enqueue(textTurn("SUMMARY of the old questions"));
    server.enqueue(textTurn("after the resume"));
    const history = new Conversation();
    const words = (tag: string) => Array.from({ length: 200 }, (_, i) => `${tag}${i}`).join(" ");
    for (let i = 0; i < 10; i++) {
      history.addUserMessage(`question ${i}: ${words("q")}`);
      history.addAssistantMessage([{ type: "text", text: `answer ${i}: ${words("a")}` }]);
    }
    const first = open();
    const agent = new Agent({
      config: { ...config, compaction: { keepRecentTokens: 500 } },
      session: first.create(),
      conversation: history,
    });
    const result = await agent.compact();
    assert.ok(result && result.keptMessages >= 1);
    await first.close();

    const store = open();
    try {
      const loaded = (await (await store.latest())!.load()).messages;
      const at = loaded.findIndex((m) => m.content[0]?.type === "compaction_summary");
      const block = loaded[at]!.content[0];
      assert.ok(block?.type === "compaction_summary");
      assert.equal(block.keptMessages, result.keptMessages);
      assert.equal(loaded.length - at - 1, result.keptMessages, "the copies follow the summary");
      await drain((await resumeLatest(store, config)).run("and now?"));
    } finally {
      await store.close();
    }
    const next = JSON.stringify(server.requests[1]!.body);
    assert.match(next, /SUMMARY of the old questions/);
    assert.match(next, /question 9:/);
    assert.doesNotMatch(next, /question 0:/);
  },
);
