// One suite that attacks every built-in store through an owner view: as
// alice, with every method, against bob's sessions and an ownerless one.
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  AmbiguousSessionIdError,
  type OwnerView,
  type Session,
  SessionNotFoundError,
  type SessionStore,
  SessionStoreError,
} from "@panto/lib";
import { migrateSessions } from "@panto/lib/transfer";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import { PostgresStore } from "@panto/lib/postgres";
import { SQLiteStore } from "@panto/lib/sqlite";
import { postgresAvailable, startPostgres } from "../../support/postgres.ts";
import { assistant, persistent, user } from "./fixtures.ts";

/** A built-in store, unscoped: what an administrator holds. */
type AdminStore = SessionStore & { forOwner(ownerId: string): OwnerView };

/** A fresh empty store, and a way to remove it after `close`. */
interface Harness {
  store: AdminStore;
  cleanup(): Promise<void>;
}

/** Bob's and an ownerless session, written by the administrator, and alice's view. */
interface World {
  store: AdminStore;
  alice: OwnerView;
  bob: OwnerView;
  /** Bob's session, two entries, named "bob's". */
  bobs: Session;
  /** A session with no owner. */
  nobodys: Session;
  /** Alice's session. */
  alices: Session;
}

async function world(store: AdminStore): Promise<World> {
  const alice = store.forOwner("alice");
  const bob = store.forOwner("bob");
  const alices = alice.create({ id: "shared-a1" });
  await alices.append(persistent(user("alice's zebra"), assistant("ok")));
  const bobs = bob.create({ id: "shared-b1" });
  await bobs.append(persistent(user("bob's zebra secret"), assistant("noted")));
  await bob.rename(bobs.id, "bob's");
  const second = bob.create({ id: "shared-b2" });
  await second.append(persistent(user("bob again"), assistant("ok")));
  const nobodys = store.create({ id: "shared-n1" });
  await nobodys.append(persistent(user("nobody's zebra"), assistant("ok")));
  return { store, alice, bob, bobs, nobodys, alices };
}

/** Asserts bob's session is as `world` wrote it, through the administrator's store. */
async function assertUntouched(store: AdminStore, id: string, name?: string): Promise<void> {
  const [info] = (await store.list({ ownerId: "bob" })).filter((s) => s.id === id);
  assert.ok(info, `${id} still exists`);
  assert.equal(info.messageCount, 2);
  assert.equal(info.ownerId, "bob");
  if (name !== undefined) assert.equal(info.name, name);
  const tree = await store.loadTree!(id);
  assert.deepStrictEqual(tree!.entries.map((entry) => entry.label ?? null), [null, null]);
}

/** Rejects with "not found in the sessions of owner alice", naming no other id. */
async function refused(task: () => Promise<unknown>, id: string): Promise<void> {
  await assert.rejects(task, (error: unknown) => {
    assert.ok(error instanceof SessionNotFoundError, String(error));
    assert.equal(error.id, id);
    assert.match(error.message, /not found in the sessions of owner alice/);
    assert.doesNotMatch(error.message.replaceAll(id, ""), /shared-|bob/, "no other id, no owner");
    return true;
  });
}

