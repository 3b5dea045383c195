import assert from "node:assert/strict";
import fc from "fast-check";
import {
  AmbiguousSessionIdError,
  InvalidSessionIdError,
  type Message,
  type SavingSessionStore,
  SessionChangedError,
} from "@panto/lib";
import {
  assistant,
  everyKindOfMessage,
  message,
  persistent,
  SECRET_KEY,
  USAGE,
  user,
  WIRE,
} from "./fixtures.ts";
import { anyMessage } from "./message_arbitrary.ts";

/** Sessions the round-trip property writes per store (each append is durable, so not free). */
const PROPERTY_RUNS = 60;

/** A fresh, empty store and a way to dispose of it. */
export interface StoreHarness {
  /** The store under test. */
  store: SavingSessionStore;
  /** Every byte the store keeps (files, database pages, table dumps). */
  dump(): Promise<Uint8Array>;
  /** Removes what the harness created (after `store.close()`). */
  cleanup(): Promise<void>;
}

/** Makes a fresh harness for each step. */
export type StoreFactory = () => Promise<StoreHarness>;

/**
 * The promises every store keeps, as test steps.
 *
 * @param t The test context to add steps to.
 * @param factory Makes an empty store per step.
 */
export async function runConformance(t: Deno.TestContext, factory: StoreFactory): Promise<void> {
  for (const [name, body] of Object.entries(CASES)) {
    await t.step(name, async () => {
      const harness = await factory();
      try {
        await body(harness);
      } finally {
        await harness.store.close();
        await harness.cleanup();
      }
    });
  }
}

