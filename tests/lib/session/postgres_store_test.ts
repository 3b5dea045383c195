import assert from "node:assert/strict";
import postgres from "postgres";
import { PostgresStore } from "@panto/lib/postgres";
import { SessionInUseError, SessionStoreError } from "@panto/lib";
import { postgresAvailable, type PostgresCluster, startPostgres } from "../../support/postgres.ts";
import { ChildWriter } from "./child_writer.ts";
import { runConformance } from "./conformance.ts";
import { checkUnreadableSummaryListed } from "./unreadable_row.ts";
import { assistant, persistent, user } from "./fixtures.ts";

const available = postgresAvailable();

/** Every row of every table in the database, as text. */
async function dumpDatabase(url: string): Promise<Uint8Array> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const tables = await sql`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`;
    let text = "";
    for (const { tablename } of tables) {
      const rows = await sql.unsafe(`SELECT t::text AS row FROM "${tablename}" t`);
      text += rows.map((r) => r.row).join("\n");
    }
    return new TextEncoder().encode(text);
  } finally {
    await sql.end();
  }
}

async function withDatabase(
  cluster: PostgresCluster,
  body: (url: string) => Promise<void>,
): Promise<void> {
  const url = await cluster.createDatabase();
  try {
    await body(url);
  } finally {
    await cluster.dropDatabase(url);
  }
}

