import { buildAnthropicRequest } from "./anthropic_request.ts";
import { parseAnthropicStream } from "./anthropic_stream.ts";
import type { StreamMessage } from "./provider.ts";
import { providerStream } from "./stream_provider.ts";

/**
 * The `anthropic-messages` provider: sends a streaming request to
 * `${baseUrl}/v1/messages` and assembles the reply.
 *
 * When `request.signal` fires, the blocks received so far are returned with
 * stop reason `aborted` instead of an error. Other failures throw a
 * classified {@linkcode ProviderError} whose `partial` holds what was
 * assembled once streaming had begun.
 *
 * @param request Config, system prompt, messages, tools, signal, idle timeout.
 * @returns Batches of block events, then the assembled message.
 *
 * @example Stream one turn
 * ```ts ignore
 * import { streamAnthropicMessages } from "./anthropic_messages.ts";
 * const stream = streamAnthropicMessages({
 *   config: { api: "anthropic-messages", baseUrl: "https://api.anthropic.com", model: "claude-haiku-4-5", reasoning: "off", apiKey: "…" },
 *   system: "Be brief.",
 *   messages: [{ role: "user", content: [{ type: "text", text: "Hi" }], timestamp: new Date().toISOString() }],
 *   tools: [],
 *   signal: new AbortController().signal,
 *   idleTimeoutMs: 120_000,
 * });
 * for (let step = await stream.next(); !step.done; step = await stream.next()) {
 *   for (const event of step.value) if (event.type === "content_delta") console.log(event.text);
 * }
 * ```
 */
export const streamAnthropicMessages: StreamMessage = providerStream(
  buildAnthropicRequest,
  parseAnthropicStream,
);