const CASES: Record<string, (w: World) => Promise<void>> = {
  "reads nothing of another owner's or an ownerless session": async ({ alice, bobs, nobodys }) => {
    for (const id of [bobs.id, nobodys.id]) {
      assert.equal(await alice.load(id), null);
      assert.equal(await alice.loadTree(id), null);
      assert.equal(await alice.resolve(id), null);
      await refused(() => alice.export(id), id);
    }
    assert.deepStrictEqual((await alice.list()).map((s) => s.id), ["shared-a1"]);
    assert.equal((await alice.latest())?.id, "shared-a1", "bob's is newer, and not alice's");
    assert.deepStrictEqual((await alice.search("zebra")).map((hit) => hit.sessionId), [
      "shared-a1",
    ]);
  },

  "resolves prefixes among this owner's sessions only, ambiguity naming only those": async (
    { alice },
  ) => {
    assert.equal(await alice.resolve("shared-b"), null);
    assert.equal((await alice.resolve("shared-"))?.id, "shared-a1", "the only one in scope");
    await alice.create({ id: "shared-a2" }).append(persistent(user("q"), assistant("a")));
    await assert.rejects(() => alice.resolve("shared-"), (error: unknown) => {
      assert.ok(error instanceof AmbiguousSessionIdError, String(error));
      assert.deepStrictEqual([...error.candidates], ["shared-a1", "shared-a2"]);
      assert.doesNotMatch(error.message, /shared-[bn]/);
      return true;
    });
  },

  "writes, labels, forks, renames, deletes and releases nothing of bob's": async (
    { store, alice, bobs },
  ) => {
    const [entry] = (await store.loadTree!(bobs.id))!.entries;
    const attacks: (() => Promise<unknown>)[] = [
      () => alice.appendMessages(bobs.id, persistent(user("hijack"))),
      () => alice.replaceConversation(bobs.id, persistent(user("replaced"), assistant("x"))),
      () => alice.setLabel(bobs.id, entry!.id, "mine"),
      () => alice.fork(bobs.id, entry!.id),
      () => alice.rename(bobs.id, "mine"),
      () => alice.delete(bobs.id),
      () => alice.release(bobs.id),
    ];
    for (const attack of attacks) await refused(attack, bobs.id);
    await assertUntouched(store, bobs.id, "bob's");
    assert.equal((await store.list()).length, 4, "no fork was made");
  },

  "a handle of bob's session, given to alice's view, cannot write through it": async (
    { store, alice, bob, bobs },
  ) => {
    // Bob's id, claimed in a new session of alice's: the write finds bob's session and is refused.
    const claim = alice.create({ id: bobs.id });
    await refused(() => claim.append(persistent(user("q"), assistant("mine now"))), bobs.id);
    // One not written yet cannot be claimed either: its owner stays bob.
    const draft = bob.create();
    assert.throws(() => alice.create({ id: draft.id }), /already created/);
    await refused(() => alice.rename(draft.id, "mine"), draft.id);
    await draft.append(persistent(user("q"), assistant("a")));
    assert.equal((await store.resolve(draft.id))?.info.ownerId, "bob");
    await assertUntouched(store, bobs.id, "bob's");
  },

  "names the fix when asked for another owner's sessions, and never re-scopes": async (
    { alice },
  ) => {
    const fix =
      /scoped to owner alice; it cannot \w+ (the sessions of |sessions for )?bob: use the unscoped store/;
    assert.throws(() => alice.list({ ownerId: "bob" }), fix);
    assert.throws(() => alice.search("zebra", { ownerId: "bob" }), fix);
    await assert.rejects(() => alice.resolve("shared-b1", { ownerId: "bob" }), fix);
    assert.throws(() => alice.create({ ownerId: "bob" }), fix);
    assert.equal((await alice.list({ ownerId: "alice" })).length, 1, "its own owner is fine");
    const view: Record<string, unknown> = alice as unknown as Record<string, unknown>;
    for (const admin of ["forOwner", "setMigrationFence", "migrationFence", "drainWriters"]) {
      assert.equal(view[admin], undefined, `a view has no ${admin}`);
    }
    assert.equal(view.repair, undefined);
    // @ts-expect-error: the view's type has no store-wide administration.
    assert.equal(alice.setMigrationFence, undefined);
    // @ts-expect-error: nor a way to re-scope itself.
    assert.equal(alice.forOwner, undefined);
  },

  "is no migration source: it cannot fence, and nothing is copied or fenced": async (
    { store, alice, bobs },
  ) => {
    const target = new SQLiteStore({ path: ":memory:" });
    try {
      await assert.rejects(
        () => migrateSessions(alice, target, { targetName: "sqlite::memory:" }),
        (error: unknown) => {
          assert.ok(error instanceof SessionStoreError, String(error));
          assert.match(error.message, /cannot be fenced/);
          return true;
        },
      );
      assert.deepStrictEqual(await target.list(), []);
      assert.equal(await store.migrationFence!(), null, "the store is not fenced");
      await store.appendMessages(bobs.id, persistent(user("bob writes on"), assistant("ok")));
    } finally {
      await target.close();
    }
  },

  "its sessions keep the view as their store, and it does its owner's work": async (
    { store, alice, alices },
  ) => {
    assert.equal(alices.store, alice);
    const resolved = (await alice.resolve(alices.id))!;
    assert.equal(resolved.store, alice);
    assert.equal((await alice.latest())?.store, alice);
    await resolved.append(persistent(user("more"), assistant("fine")));
    await alice.rename(alices.id, "alice's");
    const [first] = (await alice.loadTree(alices.id))!.entries;
    await resolved.setLabel(first!.id, "start");
    const fork = await alice.fork(alices.id, first!.id);
    assert.equal(fork.store, alice);
    assert.equal(fork.info.ownerId, "alice");
    await resolved.replaceConversation(persistent(user("summary"), assistant("ok")));
    assert.match(await alice.export(alices.id), /summary/);
    await alice.release(alices.id);
    await alice.delete(fork.id);
    const listed = await alice.list();
    assert.deepStrictEqual(listed.map((s) => [s.id, s.name ?? null]), [
      [alices.id, "alice's"],
    ]);
    assert.equal((await store.resolve(alices.id))?.info.ownerId, "alice");
  },

  "the unscoped store scopes search and resolve on request, and a closed view leaves it open":
    async ({ store, alice, bob, bobs }) => {
      const hits = await store.search("zebra", { ownerId: "bob" });
      assert.deepStrictEqual(hits.map((hit) => hit.sessionId), [bobs.id]);
      assert.equal((await store.search("zebra")).length, 3, "everyone's without an owner");
      assert.equal(await store.resolve(bobs.id, { ownerId: "alice" }), null);
      assert.equal((await store.resolve("shared-b1", { ownerId: "bob" }))?.id, bobs.id);
      await alice.close();
      assert.throws(() => alice.list(), /view of owner alice is closed/);
      assert.equal((await bob.list()).length, 2, "another view still works");
      assert.equal((await store.list()).length, 4, "the store is open");
    },
};

