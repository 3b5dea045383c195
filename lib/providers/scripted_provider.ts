import type { RedactedThinkingBlock, TextBlock, ThinkingBlock, ToolUseBlock } from "../content.ts";
import { ProviderError } from "../errors.ts";
import type { StopReason } from "../message.ts";
import { emptyUsage, type Usage } from "../usage.ts";
import type {
  AssistantResult,
  ProviderRequest,
  ProviderStreamEvent,
  StreamMessage,
} from "./provider.ts";

/**
 * A block a scripted reply can hold: what an assistant message holds.
 *
 * @example
 * ```ts
 * import type { ScriptedBlock } from "@panto/lib";
 * const block: ScriptedBlock = { type: "text", text: "Done." };
 * console.assert(block.type === "text");
 * ```
 */
export type ScriptedBlock = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock;

/**
 * One scripted model reply in full: its content and what a server would
 * also say about it (usage, stop reason), how fast it streams, and where it
 * hangs until the run is aborted.
 *
 * @example A slow reply that stops to wait for an abort after its first block
 * ```ts
 * import type { ScriptedTurn } from "@panto/lib";
 * const turn: ScriptedTurn = {
 *   content: [{ type: "text", text: "Part one." }, { type: "text", text: "Never sent." }],
 *   usage: { inputTokens: 12, outputTokens: 3 },
 *   delayMs: 5,
 *   waitForAbortAfter: 1,
 * };
 * console.assert(turn.waitForAbortAfter === 1);
 * ```
 */
export interface ScriptedTurn {
  /** Text, or the blocks of the message. */
  content: string | ScriptedBlock[];
  /** Tokens the reply reports (unset counts are 0; default: all 0). */
  usage?: Partial<Usage>;
  /** The stop reason returned (default: `tool_use` when it holds tool calls, else `end_turn`). */
  stopReason?: StopReason;
  /** Milliseconds to wait before each block is streamed (an abort cuts the wait short). */
  delayMs?: number;
  /**
   * After streaming this many blocks, wait until the request's signal
   * aborts, then return the blocks streamed so far with stop reason
   * `aborted`, as a real provider does: a point where a test aborts the run.
   */
  waitForAbortAfter?: number;
}

/**
 * One scripted model reply: text, the blocks of a message, a
 * {@linkcode ScriptedTurn} with usage, stop reason, pacing or an abort
 * point, or the error the request fails with.
 */
export type ScriptedReply = string | ScriptedBlock[] | ScriptedTurn | ProviderError;

/** A {@linkcode StreamMessage} that plays a script, with the requests it was given. */
export type ScriptedProvider = StreamMessage & {
  /** Every request received so far, in order. */
  readonly requests: readonly ProviderRequest[];
};

/**
 * A provider that answers each request with the next reply of a script, for
 * running an agent offline in tests and examples. Each reply is streamed as
 * block events (one delta per block), then returned with its stop reason
 * (by default `tool_use` when it holds tool calls, else `end_turn`) and
 * usage; an error reply is thrown. A {@linkcode ScriptedTurn} also paces
 * the blocks (`delayMs`) and can hang until the run is aborted
 * (`waitForAbortAfter`); an abort during a delay or that wait returns what
 * was streamed, stop reason `aborted`. A request made after the script ran
 * out fails the run.
 *
 * @param replies The replies, in order.
 * @returns The provider, whose `requests` records what it was asked.
 *
 * @example A tool call, then an answer
 * ```ts
 * import { Agent, ResultParts, scriptedProvider } from "@panto/lib";
 * const provider = scriptedProvider([
 *   [{ type: "tool_use", id: "call_1", name: "now", input: {} }],
 *   { content: "It is late.", usage: { inputTokens: 20, outputTokens: 4 } },
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
 * if (agent.conversation.totalUsage().outputTokens !== 4) throw new Error("usage not kept");
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
    const turn = asTurn(reply);
    const content: ScriptedBlock[] = typeof turn.content === "string"
      ? [{ type: "text", text: turn.content }]
      : structuredClone(turn.content);
    const usage = { ...emptyUsage(), ...turn.usage };
    const { signal } = request;
    for (const [blockIndex, block] of content.entries()) {
      if (blockIndex === turn.waitForAbortAfter) await abortOf(signal);
      if (turn.delayMs !== undefined) await pause(turn.delayMs, signal);
      if (signal.aborted) {
        return { content: content.slice(0, blockIndex), usage, stopReason: "aborted" };
      }
      yield blockEvents(blockIndex, block);
    }
    if (turn.waitForAbortAfter !== undefined && turn.waitForAbortAfter >= content.length) {
      await abortOf(signal);
      return { content, usage, stopReason: "aborted" };
    }
    const stopReason = turn.stopReason ??
      (content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn");
    return { content, usage, stopReason };
  };
  return Object.assign(stream, { requests });
}

function asTurn(reply: Exclude<ScriptedReply, ProviderError>): ScriptedTurn {
  return typeof reply === "string" || Array.isArray(reply) ? { content: reply } : reply;
}

/** Resolves once `signal` aborts (at once if it has). */
function abortOf(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => resolve(), { once: true })
  );
}

/** Waits `ms`, or less when `signal` aborts meanwhile. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
/** The events a server would stream for one finished block. */
function blockEvents(blockIndex: number, block: ScriptedBlock): ProviderStreamEvent[] {
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
