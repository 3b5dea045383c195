/**
 * A stored conversation as the `session/update`s that show it again
 * (`session/load`).
 *
 * @module
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { ContentBlock, Message } from "@panto/lib";
import { typedPrompt } from "../controller/typed_prompt.ts";
import { resultContent, toolKind, toolLocations, toolTitle } from "./tool_updates.ts";

/** A user message's text as typed and its pasted images. */
function typedBlocks(message: Message): ContentBlock[] {
  const { text, images } = typedPrompt(message);
  return [{ type: "text", text }, ...images];
}

/**
 * The updates that replay `messages`: user prompts as typed (text and
 * pasted images, not their `@path` files or `!shell` output), the answer's
 * text and thinking, each tool call with its result. System messages and
 * compaction summaries are not shown (the model still sees them).
 *
 * @param messages The conversation.
 * @param cwd The session's working directory (for tool locations).
 * @returns The updates, in order.
 */
export function replayUpdates(messages: readonly Message[], cwd: string): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  for (const message of messages) {
    // A prompt shows as typed: its attached files and command output are for the model.
    const content = message.role === "user" ? typedBlocks(message) : message.content;
    for (const block of content) {
      switch (block.type) {
        case "text":
          updates.push({
            sessionUpdate: message.role === "assistant"
              ? "agent_message_chunk"
              : "user_message_chunk",
            content: { type: "text", text: block.text },
          });
          break;
        case "image":
          updates.push({
            sessionUpdate: "user_message_chunk",
            content: { type: "image", mimeType: block.mediaType, data: block.data },
          });
          break;
        case "thinking":
          updates.push({
            sessionUpdate: "agent_thought_chunk",
            content: { type: "text", text: block.thinking },
          });
          break;
        case "tool_use":
          updates.push({
            sessionUpdate: "tool_call",
            toolCallId: block.id,
            title: toolTitle(block.name, block.input),
            kind: toolKind(block.name),
            status: "pending",
            locations: toolLocations(block.input, cwd),
            rawInput: block.input,
          });
          break;
        case "tool_result":
          updates.push({
            sessionUpdate: "tool_call_update",
            toolCallId: block.toolUseId,
            status: block.isError ? "failed" : "completed",
            content: resultContent(block.content),
          });
          break;
      }
    }
  }
  return updates;
}
