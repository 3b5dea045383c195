/**
 * `--fork ID` through the program: a new session copied from another's
 * active path, naming it as its parent, the original left as it was.
 */
import assert from "node:assert/strict";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import { join } from "node:path";
import { withFakeHome } from "../support/fake_config.ts";
import { runPanto } from "../support/run_panto.ts";

Deno.test("--fork ID: a new session continues a copy of the session and names its parent", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "one" }] });
    assert.equal((await runPanto(["-p", "first question"], { env })).code, 0);
    const store = new FileSystemJSONLStore({ dir: join(home, "sessions") });
    try {
      const [original] = await store.list();
      assert.ok(original);

      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "two" }] });
      const forked = await runPanto(["-p", "--fork", original.id.slice(0, 10), "in the fork"], {
        env,
      });
      assert.equal(forked.code, 0, forked.stderr);
      assert.equal(forked.stdout, "two\n");
      assert.match(JSON.stringify(server.requests[1]!.body), /first question/);

      const sessions = await store.list();
      assert.equal(sessions.length, 2);
      const copy = sessions.find((info) => info.id !== original.id);
      assert.equal(copy?.parentSessionId, original.id);
      assert.equal(copy?.messageCount, original.messageCount + 2);
      const unchanged = await store.load(original.id);
      assert.equal(unchanged?.messages.length, original.messageCount, "the original is untouched");

      const both = await runPanto(["-p", "-c", "--fork", original.id, "x"], { env });
      assert.equal(both.code, 2);
      assert.match(both.stderr, /--fork cannot be combined with -c or -r/);
      const missing = await runPanto(["-p", "--fork", "ffffffff", "x"], { env });
      assert.match(missing.stderr, /No session matches "ffffffff"/);
    } finally {
      await store.close();
    }
  });
});
