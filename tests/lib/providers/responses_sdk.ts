/**
 * The official `openai` SDK's reading of a Responses stream, for the
 * provider tests to compare theirs with: `client.responses.stream(…)`
 * accumulated to its final response, and that response seen in panto's
 * terms (text, reasoning summary, tool calls, usage, stop).
 *
 * @module
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import type { ContentBlock } from "../../../lib/content.ts";
import type { StopReason } from "../../../lib/message.ts";
import { decodeReasoningSignature } from "../../../lib/providers/openai_responses_reasoning.ts";
import type { AssistantResult } from "../../../lib/providers/provider.ts";
import { emptyUsage, type Usage } from "../../../lib/usage.ts";

/** What the SDK made of one stream. */
export interface SdkRun {
  /** The final response, when the SDK resolved one. */
  final?: OpenAI.Responses.Response;
  /** What the SDK threw instead. */
  error?: unknown;
  /** Items as each `response.output_item.done` event gave them. */
  doneItems: OpenAI.Responses.ResponseOutputItem[];
}

/**
 * Streams one response with the SDK, from a server or from bytes.
 *
 * @param source A base URL (with `/v1`) to request, or a body to replay.
 * @returns The SDK's final response or error, and the items it saw finish.
 */
export async function runSdk(source: string | Uint8Array): Promise<SdkRun> {
  const client = typeof source === "string"
    ? new OpenAI({ apiKey: "test", baseURL: source, maxRetries: 0 })
    : new OpenAI({
      apiKey: "test",
      baseURL: "http://fixture.invalid/v1",
      maxRetries: 0,
      fetch: () =>
        Promise.resolve(
          new Response(source.slice(), { headers: { "content-type": "text/event-stream" } }),
        ),
    });
  const run: SdkRun = { doneItems: [] };
  const stream = client.responses.stream({ model: "fake-model", input: "replay" });
  stream.on("response.output_item.done", (event) => run.doneItems.push(event.item));
  try {
    run.final = await stream.finalResponse();
  } catch (error) {
    run.error = error;
  }
  return run;
}

/** A message's text, reasoning and calls in the terms both sides share. */
export interface MessageView {
  text: string;
  reasoning: string;
  tools: { id: string; name: string; input: Record<string, unknown> }[];
}

/** Our message in the shared terms. */
export function ourView(content: readonly ContentBlock[]): MessageView {
  return {
    text: content.map((block) => (block.type === "text" ? block.text : "")).join(""),
    reasoning: content.map((block) => (block.type === "thinking" ? block.thinking : "")).join(""),
    tools: content.flatMap((block) =>
      block.type === "tool_use" ? [{ id: block.id, name: block.name, input: block.input }] : []
    ),
  };
}

/** The SDK's final response in the shared terms (summary parts joined by blank lines). */
export function sdkView(response: OpenAI.Responses.Response): MessageView {
  const text = response.output.flatMap((item) =>
    item.type === "message"
      ? item.content.map((part) => part.type === "output_text" ? part.text : part.refusal)
      : []
  ).join("");
  const reasoning = response.output.flatMap((item) =>
    item.type === "reasoning" ? [item.summary.map((part) => part.text).join("\n\n")] : []
  ).join("");
  const tools = response.output.flatMap((item) =>
    item.type === "function_call"
      ? [{ id: item.call_id, name: item.name, input: JSON.parse(item.arguments || "{}") }]
      : []
  );
  return { text, reasoning, tools };
}

/**
 * Asserts that our message and the SDK's final response agree: text,
 * reasoning summary and calls, usage (cached tokens out of `inputTokens`),
 * the stop reason for the SDK's status, and each thinking block's signature
 * holding the reasoning item the SDK saw finish.
 *
 * @param ours Our assembled message.
 * @param theirs The SDK's reading of the same stream.
 * @param signatures Whether to compare the carried reasoning items (not
 * when the two read different replies whose ids differ).
 */
export function assertAgreesWithSdk(
  ours: AssistantResult,
  theirs: SdkRun,
  signatures = true,
): void {
  assert.equal(theirs.error, undefined, `SDK error: ${theirs.error}`);
  const final = theirs.final!;
  const view = sdkView(final);
  assert.deepEqual(ourView(ours.content), view);
  assert.equal(ours.stopReason, expectedStop(final, view.tools.length > 0));
  if (final.usage) assertUsageMatchesSdk(ours.usage, final.usage);
  else assert.deepEqual(ours.usage, emptyUsage());
  const carried = ours.content.flatMap((block) =>
    block.type === "thinking" ? [decodeReasoningSignature(block.signature)] : []
  );
  const items = theirs.doneItems.flatMap((item) =>
    item.type === "reasoning" && item.encrypted_content
      ? [{ id: item.id, encryptedContent: item.encrypted_content }]
      : []
  );
  if (signatures) assert.deepEqual(carried, items);
  else assert.equal(carried.length, items.length);
}

function assertUsageMatchesSdk(ours: Usage, sdk: OpenAI.Responses.ResponseUsage): void {
  const cached = sdk.input_tokens_details?.cached_tokens ?? 0;
  assert.equal(ours.inputTokens + ours.cacheReadTokens, sdk.input_tokens, "input tokens");
  assert.equal(ours.cacheReadTokens, cached, "cached tokens");
  assert.equal(ours.outputTokens, sdk.output_tokens, "output tokens");
  assert.equal(ours.reasoningTokens, sdk.output_tokens_details?.reasoning_tokens ?? 0);
}

/** The stop reason we promise for the SDK's final status. */
function expectedStop(response: OpenAI.Responses.Response, hasCalls: boolean): StopReason {
  if (response.status === "incomplete") {
    return response.incomplete_details?.reason === "content_filter" ? "refusal" : "max_tokens";
  }
  return hasCalls ? "tool_use" : "end_turn";
}
