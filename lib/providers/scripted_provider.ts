import type { RedactedThinkingBlock, TextBlock, ThinkingBlock, ToolUseBlock } from "../content.ts";
import { ProviderError } from "../errors.ts";
import { emptyUsage } from "../usage.ts";
import type {
  AssistantResult,
  ProviderRequest,
  ProviderStreamEvent,
  StreamMessage,
} from "./provider.ts";

/** One scripted model reply: text, the blocks of a message, or the error the request fails with. */
export type ScriptedReply =
  | string
  | (TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock)[]
  | ProviderError;

/** A block an assistant message can hold. */
type AssistantBlock = Exclude<ScriptedReply, string | ProviderError>[number];

/** A {@linkcode StreamMessage} that plays a script, with the requests it was given. */
export type ScriptedProvider = StreamMessage & {
  /** Every request received so far, in order. */
  readonly requests: readonly ProviderRequest[];
};

/**
 * A provider that answers each request with the next reply of a script, for
 * running an agent offline in tests and examples. Each reply is streamed as
 * block events (one delta per block), then returned with stop reason
 * `tool_use` when it holds tool calls, else `end_turn`; an error reply is
 * thrown. A request made after the script ran out fails the run.
 *
 * @param replies The replies, in order.
 * @returns The provider, whose `requests` records what it was asked.
 *
 * @example A tool call, then an answer
 * ```ts
 * import { Agent, ResultParts, scriptedProvider } from "@panto/lib";
 * const provider = scriptedProvider([
 *   [{ type: "tool_use", id: "call_1", name: "now", input: {} }],
 *   "It is late.",
 * ]);
 * const agent = new Agent({
 *   config: { provider: { api: "openai-chat", baseUrl: "http://localhost:8080/v1", model: "any", reasoning: "off" } },
 *   provider,
 * });
 * agent.registerTool({
 *   decl: { name: "now", description: "The time", inputSchema: { type: "object", properties: {} } },
 *   execute: () => ResultParts.fromText("23:59"),
 * });
 * for await (const _ of agent.run("What time is it?"));
 * if (provider.requests.length !== 2) throw new Error("expected two requests");
 * ```
 */
export function scriptedProvider(replies: readonly ScriptedReply[]): ScriptedProvider {
  const requests: ProviderRequest[] = [];
  const stream = async function* (
    request: ProviderRequest,
  ): AsyncGenerator<ProviderStreamEvent[], AssistantResult, void> {
    requests.push(request);
    const reply = replies[requests.length - 1];
    if (reply === undefined) {
      throw new Error(
        `scriptedProvider: request ${requests.length} has no reply (the script has ${replies.length}): add one`,
      );
    }
    if (reply instanceof ProviderError) throw reply;
    const content: AssistantBlock[] = typeof reply === "string"
      ? [{ type: "text", text: reply }]
      : structuredClone(reply);
    for (const [blockIndex, block] of content.entries()) yield blockEvents(blockIndex, block);
    const stopReason = content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
    return { content, usage: emptyUsage(), stopReason };
  };
  return Object.assign(stream, { requests });
}

/** The events a server would stream for one finished block. */
function blockEvents(blockIndex: number, block: AssistantBlock): ProviderStreamEvent[] {
  const complete: ProviderStreamEvent = { type: "block_complete", blockIndex, block };
  switch (block.type) {
    case "text":
      return [
        { type: "block_start", blockIndex, kind: "text" },
        { type: "content_delta", blockIndex, kind: "text", text: block.text },
        complete,
      ];
    case "thinking":
      return [
        { type: "block_start", blockIndex, kind: "thinking" },
        { type: "content_delta", blockIndex, kind: "thinking", text: block.thinking },
        complete,
      ];
    case "tool_use":
      return [
        {
          type: "block_start",
          blockIndex,
          kind: "tool_use",
          toolUse: { id: block.id, name: block.name },
        },
        {
          type: "content_delta",
          blockIndex,
          kind: "tool_input",
          text: JSON.stringify(block.input),
        },
        complete,
      ];
    case "redacted_thinking":
      return [{ type: "block_start", blockIndex, kind: "redacted_thinking" }, complete];
  }
}
