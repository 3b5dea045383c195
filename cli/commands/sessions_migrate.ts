import type { SessionStore } from "@panto/lib";
import { migrateSessions } from "@panto/lib/transfer";
import { resolvePantoHome } from "../config/load_config.ts";
import { readEnv } from "../shared/env.ts";
import { UsageError } from "../shared/errors.ts";
import {
  openWritableStore,
  type StoreFlags,
  type StoreKind,
  storeLocation,
} from "../setup/session_store.ts";
import type { SessionsArgs } from "./sessions.ts";

/**
 * `panto sessions migrate --to KIND [--to-url …] [--wait SECONDS]`: moves every session of
 * the chosen store into another (docs/sessions.md, "Moving sessions between
 * stores"), then says how to use the new one.
 *
 * @param source The store the flags chose (`--store`, `--store-url`, `--session-dir`).
 * @param args The parsed arguments, with the source's store flags.
 * @param write Where output goes.
 * @returns The exit code.
 * @throws {UsageError} Without `--to`, or when the target is the source.
 */
export async function migrateCommand(
  source: SessionStore,
  args: SessionsArgs & Partial<StoreFlags>,
  write: (text: string) => void,
): Promise<number> {
  const kind = args.migrateTo;
  if (!kind) {
    throw new UsageError(
      "panto sessions migrate needs --to jsonl|sqlite|postgres (with --to-url for postgres): " +
        "the store to move every session into",
    );
  }
  const home = resolvePantoHome(readEnv, Deno.cwd());
  const target = targetFlags(kind, args.migrateToUrl);
  const sourceKind = args.store ?? "jsonl";
  const from = `${sourceKind}:${storeLocation(sourceKind, sourceFlags(args), home)}`;
  const to = `${kind}:${storeLocation(kind, target, home)}`;
  if (from === to) {
    throw new UsageError(
      `${to} is the store the sessions would be moved from: name another with --to and --to-url`,
    );
  }
  const store = await openWritableStore(target, home);
  try {
    write(`Moving every session from ${from} to ${to}\n`);
    const report = await migrateSessions(source, store, {
      targetName: to,
      ...(args.migrateWaitSeconds === undefined ? {} : { waitMs: args.migrateWaitSeconds * 1000 }),
      // Thousands of sessions take a while: a line every hundred says it is moving.
      onProgress: ({ done, total }) => {
        if (done % PROGRESS_EVERY === 0 && done < total) write(`  ${done} of ${total}\n`);
      },
    });
    write(
      `Copied ${report.copied} session(s) and verified each (count and digest); ` +
        `${report.skipped} were there already, verified.\n` +
        `${from} is fenced: writes to it are refused. Use the new store: ${usage(kind)}\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

const PROGRESS_EVERY = 100;

function targetFlags(kind: StoreKind, url: string | undefined): StoreFlags {
  return {
    store: kind,
    storeUrl: kind === "jsonl" ? undefined : url,
    sessionDir: kind === "jsonl" ? url : undefined,
    noSession: false,
  };
}

function sourceFlags(args: Partial<StoreFlags>): StoreFlags {
  return {
    store: args.store,
    storeUrl: args.storeUrl,
    sessionDir: args.sessionDir,
    noSession: false,
  };
}

/** The flags that choose the new store (a URL is not repeated: it may hold a password). */
function usage(kind: StoreKind): string {
  if (kind === "jsonl") return "--store jsonl (with --session-dir DIR when not the default)";
  if (kind === "sqlite") return "--store sqlite (with --store-url FILE when not the default)";
  return "--store postgres --store-url URL";
}
