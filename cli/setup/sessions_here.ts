/**
 * Which saved sessions belong to a directory: `-c`, `panto sessions` and the
 * session pickers show the working directory's sessions first.
 *
 * @module
 */
import { resolve } from "node:path";
import type { SessionInfo, SessionStore } from "@panto/lib";

/**
 * Whether a session belongs to `cwd`: it was started there, or the store
 * cannot read it and so does not know its directory (it is shown
 * everywhere, with its reason, rather than hidden). Readable sessions
 * saved without a directory belong to none.
 *
 * @param info The session's info.
 * @param cwd The directory.
 * @returns True when the session is listed as one of `cwd`'s.
 */
export function startedIn(info: SessionInfo, cwd: string): boolean {
  if (info.cwd === undefined) return info.unreadable !== undefined;
  return resolve(info.cwd) === resolve(cwd);
}

/**
 * The newest session of `cwd` (see {@linkcode startedIn}), for `-c`: one the
 * store cannot read makes `-c` fail with its reason instead of silently
 * continuing an older one.
 *
 * @param store The store.
 * @param cwd The directory.
 * @returns Its info, or undefined when `cwd` has none.
 */
export async function latestIn(store: SessionStore, cwd: string): Promise<SessionInfo | undefined> {
  return (await store.list()).find((info) => startedIn(info, cwd));
}
