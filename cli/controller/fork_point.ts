import type { Message, TreeEntry } from "@panto/lib";

/**
 * The stored entry holding the last of the first `end` messages of a
 * conversation loaded from `path`. A loaded conversation leaves unanswered
 * prompts out, so a message's index is not its entry's: they are matched
 * in order, by role and timestamp (copies kept by a compaction share their
 * original's timestamp, and come after it).
 *
 * @param path The entries from a root to the active leaf.
 * @param messages The conversation.
 * @param end How many of its messages to keep (at least 1).
 * @returns The entry's id, or `undefined` when the messages are not all stored.
 */
export function entryOfMessage(
  path: readonly TreeEntry[],
  messages: readonly Message[],
  end: number,
): string | undefined {
  // One pass: each message is looked for after the entry the one before it matched.
  let at = -1;
  for (const message of messages.slice(0, end)) {
    do at++; while (at < path.length && !holds(path[at]!, message));
    if (at === path.length) return undefined;
  }
  return path[at]?.id;
}

function holds(entry: TreeEntry, message: Message): boolean {
  return entry.message.role === message.role && entry.message.timestamp === message.timestamp;
}
