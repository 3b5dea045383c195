import { AWS_EVENT_STREAM } from "./aws_eventstream.ts";
import { buildBedrockRequest } from "./bedrock_request.ts";
import { parseBedrockStream } from "./bedrock_stream.ts";
import type { StreamMessage } from "./provider.ts";
import { framedProviderStream } from "./stream_provider.ts";

/**
 * The `bedrock-converse` provider: streams one assistant message from
 * Amazon Bedrock's ConverseStream API, `POST
 * {baseUrl}/model/{model}/converse-stream` with a binary event stream in
 * reply. The base URL is the region's runtime endpoint
 * (`https://bedrock-runtime.us-east-1.amazonaws.com`; built from
 * `awsRegion` when `baseUrl` is empty).
 *
 * A Bedrock API key in `apiKey` travels as a bearer token; otherwise
 * `awsCredentials` sign each request (SigV4) over the exact bytes sent.
 * Neither reaches an error message. Claude models think with a budget or
 * adaptively, as on Anthropic's API; their signed reasoning is kept in
 * thinking blocks and sent back. When `request.signal` fires, the message
 * assembled so far is returned with stop reason `aborted`. Other failures
 * throw a classified {@linkcode ProviderError} whose `partial` holds what
 * had arrived.
 *
 * @param request Provider config, system prompt, messages, tools, signal.
 * @returns Batches of block events, then the assembled message.
 *
 * @example Stream one turn with a Bedrock API key
 * ```ts ignore
 * import { streamBedrockConverse } from "./bedrock_converse.ts";
 * const stream = streamBedrockConverse({
 *   config: {
 *     api: "bedrock-converse",
 *     baseUrl: "https://bedrock-runtime.us-east-1.amazonaws.com",
 *     model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
 *     reasoning: "low",
 *     apiKey: Deno.env.get("AWS_BEARER_TOKEN_BEDROCK"),
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
export const streamBedrockConverse: StreamMessage = framedProviderStream(
  buildBedrockRequest,
  parseBedrockStream,
  AWS_EVENT_STREAM,
);
