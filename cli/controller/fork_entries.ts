import type { Message, PersistentMessage, ToolDecl, WireIdentity } from "@panto/lib";

/**
 * Messages copied into a forked session, as a store is given them: each
 * with the conversation up to it, and assistant messages with the source
 * session's last model (the store's record of who answered).
 *
 * @param messages The messages to copy, oldest first.
 * @param toolsAvailable The tools offered now.
 * @param wire The source session's last model, when known.
 * @returns The entries to append.
 */
export function forkEntries(
  messages: readonly Message[],
  toolsAvailable: readonly ToolDecl[],
  wire: WireIdentity | undefined,
): PersistentMessage[] {
  return messages.map((message, index) => {
    const entry: PersistentMessage = {
      message: structuredClone(message),
      conversation: messages.slice(0, index + 1),
      toolsAvailable,
    };
    if (wire && message.role === "assistant") entry.wire = wire;
    return entry;
  });
}
