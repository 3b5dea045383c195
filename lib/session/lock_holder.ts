import type { SessionHolder } from "./errors.ts";

/**
 * Reads a lock file's text: `<pid> <since>`, or a pid alone (older panto).
 *
 * @param text The lock file's content.
 * @returns What it says about the holder.
 */
export function parseHolder(text: string): SessionHolder {
  const [pid, since] = text.trim().split(/\s+/);
  const holder: SessionHolder = {};
  if (pid && /^\d+$/.test(pid)) holder.pid = Number(pid);
  if (since) holder.since = since;
  return holder;
}