Deno.test({ name: "PostgresStore", ignore: !available }, async (t) => {
  const cluster = await startPostgres();
  try {
    await t.step("conformance", async (t) => {
      await runConformance(t, async () => {
        const url = await cluster.createDatabase();
        return {
          store: new PostgresStore({ url }),
          dump: () => dumpDatabase(url),
          cleanup: () => cluster.dropDatabase(url),
        };
      });
    });

    await t.step("migrations run once, in a transaction, even when processes race", async () => {
      await withDatabase(cluster, async (url) => {
        const stores = Array.from({ length: 4 }, () => new PostgresStore({ url }));
        await Promise.all(stores.map((store) => store.checkWritable()));
        await Promise.all(stores.map((store) => store.close()));
        const sql = postgres(url, { max: 1, onnotice: () => {} });
        try {
          const rows = await sql`SELECT version FROM panto_migrations ORDER BY version`;
          assert.deepStrictEqual(
            rows.map((r) => r.version),
            Array.from({ length: PostgresStore.schemaVersion }, (_, i) => i + 1),
          );
          await sql`INSERT INTO panto_migrations (version, name) VALUES (99, 'from the future')`;
        } finally {
          await sql.end();
        }
        const newer = new PostgresStore({ url });
        for (const task of [() => newer.list(), () => newer.checkWritable()]) {
          await assert.rejects(task, (error) => {
            assert.ok(error instanceof SessionStoreError, String(error));
            assert.match(
              error.message,
              new RegExp(
                `schema version 99; this panto knows ${PostgresStore.schemaVersion}: upgrade panto`,
              ),
            );
            return true;
          });
        }
        await newer.close();
      });
    });

    await t.step("migration 4 fills in the first prompt of sessions stored before it", async () => {
      await withDatabase(cluster, async (url) => {
        const store = new PostgresStore({ url });
        const old = store.create();
        await old.append(persistent(user("first of old"), assistant("a")));
        await old.append(persistent(user("later\0with NUL"), assistant("b")));
        await store.create().append(persistent(assistant("no prompt")));
        await store.close();
        const sql = postgres(url, { max: 1, onnotice: () => {} });
        try {
          await sql`ALTER TABLE panto_sessions DROP COLUMN first_user_message`;
          await sql`DELETE FROM panto_migrations WHERE version = 4`;
        } finally {
          await sql.end();
        }
        const reopened = new PostgresStore({ url });
        try {
          assert.deepStrictEqual(
            (await reopened.list()).map((s) => [s.firstUserMessage, s.lastUserMessage]),
            [[undefined, ""], ["first of old", "later with NUL"]],
          );
        } finally {
          await reopened.close();
        }
      });
    });

    await t.step(
      "a session whose summary row does not decode is listed as unreadable",
      async () => {
        await withDatabase(cluster, async (url) => {
          const store = new PostgresStore({ url });
          try {
            await checkUnreadableSummaryListed(store, async (id) => {
              const sql = postgres(url, { max: 1, onnotice: () => {} });
              try {
                await sql`UPDATE panto_sessions SET state = '{"status":"weird"}' WHERE id = ${id}`;
              } finally {
                await sql.end();
              }
            });
          } finally {
            await store.close();
          }
        });
      },
    );

    await t.step(
      "many writers on several connections never interleave or reuse a seq",
      async () => {
        await withDatabase(cluster, async (url) => {
          const stores = [
            new PostgresStore({ url, maxConnections: 4 }),
            new PostgresStore({ url, maxConnections: 4 }),
          ];
          const session = stores[0]!.create();
          await session.append(persistent(user("start"), assistant("started")));
          // One store holds the session (a second is refused), but its appends run
          // concurrently on its four connections.
          const writers = Array.from({ length: 8 }, (_, writer) => ({ writer, store: stores[0]! }));
          await Promise.all(writers.map(async ({ writer, store }) => {
            for (let i = 0; i < 20; i++) {
              await store.appendMessages(
                session.id,
                persistent(user(`w${writer} ${i}`), user(`w${writer} ${i} pair`)),
              );
            }
          }));
          const messages = (await stores[1]!.load(session.id))!.messages.slice(2);
          const texts = messages.map((
            m,
          ) => (m.content[0]?.type === "text" ? m.content[0].text : ""));
          assert.equal(texts.length, 8 * 20 * 2);
          for (let i = 0; i < texts.length; i += 2) {
            assert.equal(
              texts[i + 1],
              `${texts[i]} pair`,
              "a batch is never split by another writer",
            );
          }
          for (const { writer } of writers) {
            const mine = texts.filter((t) => t.startsWith(`w${writer} `) && !t.endsWith("pair"));
            assert.deepStrictEqual(mine, Array.from({ length: 20 }, (_, i) => `w${writer} ${i}`));
          }
          assert.equal((await stores[0]!.list())[0]?.messageCount, 2 + 8 * 20 * 2);
          await Promise.all(stores.map((store) => store.close()));
        });
      },
    );

    await t.step(
      "one writer per session: a second is refused naming the holder until the first lets go",
      async () => {
        await withDatabase(cluster, async (url) => {
          const first = new PostgresStore({ url });
          const second = new PostgresStore({ url });
          const session = first.create();
          await session.append(persistent(user("q"), assistant("a"), user("long task")));
          await assert.rejects(
            () => second.appendMessages(session.id, persistent(user("theirs"))),
            (error: unknown) => {
              assert.ok(error instanceof SessionInUseError, String(error));
              assert.equal(error.holder.pid, Deno.pid);
              assert.match(error.message, /in use by this process .* since \d{4}-/);
              return true;
            },
          );
          assert.equal((await second.resolve(session.id))?.info.state?.status, "running");
          await first.release(session.id);
          assert.equal(
            (await second.resolve(session.id))?.info.state?.status,
            "interrupted",
            "running with no writer holding it",
          );
          await second.appendMessages(session.id, persistent(user("mine now")));
          await assert.rejects(
            () => first.appendMessages(session.id, persistent(user("back"))),
            SessionInUseError,
          );
          // Closing drops its advisory lock: the session is free at once.
          await second.close();
          assert.equal((await first.resolve(session.id))?.info.state?.status, "interrupted");
          await first.appendMessages(session.id, persistent(user("after the holder closed")));
          assert.equal((await first.load(session.id))!.messages.length, 5);
          await first.close();
        });
      },
    );

    await t.step(
      "a holder killed with SIGKILL: its session reads interrupted and takes a writer within seconds",
      async () => {
        await withDatabase(cluster, async (url) => {
          const child = new ChildWriter(["postgres", url, "new", "1", "0", "hold"]);
          const id = (await child.waitFor(/^session /)).slice("session ".length);
          await child.waitFor(/^holding$/);
          const store = new PostgresStore({ url });
          const status = async () => (await store.resolve(id))?.info.state?.status;
          assert.equal(await status(), "running", "the live child holds it");
          await assert.rejects(
            () => store.appendMessages(id, persistent(user("mine"))),
            SessionInUseError,
          );
          const killed = performance.now();
          child.process.kill("SIGKILL");
          await child.finish();
          // Generous: the server notices the dead connection at once; a lease would take minutes.
          const deadline = killed + 60_000;
          while (await status() !== "interrupted" && performance.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 25));
          }
          assert.equal(await status(), "interrupted");
          await store.appendMessages(id, persistent(user("taken over"), assistant("done")));
          const seconds = ((performance.now() - killed) / 1000).toFixed(2);
          console.log(`  interrupted and written ${seconds} s after SIGKILL`);
          assert.equal(await status(), "idle");
          await store.close();
        });
      },
    );

    await t.step("close while the first call is still connecting ends the pool", async () => {
      await withDatabase(cluster, async (url) => {
        const store = new PostgresStore({ url });
        const listing = store.list();
        await store.close();
        await listing.then(() => {}, () => {});
        const sql = postgres(url, { max: 1, onnotice: () => {} });
        try {
          let others = -1;
          for (let attempt = 0; attempt < 50 && others !== 0; attempt++) {
            if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 20));
            const [row] = await sql`SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND pid <> pg_backend_pid()`;
            others = Number(row?.n);
          }
          assert.equal(others, 0, "the store's connections are closed");
        } finally {
          await sql.end();
        }
      });
    });
  } finally {
    await cluster.stop();
  }
});
