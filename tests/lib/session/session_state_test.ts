// What a process that dies leaves behind: a session left running is reported
// as interrupted by the stores that can tell whether a writer holds it (JSONL,
// SQLite), and a replacement cut off by kill -9 leaves the old or the new
// conversation, never a mix.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import type { SessionStore } from "@panto/lib";
import { SQLiteStore } from "@panto/lib/sqlite";
import { nextState } from "../../../lib/session/session_state.ts";
import { ChildWriter } from "./child_writer.ts";
import { assistant, persistent, user } from "./fixtures.ts";

const KINDS: Record<
  string,
  { location: (root: string) => string; open: (at: string) => SessionStore }
> = {
  jsonl: { location: (root) => root, open: (dir) => new FileSystemJSONLStore({ dir }) },
  sqlite: {
    location: (root) => join(root, "sessions.db"),
    open: (path) => new SQLiteStore({ path }),
  },
};

for (const [kind, { location, open }] of Object.entries(KINDS)) {
  Deno.test(`${kind}: running while its writer lives, interrupted once it is killed`, async () => {
    const root = await Deno.makeTempDir({ prefix: "panto-state-" });
    const at = location(root);
    try {
      // The child appends two prompts with no answer (the second starts turn 3) and holds the session.
      const child = new ChildWriter([kind, at, "new", "2", "0", "hold"]);
      const id = (await child.waitFor(/^session /)).slice("session ".length);
      await child.waitFor(/^holding$/);
      const store = open(at);
      try {
        assert.equal((await store.resolve(id))?.info.state?.status, "running");
        child.process.kill("SIGKILL");
        await child.finish();
        const [info] = await store.list();
        assert.equal(info?.state?.status, "interrupted");
        assert.ok(info?.state?.status === "interrupted" && info.state.turnId === "3");
        // The next writer takes the session over and finishes a new turn.
        const session = (await store.resolve(id))!;
        assert.equal(session.info.state?.status, "interrupted", "shown on resume too");
        await session.append(persistent(user("again"), assistant("done")));
        assert.deepStrictEqual((await store.list())[0]?.state, { status: "idle" });
      } finally {
        await store.close();
      }
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  });
}

Deno.test("nextState: a prompt after a dangling prompt starts a new turn; one after tool results does not", () => {
  const first = user("lost");
  const second = user("again");
  const lost = nextState(undefined, first, 4);
  assert.deepStrictEqual(lost, {
    status: "running",
    turnId: "4",
    since: first.timestamp,
    last: "prompt",
  });
  assert.deepStrictEqual(nextState(lost, second, 5), {
    status: "running",
    turnId: "5",
    since: second.timestamp,
    last: "prompt",
  });
  const afterTools = { ...lost!, last: "tool_result" } as const;
  assert.deepStrictEqual(nextState(afterTools, second, 7), afterTools);
});

Deno.test("nextState: an interrupted turn folds on as a running one", () => {
  const prompt = user("cut off");
  const interrupted = {
    status: "interrupted",
    turnId: "4",
    since: prompt.timestamp,
    last: "tool_result",
  } as const;
  assert.deepStrictEqual(nextState(interrupted, user("steer"), 6), {
    ...interrupted,
    status: "running",
  });
  const next = user("new prompt");
  assert.deepStrictEqual(nextState({ ...interrupted, last: "prompt" }, next, 6), {
    status: "running",
    turnId: "6",
    since: next.timestamp,
    last: "prompt",
  });
});

for (const [kind, { location, open }] of Object.entries(KINDS)) {
  Deno.test(`${kind}: kill -9 during replaceConversation leaves one whole generation (5 runs)`, async () => {
    const root = await Deno.makeTempDir({ prefix: "panto-replace-" });
    const at = location(root);
    const child = fileURLToPath(new URL("./replace_child.ts", import.meta.url));
    try {
      const store = open(at);
      const session = store.create();
      await session.append(persistent(user("start"), assistant("started")));
      await store.close();
      for (let run = 0; run < 5; run++) {
        const writer = new ChildWriter([kind, at, session.id, String(run * 20_000)], child);
        await writer.waitFor(/^0$/);
        await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 80));
        writer.process.kill("SIGKILL");
        await writer.finish();
        const acknowledged = Math.max(
          ...writer.lines.filter((line) => /^\d+$/.test(line)).map(Number),
        );
        const reader = open(at);
        const texts = (await reader.load(session.id))!.messages.map((m) =>
          m.content[0]?.type === "text" ? m.content[0].text.split(" ").slice(0, 2).join(" ") : ""
        );
        await reader.close();
        assert.equal(texts.length, 20, `run ${run}: a whole conversation`);
        const generations = new Set(texts);
        assert.equal(generations.size, 1, `run ${run}: one generation, found ${[...generations]}`);
        const generation = Number([...generations][0]!.split(" ")[1]);
        assert.ok(generation >= acknowledged, `run ${run}: ${generation} < ${acknowledged}`);
      }
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  });
}
