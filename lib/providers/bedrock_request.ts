import type { ContentBlock, ImagePart, ResultPart, ToolResultBlock } from "../content.ts";
import type { ProviderConfig } from "../config.ts";
import { ProviderError } from "../errors.ts";
import type { Message } from "../message.ts";
import type { ToolDecl } from "../tool.ts";
import { type AnthropicThinking, claudeThinking } from "./anthropic_request.ts";
import { AWS_EVENT_STREAM } from "./aws_eventstream.ts";
import { signAwsRequest } from "./aws_sigv4.ts";
import type { ProviderRequest } from "./provider.ts";
import { summaryText } from "./summary_text.ts";
import { endpointUrl } from "./endpoint.ts";

/** The name Bedrock's runtime signs requests under. */
const SIGNING_SERVICE = "bedrock";

/** The image formats Bedrock takes, by media type. */
const IMAGE_FORMATS: ReadonlyMap<string, BedrockImage["format"]> = new Map([
  ["image/png", "png"],
  ["image/jpeg", "jpeg"],
  ["image/jpg", "jpeg"],
  ["image/gif", "gif"],
  ["image/webp", "webp"],
]);

/**
 * What a tool result with no text and no image says: Bedrock rejects an
 * empty `content` list and blank text.
 */
const EMPTY_RESULT = "(no output)";

/** An image: its format and base64 bytes. */
export interface BedrockImage {
  /** The encoding. */
  format: "png" | "jpeg" | "gif" | "webp";
  /** Base64 of the encoded image. */
  source: { bytes: string };
}

/** A call the model made, sent back as it came. */
export interface BedrockToolUse {
  /** The call's id. */
  toolUseId: string;
  /** The tool's wire name. */
  name: string;
  /** The arguments. */
  input: Record<string, unknown>;
}

/** The answer to one call. */
export interface BedrockToolResult {
  /** The id of the answered call. */
  toolUseId: string;
  /** Text and images, never empty. */
  content: ({ text: string } | { image: BedrockImage })[];
  /** Present for a tool that failed. */
  status?: "error";
}

/** Reasoning sent back: its text with the signature, or encrypted reasoning. */
export type BedrockReasoning =
  | { reasoningText: { text: string; signature?: string } }
  | { redactedContent: string };

/** One block of a turn (exactly one key). */
export type BedrockContentBlock =
  | { text: string }
  | { image: BedrockImage }
  | { toolUse: BedrockToolUse }
  | { toolResult: BedrockToolResult }
  | { reasoningContent: BedrockReasoning };

/** One turn; turns alternate, starting with the user. */
export interface BedrockMessage {
  /** Who speaks; tool results are the user's. */
  role: "user" | "assistant";
  /** The blocks, never empty. */
  content: BedrockContentBlock[];
}

/** A tool as Bedrock declares it. */
export interface BedrockTool {
  /** The declaration. */
  toolSpec: {
    /** Wire name. */
    name: string;
    /** What the tool does (left out when empty: Bedrock rejects blank text). */
    description?: string;
    /** JSON Schema of the arguments. */
    inputSchema: { json: Record<string, unknown> };
  };
}

/** Model-specific fields Bedrock passes to the model: Claude's thinking. */
export interface BedrockModelFields {
  /** Claude's `thinking` parameter. */
  thinking: AnthropicThinking;
  /** Claude's effort for adaptive thinking. */
  output_config?: { effort: string };
}

/** The JSON body of a `ConverseStream` request. */
export interface BedrockRequestBody {
  /** The conversation. */
  messages: BedrockMessage[];
  /** The system prompt; absent when empty. */
  system?: [{ text: string }];
  /** Tools offered; absent when none. */
  toolConfig?: { tools: BedrockTool[] };
  /** The output limit; absent when neither configured nor needed by a thinking budget. */
  inferenceConfig?: { maxTokens: number };
  /** Thinking for Claude models; absent otherwise. */
  additionalModelRequestFields?: BedrockModelFields;
}

/** Everything needed to send one `ConverseStream` request. */
export interface BedrockHttpRequest {
  /** `{baseUrl}/model/{model, URL-encoded}/converse-stream`. */
  url: string;
  /** Headers: a Bedrock API key as a bearer token, when one is set. */
  headers: Record<string, string>;
  /** The JSON body. */
  body: BedrockRequestBody;
  /** The AWS credentials' values, kept out of error messages. */
  secrets: string[];
  /** Signs the exact body with the AWS credentials (SigV4), when they sign instead of a key. */
  sign?: (body: string) => Promise<Record<string, string>>;
}

