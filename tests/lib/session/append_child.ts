// A writer process for fault tests. Usage:
//   deno run -A append_child.ts <jsonl|sqlite|postgres> <dir-db-or-url> <session-id|new> <count> [bytes] [hold]
// Prints "session <id>" first, then each acknowledged append's sequence number
// after its promise resolves. With "hold", it keeps the session open until
// stdin closes. On failure it prints "error <message>" and exits 3.
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import type { SessionStore } from "@panto/lib";
import { SQLiteStore } from "@panto/lib/sqlite";
import { PostgresStore } from "@panto/lib/postgres";
import { assistant, persistent, user } from "./fixtures.ts";

const [kind, location, idArg, countArg, bytesArg, hold] = Deno.args;
const stores: Record<string, () => SessionStore> = {
  sqlite: () => new SQLiteStore({ path: location! }),
  postgres: () => new PostgresStore({ url: location! }),
};
const store = stores[kind!]?.() ?? new FileSystemJSONLStore({ dir: location! });
const count = Number(countArg ?? 100);
const padding = "x".repeat(Number(bytesArg ?? 0));
const encoder = new TextEncoder();
const say = (line: string) => Deno.stdout.writeSync(encoder.encode(`${line}\n`));

try {
  const session = idArg === "new" || idArg === undefined
    ? store.create()
    : await store.resolve(idArg);
  if (!session) throw new Error(`no session ${idArg}`);
  if (!session.persisted) await session.append(persistent(user("start"), assistant("started")));
  say(`session ${session.id}`);
  for (let seq = 0; seq < count; seq++) {
    await session.append(persistent(user(`seq ${seq} pid ${Deno.pid} ${padding}`)));
    say(String(seq));
  }
  if (hold === "hold") {
    say("holding");
    for await (const _ of Deno.stdin.readable) { /* wait for EOF */ }
  }
  await store.close();
} catch (error) {
  say(`error ${(error as Error).message}`);
  Deno.exit(3);
}
