import assert from "node:assert/strict";
import type { SessionStore } from "@panto/lib";
import { assistant, persistent, user } from "./fixtures.ts";

/**
 * The SQL stores' check that a session whose summary row does not decode is
 * listed as unreadable (under its directory) and the others as usual.
 *
 * @param store The store.
 * @param damageState Writes a state the schema rejects into session `id`'s row.
 */
export async function checkUnreadableSummaryListed(
  store: SessionStore,
  damageState: (id: string) => Promise<void>,
): Promise<void> {
  const good = store.create();
  await good.append(persistent(user("fine"), assistant("a")));
  const bad = store.create({ cwd: "/w" });
  await bad.append(persistent(user("q"), assistant("a")));
  await damageState(bad.id);
  const listed = await store.list();
  assert.deepStrictEqual(listed.map((info) => info.id), [bad.id, good.id]);
  assert.match(listed[0]!.unreadable ?? "", /^its summary row does not decode: state/);
  assert.equal(listed[0]!.cwd, "/w", "still listed under its directory");
  assert.equal(listed[1]!.unreadable, undefined);
  assert.equal(listed[1]!.lastUserMessage, "fine");
}
