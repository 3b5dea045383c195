/**
 * The session picker of `/sessions`, `/resume` and `-r`: this directory's
 * sessions first, tab for every directory's.
 *
 * @module
 */
import type { SessionInfo } from "@panto/lib";
import { sanitizeTerminalText, type SelectItem, truncateToWidth, visibleWidth } from "@panto/tui";
import { sessionTitle } from "../shared/session_title.ts";
import { startedIn } from "../setup/sessions_here.ts";
import type { PickerOptions, PickerView } from "./picker.ts";

/** Widest name or prompt shown (columns). */
const LABEL_WIDTH = 50;

/**
 * The picker over `sessions`: the ones started in `cwd` (all of them when
 * none was), tab switching between those and every directory's.
 *
 * @param sessions The sessions, newest first.
 * @param cwd The working directory.
 * @param now The time ages are counted to (ms since the epoch).
 * @returns Picker options valued by session id.
 */
export function sessionPicker(
  sessions: readonly SessionInfo[],
  cwd: string,
  now: number = Date.now(),
): PickerOptions<string> {
  const here = sessions.filter((info) => startedIn(info, cwd));
  const hereView: PickerView<string> = {
    title: `Sessions in ${cwd}`,
    items: sessionItems(here, false, now),
    hint: "tab all directories",
  };
  if (here.length === 0) {
    return {
      title: `All sessions (none in ${cwd})`,
      items: sessionItems(sessions, true, now),
    };
  }
  const allView: PickerView<string> = {
    title: "All sessions",
    items: sessionItems(sessions, true, now),
    hint: "tab this directory",
  };
  return { ...hereView, toggle: { key: "tab", view: (n) => n % 2 === 1 ? allView : hereView } };
}

/**
 * Picker rows for sessions: the title (name, else first prompt), then its age,
 * message count and, with `withDirectory`, the directory it was started in.
 *
 * @param sessions The sessions.
 * @param withDirectory Whether rows name their directory.
 * @param now The time ages are counted to.
 * @returns One item per session, valued by its id.
 */
export function sessionItems(
  sessions: readonly SessionInfo[],
  withDirectory: boolean,
  now: number,
): SelectItem<string>[] {
  const labels = sessions.map((s) =>
    truncateToWidth(oneLine(sessionTitle(s)) || "(empty)", LABEL_WIDTH, "…")
  );
  // Labels padded to one width put ages, counts and directories in columns.
  const width = Math.max(0, ...labels.map(visibleWidth));
  return sessions.map((s, i) => ({
    value: s.id,
    label: labels[i]! + " ".repeat(width - visibleWidth(labels[i]!)),
    description: [
      formatAge(Date.parse(s.modified), now),
      `${s.messageCount} messages`,
      ...(withDirectory ? [s.cwd ?? "(no directory)"] : []),
    ].join(" · "),
  }));
}

/**
 * How long ago `then` was, in the largest whole unit: `just now`, `5m ago`,
 * `3h ago`, `2d ago`, `6w ago`.
 *
 * @param then A time (ms since the epoch).
 * @param now The present.
 * @returns The age in words.
 */
export function formatAge(then: number, now: number): string {
  const minutes = Math.floor((now - then) / 60_000);
  if (!(minutes >= 1)) return "just now";
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h ago`;
  const days = Math.floor(hours / 24);
  return days < 14 ? `${days}d ago` : `${Math.floor(days / 7)}w ago`;
}

/** Stored names and prompts are untrusted: no terminal controls, one line. */
function oneLine(text: string): string {
  return sanitizeTerminalText(text).replace(/\s+/g, " ").trim();
}