async function runOwnerSuite(t: Deno.TestContext, factory: () => Promise<Harness>) {
  for (const [name, body] of Object.entries(CASES)) {
    await t.step(name, async () => {
      const harness = await factory();
      try {
        await body(await world(harness.store));
      } finally {
        await harness.store.close();
        await harness.cleanup();
      }
    });
  }
}

Deno.test("owner views: FileSystemJSONLStore", async (t) => {
  await runOwnerSuite(t, async () => {
    const dir = await Deno.makeTempDir({ prefix: "panto-owner-jsonl-" });
    return {
      store: new FileSystemJSONLStore({ dir: join(dir, "sessions") }),
      cleanup: () => Deno.remove(dir, { recursive: true }),
    };
  });
});

Deno.test("owner views: SQLiteStore", async (t) => {
  await runOwnerSuite(t, async () => {
    const dir = await Deno.makeTempDir({ prefix: "panto-owner-sqlite-" });
    return {
      store: new SQLiteStore({ path: join(dir, "sessions.db") }),
      cleanup: () => Deno.remove(dir, { recursive: true }),
    };
  });
});

Deno.test({ name: "owner views: PostgresStore", ignore: !postgresAvailable() }, async (t) => {
  const cluster = await startPostgres();
  try {
    await runOwnerSuite(t, async () => {
      const url = await cluster.createDatabase();
      return { store: new PostgresStore({ url }), cleanup: () => cluster.dropDatabase(url) };
    });
  } finally {
    await cluster.stop();
  }
});
