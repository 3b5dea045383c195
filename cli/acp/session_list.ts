/**
 * `session/list`: the stored sessions an ACP client can load.
 *
 * @module
 */
import type { SessionInfo } from "@agentclientprotocol/sdk";
import type { SessionInfo as StoredSession } from "@panto/lib";
import type { ChatArgs } from "../setup/args.ts";
import { resolvePantoHome } from "../config/load_config.ts";
import { readEnv } from "../shared/env.ts";
import { openStore } from "../setup/session_store.ts";
import { sessionTitle } from "../shared/session_title.ts";

/** Most sessions listed (newest first); the protocol's paging is not offered. */
const LIST_LIMIT = 200;

/**
 * The configured store's sessions, newest first: those of `cwd` when it is
 * given, else every one that records its directory; titled by their
 * name, else their first prompt's first line (as `panto sessions` shows them).
 *
 * @param args The store flags.
 * @param cwd Only this directory's sessions.
 * @returns The sessions as ACP describes them.
 */
export async function listSessions(args: ChatArgs, cwd?: string | null): Promise<SessionInfo[]> {
  const store = await openStore(args, resolvePantoHome(readEnv, Deno.cwd()));
  try {
    const infos = await store.list({ limit: LIST_LIMIT });
    return infos.filter((info) => info.cwd !== undefined && (!cwd || info.cwd === cwd))
      .map(describe);
  } finally {
    await store.close();
  }
}

function describe(info: StoredSession): SessionInfo {
  const title = sessionTitle(info).split("\n", 1)[0] || null;
  return { sessionId: info.id, cwd: info.cwd!, title, updatedAt: info.modified };
}
