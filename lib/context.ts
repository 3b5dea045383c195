import type { ContentBlock, ToolResultBlock, ToolUseBlock } from "./content.ts";
import type { ProviderConfig } from "./config.ts";
import { contextMessages } from "./conversation.ts";
import type { Message } from "./message.ts";

/** Tool-call ids every provider accepts: Anthropic's pattern, bounded like OpenAI's 40 characters. */
const PORTABLE_ID = /^[A-Za-z0-9_-]{1,40}$/;

/**
 * The messages to send to `target`: the wire context (from the latest
 * compaction summary on, no system entries) made acceptable to the target
 * provider, so a session can switch models mid-way:
 *
 * - aborted and errored assistant messages are skipped (they may hold cut-off
 *   tool calls and the target never saw them);
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
  const context = contextMessages(messages).filter(
    (m) => !(m.role === "assistant" && (m.stopReason === "aborted" || m.stopReason === "error")),
  );
  for (let i = 0; i < context.length; i++) {
    const message = context[i]!;
    if (message.role === "tool") continue; // emitted together with their calls below
    if (message.role !== "assistant") {
      out.push(message);
      continue;
    }
    const sameModel = message.api === target.api && message.model === target.model;
    const content = message.content.flatMap((b) => handOffBlock(b, sameModel, ids));
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
