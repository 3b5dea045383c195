// Session store benchmarks: append latency (fsync on), load of a 10,000-message
// session, load of a 10,000-entry tree flattened to its active path, list of
// 10,000 sessions; each beside pi's SessionManager
// (@mariozechner/pi-coding-agent) on equivalent data; and the migration of 1,000 sessions JSONL -> SQLite.
// A measurement, not a test:
//   deno run -A --frozen=false --lock=bench/bench.lock bench/session_bench.ts [--quick] [--tree]
// (--tree: only the tree row).
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import type { Message, PersistentMessage, SessionStore } from "@panto/lib";
import { migrateSessions } from "@panto/lib/transfer";
import { PostgresStore } from "@panto/lib/postgres";
import { SQLiteStore } from "@panto/lib/sqlite";
import { SessionManager } from "./pi_coding_agent.ts";
import { headerLine, messageLine } from "../lib/session/jsonl_format.ts";
import { newSessionId } from "../lib/session/ids.ts";
import { piAssistantMessage } from "./pi_messages.ts";
import { findPostgresBin, type PostgresCluster, startPostgres } from "../tests/support/postgres.ts";

const quick = Deno.args.includes("--quick");
const treeOnly = Deno.args.includes("--tree");
const APPENDS = quick ? 50 : 300;
const LOAD_MESSAGES = quick ? 1_000 : 10_000;
/** Runs of each tree load (alternating with pi's): the machine is shared and noisy. */
const TREE_RUNS = quick ? 5 : 11;
const LIST_SESSIONS = quick ? 1_000 : 10_000;
const MIGRATE_SESSIONS = quick ? 100 : 1_000;
const TEXT = "The quick brown fox jumps over the lazy dog. ".repeat(12); // ~540 bytes

const WIRE = {
  apiStyle: "anthropic-messages",
  baseUrl: "https://api.anthropic.com",
  model: "claude-sonnet-4-5",
  reasoning: "off",
} as const;
const USAGE = {
  inputTokens: 900,
  outputTokens: 120,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
};

function ourMessage(index: number): PersistentMessage {
  const role = index % 2 === 0 ? "user" : "assistant";
  const message: Message = {
    role,
    content: [{ type: "text", text: `${index} ${TEXT}` }],
    timestamp: new Date().toISOString(),
  };
  if (role === "user") return { message, conversation: [], toolsAvailable: [] };
  message.usage = USAGE;
  return { message, usage: USAGE, wire: WIRE, conversation: [], toolsAvailable: [] };
}

function piMessage(index: number): Parameters<SessionManager["appendMessage"]>[0] {
  const text = `${index} ${TEXT}`;
  if (index % 2 === 0) {
    return { role: "user", content: [{ type: "text", text }], timestamp: Date.now() };
  }
  return piAssistantMessage(text, WIRE.model, "anthropic");
}

interface Row {
  what: string;
  ours: string;
  pi: string;
}
const rows: Row[] = [];

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function ms(value: number): string {
  return `${value.toFixed(value < 10 ? 3 : 1)} ms`;
}

async function time(task: () => unknown): Promise<number> {
  const start = performance.now();
  await task();
  return performance.now() - start;
}

async function median(runs: number, task: () => unknown): Promise<number> {
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(await time(task));
  return percentile(samples, 50);
}

/**
 * Medians of two tasks run in turn, so a burst of load on the shared
 * machine slows both sides alike.
 */
async function alternating(
  runs: number,
  ours: () => unknown,
  theirs: () => unknown,
): Promise<[number, number]> {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i++) {
    a.push(await time(ours));
    b.push(await time(theirs));
  }
  return [percentile(a, 50), percentile(b, 50)];
}

// --- append latency -------------------------------------------------------

async function appendLatency(store: SessionStore): Promise<number[]> {
  const session = store.create();
  await session.append([ourMessage(0), ourMessage(1)]);
  const samples = [];
  for (let i = 0; i < APPENDS; i++) samples.push(await time(() => session.append([ourMessage(i)])));
  return samples;
}

function piAppendLatency(dir: string): number[] {
  const manager = SessionManager.create("/bench", dir);
  manager.appendMessage(piMessage(0));
  manager.appendMessage(piMessage(1));
  const samples = [];
  for (let i = 0; i < APPENDS; i++) {
    const start = performance.now();
    manager.appendMessage(piMessage(i));
    samples.push(performance.now() - start);
  }
  return samples;
}

