import { buildOpenAIRequest } from "./openai_request.ts";
import { parseOpenAIStream } from "./openai_stream.ts";
import type { StreamMessage } from "./provider.ts";
import { providerStream } from "./stream_provider.ts";

/**
 * The `openai-chat` provider: streams one assistant message from a Chat
 * Completions endpoint (OpenAI, Azure, OpenRouter, DeepSeek, Groq, xAI,
 * Mistral, DashScope, llama.cpp, Ollama, vLLM, LM Studio, …). Server quirks
 * come from `config.compat`, else from the base URL's host.
 *
 * When `request.signal` fires, the message assembled so far is returned with
 * stop reason `aborted`. Other failures throw a classified
 * {@linkcode ProviderError} whose `partial` holds what had arrived.
 *
 * @param request Provider config, system prompt, messages, tools, signal.
 * @returns Batches of block events, then the assembled message.
 *
 * @example Stream from a local llama.cpp server
 * ```ts ignore
 * import { streamOpenAIChat } from "./openai_chat.ts";
 * const stream = streamOpenAIChat({
 *   config: { api: "openai-chat", baseUrl: "http://localhost:8080/v1", model: "qwen3", reasoning: "off" },
 *   system: "",
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
export const streamOpenAIChat: StreamMessage = providerStream(
  buildOpenAIRequest,
  (events, url) => parseOpenAIStream(events, withoutQuery(url)),
);

/** The URL as shown in error messages: a query string may carry a credential. */
function withoutQuery(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}
