/**
 * Importing session files: panto's JSONL export round-trips through every
 * store (JSONL, SQLite, PostgreSQL when installed: the whole tree, labels, name), a pi session file and a Claude Code
 * transcript (hand-written in their real shapes) import with their trees,
 * and a malformed line is named by file and line.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type PersistentMessage,
  SessionImportError,
  type SessionStore,
  type TreeEntry,
} from "@panto/lib";
import { exportJsonl, importSession, readSessionFile } from "@panto/lib/transfer";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import { PostgresStore } from "@panto/lib/postgres";
import { SQLiteStore } from "@panto/lib/sqlite";
import { postgresAvailable, startPostgres } from "../../support/postgres.ts";
import { assistant, everyKindOfMessage, user, WIRE } from "./fixtures.ts";

const FIXTURES = new URL("../../fixtures/import/", import.meta.url);

async function fixture(name: string): Promise<{ text: string; path: string }> {
  const url = new URL(name, FIXTURES);
  return { text: await Deno.readTextFile(url), path: url.pathname };
}

/** A JSONL, a SQLite and, when PostgreSQL is installed, a PostgreSQL store. */
async function withStores(fn: (stores: SessionStore[]) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "panto-import-" });
  const cluster = postgresAvailable() ? await startPostgres() : null;
  const stores: SessionStore[] = [
    new FileSystemJSONLStore({ dir }),
    new SQLiteStore({ path: ":memory:" }),
  ];
  if (cluster) stores.push(new PostgresStore({ url: await cluster.createDatabase() }));
  try {
    await fn(stores);
  } finally {
    for (const store of stores) await store.close();
    await cluster?.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

if (!postgresAvailable()) {
  console.log("session_import_test: PostgreSQL not installed: importing into it is not tested");
}

function entry(id: string, parentId: string | null, message = user(id)): PersistentMessage {
  return { message, conversation: [], toolsAvailable: [], id, parentId };
}

/** What an entry holds that an import must keep. */
function kept({ id, parentId, message, wire, label }: TreeEntry) {
  return { id, parentId, message, wire: wire ?? null, label: label ?? null };
}

Deno.test("import: a JSONL export reads back into every store as the same tree", async () => {
  await withStores(async ([source, ...targets]) => {
    const session = source!.create({ cwd: "/work/app" });
    await source!.rename(session.id, "round trip");
    const chain = everyKindOfMessage().map((message, index) =>
      entry(`k${index}`, index === 0 ? null : `k${index - 1}`, message)
    );
    const branch = [
      entry("b0", "k1", user("the other way")),
      { ...entry("b1", "b0", assistant("taken")), wire: WIRE },
    ];
    await source!.appendMessages(session.id, [...chain, ...branch], { expectedCount: 0 });
    await source!.setLabel!(session.id, "k1", "fork here");
    const info = (await source!.resolve(session.id))!.info;
    const tree = (await source!.loadTree!(session.id))!;
    const text = exportJsonl(info, tree);

    for (const target of [source!, ...targets]) {
      const imported = await readSessionFile(text, "export.jsonl");
      assert.equal(imported.format, "panto");
      const report = await importSession(target, imported, { cwd: "/work/app" });
      assert.notEqual(report.id, session.id, "an import is a new session");
      const copy = (await target.loadTree!(report.id))!;
      assert.deepEqual(copy.entries.map(kept), tree.entries.map(kept));
      assert.equal(copy.leafId, "b1");
      const copied = (await target.resolve(report.id))!.info;
      assert.equal(copied.name, "round trip");
      assert.equal(copied.cwd, "/work/app");
    }
  });
});

Deno.test("import: a pi session file keeps its tree, labels and name; skips what panto has no message for", async () => {
  const { text, path } = await fixture("pi_session.jsonl");
  const session = await readSessionFile(text, path);
  assert.equal(session.format, "pi");
  assert.equal(session.name, "bakery stock");
  assert.deepEqual(session.skipped, { model_change: 1, thinking_level_change: 1, custom: 1 });
  assert.deepEqual(session.labels, [["f6a7b8c9", "stock count"]]);
  const parents = Object.fromEntries(session.entries.map((e) => [e.id, e.parentId]));
  // The model and thinking changes above the first prompt are gone: it is the root.
  assert.equal(parents.c3d4e5f6, null);
  // The label, name and extension entries between the answer and the next prompt are skipped over.
  assert.equal(parents["3d4e5f6a"], "f6a7b8c9");
  assert.equal(parents["5f6a7b8c"], "f6a7b8c9", "the second branch forks at the same answer");
  const call = session.entries[1]!.message;
  assert.equal(call.role, "assistant");
  assert.deepEqual(call.content.map((b) => b.type), ["thinking", "tool_use"]);
  assert.equal(call.stopReason, "tool_use");
  assert.equal(call.usage?.inputTokens, 120);
  const result = session.entries[2]!.message.content[0]!;
  assert.ok(result.type === "tool_result");
  assert.equal(result.toolName, "read");
  assert.equal(result.toolUseId, "toolu_01");

  await withStores(async (stores) => {
    for (const store of stores) {
      const report = await importSession(store, session, { cwd: "/home/ada/bakery" });
      const conversation = (await store.load(report.id))!;
      assert.deepEqual(
        conversation.messages.map((m) => m.content.find((b) => b.type === "text")),
        [
          { type: "text", text: "How many loaves are in stock.txt?" },
          undefined,
          undefined,
          { type: "text", text: "There are 16 loaves: 12 sourdough and 4 rye." },
          { type: "text", text: "Bake two more sourdough, then count again." },
          { type: "text", text: "Now there are 14 sourdough loaves." },
        ],
        "the active path ends at the file's last entry",
      );
      const tree = (await store.loadTree!(report.id))!;
      assert.equal(tree.entries.find((e) => e.id === "f6a7b8c9")?.label, "stock count");
    }
  });
});

Deno.test("import: a Claude Code transcript merges an answer's lines and its results' lines, naming tool results", async () => {
  const { text, path } = await fixture("claude_code_transcript.jsonl");
  const session = await readSessionFile(text, path);
  assert.equal(session.format, "claude-code");
  assert.equal(session.name, "Fix the failing date test");
  assert.deepEqual(session.skipped, { "file-history-snapshot": 1, system: 1 });
  assert.deepEqual(session.entries.map((e) => e.message.role), [
    "user",
    "assistant",
    "tool",
    "assistant",
  ]);
  const [, call, result, answer] = session.entries.map((e) => e.message);
  assert.deepEqual(call!.content.map((b) => b.type), ["text", "tool_use", "tool_use"]);
  assert.equal(call!.stopReason, "tool_use");
  // Two parallel calls' results, one a line, are one tool message, each named after its call.
  const [bash, read] = result!.content;
  assert.ok(bash?.type === "tool_result" && read?.type === "tool_result");
  assert.equal(bash.toolName, "Bash");
  assert.equal(bash.isError, true);
  assert.equal(read.toolName, "Read");
  assert.equal(read.toolUseId, "toolu_02Zw");
  assert.equal(answer!.usage?.cacheReadTokens, 800);
  // The system line between the result and the answer is skipped over.
  assert.equal(session.entries[3]!.parentId, session.entries[2]!.id);

  await withStores(async (stores) => {
    for (const store of stores) {
      const report = await importSession(store, session, { cwd: "/home/ada/calendar" });
      assert.equal((await store.load(report.id))!.messages.length, 4);
    }
  });
});

Deno.test("import: a malformed line is named by file and line; an unknown file is refused", async () => {
  const { text, path } = await fixture("pi_session.jsonl");
  const lines = text.split("\n");
  lines[4] = lines[4]!.slice(0, 40);
  const broken = await readSessionFile(lines.join("\n"), path).catch((error) => error);
  assert.ok(broken instanceof SessionImportError, String(broken));
  assert.equal(broken.line, 5);
  assert.match(broken.message, new RegExp(`${path}:5: invalid JSON`));

  lines[4] = JSON.stringify({
    type: "message",
    id: "x",
    parentId: null,
    timestamp: "t",
    message: { role: "toolResult", toolCallId: "c", toolName: "read", content: "not a list" },
  });
  const wrong = await readSessionFile(lines.join("\n"), path).catch((error) => error);
  assert.ok(wrong instanceof SessionImportError);
  assert.match(wrong.message, /pi_session\.jsonl:5: message\.content: expected an array/);

  const other = await readSessionFile('{"hello":"world"}\n', "/tmp/other.jsonl").catch((e) => e);
  assert.ok(other instanceof SessionImportError);
  assert.match(other.message, /other\.jsonl:1: not a session panto can import/);
  const empty = await readSessionFile("\n", join("/tmp", "empty.jsonl")).catch((e) => e);
  assert.match(empty.message, /empty\.jsonl: the file is empty/);
});

Deno.test("import: a pi compaction keeps the messages pi kept after it, as panto's compaction does", async () => {
  const t = "2026-03-01T09:00:00.000Z";
  const line = (id: string, parentId: string | null, extra: Record<string, unknown>) =>
    JSON.stringify({ id, parentId, timestamp: t, ...extra });
  const say = (role: "user" | "assistant", text: string) => ({
    type: "message",
    message: role === "user" ? { role, content: text, timestamp: 0 } : {
      role,
      content: [{ type: "text", text }],
      usage: { input: 5, output: 5, cacheRead: 0, cacheWrite: 0 },
      stopReason: "stop",
      timestamp: 0,
    },
  });
  const text = [
    JSON.stringify({ type: "session", version: 3, id: "s", timestamp: t, cwd: "/w" }),
    line("a", null, say("user", "old question")),
    line("b", "a", say("assistant", "old answer")),
    line("c", "b", say("user", "recent question")),
    line("d", "c", say("assistant", "recent answer")),
    line("e", "d", {
      type: "compaction",
      summary: "They talked about bread.",
      firstKeptEntryId: "c",
      tokensBefore: 500,
    }),
    line("f", "e", say("user", "next question")),
    "",
  ].join("\n");
  const session = await readSessionFile(text, "compacted.jsonl");
  assert.deepEqual(session.entries.map((e) => [e.id, e.parentId]), [
    ["a", null],
    ["b", "a"],
    ["c", "b"],
    ["d", "c"],
    ["e", "d"],
    ["e-kept-0", "e"],
    ["e-kept-1", "e-kept-0"],
    ["f", "e-kept-1"],
  ]);
  const summary = session.entries[4]!.message.content[0]!;
  assert.deepEqual(summary, {
    type: "compaction_summary",
    summary: "They talked about bread.",
    tokensBefore: 500,
    keptMessages: 2,
  });
  const copies = session.entries.slice(5, 7).map((e) => e.message);
  assert.deepEqual(copies.map((m) => m.content), [
    [{ type: "text", text: "recent question" }],
    [{ type: "text", text: "recent answer" }],
  ]);
  assert.equal(copies[1]!.usage, undefined, "a copy's usage is not counted twice");
});