function latencyCell(samples: number[]): string {
  return `p50 ${ms(percentile(samples, 50))}, p99 ${ms(percentile(samples, 99))}`;
}

// --- load of one long session --------------------------------------------

async function fillSession(store: SessionStore): Promise<string> {
  const session = store.create();
  for (let i = 0; i < LOAD_MESSAGES; i += 100) {
    await session.append(
      Array.from({ length: Math.min(100, LOAD_MESSAGES - i) }, (_, k) => ourMessage(i + k)),
    );
  }
  return session.id;
}

function piFillSession(dir: string): string {
  const manager = SessionManager.create("/bench", dir);
  for (let i = 0; i < LOAD_MESSAGES; i++) manager.appendMessage(piMessage(i));
  return manager.getSessionFile()!;
}

// --- load of a branched session ------------------------------------------

/**
 * The tree both sides load: entry `i` continues `i - 1`, except that every
 * 100th goes back 50 entries and starts a branch there, so the active path
 * (to the last entry) is about half the entries, across 99 branch points.
 */
function treeParent(index: number): number | null {
  if (index === 0) return null;
  return index % 100 === 0 ? index - 50 : index - 1;
}

/** Writes a JSONL tree session directly (no fsync): the read path is under test. */
async function writeJsonlTree(dir: string): Promise<string> {
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const id = newSessionId();
  const timestamp = new Date().toISOString();
  const lines = [headerLine({ type: "session", version: 2, id, created: timestamp })];
  for (let i = 0; i < LOAD_MESSAGES; i++) {
    const parent = treeParent(i);
    const entry = {
      ...ourMessage(i),
      id: `e${i}`,
      parentId: parent === null ? null : `e${parent}`,
    };
    lines.push(messageLine(entry, timestamp));
  }
  await Deno.writeTextFile(join(dir, `${id}.jsonl`), lines.join(""), { mode: 0o600 });
  return id;
}

async function writePiTree(dir: string): Promise<string> {
  const timestamp = new Date().toISOString();
  const id = crypto.randomUUID();
  const entries: unknown[] = [{ type: "session", version: 3, id, timestamp, cwd: "/bench" }];
  for (let i = 0; i < LOAD_MESSAGES; i++) {
    const parent = treeParent(i);
    entries.push({
      type: "message",
      id: `e${i}`,
      parentId: parent === null ? null : `e${parent}`,
      timestamp,
      message: piMessage(i),
    });
  }
  const file = join(dir, `${timestamp.replace(/[:.]/g, "-")}_${id}.jsonl`);
  await Deno.writeTextFile(file, entries.map((e) => JSON.stringify(e)).join("\n") + "\n");
  return file;
}

async function treeRow(root: string): Promise<void> {
  const dir = join(root, "tree-jsonl");
  const id = await writeJsonlTree(dir);
  const piFile = await writePiTree(await Deno.makeTempDir({ dir: root }));
  const store = new FileSystemJSONLStore({ dir });
  const path = (await store.load(id))?.messages.length ?? 0;
  const piPath = SessionManager.open(piFile).buildSessionContext().messages.length;
  if (path !== piPath) throw new Error(`active paths differ: ours ${path}, pi's ${piPath}`);
  const piLoad = () => SessionManager.open(piFile).buildSessionContext();
  const what = `load, ${LOAD_MESSAGES}-entry tree, active path of ${path}, JSONL`;
  const row = (label: string, [ours, pi]: [number, number]) =>
    rows.push({ what: label, ours: `${ms(ours)} (${(ours / pi).toFixed(2)}x pi)`, pi: ms(pi) });
  // Warm: the store's tree index of the file exists (any load after the first makes it).
  row(what, await alternating(TREE_RUNS, () => store.load(id), piLoad));
  // Cold: no index yet (a file written by another program, or by a store before the index).
  const index = join(dir, ".index", `${id}.tree.json`);
  row(
    "  the same, first load (no tree index yet)",
    await alternating(TREE_RUNS, async () => {
      await Deno.remove(index);
      await store.load(id);
    }, piLoad),
  );
  // After a turn: lines appended since the index was written.
  row(
    "  the same, after an append of 2 (incl. the append)",
    await alternating(TREE_RUNS, async () => {
      await store.appendMessages(id, [ourMessage(0), ourMessage(1)]);
      await store.release?.(id);
      await store.load(id);
    }, piLoad),
  );
  await store.close();
}