/**
 * Builds the HTTP request of Amazon Bedrock's `ConverseStream`: `POST
 * {baseUrl}/model/{model}/converse-stream`, the base URL being
 * `https://bedrock-runtime.{region}.amazonaws.com` (built from `awsRegion`
 * when `baseUrl` is empty).
 *
 * Auth: a Bedrock API key (`apiKey`) goes as `authorization: Bearer`;
 * otherwise `awsCredentials` sign the request (SigV4, service `bedrock`) for
 * `awsRegion`, or the region in the host's name.
 *
 * User messages become user turns of text and images, tool results
 * `toolResult` blocks of a user turn (first in it), assistant messages
 * assistant turns; consecutive turns of one side are merged. Reasoning this
 * API produced goes back as `reasoningContent` (its text and signature, or
 * its encrypted form) in its place; reasoning from elsewhere is left out.
 * Claude models think with Anthropic's parameters in
 * `additionalModelRequestFields` (a budget, or adaptive with an effort, as
 * for the Anthropic API; `reasoningValues` override); other models get no
 * reasoning parameter.
 *
 * @param request The provider request.
 * @returns URL, headers, body, the secrets to redact and the signer.
 * @throws {ProviderError} `invalid_request` when the base URL is not a URL,
 * or neither it nor `awsRegion` tells the region credentials must sign for.
 *
 * @example A request with a Bedrock API key
 * ```ts
 * import { buildBedrockRequest } from "./bedrock_request.ts";
 * const { url, headers, body } = buildBedrockRequest({
 *   config: {
 *     api: "bedrock-converse",
 *     baseUrl: "https://bedrock-runtime.us-east-1.amazonaws.com",
 *     model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
 *     reasoning: "off",
 *     apiKey: "bedrock-api-key-example",
 *   },
 *   system: "Be brief.",
 *   messages: [{ role: "user", content: [{ type: "text", text: "Hi" }], timestamp: "" }],
 *   tools: [],
 *   signal: new AbortController().signal,
 *   idleTimeoutMs: 60_000,
 * });
 * console.assert(url.endsWith("/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream"));
 * console.assert(headers.authorization === "Bearer bedrock-api-key-example");
 * console.assert(body.system?.[0].text === "Be brief.");
 * ```
 */
export function buildBedrockRequest(request: ProviderRequest): BedrockHttpRequest {
  const { config } = request;
  const body: BedrockRequestBody = { messages: toBedrockMessages(request.messages) };
  if (request.system !== "") body.system = [{ text: request.system }];
  if (request.tools.length > 0) body.toolConfig = { tools: request.tools.map(toBedrockTool) };
  const thinking = isClaude(config.model) ? claudeThinking(config) : undefined;
  if (thinking !== undefined) {
    body.additionalModelRequestFields = {
      thinking: thinking.thinking,
      ...(thinking.effort === undefined ? {} : { output_config: { effort: thinking.effort } }),
    };
  }
  // No default limit: each model has its own, which Bedrock applies (unless a budget needs more).
  const maxTokens = thinking?.maxTokens ?? config.maxTokens;
  if (maxTokens !== undefined) body.inferenceConfig = { maxTokens };
  const url = converseStreamUrl(config);
  return { url, body, ...auth(config, url) };
}

/** Claude models, by Bedrock id (`us.anthropic.claude-…`, an inference profile's ARN). */
function isClaude(model: string): boolean {
  return /claude/i.test(model);
}

function converseStreamUrl(config: ProviderConfig): string {
  const example = "https://bedrock-runtime.us-east-1.amazonaws.com";
  const base = config.baseUrl.trim() !== ""
    ? config.baseUrl
    : config.awsRegion
    ? `https://bedrock-runtime.${config.awsRegion}.amazonaws.com`
    : undefined;
  if (base === undefined) {
    throw new ProviderError(
      "invalid_request",
      `bedrock-converse needs a baseUrl (e.g. "${example}") or an awsRegion`,
    );
  }
  // Model ids hold colons and ARNs slashes: one path segment, encoded.
  const model = encodeURIComponent(config.model);
  return endpointUrl(base, `/model/${model}/converse-stream`, example).href;
}

/** The headers, and how the request is authenticated: a key, a signature, or nothing (a proxy). */
function auth(
  config: ProviderConfig,
  url: string,
): Pick<BedrockHttpRequest, "headers" | "secrets" | "sign"> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: AWS_EVENT_STREAM.mediaType,
    ...config.headers,
  };
  const credentials = config.awsCredentials;
  if (config.apiKey || credentials === undefined) {
    if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
    return { headers, secrets: [] };
  }
  const region = config.awsRegion ?? regionOfHost(url);
  if (region === undefined) {
    throw new ProviderError(
      "invalid_request",
      `the AWS region to sign for is not in the host of ${new URL(url).origin}: set awsRegion`,
    );
  }
  const secrets = [credentials.accessKeyId, credentials.secretAccessKey];
  if (credentials.sessionToken) secrets.push(credentials.sessionToken);
  const scope = { credentials, region, service: SIGNING_SERVICE };
  return {
    headers,
    secrets,
    sign: (body) => signAwsRequest({ url, headers, body }, scope),
  };
}

