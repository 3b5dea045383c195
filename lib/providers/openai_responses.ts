import { buildOpenAIResponsesRequest } from "./openai_responses_request.ts";
import { parseOpenAIResponsesStream } from "./openai_responses_stream.ts";
import type { StreamMessage } from "./provider.ts";
import { providerStream } from "./stream_provider.ts";

/**
 * The `openai-responses` provider: streams one assistant message from the
 * OpenAI Responses API (`POST {baseUrl}/responses`, `store: false`), with
 * reasoning summaries shown as thinking and the encrypted reasoning carried
 * to the next request, so a reasoning model keeps its train of thought
 * across tool calls.
 *
 * When `request.signal` fires, the message assembled so far is returned with
 * stop reason `aborted`. Other failures throw a classified
 * {@linkcode ProviderError} whose `partial` holds what had arrived.
 *
 * @param request Provider config, system prompt, messages, tools, signal.
 * @returns Batches of block events, then the assembled message.
 *
 * @example Stream one turn with reasoning
 * ```ts ignore
 * import { streamOpenAIResponses } from "./openai_responses.ts";
 * const stream = streamOpenAIResponses({
 *   config: {
 *     api: "openai-responses",
 *     baseUrl: "https://api.openai.com/v1",
 *     model: "gpt-5",
 *     reasoning: "medium",
 *     apiKey: Deno.env.get("OPENAI_API_KEY") ?? "",
 *   },
 *   system: "Be brief.",
 *   messages: [{ role: "user", content: [{ type: "text", text: "Hello" }], timestamp: new Date().toISOString() }],
 *   tools: [],
 *   signal: new AbortController().signal,
 *   idleTimeoutMs: 120_000,
 * });
 * for (let step = await stream.next(); !step.done; step = await stream.next()) {
 *   for (const event of step.value) if (event.type === "content_delta") console.log(event.text);
 * }
 * ```
 */
export const streamOpenAIResponses: StreamMessage = providerStream(
  buildOpenAIResponsesRequest,
  parseOpenAIResponsesStream,
);
