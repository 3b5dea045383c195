// A session left running by a process that died is reported as interrupted
// by the stores that can tell whether a writer holds it (JSONL, SQLite).
import assert from "node:assert/strict";
import { join } from "node:path";
import { FileSystemJSONLStore, type SessionStore, SQLiteStore } from "@panto/lib";
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
