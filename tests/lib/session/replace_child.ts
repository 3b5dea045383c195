// A writer process for the replace crash test. Usage:
//   deno run -A replace_child.ts <jsonl|sqlite> <dir-or-db> <session-id> <bytes>
// Replaces the session's conversation again and again with generation 0, 1,
// 2, … (every message of generation g says "gen g"), printing g after each
// replacement resolves, until killed. On failure it prints "error <message>".
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import type { SessionStore } from "@panto/lib";
import { SQLiteStore } from "@panto/lib/sqlite";
import { assistant, persistent, user } from "./fixtures.ts";

const [kind, location, id, bytes] = Deno.args;
const store: SessionStore = kind === "sqlite"
  ? new SQLiteStore({ path: location! })
  : new FileSystemJSONLStore({ dir: location! });
const padding = "x".repeat(Number(bytes ?? 0));
const encoder = new TextEncoder();
const say = (line: string) => Deno.stdout.writeSync(encoder.encode(`${line}\n`));

try {
  const session = await store.resolve(id!);
  if (!session) throw new Error(`no session ${id}`);
  for (let generation = 0;; generation++) {
    const messages = Array.from(
      { length: 20 },
      (_, i) =>
        i % 2 ? assistant(`gen ${generation} ${padding}`) : user(`gen ${generation} ${padding}`),
    );
    await session.replaceConversation(persistent(...messages));
    say(String(generation));
  }
} catch (error) {
  say(`error ${(error as Error).message}`);
  Deno.exit(3);
}