/**
 * The region in a Bedrock runtime host: `bedrock-runtime[-fips].{region}.amazonaws.com[.cn]`,
 * or a VPC endpoint's `….bedrock-runtime.{region}.vpce.amazonaws.com`.
 */
function regionOfHost(url: string): string | undefined {
  const host = new URL(url).hostname;
  return /(?:^|\.)bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.(?:vpce\.)?amazonaws\.com(?:\.cn)?$/
    .exec(host)?.[1];
}

function toBedrockTool(decl: ToolDecl): BedrockTool {
  return {
    toolSpec: {
      name: decl.name,
      ...(decl.description === "" ? {} : { description: decl.description }),
      inputSchema: { json: decl.inputSchema },
    },
  };
}

/** Alternating turns: consecutive messages of one side merge, tool results lead their turn. */
function toBedrockMessages(messages: readonly Message[]): BedrockMessage[] {
  const turns: BedrockMessage[] = [];
  for (const message of messages) {
    if (message.role === "system") continue; // the effective prompt travels in `system`
    const role = message.role === "assistant" ? "assistant" : "user";
    const content = role === "assistant"
      ? assistantBlocks(message)
      : message.content.flatMap(userBlocks);
    if (content.length === 0) continue;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...content);
    else turns.push({ role, content });
  }
  for (const turn of turns) {
    if (turn.role === "user") turn.content.sort(byResultsFirst);
  }
  return turns;
}

/** Tool results before the other blocks of a user turn, as Claude requires (a stable sort). */
function byResultsFirst(a: BedrockContentBlock, b: BedrockContentBlock): number {
  return Number("toolResult" in b) - Number("toolResult" in a);
}

/** User-side blocks: text (never blank), images, tool results, summaries. */
function userBlocks(block: ContentBlock): BedrockContentBlock[] {
  switch (block.type) {
    case "text":
      return textBlocks(block.text);
    case "image":
      return [imageBlock(block)];
    case "tool_result":
      return [{ toolResult: toolResult(block) }];
    case "compaction_summary":
      return textBlocks(summaryText(block.summary));
    default:
      return [];
  }
}

/**
 * Assistant-side blocks in order. Reasoning goes back only when this API
 * produced it: its signature (or encrypted form) is what the model checks.
 */
function assistantBlocks(message: Message): BedrockContentBlock[] {
  const fromBedrock = message.api === "bedrock-converse";
  return message.content.flatMap((block): BedrockContentBlock[] => {
    switch (block.type) {
      case "text":
        return textBlocks(block.text);
      case "thinking": {
        if (!fromBedrock || (block.thinking === "" && !block.signature)) return [];
        const reasoningText = block.signature
          ? { text: block.thinking, signature: block.signature }
          : { text: block.thinking };
        return [{ reasoningContent: { reasoningText } }];
      }
      case "redacted_thinking":
        return fromBedrock ? [{ reasoningContent: { redactedContent: block.data } }] : [];
      case "tool_use":
        // Arguments cut off (never JSON) go as {}: the API needs an object.
        return [{
          toolUse: {
            toolUseId: block.id,
            name: block.name,
            input: block.invalidInput === undefined ? block.input : {},
          },
        }];
      default:
        return [];
    }
  });
}

function toolResult(block: ToolResultBlock): BedrockToolResult {
  const content = block.content.flatMap((part: ResultPart) =>
    part.type === "text" ? textBlocks(part.text) : [imageBlock(part)]
  );
  return {
    toolUseId: block.toolUseId,
    content: content.length > 0 ? content : [{ text: EMPTY_RESULT }],
    ...(block.isError ? { status: "error" as const } : {}),
  };
}

/** Blank text is rejected by Bedrock, so it vanishes. */
function textBlocks(text: string): { text: string }[] {
  return text.trim() === "" ? [] : [{ text }];
}

/** An image in a format Bedrock takes; another becomes a note saying so. */
function imageBlock(image: ImagePart): { image: BedrockImage } | { text: string } {
  const format = IMAGE_FORMATS.get(image.mediaType.toLowerCase());
  if (format === undefined) {
    return { text: `(an image of type ${image.mediaType}, which Bedrock does not take)` };
  }
  return { image: { format, source: { bytes: image.data } } };
}
