import { buildGoogleRequest } from "./google_request.ts";
import { parseGoogleStream } from "./google_stream.ts";
import type { StreamMessage } from "./provider.ts";
import { providerStream } from "./stream_provider.ts";

/**
 * The `google-generative-ai` provider: streams one assistant message from
 * Google's Generative Language API (Gemini), `POST
 * {baseUrl}/models/{model}:streamGenerateContent?alt=sse` with the key in
 * `x-goog-api-key`. The base URL includes the API version
 * (`https://generativelanguage.googleapis.com/v1beta`, used when
 * `baseUrl` is empty).
 *
 * Thinking follows the model's generation (a token budget for Gemini 2.5,
 * a level for Gemini 3; `reasoningValues` override), and thought
 * signatures are kept in thinking blocks and sent back on the parts they
 * came with. When `request.signal` fires, the message assembled so far is
 * returned with stop reason `aborted`. Other failures throw a classified
 * {@linkcode ProviderError} whose `partial` holds what had arrived.
 *
 * @param request Provider config, system prompt, messages, tools, signal.
 * @returns Batches of block events, then the assembled message.
 *
 * @example Stream one turn
 * ```ts ignore
 * import { streamGoogleGenerativeAI } from "./google_generative_ai.ts";
 * const stream = streamGoogleGenerativeAI({
 *   config: {
 *     api: "google-generative-ai",
 *     baseUrl: "https://generativelanguage.googleapis.com/v1beta",
 *     model: "gemini-2.5-flash",
 *     reasoning: "low",
 *     apiKey: Deno.env.get("GEMINI_API_KEY"),
 *   },
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
export const streamGoogleGenerativeAI: StreamMessage = providerStream(
  buildGoogleRequest,
  parseGoogleStream,
);
