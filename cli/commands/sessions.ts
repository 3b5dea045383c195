import type { SessionInfo, SessionStore } from "@panto/lib";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import { sanitizeTerminalText } from "@panto/tui/sanitize";
import { UsageError } from "../shared/errors.ts";
import type { StoreFlags, StoreKind } from "../setup/session_store.ts";
import { sessionTitle } from "../shared/session_title.ts";
import { startedIn } from "../setup/sessions_here.ts";
import { migrateCommand } from "./sessions_migrate.ts";
import { exportCommand, importCommand } from "./sessions_transfer.ts";
import type { ExportFormat } from "../export/export_formats.ts";

/** The `panto sessions` actions. */
export type SessionsAction =
  | "list"
  | "show"
  | "rm"
  | "rename"
  | "export"
  | "import"
  | "repair"
  | "migrate";

/** Every {@linkcode SessionsAction}. */
export const SESSIONS_ACTIONS: readonly SessionsAction[] = [
  "list",
  "show",
  "rm",
  "rename",
  "export",
  "import",
  "repair",
  "migrate",
];

/** Parsed arguments of `panto sessions`. */
export interface SessionsArgs {
  /** What to do (default list). */
  action: SessionsAction;
  /** Session id or unique prefix. */
  id: string | undefined;
  /** New name for `rename`; the file for `export`. */
  name: string | undefined;
  /** `export --format`: the format (default: the file's extension; Markdown to standard output). */
  exportFormat?: ExportFormat;
  /** `export --force`: replace an existing file. */
  force?: boolean;
  /** JSON output for `list`. */
  json: boolean;
  /** `list --all`: every directory's sessions (default: the working directory's). */
  all: boolean;
  /** `list --stale`: only sessions running (or interrupted) for at least this many minutes. */
  staleMinutes?: number;
  /** `migrate --to`: the kind of store to move every session into. */
  migrateTo?: StoreKind;
  /** `migrate --to-url`: its directory, database file or URL (default: that kind's default). */
  migrateToUrl?: string;
  /** `migrate --wait`: how long to wait for a turn running in the source (default 30 s). */
  migrateWaitSeconds?: number;
}

/**
 * Runs `panto sessions …` against a store.
 *
 * @param store The store.
 * @param args The parsed arguments (`migrate` also reads the source's store flags).
 * @param write Where output goes.
 * @param cwd The directory whose sessions `list` shows without `--all`.
 * @returns The exit code.
 */
export async function runSessionsCommand(
  store: SessionStore,
  args: SessionsArgs & Partial<StoreFlags>,
  write: (text: string) => void,
  cwd: string = Deno.cwd(),
): Promise<number> {
  if (args.action === "list") {
    const listed = await store.list();
    const sessions = listed.filter((info) =>
      (args.all || startedIn(info, cwd)) &&
      (args.staleMinutes === undefined || olderThan(args.staleMinutes)(info))
    );
    if (args.json) write(JSON.stringify(sessions, null, 2) + "\n");
    else if (sessions.length > 0) write(formatTable(sessions, args.all));
    else write(args.all ? "No sessions yet.\n" : noSessionsHere(cwd, listed.length));
    return 0;
  }
  if (args.action === "migrate") return await migrateCommand(store, args, write);
  if (args.action === "import") return await importCommand(store, args, write, cwd);
  if (!args.id) {
    throw new UsageError(
      `panto sessions ${args.action} needs a session id (or a unique prefix of one)`,
    );
  }
  const session = await store.resolve(args.id);
  if (!session) {
    throw new UsageError(
      `No session matches ${JSON.stringify(args.id)}: run \`panto sessions\` to list them`,
    );
  }
  const id = session.id;
  switch (args.action) {
    case "show":
      write(await store.export(id));
      return 0;
    case "export":
      return await exportCommand(
        store,
        id,
        {
          path: args.name,
          ...(args.exportFormat ? { format: args.exportFormat } : {}),
          force: args.force === true,
        },
        write,
        cwd,
      );
    case "rm":
      await store.delete(id);
      write(`Deleted session ${id}\n`);
      return 0;
    case "rename":
      if (!args.name) {
        throw new UsageError("panto sessions rename needs a name: panto sessions rename ID NAME");
      }
      await store.rename(id, args.name);
      write(`Renamed session ${id} to ${JSON.stringify(args.name)}\n`);
      return 0;
    case "repair": {
      if (!(store instanceof FileSystemJSONLStore)) {
        throw new UsageError(
          "repair is for the jsonl store; the SQL stores commit whole batches or nothing",
        );
      }
      const report = await store.repair(id);
      if (report.backupPath === null) {
        write(`Session ${id} is intact; nothing to repair\n`);
      } else {
        const renumbered = report.reassigned.length > 0
          ? `, gave ${report.reassigned.length} a new entry id`
          : "";
        write(
          `Repaired ${report.path}: kept ${report.kept} lines${renumbered}, ` +
            `dropped ${report.dropped.length}\n`,
        );
        for (const drop of report.dropped) write(`  line ${drop.line}: ${drop.reason}\n`);
        for (const { line, id: old, newId } of report.reassigned) {
          write(`  line ${line}: entry id ${old} was used before: it is now ${newId}\n`);
        }
        if (report.headerRebuilt) write("  a minimal header was written (its metadata is lost)\n");
        if (report.backupPath) write(`The damaged file was saved as ${report.backupPath}\n`);
      }
      return 0;
    }
  }
}

/** Sessions whose turn started at least `minutes` ago and has not ended (running or interrupted). */
function olderThan(minutes: number): (info: SessionInfo) => boolean {
  const before = Date.now() - minutes * 60_000;
  return ({ state }) =>
    (state?.status === "running" || state?.status === "interrupted") &&
    Date.parse(state.since) <= before;
}

/** How a session's state shows before its name: only what needs attention. */
const STATE_MARK: Record<NonNullable<SessionInfo["state"]>["status"], string> = {
  idle: "",
  running: "(running) ",
  interrupted: "(interrupted) ",
  error: "(failed) ",
};

function noSessionsHere(cwd: string, elsewhere: number): string {
  const hint = elsewhere > 0 ? ` (${elsewhere} in other directories: panto sessions --all)` : "";
  return `No sessions in ${oneCell(cwd)} yet${hint}.\n`;
}

/** One row per session; `withDirectory` adds the directory each was started in. */
function formatTable(sessions: readonly SessionInfo[], withDirectory: boolean): string {
  const rows = sessions.map((s) =>
    [
      s.id,
      s.modified.slice(0, 16).replace("T", " "),
      String(s.messageCount),
      s.wire?.model ?? "",
      ...(withDirectory ? [s.cwd ?? "?"] : []),
      s.unreadable === undefined
        ? `${STATE_MARK[s.state?.status ?? "idle"]}${oneLine(sessionTitle(s))}`
        : `(unreadable: ${oneLine(s.unreadable)})`,
    ].map(oneCell)
  );
  const header = [
    "ID",
    "MODIFIED",
    "MSGS",
    "MODEL",
    ...(withDirectory ? ["DIRECTORY"] : []),
    "NAME / FIRST PROMPT",
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ").trimEnd();
  return [line(header), ...rows.map(line)].join("\n") + "\n";
}

/** Stored names, prompts and models are untrusted: no terminal controls, no line breaks. */
function oneCell(text: string): string {
  return sanitizeTerminalText(text).replace(/\s/g, " ");
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 60 ? `${flat.slice(0, 59)}…` : flat;
}
