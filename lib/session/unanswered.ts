import { type Message, runContinuesAfter } from "../message.ts";

/** Stored messages read back as a conversation to resume, and the prompt left unanswered. */
export interface ResumableMessages {
  /** The messages that are part of the conversation. */
  messages: Message[];
  /** The trailing prompt no answer followed (a crash or quit right after submitting). */
  danglingUser?: Message;
}

type Previous = "prompt" | "steer" | "tool" | "other";

/**
 * Splits stored messages into the conversation and the dangling prompt.
 *
 * A prompt (a user message that starts a run: one that does not follow a
 * tool result, as steering messages do) is unanswered when no assistant
 * message follows it before the next prompt. Such a prompt is not part of
 * the conversation: at the end of the log it is the dangling prompt; in the
 * middle (the user typed another prompt after a resume) it was abandoned
 * and is left out, so it never merges with the next prompt on the wire.
 * System entries between do not count; a compaction summary starts afresh.
 *
 * @example
 * ```ts
 * import { splitUnanswered } from "./unanswered.ts";
 * const prompt = (text: string) => ({ role: "user" as const, content: [{ type: "text" as const, text }], timestamp: "" });
 * const { messages, danglingUser } = splitUnanswered([prompt("lost"), prompt("again")]);
 * console.assert(messages.length === 0 && danglingUser?.content[0]?.type === "text");
 * ```
 *
 * @param stored The messages as the store returns them, oldest first.
 * @returns The conversation's messages and the dangling prompt, if any.
 */
export function splitUnanswered(stored: readonly Message[]): ResumableMessages {
  const dropped = new Set<number>();
  let previous: Previous = "other";
  let awaiting: number | undefined;
  stored.forEach((message, index) => {
    if (message.role === "system") return;
    if (message.role === "tool") {
      previous = runContinuesAfter(message) ? "tool" : "other";
      awaiting = undefined;
    } else if (message.role === "assistant" || isCompaction(message)) {
      previous = "other";
      awaiting = undefined;
    } else if (previous === "tool" || previous === "steer") {
      previous = "steer";
    } else {
      if (awaiting !== undefined) dropped.add(awaiting);
      previous = "prompt";
      awaiting = index;
    }
  });
  const result: ResumableMessages = { messages: [] };
  if (awaiting !== undefined) {
    dropped.add(awaiting);
    result.danglingUser = stored[awaiting]!;
  }
  result.messages = stored.filter((_, index) => !dropped.has(index));
  return result;
}

function isCompaction(message: Message): boolean {
  return message.content.some((block) => block.type === "compaction_summary");
}
