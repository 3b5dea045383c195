import assert from "node:assert/strict";
import { SQLiteStore } from "@panto/lib/sqlite";
import { assistant, persistent, user } from "./fixtures.ts";

Deno.test("Session.info previews the last user message as the store lists it (code points, well-formed)", async () => {
  const store = new SQLiteStore({ path: ":memory:" });
  try {
    const session = store.create();
    // 199 ASCII characters, then emoji: UTF-16 index 200 falls inside a surrogate pair.
    const text = `${"x".repeat(199)}${"😀".repeat(10)}`;
    await session.append(persistent(user(text), assistant("ok")));
    const [listed] = await store.list();
    assert.equal(session.info.lastUserMessage, listed?.lastUserMessage);
    assert.equal(session.info.lastUserMessage, `${"x".repeat(199)}😀`);
    assert.ok(session.info.lastUserMessage.isWellFormed());
    assert.deepStrictEqual(session.info.wire, listed?.wire);
  } finally {
    await store.close();
  }
});