const CASES: Record<string, (harness: StoreHarness) => Promise<void>> = {
  "round-trips every block type, usage and both metadata bags": async ({ store }) => {
    const session = store.create({ metadata: '{"side":"conv-1"}', cwd: "/work/project" });
    const messages = everyKindOfMessage();
    await session.append(persistent(...messages.slice(0, 4)));
    await session.append(persistent(...messages.slice(4)));
    const loaded = await store.load(session.id);
    assert.ok(loaded);
    assert.deepStrictEqual(loaded.messages, messages);
    assert.equal(loaded.metadata, '{"side":"conv-1"}');
    const [info] = await store.list();
    assert.ok(info);
    assert.equal(info.id, session.id);
    assert.equal(info.messageCount, messages.length);
    assert.equal(info.lastUserMessage, "Look at this");
    assert.deepStrictEqual(info.wire, WIRE);
    assert.equal(info.cwd, "/work/project");
    const resolved = await store.resolve(session.id);
    assert.deepStrictEqual((await resolved!.load()).messages, messages);
  },

  "load(append(messages)) deep-equals the messages, for any messages": async ({ store }) => {
    await fc.assert(
      fc.asyncProperty(fc.array(anyMessage, { minLength: 1, maxLength: 3 }), async (messages) => {
        const session = store.create();
        await store.appendMessages(session.id, persistent(...messages));
        const loaded = await store.load(session.id);
        assert.deepStrictEqual(loaded?.messages, messages);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  },

  "keeps usage given only on the entry": async ({ store }) => {
    const session = store.create();
    const bare = message("assistant", [{ type: "text", text: "no usage on the message" }]);
    const [entry] = persistent(bare);
    entry!.usage = USAGE;
    await session.append([...persistent(user("q")), entry!]);
    const loaded = await store.load(session.id);
    assert.deepStrictEqual(loaded!.messages[1]!.usage, USAGE);
  },

  "keeps NUL in unknown usage fields exactly, and saves a wire identity holding NUL": async (
    { store },
  ) => {
    const usage = { ...USAGE, "x-future": "a\0b", nested: { "k\0": ["v\0"] } };
    const reply = message("assistant", [{ type: "text", text: "ok" }], { usage });
    const entries = persistent(user("q"), reply);
    entries[1]!.wire = { ...entries[1]!.wire!, model: "model\0name" };
    const session = store.create();
    await session.append(entries);
    const loaded = await store.load(session.id);
    assert.deepStrictEqual(loaded!.messages[1]!.usage, usage);
  },

  "round-trips Unicode exactly and replaces lone surrogates with U+FFFD": async ({ store }) => {
    const texts = [
      "family 👩‍👩‍👧‍👦 flag 🇺🇦 skin 👍🏽",
      "combining: e\u0301 a\u0308\u0304 Z\u0351\u0307\u0327",
      "RTL: مرحبا بالعالم שלום \u202Eevil\u202C",
      "CJK 漢字かなカナ 한국어, zero width \u200B\u200D, BOM \uFEFF",
      "separators \u2028 \u2029 tab\tCR\rLF\nNUL\0 end",
      "astral 𝄞 𠀋 and a literal backslash-u: \\ud800",
    ];
    const session = store.create({ metadata: '{"title":"naïve 🚀"}' });
    await session.append(persistent(...texts.map(user), assistant("ok")));
    const lone = store.create();
    await lone.append(
      persistent(user("half \ud83d of an emoji and \udc00 low"), assistant("x\ud800")),
    );
    const loaded = await store.load(session.id);
    assert.deepStrictEqual(loaded!.messages.slice(0, texts.length).map(textOf), texts);
    assert.equal(loaded!.metadata, '{"title":"naïve 🚀"}');
    const replaced = await store.load(lone.id);
    assert.deepStrictEqual(replaced!.messages.map(textOf), [
      "half \uFFFD of an emoji and \uFFFD low",
      "x\uFFFD",
    ]);
  },

  "round-trips a 5 MB tool result": async ({ store }) => {
    const line = "0123456789 abcdefghijklmnopqrstuvwxyz ÄÖÜ 日本 🙂\n";
    const big = line.repeat(Math.ceil((5 * 1024 * 1024) / line.length));
    const result = message("tool", [{
      type: "tool_result",
      toolUseId: "c1",
      toolName: "cat",
      content: [{ type: "text", text: big }],
      isError: false,
    }]);
    const session = store.create();
    await session.append(persistent(user("cat it"), assistant("sure"), result));
    const loaded = await store.load(session.id);
    const block = loaded!.messages[2]!.content[0];
    assert.ok(block?.type === "tool_result" && block.content[0]?.type === "text");
    assert.equal(block.content[0].text.length, big.length);
    assert.ok(block.content[0].text === big);
  },

  "writes nothing for a new session until its first assistant message": async ({ store }) => {
    const session = store.create();
    await session.append(persistent(user("first")));
    assert.deepStrictEqual(await store.list(), []);
    assert.equal(await store.load(session.id), null);
    assert.equal(await store.resolve(session.id), null);
    assert.equal(session.persisted, false);
    assert.deepStrictEqual((await session.load()).messages.map(textOf), ["first"]);
    assert.equal((await session.loadWithDangling()).danglingUser, undefined, "nothing stored yet");
    await session.append(persistent(assistant("answer")));
    assert.equal(session.persisted, true);
    const loaded = await store.load(session.id);
    assert.deepStrictEqual(loaded!.messages.map(textOf), ["first", "answer"]);
    assert.equal((await store.list()).length, 1);
  },

  "a prompt left unanswered is returned apart, and never merges with the next one": async (
    { store },
  ) => {
    const session = store.create();
    await session.append(persistent(user("q"), assistant("a")));
    // A crash right after submitting: the prompt is stored, no answer follows.
    await session.append(persistent(user("lines 2000")));
    const resumed = (await store.resolve(session.id))!;
    const loaded = await resumed.loadWithDangling();
    assert.deepStrictEqual(loaded.conversation.messages.map(textOf), ["q", "a"]);
    assert.equal(textOf(loaded.danglingUser!), "lines 2000");
    assert.deepStrictEqual((await resumed.load()).messages.map(textOf), ["q", "a"]);
    // The store itself keeps every message.
    assert.equal((await store.load(session.id))!.messages.length, 3);

    await resumed.append(persistent(user("are you there"), assistant("yes")));
    const again = await (await store.resolve(session.id))!.loadWithDangling();
    assert.deepStrictEqual(again.conversation.messages.map(textOf), [
      "q",
      "a",
      "are you there",
      "yes",
    ]);
    assert.equal(again.danglingUser, undefined);
  },

  "keeps owners and lists one owner's sessions": async ({ store }) => {
    const alice = store.create({ ownerId: "alice" });
    const bob = store.create({ ownerId: "bob" });
    const nobody = store.create();
    for (const session of [alice, bob, nobody]) {
      await session.append(persistent(user("q"), assistant("a")));
    }
    assert.deepStrictEqual((await store.list({ ownerId: "alice" })).map((s) => s.id), [alice.id]);
    assert.equal((await store.resolve(bob.id))?.info.ownerId, "bob");
    assert.equal((await store.resolve(nobody.id))?.info.ownerId, undefined);
    assert.equal((await store.list()).length, 3);
    assert.deepStrictEqual(await store.list({ ownerId: "carol" }), []);
  },

  "records the state: running from a prompt to its answer, error after a failed turn": async (
    { store },
  ) => {
    const session = store.create();
    const stateNow = async () => (await store.resolve(session.id))?.info.state;
    await session.append(persistent(user("q"), assistant("a")));
    assert.deepStrictEqual(await stateNow(), { status: "idle" });
    const prompt = user("long task");
    await session.append(persistent(prompt));
    const running = { status: "running", turnId: "2", since: prompt.timestamp };
    assert.deepStrictEqual(await stateNow(), { ...running, last: "prompt" });
    await session.append(persistent(
      message("assistant", [{ type: "tool_use", id: "t1", name: "ls", input: {} }], {
        stopReason: "tool_use",
      }),
    ));
    assert.deepStrictEqual(await stateNow(), { ...running, last: "tool_call" });
    await session.append(persistent(
      message("tool", [{
        type: "tool_result",
        toolUseId: "t1",
        toolName: "ls",
        content: [],
        isError: false,
      }]),
      user("steering: hurry"),
    ));
    assert.deepStrictEqual(await stateNow(), { ...running, last: "tool_result" }, "same turn");
    await session.append(persistent(
      message("assistant", [], { stopReason: "error", errorMessage: "server said 500" }),
    ));
    assert.deepStrictEqual(await stateNow(), { status: "error", message: "server said 500" });
    assert.deepStrictEqual(session.info.state, await stateNow(), "the handle follows");
    await session.append(persistent(user("again"), assistant("fine")));
    assert.deepStrictEqual((await store.list())[0]?.state, { status: "idle" });
  },

  "refuses a writer whose view is stale, so two conversations never mix": async ({ store }) => {
    const session = store.create();
    await session.append(persistent(user("q"), assistant("a")));
    // A second handle (another chat on the same session) finishes a turn in between.
    const other = (await store.resolve(session.id))!;
    await other.append(persistent(user("other turn"), assistant("ok")));
    await assert.rejects(
      () => session.append(persistent(user("stale"))),
      (error: unknown) => {
        assert.ok(error instanceof SessionChangedError, String(error));
        assert.match(error.message, /it has 4 messages, this one knew 2\): resume it again/);
        return true;
      },
    );
    assert.equal((await store.load(session.id))!.messages.length, 4, "nothing was written");
    const fresh = (await store.resolve(session.id))!;
    await fresh.append(persistent(user("from what is stored"), assistant("fine")));
    assert.equal((await store.load(session.id))!.messages.length, 6);
  },

  "keeps the first prompt as the first user text, through turns, a resume and a replacement":
    async ({ store }) => {
      const session = store.create();
      const image = message("user", [{ type: "image", mediaType: "image/png", data: "iVBO" }]);
      await session.append(persistent(image, assistant("an image")));
      assert.equal((await store.list())[0]?.firstUserMessage, undefined, "no user text yet");
      assert.equal(session.info.firstUserMessage, undefined);
      await session.append(persistent(user("first prompt"), assistant("a1")));
      await session.append(persistent(user("second prompt"), assistant("a2")));
      const resumed = (await store.resolve(session.id))!;
      assert.equal(resumed.info.firstUserMessage, "first prompt");
      await resumed.append(persistent(user("third prompt"), assistant("a3")));
      const [info] = await store.list();
      assert.equal(info?.firstUserMessage, "first prompt");
      assert.equal(info?.lastUserMessage, "third prompt");
      assert.equal(resumed.info.firstUserMessage, "first prompt", "the handle agrees");
      assert.match(await store.export(session.id), /^# first prompt\n/, "the export's title");

      // The old entries stay in the tree: the session was still started for its first prompt.
      await resumed.replaceConversation(persistent(user("summary"), assistant("a3")));
      assert.equal((await store.list())[0]?.firstUserMessage, "first prompt");
      assert.equal((await store.list())[0]?.lastUserMessage, "summary");
      assert.equal(resumed.info.firstUserMessage, "first prompt");
    },

  "replaces a conversation, keeping name, metadata, cwd and owner": async ({ store }) => {
    const session = store.create({ metadata: '{"m":1}', cwd: "/w", ownerId: "alice" });
    await session.append(persistent(user("q1"), assistant("a1"), user("q2"), assistant("a2")));
    await store.rename(session.id, "kept name");
    const trimmed = [user("summary of q1"), assistant("a2")];
    await session.replaceConversation(persistent(...trimmed));
    const loaded = await store.load(session.id);
    assert.deepStrictEqual(loaded?.messages, trimmed);
    assert.equal(loaded?.metadata, '{"m":1}');
    const [info] = await store.list();
    assert.equal(info?.name, "kept name");
    assert.equal(info?.cwd, "/w");
    assert.equal(info?.ownerId, "alice");
    assert.equal(info?.messageCount, 6, "every branch counts");
    assert.equal(info?.lastUserMessage, "summary of q1");
    assert.deepStrictEqual(info?.state, { status: "idle" });
    assert.equal(session.info.messageCount, 6, "the handle follows");
    const next = [user("next"), assistant("ok")];
    await session.append(persistent(...next));
    assert.deepStrictEqual(
      (await store.load(session.id))?.messages,
      [...trimmed, ...next],
      "appends continue after it",
    );

    const stale = (await store.resolve(session.id))!;
    await session.append(persistent(user("one more"), assistant("done")));
    await assert.rejects(
      () => stale.replaceConversation(persistent(user("x"))),
      SessionChangedError,
    );
    assert.equal((await store.load(session.id))?.messages.length, 6, "nothing was replaced");
  },

  "checkAppend writes nothing and refuses a stale writer": async ({ store }) => {
    const session = store.create();
    await store.checkAppend(session.id, { expectedCount: 0 }); // not stored yet
    await session.append(persistent(user("q1"), assistant("a1")));
    await store.checkAppend(session.id, { expectedCount: 2 });
    await session.checkAppend();
    await assert.rejects(
      () => store.checkAppend(session.id, { expectedCount: 1 }),
      SessionChangedError,
    );
    assert.equal((await store.load(session.id))?.messages.length, 2);
    assert.equal((await store.list())[0]?.messageCount, 2);
  },

  "a replacement is one new branch from the root: the old branches stay in the tree": async (
    { store },
  ) => {
    const session = store.create();
    await session.append(persistent(user("q1"), assistant("a1"), user("q2"), assistant("a2")));
    const before = (await store.loadTree(session.id))!;
    await session.branchFrom(before.entries[1]!.id);
    await session.append(persistent(user("q2 again"), assistant("a2 again")));
    const old = (await store.loadTree(session.id))!.entries;

    // Ids from an earlier tree are not reused: the branch gets its own.
    const replacement = old.slice(0, 2).map((entry) => ({
      ...persistent(entry.message)[0]!,
      id: entry.id,
      parentId: entry.parentId,
    }));
    const q3 = user("q3");
    await session.replaceConversation([...replacement, ...persistent(q3)]);
    const expected = [...old.slice(0, 2).map((entry) => entry.message), q3];
    assert.deepStrictEqual((await store.load(session.id))?.messages, expected);
    const tree = (await store.loadTree(session.id))!;
    assert.deepStrictEqual(tree.entries.slice(0, old.length), old, "the old entries are kept");
    const branch = tree.entries.slice(old.length);
    assert.equal(branch.length, 3);
    assert.equal(branch[0]?.parentId, null, "a new root");
    assert.equal(branch[1]?.parentId, branch[0]?.id);
    assert.equal(tree.leafId, branch[2]?.id, "the active leaf moved to it");
    assert.ok(branch.every((entry) => !old.some((o) => o.id === entry.id)), "fresh ids");
    const resumed = (await store.resolve(session.id))!;
    assert.deepStrictEqual((await resumed.loadWithDangling()).danglingUser, q3);

    await session.replaceConversation([]);
    assert.deepStrictEqual((await store.load(session.id))?.messages, [], "empty: cleared");
    assert.equal((await store.list())[0]?.messageCount, 0);
  },

  "labels entries: loadTree and the tree show them, a new label replaces, null removes": async (
    { store },
  ) => {
    const session = store.create();
    await session.append(persistent(user("q1"), assistant("a1"), user("q2"), assistant("a2")));
    const [first, , third] = (await store.loadTree(session.id))!.entries;
    await session.setLabel(first!.id, "start");
    await session.setLabel(third!.id, "old name");
    await session.setLabel(third!.id, "checkpoint");
    const labels = async () =>
      (await store.loadTree(session.id))!.entries.map((entry) => entry.label ?? null);
    assert.deepStrictEqual(await labels(), ["start", null, "checkpoint", null]);
    const reopened = (await store.resolve(session.id))!;
    const { roots } = await reopened.tree();
    assert.equal(roots[0]?.label, "start", "the tree view's nodes carry it");
    assert.equal(roots[0]?.children[0]?.children[0]?.label, "checkpoint");

    await reopened.setLabel(first!.id, null);
    assert.deepStrictEqual(await labels(), [null, null, "checkpoint", null]);
    await assert.rejects(() => session.setLabel("nope", "x"), /"nope" is not in this session/);
    assert.equal((await store.list())[0]?.messageCount, 4, "a label is not a message");
    assert.equal((await store.load(session.id))?.messages.length, 4);
  },

  "checkWritable passes on a usable store and leaves no session or data behind": async (
    { store, dump },
  ) => {
    assert.ok(store.checkWritable, "a built-in store that saves has checkWritable");
    await store.checkWritable();
    await store.checkWritable();
    assert.deepStrictEqual(await store.list(), []);
    const text = new TextDecoder().decode(await dump());
    assert.doesNotMatch(text, /write-check/);
  },

  "lists newest modified first and resolves ids, prefixes and latest": async ({ store }) => {
    assert.equal(await store.latest(), null);
    const a = store.create();
    await a.append(persistent(user("a"), assistant("a")));
    await tick();
    const b = store.create();
    await b.append(persistent(user("b"), assistant("b")));
    await tick();
    assert.deepStrictEqual((await store.list()).map((s) => s.id), [b.id, a.id]);
    await a.append(persistent(user("a again")));
    assert.deepStrictEqual((await store.list()).map((s) => s.id), [a.id, b.id]);
    assert.deepStrictEqual((await store.list({ limit: 1 })).map((s) => s.id), [a.id]);
    assert.equal((await store.latest())?.id, a.id);
    assert.equal((await store.latest())?.info.lastUserMessage, "a again");

    assert.equal((await store.resolve(a.id))?.id, a.id);
    const shared = commonPrefix(a.id, b.id);
    const uniqueA = a.id.slice(0, shared.length + 1);
    assert.equal((await store.resolve(uniqueA))?.id, a.id);
    await assert.rejects(() => store.resolve(shared), (error: unknown) => {
      assert.ok(error instanceof AmbiguousSessionIdError);
      assert.match(error.message, new RegExp(a.id));
      assert.match(error.message, new RegExp(b.id));
      return true;
    });
    assert.equal(await store.resolve("ffffffff"), null);
  },

  "searches message text case-insensitively": async ({ store }) => {
    const a = store.create();
    await a.append(persistent(user("Where is the Zebra crossing?"), assistant("No idea.")));
    const b = store.create();
    await b.append(persistent(
      user("list files"),
      message("assistant", [{ type: "tool_use", id: "t1", name: "ls", input: {} }]),
      message("tool", [{
        type: "tool_result",
        toolUseId: "t1",
        toolName: "ls",
        content: [{ type: "text", text: "zebra.txt\nlion.txt" }],
        isError: false,
      }]),
    ));
    const hits = await store.search("ZEBRA");
    assert.deepStrictEqual(
      hits.map((h) => [h.sessionId, h.messageIndex, h.role]).sort(),
      [[a.id, 0, "user"], [b.id, 2, "tool"]].sort(),
    );
    for (const hit of hits) assert.match(hit.snippet, /zebra/i);
    assert.deepStrictEqual(await store.search("giraffe"), []);
    assert.equal((await store.search("zebra", { limit: 1 })).length, 1);
  },

  "renames and deletes": async ({ store }) => {
    const session = store.create();
    await session.append(persistent(user("hello"), assistant("hi")));
    await store.rename(session.id, "My session ✨");
    assert.equal((await store.list())[0]?.name, "My session ✨");
    assert.equal((await store.resolve(session.id))?.info.name, "My session ✨");
    await session.append(persistent(user("more")));
    assert.equal((await store.list())[0]?.name, "My session ✨");
    assert.equal((await store.load(session.id))!.messages.length, 3);

    const other = store.create();
    await other.append(persistent(user("keep me"), assistant("ok")));
    await store.delete(session.id);
    assert.equal(await store.load(session.id), null);
    assert.equal(await store.resolve(session.id), null);
    assert.deepStrictEqual((await store.list()).map((s) => s.id), [other.id]);
    await assert.rejects(() => store.delete(session.id), /not found/);
    await assert.rejects(() => store.rename(session.id, "x"), /not found/);
  },

  "exports Markdown with headings and fenced tool blocks": async ({ store }) => {
    const session = store.create();
    await session.append(persistent(...everyKindOfMessage()));
    await store.rename(session.id, "Export me");
    const markdown = await store.export(session.id);
    assert.match(markdown, /^# Export me\n/);
    for (const heading of ["System (append)", "System (replace)", "User", "Assistant", "Tool"]) {
      assert.match(markdown, new RegExp(`^## ${escapeRegExp(heading)}$`, "m"));
    }
    assert.match(markdown, /^## Compaction summary$/m);
    assert.match(markdown, /^## Assistant \(aborted\)$/m);
    assert.match(
      markdown,
      /\*\*Tool call\*\* `read` \(`call_1`\)\n\n```json\n\{\n {2}"path": "a.txt"/,
    );
    assert.match(
      markdown,
      /\*\*Tool result\*\* `read`[^\n]*\n\n````text\nfile body ```with fences```\n````/,
    );
    assert.match(markdown, /\*\*Tool result \(error\)\*\* `read`/);
    assert.match(markdown, /_\[image: image\/png, \d+ bytes\]_/);
    await assert.rejects(() => store.export("0000dead"), /not found/);
  },

  "rejects ids that could escape or confuse the store": async ({ store }) => {
    const bad = [
      "",
      "../x",
      "..",
      ".",
      "/etc/passwd",
      "a/b",
      "a\\b",
      "x\0y",
      " id",
      "é",
      "a".repeat(129),
    ];
    for (const id of bad) {
      for (
        const call of [
          () => store.load(id),
          () => store.resolve(id),
          () => store.appendMessages(id, persistent(user("x"), assistant("y"))),
          () => store.rename(id, "n"),
          () => store.delete(id),
          () => store.export(id),
        ]
      ) {
        await assert.rejects(call, (error: unknown) => {
          assert.ok(error instanceof InvalidSessionIdError, `${JSON.stringify(id)}: ${error}`);
          assert.ok(error.message.includes(JSON.stringify(id)));
          return true;
        });
      }
    }
    assert.deepStrictEqual(await store.list(), []);
  },

  "a branch from an earlier entry: load gives the active path, the tree keeps both": async (
    { store },
  ) => {
    const session = store.create();
    await session.append(persistent(user("q1"), assistant("a1"), user("q2"), assistant("a2")));
    const a1 = (await session.tree()).roots[0]?.children[0];
    assert.equal(a1?.preview, "a1");
    const branched = await session.branchFrom(a1.id);
    assert.deepStrictEqual(branched.conversation.messages.map(textOf), ["q1", "a1"]);
    await session.append(persistent(user("q2b"), assistant("a2b")));
    assert.deepStrictEqual((await store.load(session.id))?.messages.map(textOf), [
      "q1",
      "a1",
      "q2b",
      "a2b",
    ]);
    const resumed = await store.resolve(session.id);
    assert.ok(resumed);
    assert.equal(resumed.info.messageCount, 6, "every branch's entries are stored");
    const { roots, leafId } = await resumed.tree();
    assert.equal(roots.length, 1);
    const fork = roots[0]?.children[0];
    assert.deepStrictEqual(
      fork?.children.map((child) => [child.preview, child.active]),
      [["q2", false], ["q2b", true]],
    );
    assert.equal(fork?.children[1]?.children[0]?.id, leafId);
    await resumed.append(persistent(user("q3"), assistant("a3")));
    assert.deepStrictEqual((await store.load(session.id))?.messages.map(textOf), [
      "q1",
      "a1",
      "q2b",
      "a2b",
      "q3",
      "a3",
    ]);
    const tree = await store.loadTree(session.id);
    assert.equal(tree?.entries.length, 8);
    assert.equal(tree?.leafId, tree?.entries.at(-1)?.id);
  },

  "editing the first prompt starts a second root; an unknown entry is refused": async (
    { store },
  ) => {
    const session = store.create();
    await session.append(persistent(user("first"), assistant("one")));
    await assert.rejects(() => session.branchFrom("no-such-entry"), /"no-such-entry" is not in/);
    const { conversation } = await session.branchFrom(null);
    assert.deepStrictEqual(conversation.messages, []);
    await session.append(persistent(user("first, edited"), assistant("two")));
    const { roots } = await (await store.resolve(session.id))!.tree();
    assert.deepStrictEqual(roots.map((root) => [root.preview, root.active]), [
      ["first", false],
      ["first, edited", true],
    ]);
    assert.deepStrictEqual((await store.load(session.id))?.messages.map(textOf), [
      "first, edited",
      "two",
    ]);
  },

  "fork copies the path to an entry into a new session that names its parent": async (
    { store },
  ) => {
    const source = store.create({ metadata: '{"m":2}', cwd: "/work/forked" });
    await source.append(persistent(user("q1"), assistant("a1"), user("q2"), assistant("a2")));
    const sourceTree = await store.loadTree(source.id);
    const a1 = sourceTree!.entries[1]!;
    const fork = await store.fork(source.id, a1.id);
    assert.notEqual(fork.id, source.id);
    assert.equal(fork.info.parentSessionId, source.id);
    assert.equal(fork.info.cwd, "/work/forked");
    assert.equal(fork.info.messageCount, 2);
    const listed = (await store.list()).find((info) => info.id === fork.id);
    assert.equal(listed?.parentSessionId, source.id);
    const copied = await store.loadTree(fork.id);
    assert.deepStrictEqual(copied?.entries.map((e) => [e.id, e.parentId]), [
      [sourceTree!.entries[0]!.id, null],
      [a1.id, sourceTree!.entries[0]!.id],
    ]);
    assert.equal(copied?.metadata, '{"m":2}');
    await fork.append(persistent(user("only in the fork"), assistant("ok")));
    assert.deepStrictEqual((await store.load(fork.id))?.messages.map(textOf), [
      "q1",
      "a1",
      "only in the fork",
      "ok",
    ]);
    assert.equal((await store.load(source.id))?.messages.length, 4, "the source is unchanged");
    await assert.rejects(() => store.fork(source.id, "nope"), /"nope" is not in/);
  },

  "never stores an API key or a digest of it": async ({ store, dump }) => {
    const session = store.create();
    await session.append(persistent(...everyKindOfMessage(), user("bye"), assistant("bye")));
    await store.rename(session.id, "secret check");
    const bytes = await dump();
    const text = new TextDecoder("latin1").decode(bytes);
    assert.ok(text.includes(WIRE.model), "the dump should contain what was stored");
    const digest = new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(SECRET_KEY)),
    );
    const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
    const forbidden = [
      SECRET_KEY,
      "SECRET-KEY",
      hex,
      hex.toUpperCase(),
      btoa(String.fromCharCode(...digest)),
      btoa(SECRET_KEY),
    ];
    for (const needle of forbidden) {
      assert.ok(!text.includes(needle), `found ${needle.slice(0, 6)}…`);
    }
  },
};

function textOf(msg: Message): string {
  const block = msg.content[0];
  return block?.type === "text" ? block.text : "";
}

function commonPrefix(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return a.slice(0, i);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Lets the clock move so "modified" orders are distinct. */
function tick(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 5));
}
