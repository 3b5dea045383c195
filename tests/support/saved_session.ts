/** Reading back what the program saved, as a test sees it. */
import assert from "node:assert/strict";
import type { Message } from "@panto/lib";
import { openStore } from "../../cli/setup/session_store.ts";

/**
 * The messages, system prompt left out, of the one session saved in the
 * default JSONL store under `home` (the `PANTO_HOME` the program ran with).
 *
 * @param home panto's home directory.
 * @returns The messages.
 */
export async function savedMessages(home: string): Promise<Message[]> {
  const flags = { store: undefined, storeUrl: undefined, sessionDir: undefined, noSession: false };
  const store = await openStore(flags, home);
  try {
    const [session] = await store.list();
    assert.ok(session, "a session was saved");
    const conversation = await store.load(session.id);
    return (conversation?.messages ?? []).filter((m) => m.role !== "system");
  } finally {
    await store.close();
  }
}
