/**
 * Width and height changes and transient pickers in a real pty (tmux): after
 * a long answer, narrowing, widening (idle or while the answer streams) and
 * a tall picker opened and closed leave every word of the conversation in
 * `capture-pane -S -` exactly once, with the editor and footer on the last
 * rows of the screen.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import { writeFakeConfig } from "../../support/fake_config.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { PARAGRAPHS, wordCounts } from "../../support/numbered_paragraphs.ts";
import { PANTO_SH_COMMAND, pantoPaneEnv, tmuxAvailable, TmuxSession } from "../../support/tmux.ts";

if (!tmuxAvailable) {
  console.log("skipped: resize_tmux_test needs tmux on PATH (apt-get install -y tmux)");
}

/** The history and screen as logical lines: rows tmux split at a narrower width are joined. */
async function joinedHistory(tmux: TmuxSession): Promise<string[]> {
  return (await tmux.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "0")).split("\n");
}

/** The screen as tmux shows it, one string per row. */
async function screenRows(tmux: TmuxSession): Promise<string[]> {
  return (await tmux.screen()).slice(0, -1); // capture-pane ends each row with a newline
}

/**
 * How long the screen must stay the same to count as settled: longer than
 * the chat waits for a resize to settle before repainting (300 ms,
 * `cli/chat/run_interactive.ts`), during which it shows tmux's reflow.
 */
const STABLE_MS = 900;

/** Waits until the screen stops changing (and no answer is running). */
async function settle(tmux: TmuxSession): Promise<string[]> {
  let last = "";
  let since = Date.now();
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 150));
    const screen = await screenRows(tmux);
    const text = screen.join("\n");
    if (text !== last || text.includes("esc to cancel")) [last, since] = [text, Date.now()];
    else if (Date.now() - since >= STABLE_MS) return screen;
  }
  return await screenRows(tmux);
}

/** Asserts every word once and the editor (its rules) and footer on the screen's last rows. */
async function assertIntact(tmux: TmuxSession, what: string): Promise<void> {
  const screen = await settle(tmux);
  const history = await joinedHistory(tmux);
  const dump = history.map((line, i) => `${i}: ${line}`).join("\n");
  const { duplicated, missing } = wordCounts(history);
  assert.deepEqual(
    { duplicated: duplicated.length, missing: missing.length },
    { duplicated: 0, missing: 0 },
    `${what}: duplicated ${duplicated.slice(0, 20).join(" ")}; missing ${
      missing.slice(0, 20).join(" ")
    }\n${dump}`,
  );
  const rules = screen.flatMap((line, i) => /^─+$/.test(line) ? [i] : []);
  assert.ok(rules.length >= 2, `${what}: the editor's rules are on screen:\n${screen.join("\n")}`);
  const below = screen.slice(rules.at(-1)! + 1);
  assert.ok(
    below.length <= 3 && below.every((line) => line.trim() !== ""),
    `${what}: the footer ends on the last row, no blank rows under it:\n${screen.join("\n")}`,
  );
}

/** Runs panto in a `cols`×`rows` pane with a fake model, then `fn`. */
async function inPane(
  cols: number,
  rows: number,
  fn: (tmux: TmuxSession, server: FakeLlmServer, home: string) => Promise<void>,
): Promise<void> {
  const server = await FakeLlmServer.start();
  const home = await Deno.makeTempDir({ prefix: "panto-home-" });
  await writeFakeConfig(home, server, { retry: { maxRetries: 0 } });
  const tmux = await TmuxSession.start(PANTO_SH_COMMAND, {
    cols,
    rows,
    cwd: home,
    env: pantoPaneEnv(home),
  });
  try {
    await tmux.waitFor(/fast/);
    await fn(tmux, server, home);
  } finally {
    await tmux.close();
    await server.close();
    await Deno.remove(home, { recursive: true });
  }
}

