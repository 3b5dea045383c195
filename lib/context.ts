import type { ContentBlock, ToolResultBlock, ToolUseBlock } from "./content.ts";
import type { ProviderConfig } from "./config.ts";
import { contextMessages } from "./conversation.ts";
import { type Message, runContinuesAfter } from "./message.ts";

/** Tool-call ids every provider accepts: Anthropic's pattern, bounded like OpenAI's 40 characters. */
const PORTABLE_ID = /^[A-Za-z0-9_-]{1,40}$/;

/**
 * The messages to send to `target`: the wire context (from the latest
 * compaction summary on, no system entries) made acceptable to the target
 * provider, so a session can switch models mid-way:
 *
 * - an aborted or errored assistant message keeps only its text, what the
 *   user saw (its tool calls may be cut off, its thinking unsigned); one
 *   with no text is skipped, and so is the prompt it did not answer (see
 *   {@linkcode withoutUnanswered});
 * - thinking produced by another model becomes plain text (its signature
 *   would be rejected), redacted thinking from another model is dropped;
 * - tool-call ids another provider would reject are rewritten consistently;
 * - a tool call without a result (a crash between call and result) gets an
 *   error result, and a result without a call is dropped.
 *
 * @param messages The conversation's messages.
 * @param target The provider about to be called.
 * @returns New message objects; the conversation is not modified.
 */
export function prepareContext(messages: readonly Message[], target: ProviderConfig): Message[] {
  const ids = new Map<string, string>();
  const out: Message[] = [];
  const context = withoutUnanswered(contextMessages(messages));
  for (let i = 0; i < context.length; i++) {
    const message = context[i]!;
    if (message.role === "tool") continue; // emitted together with their calls below
    if (message.role !== "assistant") {
      out.push(message);
      continue;
    }
    const sameModel = message.api === target.api && message.model === target.model;
    const blocks = interrupted(message) ? message.content.filter(isText) : message.content;
    const content = blocks.flatMap((b) => handOffBlock(b, sameModel, ids));
    if (content.length === 0) continue;
    out.push({ ...message, content });
    const calls = content.filter((b): b is ToolUseBlock => b.type === "tool_use");
    if (calls.length === 0) continue;
    const next = context[i + 1];
    const results = next?.role === "tool" ? next.content : [];
    out.push(toolResultsFor(calls, results, ids, next));
  }
  return out;
}

/**
 * The wire context without the prompts that got no answer, so that such a
 * prompt (interrupted: esc, a cancel, a failed request; or abandoned
 * after a crash) is never sent again unless the user sends it again. It
 * stays in the conversation and the session; only requests leave it out.
 *
 * - An aborted or errored assistant message with no text is left out, and
 *   so are the user messages right before it: the prompt (or steering) it
 *   was answering. One with text keeps its prompt: the user saw an answer.
 * - A prompt followed by another prompt with no answer between is left
 *   out. User messages after tool results steer a run and are kept
 *   together; a compaction summary is never left out.
 *
 * The prompt being answered comes last and is always kept.
 *
 * @example
 * ```ts
 * import type { Message } from "@panto/lib";
 * import { withoutUnanswered } from "./context.ts";
 * const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }], timestamp: "" });
 * const cancelled: Message = { role: "assistant", content: [], timestamp: "", stopReason: "aborted" };
 * const sent = withoutUnanswered([user("delete everything"), cancelled, user("what is 2+2")]);
 * console.assert(sent.length === 1 && sent[0]?.content[0]?.type === "text");
 * ```
 *
 * @param context Messages without system entries, oldest first (see `contextMessages`).
 * @returns The messages to send (the same objects), oldest first.
 */
export function withoutUnanswered(context: readonly Message[]): Message[] {
  const out: Message[] = [];
  const dropUnansweredUsers = () => {
    while (isPlainUser(out.at(-1))) out.pop();
  };
  for (const message of context) {
    if (interrupted(message) && !message.content.some(isText)) {
      dropUnansweredUsers();
      continue;
    }
    if (isPlainUser(message)) {
      let first = out.length;
      while (isPlainUser(out[first - 1])) first--;
      // User messages after tool results are steering, answered by the same run.
      if (first < out.length && !runContinuesAfter(out[first - 1])) dropUnansweredUsers();
    }
    out.push(message);
  }
  return out;
}

/** An assistant message cut short by an abort or a failed request. */
function interrupted(message: Message): boolean {
  return message.role === "assistant" &&
    (message.stopReason === "aborted" || message.stopReason === "error");
}

/** A user message that is not a compaction summary. */
function isPlainUser(message: Message | undefined): boolean {
  return message?.role === "user" &&
    !message.content.some((block) => block.type === "compaction_summary");
}

function isText(block: ContentBlock): boolean {
  return block.type === "text" && block.text.trim() !== "";
}

function handOffBlock(
  block: ContentBlock,
  sameModel: boolean,
  ids: Map<string, string>,
): ContentBlock[] {
  switch (block.type) {
    case "thinking":
      if (sameModel && block.signature) return [block];
      return block.thinking.trim() ? [{ type: "text", text: block.thinking }] : [];
    case "redacted_thinking":
      return sameModel ? [block] : [];
    case "text":
      return block.text.trim() ? [block] : [];
    case "tool_use":
      return [{ ...block, id: portableId(block.id, ids) }];
    default:
      return [block];
  }
}

function toolResultsFor(
  calls: ToolUseBlock[],
  results: readonly ContentBlock[],
  ids: Map<string, string>,
  source: Message | undefined,
): Message {
  const byId = new Map<string, ToolResultBlock>();
  for (const block of results) {
    if (block.type === "tool_result") byId.set(portableId(block.toolUseId, ids), block);
  }
  const content: ToolResultBlock[] = calls.map((call) => {
    const result = byId.get(call.id);
    if (result) return { ...result, toolUseId: call.id };
    return {
      type: "tool_result",
      toolUseId: call.id,
      toolName: call.name,
      content: [{ type: "text", text: "No result: the call was interrupted before it finished." }],
      isError: true,
    };
  });
  return { role: "tool", content, timestamp: source?.timestamp ?? new Date().toISOString() };
}

function portableId(id: string, ids: Map<string, string>): string {
  if (PORTABLE_ID.test(id)) return id;
  let mapped = ids.get(id);
  if (!mapped) {
    mapped = `call_${ids.size + 1}_${id.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 24)}`;
    ids.set(id, mapped);
  }
  return mapped;
}
