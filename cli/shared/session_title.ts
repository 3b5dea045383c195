/**
 * What session lists (`panto sessions`, the pickers, completions, ACP) call
 * a session.
 *
 * @module
 */
import type { SessionInfo } from "@panto/lib";

/**
 * A session's title: the name the user gave it, else its first prompt (what
 * it was started for), else its last prompt (from a store that keeps no
 * first one).
 *
 * @param info The session's info.
 * @returns The title, possibly several lines; `""` when it has no prompt.
 */
export function sessionTitle(info: SessionInfo): string {
  return info.name ?? info.firstUserMessage ?? info.lastUserMessage;
}