async function longAnswer(tmux: TmuxSession, server: FakeLlmServer): Promise<void> {
  server.enqueue({ kind: "turn", blocks: [{ type: "text", text: PARAGRAPHS.join("\n\n") }] });
  await tmux.type("tell me a lot");
  await tmux.keys("Enter");
  await tmux.waitFor(/w100x\d+/);
}

Deno.test({
  name: "tmux resize: narrowing and widening after a long answer keep every word once",
  ignore: !tmuxAvailable,
  fn: () =>
    inPane(120, 30, async (tmux, server) => {
      await longAnswer(tmux, server);
      await assertIntact(tmux, "after the answer");
      for (const [cols, rows] of [[80, 30], [60, 30], [120, 30], [40, 24], [250, 40], [90, 20]]) {
        await tmux.resize(cols!, rows!);
        await assertIntact(tmux, `at ${cols}x${rows}`);
      }
    }),
});

Deno.test({
  name: "tmux resize: narrowing and widening while the answer streams keep every word once",
  ignore: !tmuxAvailable,
  fn: () =>
    inPane(120, 30, async (tmux, server) => {
      server.enqueue({
        kind: "slow",
        delayMs: 150,
        chunkSize: 64,
        source: { kind: "turn", blocks: [{ type: "text", text: PARAGRAPHS.join("\n\n") }] },
      });
      await tmux.type("tell me a lot");
      await tmux.keys("Enter");
      // Resize at several points of the stream, each once some more of it has arrived (the
      // third and fourth come close together: w50 and w65 are often in history at once, so
      // tmux defers telling panto of the fourth while panto repaints for the third).
      for (const [at, cols, rows] of [[20, 80, 30], [35, 60, 30], [50, 120, 30], [65, 40, 24]]) {
        await tmux.waitFor(new RegExp(`w${at}x\\d+`), { inHistory: true, timeoutMs: 120_000 });
        await tmux.resize(cols!, rows!);
      }
      await tmux.waitFor(/w100x\d+/, { timeoutMs: 120_000 });
      await assertIntact(tmux, "after the stream");
    }),
});

/** Saves `count` finished sessions started in `cwd`, as earlier panto runs would have. */
async function saveSessions(home: string, cwd: string, count: number): Promise<void> {
  const store = new FileSystemJSONLStore({ dir: join(home, "sessions") });
  const entry = (role: "user" | "assistant", text: string) => ({
    message: {
      role,
      content: [{ type: "text" as const, text }],
      timestamp: new Date().toISOString(),
    },
    conversation: [],
    toolsAvailable: [],
  });
  for (let i = 1; i <= count; i++) {
    await store.create({ cwd }).append([
      entry("user", `earlier question ${i}`),
      entry("assistant", "ok"),
    ]);
  }
  await store.close();
}

Deno.test({
  name:
    "tmux picker: a tall picker opened and closed after a long answer leaves the screen as it was",
  ignore: !tmuxAvailable,
  fn: () =>
    inPane(100, 30, async (tmux, server, home) => {
      await saveSessions(home, await Deno.realPath(home), 15);
      await longAnswer(tmux, server);
      const before = await settle(tmux);
      const historyBefore = await joinedHistory(tmux);
      await assertIntact(tmux, "after the answer");

      await tmux.type("/sessions");
      await tmux.keys("Enter");
      const open = await tmux.waitForSettled(/╭─ Sessions in/);
      const top = open.findIndex((line) => line.startsWith("╭─ Sessions in"));
      assert.ok(top > 5, `the picker is drawn over the bottom rows:\n${open.join("\n")}`);
      // Nothing moved: the rows above the picker are the ones that were there.
      assert.deepEqual(open.slice(0, top), before.slice(0, top));
      assert.deepEqual(
        (await joinedHistory(tmux)).slice(0, historyBefore.length - before.length),
        historyBefore.slice(0, historyBefore.length - before.length),
        "no answer line was pushed into the scrollback",
      );

      await tmux.keys("Escape");
      await tmux.waitUntilGone(/╭─ Sessions in/);
      assert.deepEqual(await settle(tmux), before, "closing it restores the screen exactly");
      await assertIntact(tmux, "after the picker closed");
    }),
});
