import type {
  CompactionSummaryBlock,
  ContentBlock,
  SystemMode,
  ToolResultBlock,
} from "./content.ts";
import type { Message } from "./message.ts";
import { addUsage, emptyUsage, type Usage } from "./usage.ts";

/**
 * What an assistant message says about how it was produced, given when it
 * is added so the message is complete from the start.
 *
 * @example
 * ```ts
 * import { type AssistantDetails, Conversation } from "@panto/lib";
 * const details: AssistantDetails = { stopReason: "end_turn", api: "openai-chat", model: "m" };
 * const message = new Conversation().addAssistantMessage([], undefined, details);
 * console.assert(message.model === "m");
 * ```
 */
export type AssistantDetails = Pick<Message, "stopReason" | "errorMessage" | "api" | "model">;

/**
 * A single linear chain of messages, with builders for each kind and direct
 * access to `messages` for surgery (custom compaction, context editing).
 *
 * A bare conversation lives in memory; the {@linkcode Agent} that owns one
 * persists what it adds.
 *
 * @example Build a conversation by hand
 * ```ts
 * import { Conversation } from "@panto/lib";
 * const conversation = new Conversation();
 * conversation.addSystemMessage("You are terse.");
 * conversation.addUserMessage("Hi");
 * conversation.addAssistantMessage([{ type: "text", text: "Hello." }]);
 * console.assert(conversation.messages.length === 3);
 * console.assert(conversation.systemPrompt() === "You are terse.");
 * ```
 */
export class Conversation {
  /** The messages, oldest first. Mutate freely. */
  messages: Message[];
  /** Opaque JSON the library never interprets and always round-trips. */
  metadata: string | undefined;

  /**
   * Creates a conversation.
   *
   * @param messages Messages to start from (adopted, not copied).
   * @param metadata Opaque JSON string kept with the conversation.
   */
  constructor(messages: Message[] = [], metadata?: string) {
    this.messages = messages;
    this.metadata = metadata;
  }

  /**
   * Appends a user message.
   *
   * @param content Text, or blocks (text and images).
   * @param metadata Opaque JSON kept with the message.
   * @returns The message added.
   */
  addUserMessage(content: string | ContentBlock[], metadata?: string): Message {
    const blocks = typeof content === "string"
      ? [{ type: "text" as const, text: content }]
      : content;
    return this.#push({ role: "user", content: blocks, timestamp: now() }, metadata);
  }

  /**
   * Appends an assistant message.
   *
   * @param blocks The assistant's blocks.
   * @param usage Tokens the provider reported, if known.
   * @param details Why it stopped, what failed, and which protocol and model produced it.
   * @returns The message added.
   */
  addAssistantMessage(blocks: ContentBlock[], usage?: Usage, details?: AssistantDetails): Message {
    const message: Message = { role: "assistant", content: blocks, timestamp: now(), ...details };
    if (usage) message.usage = usage;
    return this.#push(message);
  }

  /**
   * Appends a tool message holding results, in the order given.
   *
   * @param results One result per call of the preceding assistant message.
   * @param ended How the run ended right after them, if it did: interrupted while the
   *   tools ran (`aborted`) or at its turn limit (`max_turns`); marks the message.
   * @returns The message added.
   */
  addToolResults(results: ToolResultBlock[], ended?: "aborted" | "max_turns"): Message {
    const message: Message = { role: "tool", content: results, timestamp: now() };
    if (ended) message.stopReason = ended;
    return this.#push(message);
  }

  /**
   * Appends a system entry that extends the effective system prompt.
   *
   * @param text The text to append.
   * @returns The message added.
   */
  addSystemMessage(text: string): Message {
    return this.#pushSystem(text, "append");
  }

  /**
   * Appends a system entry that replaces the effective system prompt.
   *
   * @param text The new system prompt.
   * @returns The message added.
   */
  replaceSystemMessage(text: string): Message {
    return this.#pushSystem(text, "replace");
  }

  /**
   * Appends a compaction summary: on the wire, it stands in for every
   * non-system message before it.
   *
   * @param summary The summary text.
   * @param tokensBefore Estimated tokens of the context it replaced.
   * @param keptMessages How many copies of recent messages follow it.
   * @returns The message added.
   */
  addCompactionSummary(summary: string, tokensBefore?: number, keptMessages?: number): Message {
    const block: CompactionSummaryBlock = { type: "compaction_summary", summary };
    if (tokensBefore !== undefined) block.tokensBefore = tokensBefore;
    if (keptMessages !== undefined) block.keptMessages = keptMessages;
    return this.#push({ role: "user", content: [block], timestamp: now() });
  }

  /**
   * The effective system prompt: system entries folded in order, where a
   * `replace` starts over and an `append` adds a paragraph.
   *
   * @returns The prompt, or `""` when there is none.
   */
  systemPrompt(): string {
    return effectiveSystemPrompt(this.messages);
  }

  /**
   * Tokens spent over the whole conversation: the sum of every assistant
   * message's usage (copies kept by compaction carry none, so nothing is
   * counted twice).
   *
   * @returns The totals.
   */
  totalUsage(): Usage {
    let total = emptyUsage();
    for (const message of this.messages) {
      if (message.usage) total = addUsage(total, message.usage);
    }
    return total;
  }

  /**
   * A deep copy, so a snapshot cannot change under its holder.
   *
   * @returns An independent conversation with equal content.
   */
  clone(): Conversation {
    return new Conversation(structuredClone(this.messages), this.metadata);
  }

  #pushSystem(text: string, mode: SystemMode): Message {
    return this.#push({
      role: "system",
      content: [{ type: "system", text, mode }],
      timestamp: now(),
    });
  }

  #push(message: Message, metadata?: string): Message {
    if (metadata !== undefined) message.metadata = metadata;
    this.messages.push(message);
    return message;
  }
}

/**
 * Folds the system entries of `messages` into one prompt.
 *
 * @param messages Messages in order.
 * @returns The effective system prompt, or `""`.
 */
export function effectiveSystemPrompt(messages: readonly Message[]): string {
  let prompt = "";
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type !== "system") continue;
      prompt = block.mode === "replace" || prompt === ""
        ? block.text
        : `${prompt}\n\n${block.text}`;
    }
  }
  return prompt;
}

/**
 * The messages a provider should see: everything from the latest compaction
 * summary on (the summary itself included), without system entries.
 *
 * @param messages Messages in order.
 * @returns The wire context, oldest first.
 */
export function contextMessages(messages: readonly Message[]): Message[] {
  let start = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.content.some((b) => b.type === "compaction_summary")) {
      start = i;
      break;
    }
  }
  return messages.slice(start).filter((m) => m.role !== "system");
}

function now(): string {
  return new Date().toISOString();
}