// --- list of many sessions -----------------------------------------------

/** Writes JSONL session files directly (no fsync): the data, not the write path, is under test. */
async function writeJsonlSessions(dir: string, count = LIST_SESSIONS): Promise<void> {
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const timestamp = new Date().toISOString();
  for (let s = 0; s < count; s++) {
    const id = newSessionId();
    const lines = [
      headerLine({ type: "session", version: 1, id, created: timestamp, cwd: "/bench" }),
    ];
    for (let i = 0; i < 4; i++) lines.push(messageLine(ourMessage(i), timestamp));
    await Deno.writeTextFile(join(dir, `${id}.jsonl`), lines.join(""), { mode: 0o600 });
  }
}

async function writePiSessions(dir: string): Promise<void> {
  const timestamp = new Date().toISOString();
  for (let s = 0; s < LIST_SESSIONS; s++) {
    const id = crypto.randomUUID();
    const entries: unknown[] = [{ type: "session", version: 3, id, timestamp, cwd: "/bench" }];
    let parentId: string | null = null;
    for (let i = 0; i < 4; i++) {
      const entryId = crypto.randomUUID().slice(0, 8);
      entries.push({ type: "message", id: entryId, parentId, timestamp, message: piMessage(i) });
      parentId = entryId;
    }
    const name = `${timestamp.replace(/[:.]/g, "-")}_${id}.jsonl`;
    await Deno.writeTextFile(
      join(dir, name),
      entries.map((e) => JSON.stringify(e)).join("\n") + "\n",
    );
  }
}

/** Inserts session rows straight into SQLite, in one transaction. */
function fillSqliteSessions(path: string): void {
  const db = new DatabaseSync(path);
  const insert = db.prepare(
    `INSERT INTO sessions (id, created, modified, cwd, message_count, last_user_message, wire)
     VALUES (?, ?, ?, '/bench', 4, ?, ?)`,
  );
  db.exec("BEGIN");
  for (let s = 0; s < LIST_SESSIONS; s++) {
    const when = new Date(Date.now() - s * 1000).toISOString();
    insert.run(newSessionId(), when, when, TEXT.slice(0, 200), JSON.stringify(WIRE));
  }
  db.exec("COMMIT");
  db.close();
}

