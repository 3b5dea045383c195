/**
 * `@panto/lib/providers`: the built-in providers and their stream parsers,
 * for embedders who call one directly, wrap one, or parse a recorded
 * stream. An `Agent` does not need this entry point: it finds a built-in by
 * its `api` name and loads it on first use, so importing `@panto/lib` reads
 * none of them.
 *
 * @example Parse a recorded Anthropic stream
 * ```ts
 * import { SseParser } from "@panto/lib";
 * import { parseAnthropicStream } from "@panto/lib/providers";
 * const body = [
 *   'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":3,"output_tokens":0}}}',
 *   'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
 *   'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}',
 *   'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}',
 *   'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}',
 *   'event: message_stop\ndata: {"type":"message_stop"}',
 * ].join("\n\n") + "\n\n";
 * async function* batches() {
 *   yield new SseParser().push(body);
 * }
 * const parsed = parseAnthropicStream(batches(), "https://api.anthropic.com");
 * let step = await parsed.next();
 * while (!step.done) step = await parsed.next();
 * console.assert(step.value.content[0]?.type === "text");
 * ```
 *
 * @module
 */
export { streamAnthropicMessages } from "./anthropic_messages.ts";
export { parseAnthropicStream } from "./anthropic_stream.ts";
export { streamOpenAIChat } from "./openai_chat.ts";
export { parseOpenAIStream } from "./openai_stream.ts";
export { streamGoogleGenerativeAI } from "./google_generative_ai.ts";
export { parseGoogleStream } from "./google_stream.ts";
export { streamOpenAIResponses } from "./openai_responses.ts";
export { parseOpenAIResponsesStream } from "./openai_responses_stream.ts";
export { streamBedrockConverse } from "./bedrock_converse.ts";
export { parseBedrockStream } from "./bedrock_stream.ts";
