/**
 * examples/multi_user_chat.ts as a program: two users chat over HTTP with a
 * fake model, each in a session of their own in the store the flag names,
 * and a user's second message sent while the first runs waits its turn.
 */
import assert from "node:assert/strict";
import type { SessionStore } from "@panto/lib";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import { SQLiteStore } from "@panto/lib/sqlite";
import { FakeLlmServer } from "../support/fake_llm_server.ts";

const EXAMPLE = new URL("../../examples/multi_user_chat.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

/** Runs the example until `fn` is done, then stops it with SIGTERM and checks it exits cleanly. */
async function withChat(
  args: string[],
  server: FakeLlmServer,
  fn: (url: string) => Promise<void>,
): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    // Not --quiet: Deno.serve's "Listening on" line tells the port.
    args: ["run", "-A", `--config=${CONFIG}`, EXAMPLE, "--port=0", ...args],
    env: { CHAT_BASE_URL: server.openaiBaseUrl, CHAT_MODEL: "fake", CHAT_API_KEY: "test-key" },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  let url: string | undefined;
  // A program that never listens is stopped, so the read below ends.
  const deadline = setTimeout(() => child.kill("SIGKILL"), 60_000);
  while (url === undefined) {
    const { value, done } = await reader.read();
    if (done) assert.fail(`the example ended before listening: ${seen}`);
    seen += value;
    url = seen.match(/Listening on (http:\/\/[\d.:]+)/)?.[1];
  }
  clearTimeout(deadline);
  try {
    await fn(url);
  } finally {
    child.kill("SIGTERM");
    await reader.cancel();
    const status = await child.status;
    assert.equal(status.code, 0, "SIGTERM closes the chats, the server and the store");
  }
}

async function say(url: string, user: string, text: string): Promise<unknown> {
  const response = await fetch(`${url}/chat/${user}`, { method: "POST", body: text });
  return { status: response.status, body: await response.json() };
}

function turn(text: string) {
  return { kind: "turn" as const, blocks: [{ type: "text" as const, text }] };
}

const STORES: [string, (at: string) => SessionStore, string][] = [
  ["jsonl", (at) => new FileSystemJSONLStore({ dir: at }), "sessions"],
  ["sqlite", (at) => new SQLiteStore({ path: at }), "chat.db"],
];

for (const [kind, open, location] of STORES) {
  Deno.test(`multi_user_chat: two users, each in their own ${kind} session`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "panto_chat_" });
    const server = await FakeLlmServer.start();
    try {
      server.enqueue(turn("Hello Alice"), turn("Hello Bob"));
      await withChat([`--store=${kind}`, `--location=${dir}/${location}`], server, async (url) => {
        assert.deepEqual(await say(url, "alice", "Hi, I am Alice"), {
          status: 200,
          body: { answer: "Hello Alice" },
        });
        assert.deepEqual(await say(url, "bob", "Hi, I am Bob"), {
          status: 200,
          body: { answer: "Hello Bob" },
        });
        // Two messages at once from one user: one waits for the other's answer.
        server.enqueue(turn("first answer"), turn("second answer"));
        const answers = await Promise.all([say(url, "alice", "one"), say(url, "alice", "two")]);
        const texts = answers.map((a) => (a as { body: { answer: string } }).body.answer);
        assert.deepEqual(texts.sort(), ["first answer", "second answer"]);
        const notFound = await fetch(`${url}/elsewhere`);
        assert.equal(notFound.status, 404);
        await notFound.body?.cancel();
      });
      const store = open(`${dir}/${location}`);
      try {
        const sessions = await store.list();
        const counts = sessions.map((s) => s.messageCount).sort((a, b) => a - b);
        assert.deepEqual(counts, [2, 6], `Bob's one exchange, Alice's three, apart`);
      } finally {
        await store.close();
      }
    } finally {
      await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("multi_user_chat: an unknown store is refused by name", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", `--config=${CONFIG}`, EXAMPLE, "--store=redis"],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(output.success, false);
  assert.match(
    new TextDecoder().decode(output.stderr),
    /--store=redis: use jsonl,sqlite,postgres,none/,
  );
});
