// A migration in its own process, for the kill-and-resume test. Usage:
//   deno run -A migrate_child.ts <jsonl|sqlite|postgres> <from> <jsonl|sqlite|postgres> <to>
// Prints "copied <id>" after each session is copied and verified.
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import type { SessionStore } from "@panto/lib";
import { migrateSessions } from "@panto/lib/transfer";
import { PostgresStore } from "@panto/lib/postgres";
import { SQLiteStore } from "@panto/lib/sqlite";

const [fromKind, from, toKind, to] = Deno.args;
const open = (kind: string | undefined, location: string): SessionStore =>
  kind === "sqlite"
    ? new SQLiteStore({ path: location })
    : kind === "postgres"
    ? new PostgresStore({ url: location })
    : new FileSystemJSONLStore({ dir: location });
const source = open(fromKind, from!);
const target = open(toKind, to!);
const encoder = new TextEncoder();
await migrateSessions(source, target, {
  targetName: `${toKind}:${to}`,
  onProgress: ({ id }) => Deno.stdout.writeSync(encoder.encode(`copied ${id}\n`)),
});
await source.close();
await target.close();
