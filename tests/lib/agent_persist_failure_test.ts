import assert from "node:assert/strict";
import fc from "fast-check";
import {
  Agent,
  type Config,
  type Message,
  type PersistentMessage,
  ResultParts,
  scriptedProvider,
  type ScriptedReply,
  type Session,
  SessionInUseError,
  type SessionStore,
  SessionStoreError,
} from "@panto/lib";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import { SQLiteStore } from "@panto/lib/sqlite";
import { MemoryStore } from "../support/memory_store.ts";
import { drain } from "../support/agent_fixtures.ts";

const CONFIG: Config = {
  provider: { api: "openai-chat", baseUrl: "http://localhost:1/v1", model: "m", reasoning: "off" },
};

/** A store whose appends fail when `failNext` says so: the write is refused, nothing stored. */
class FlakyStore extends MemoryStore {
  failNext: () => boolean = () => false;
  override appendMessages(
    sessionId: string,
    messages: readonly PersistentMessage[],
  ): Promise<void> {
    if (this.failNext()) {
      return Promise.reject(
        new SessionStoreError("Could not save the session to flaky: disk full"),
      );
    }
    return super.appendMessages(sessionId, messages);
  }
}

/** What the store holds on the session's active path (every message, unanswered prompts too). */
async function storedPath(store: MemoryStore, session: Session): Promise<Message[]> {
  if (!session.persisted) return (await session.load()).messages;
  return (await store.load(session.id))?.messages ?? [];
}

/** Drains a run, which may fail; a failure must be the store's or the exhausted script's. */
async function runToEnd(stream: AsyncIterable<unknown>): Promise<void> {
  try {
    for await (const _ of stream);
  } catch (error) {
    const expected = error instanceof SessionStoreError ||
      (error instanceof Error && error.message.startsWith("scriptedProvider"));
    if (!expected) throw error;
  }
}

Deno.test("memory equals the store after every run, whatever appends fail", async () => {
  const reply = fc.constantFrom<"text" | "tool">("text", "tool");
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(reply, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 }),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 40 }),
      async (runs, failures) => {
        const store = new FlakyStore();
        let writes = 0;
        store.failNext = () => failures[writes++ % failures.length] === true;
        const session = store.create();
        let call = 0;
        const replies: ScriptedReply[] = runs.flat().map((kind) =>
          kind === "text"
            ? `answer ${++call}`
            : [{ type: "tool_use", id: `c${++call}`, name: "t", input: {} }]
        );
        const agent = new Agent({ config: CONFIG, session, provider: scriptedProvider(replies) });
        agent.registerTool({
          decl: { name: "t", description: "t", inputSchema: { type: "object" } },
          execute: () => ResultParts.fromText("ok"),
        });
        for (const [index] of runs.entries()) {
          await runToEnd(agent.run(`prompt ${index}`));
          assert.deepEqual(agent.conversation.messages, await storedPath(store, session));
        }
      },
    ),
    { numRuns: 60 },
  );
});

Deno.test("a failed save takes the unsaved answer back out of memory", async () => {
  const store = new FlakyStore();
  const session = store.create();
  const provider = scriptedProvider(["first", "second"]);
  const agent = new Agent({ config: CONFIG, session, provider });
  let failing = true;
  store.failNext = () => failing;
  await assert.rejects(() => drain(agent.run("one")), /disk full/);
  // Nothing was written: the prompt stays buffered in the new session, as in memory.
  assert.deepEqual(agent.conversation.messages.map((m) => m.role), ["user"]);
  assert.deepEqual(agent.conversation.messages, (await session.load()).messages);
  failing = false;
  await drain(agent.run("two"));
  assert.deepEqual(agent.conversation.messages, await storedPath(store, session));
  // The unsaved answer "first" was never sent back to the model.
  const sent = JSON.stringify(provider.requests[1]?.messages);
  assert.ok(!sent.includes("first"), sent);
});

const OPENERS: Record<string, (dir: string) => SessionStore> = {
  jsonl: (dir) => new FileSystemJSONLStore({ dir }),
  sqlite: (dir) => new SQLiteStore({ path: `${dir}/sessions.db` }),
};

for (const [kind, open] of Object.entries(OPENERS)) {
  Deno.test(`${kind}: continue() on a session another writer holds fails before any model request`, async () => {
    const dir = await Deno.makeTempDir();
    const holder = open(dir);
    const other = open(dir);
    try {
      const held = holder.create();
      const first = new Agent({
        config: CONFIG,
        session: held,
        provider: scriptedProvider(["hello"]),
      });
      await drain(first.run("hi"));
      // The holder's next prompt is stored and its turn runs: the session is held.
      const prompt = first.conversation.addUserMessage("still working");
      await held.append([{ message: prompt, conversation: [prompt], toolsAvailable: [] }]);

      const session = (await other.resolve(held.id))!;
      const { conversation, danglingUser } = await session.loadWithDangling();
      conversation.messages.push(danglingUser!);
      const provider = scriptedProvider(["never"]);
      const agent = new Agent({ config: CONFIG, session, conversation, provider });
      const before = structuredClone(agent.conversation.messages);
      await assert.rejects(() => drain(agent.continue()), SessionInUseError);
      assert.equal(
        provider.requests.length,
        0,
        "no tokens spent on an answer that cannot be saved",
      );
      assert.deepEqual(agent.conversation.messages, before);

      // run() on the held session: the prompt is refused, and not kept in memory.
      await assert.rejects(() => drain(agent.run("me too")), SessionInUseError);
      assert.equal(provider.requests.length, 0);
      assert.deepEqual(agent.conversation.messages, before);
    } finally {
      await holder.close();
      await other.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