async function main(): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "panto-bench-" });
  let cluster: PostgresCluster | null = null;
  try {
    if (treeOnly) return await treeRow(root);
    // Append latency.
    const jsonl = new FileSystemJSONLStore({ dir: join(root, "append-jsonl") });
    const piAppend = piAppendLatency(await Deno.makeTempDir({ dir: root }));
    rows.push({
      what: `append, JSONL (${APPENDS} single-message appends)`,
      ours: `${latencyCell(await appendLatency(jsonl))} (fsync each)`,
      pi: `${latencyCell(piAppend)} (appendFileSync, no fsync)`,
    });
    await jsonl.close();
    const sqlite = new SQLiteStore({ path: join(root, "append.db") });
    rows.push({
      what: "append, SQLite (WAL, synchronous=FULL)",
      ours: latencyCell(await appendLatency(sqlite)),
      pi: "n/a (pi has no SQLite store)",
    });
    await sqlite.close();
    let postgresUrl: string | null = null;
    if (findPostgresBin()) {
      cluster = await startPostgres({ fsync: true });
      postgresUrl = await cluster.createDatabase();
      const pg = new PostgresStore({ url: postgresUrl });
      rows.push({
        what: "append, PostgreSQL (loopback, fsync on)",
        ours: latencyCell(await appendLatency(pg)),
        pi: "n/a (pi has no PostgreSQL store)",
      });
      await pg.close();
    } else {
      rows.push({ what: "append, PostgreSQL", ours: "skipped: no PostgreSQL binaries", pi: "n/a" });
    }

    // Load of one long session.
    const loadDir = join(root, "load-jsonl");
    const loadStore = new FileSystemJSONLStore({ dir: loadDir });
    const loadId = await fillSession(loadStore);
    await loadStore.close();
    const piFile = piFillSession(await Deno.makeTempDir({ dir: root }));
    const reader = new FileSystemJSONLStore({ dir: loadDir });
    rows.push({
      what: `load, ${LOAD_MESSAGES} messages, JSONL (validated)`,
      ours: ms(await median(5, () => reader.load(loadId))),
      pi: ms(await median(5, () => SessionManager.open(piFile).buildSessionContext())),
    });
    await reader.close();
    await treeRow(root);
    const sqliteLoad = new SQLiteStore({ path: join(root, "load.db") });
    const sqliteLoadId = await fillSession(sqliteLoad);
    rows.push({
      what: `load, ${LOAD_MESSAGES} messages, SQLite`,
      ours: ms(await median(5, () => sqliteLoad.load(sqliteLoadId))),
      pi: "",
    });
    await sqliteLoad.close();
    if (postgresUrl) {
      const pg = new PostgresStore({ url: postgresUrl });
      const pgId = await fillSession(pg);
      rows.push({
        what: `load, ${LOAD_MESSAGES} messages, PostgreSQL`,
        ours: ms(await median(5, () => pg.load(pgId))),
        pi: "",
      });
      await pg.close();
    }

    // List of many sessions.
    const listDir = join(root, "list-jsonl");
    await writeJsonlSessions(listDir);
    const piListDir = await Deno.makeTempDir({ dir: root });
    await writePiSessions(piListDir);
    const lister = new FileSystemJSONLStore({ dir: listDir });
    const cold = await time(() => lister.list());
    await lister.close();
    // The index trusts a directory unchanged for 2 s; then one list records it.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    await new FileSystemJSONLStore({ dir: listDir }).list();
    const fresh = new FileSystemJSONLStore({ dir: listDir });
    const first = await time(() => fresh.list());
    const warm = await median(5, () => fresh.list());
    // A write anywhere in the directory (here a file made and removed): each file is checked.
    const changed = await median(3, async () => {
      await Deno.remove(await Deno.makeTempFile({ dir: listDir }));
      await fresh.list();
    });
    await fresh.close();
    const piList = await median(3, () => SessionManager.list("/bench", piListDir));
    rows.push({
      what: `list, ${LIST_SESSIONS} sessions, JSONL`,
      ours: `${ms(warm)} (list index; a new store's first list ${ms(first)}; ` +
        `directory changed since the index ${ms(changed)}; no sidecars or index yet ${ms(cold)})`,
      pi: `${ms(piList)} (parses every file)`,
    });
    const listDb = join(root, "list.db");
    await new SQLiteStore({ path: listDb }).close();
    fillSqliteSessions(listDb);
    const sqliteList = new SQLiteStore({ path: listDb });
    rows.push({
      what: `list, ${LIST_SESSIONS} sessions, SQLite`,
      ours: ms(await median(3, () => sqliteList.list())),
      pi: "",
    });
    await sqliteList.close();

    // Migration: every session JSONL -> SQLite, each verified by count and digest.
    const migrateDir = join(root, "migrate-jsonl");
    await writeJsonlSessions(migrateDir, MIGRATE_SESSIONS);
    const from = new FileSystemJSONLStore({ dir: migrateDir });
    const to = new SQLiteStore({ path: join(root, "migrated.db") });
    const migration = await time(() => migrateSessions(from, to, { targetName: "sqlite:bench" }));
    rows.push({
      what: `migrate, ${MIGRATE_SESSIONS} sessions (4 messages each), JSONL -> SQLite`,
      ours: `${ms(migration)} (${ms(migration / MIGRATE_SESSIONS)} per session: read, ` +
        `copy in one transaction, read back and compare digests)`,
      pi: "n/a (pi has one store)",
    });
    await from.close();
    await to.close();
  } finally {
    await cluster?.stop();
    await Deno.remove(root, { recursive: true });
    print();
  }
}

function print(): void {
  const widths = [0, 1, 2].map((i) =>
    Math.max(...[
      ["what", "panto", "pi"][i]!.length,
      ...rows.map((r) => [r.what, r.ours, r.pi][i]!.length),
    ])
  );
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join(" | ");
  console.log(line(["what", "panto", "pi (SessionManager 0.73.1)"]));
  console.log(widths.map((w) => "-".repeat(w)).join("-|-"));
  for (const row of rows) console.log(line([row.what, row.ours, row.pi]));
}

await main();
