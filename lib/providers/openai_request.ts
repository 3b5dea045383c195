import type { ContentBlock, ResultPart, ToolResultBlock, ToolUseBlock } from "../content.ts";
import type { OpenAICompat, ProviderConfig } from "../config.ts";
import type { Message } from "../message.ts";
import type { ToolDecl } from "../tool.ts";
import { alnum9CallId } from "./alnum_call_id.ts";
import { openAIAuthHeaders, resolveOpenAICompat } from "./openai_compat.ts";
import { endpointUrl, streamHeaders } from "./endpoint.ts";
import type { ProviderRequest } from "./provider.ts";
import { summaryText } from "./summary_text.ts";
import type { ProviderHttpRequest } from "./stream_provider.ts";

/** A text or image part of a user message on the wire. */
export type OpenAIContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } };

/** A call inside an assistant message on the wire. */
export interface OpenAIToolCall {
  /** The call id the tool message answers. */
  id: string;
  /** Always `function`. */
  type: "function";
  /** Name and JSON-encoded arguments. */
  function: { name: string; arguments: string };
}

/** One Chat Completions message. */
export type OpenAIMessage =
  | { role: "system" | "developer"; content: string }
  | { role: "user"; content: string | OpenAIContentPart[] }
  | {
    role: "assistant";
    content: string | null;
    tool_calls?: OpenAIToolCall[];
    reasoning_content?: string;
  }
  | { role: "tool"; tool_call_id: string; content: string };

/** A function tool declaration on the wire. */
export interface OpenAITool {
  /** Always `function`. */
  type: "function";
  /** Name, description and JSON Schema of the arguments. */
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The JSON body of a streaming Chat Completions request. */
export interface OpenAIChatBody {
  /** Model name. */
  model: string;
  /** The conversation, system prompt first. */
  messages: OpenAIMessage[];
  /** Always true: we only stream. */
  stream: true;
  /** Asks for a usage chunk before `[DONE]`. */
  stream_options?: { include_usage: true };
  /** Output limit, for servers that use the legacy field. */
  max_tokens?: number;
  /** Output limit, for OpenAI and servers that follow it. */
  max_completion_tokens?: number;
  /** Tools the model may call (omitted when there are none: some servers reject `[]`). */
  tools?: OpenAITool[];
  /** Reasoning level, OpenAI style. */
  reasoning_effort?: string;
  /** Reasoning level, OpenRouter style. */
  reasoning?: { effort: string };
  /** Thinking on or off, DeepSeek and Z.ai style. */
  thinking?: { type: "enabled" | "disabled" };
  /** Thinking on or off, Qwen style. */
  enable_thinking?: boolean;
}

/**
 * Everything needed to send one Chat Completions request:
 * the URL is `${baseUrl}/chat/completions` (the base URL's query string kept).
 */
export type OpenAIHttpRequest = ProviderHttpRequest<OpenAIChatBody>;

/**
 * Builds the URL, headers and body of a streaming Chat Completions request.
 *
 * The base URL includes `/v1`, as with the OpenAI SDK. The key goes in
 * `authorization: Bearer` (Azure: `api-key`) and only when one is set, so
 * keyless local servers are not sent an empty credential.
 *
 * @param request The provider request.
 * @returns URL, headers and body.
 * @throws {ProviderError} `invalid_request` when the base URL is not a URL.
 *
 * @example A one-message request
 * ```ts
 * import { buildOpenAIRequest } from "./openai_request.ts";
 * const { url, body } = buildOpenAIRequest({
 *   config: { api: "openai-chat", baseUrl: "http://localhost:8080/v1/", model: "qwen3", reasoning: "off" },
 *   system: "Be brief.",
 *   messages: [{ role: "user", content: [{ type: "text", text: "hi" }], timestamp: "" }],
 *   tools: [],
 *   signal: new AbortController().signal,
 *   idleTimeoutMs: 1000,
 * });
 * console.assert(url === "http://localhost:8080/v1/chat/completions");
 * console.assert(body.messages[0]?.role === "system");
 * ```
 */
export function buildOpenAIRequest(request: ProviderRequest): OpenAIHttpRequest {
  const { config } = request;
  const compat = resolveOpenAICompat(config);
  return {
    url: endpointUrl(config.baseUrl, "/chat/completions", "https://api.openai.com/v1").href,
    headers: streamHeaders(config, openAIAuthHeaders(config)),
    body: requestBody(request, compat),
  };
}

function requestBody(request: ProviderRequest, compat: Required<OpenAICompat>): OpenAIChatBody {
  const { config } = request;
  const body: OpenAIChatBody = {
    model: config.model,
    messages: toOpenAIMessages(request.system, request.messages, compat),
    stream: true,
  };
  if (compat.streamUsage) body.stream_options = { include_usage: true };
  // No default limit: each server knows its models' output ceilings, and a
  // guessed number either truncates answers or is rejected as too large.
  if (config.maxTokens !== undefined) body[compat.maxTokensField] = config.maxTokens;
  if (request.tools.length > 0) body.tools = request.tools.map(toOpenAITool);
  setReasoning(body, config, compat.reasoningParam);
  return body;
}

/**
 * "off" sends nothing where thinking is asked for (OpenAI, OpenRouter), and
 * an explicit off where it is the default (DeepSeek, Z.ai, Qwen).
 */
function setReasoning(
  body: OpenAIChatBody,
  config: ProviderConfig,
  param: Required<OpenAICompat>["reasoningParam"],
): void {
  const level = config.reasoning;
  const on = level !== "off";
  if (param === "thinking" || param === "thinking_effort") {
    body.thinking = { type: on ? "enabled" : "disabled" };
  } else if (param === "enable_thinking") body.enable_thinking = on;
  if (!on) return;
  // The level's own name unless the model's catalog entry says otherwise (e.g. "default").
  const effort = config.reasoningValues?.[level] ?? level;
  if (param === "reasoning_effort" || param === "thinking_effort") body.reasoning_effort = effort;
  else if (param === "reasoning") body.reasoning = { effort };
}

function toOpenAITool(decl: ToolDecl): OpenAITool {
  return {
    type: "function",
    function: { name: decl.name, description: decl.description, parameters: decl.inputSchema },
  };
}

/**
 * Converts the wire context to Chat Completions messages.
 *
 * @param system The effective system prompt ("" for none).
 * @param messages User, assistant and tool messages.
 * @param compat Server quirks (the system prompt's role).
 * @returns The `messages` array of the request body.
 */
export function toOpenAIMessages(
  system: string,
  messages: readonly Message[],
  compat: Required<OpenAICompat>,
): OpenAIMessage[] {
  const wire: OpenAIMessage[] = [];
  const rules: HistoryRules = {
    callId: compat.toolCallIds === "alnum9" ? alnum9CallId : (id) => id,
    reasoningContent: compat.reasoningContent,
  };
  if (system !== "") {
    wire.push({ role: compat.developerRole ? "developer" : "system", content: system });
  }
  for (const message of messages) {
    switch (message.role) {
      case "user":
        pushUser(wire, userParts(message.content));
        break;
      case "assistant":
        pushAssistant(wire, message.content, rules);
        break;
      case "tool":
        pushToolResults(wire, message.content, rules.callId);
        break;
      case "system":
        break; // The effective prompt arrives in `system`; entries are history.
    }
  }
  return wire;
}

function userParts(blocks: readonly ContentBlock[]): OpenAIContentPart[] {
  const parts: OpenAIContentPart[] = [];
  for (const block of blocks) {
    if (block.type === "text") parts.push({ type: "text", text: block.text });
    else if (block.type === "image") parts.push(imagePart(block.mediaType, block.data));
    else if (block.type === "compaction_summary") {
      parts.push({ type: "text", text: summaryText(block.summary) });
    }
  }
  return parts;
}

/** Text alone goes as a plain string (parts joined by blank lines): the one shape every server accepts. */
function pushUser(wire: OpenAIMessage[], parts: OpenAIContentPart[]): void {
  if (parts.length === 0) return;
  const texts = parts.flatMap((part) => part.type === "text" ? [part.text] : []);
  const content = texts.length === parts.length ? texts.join("\n\n") : parts;
  wire.push({ role: "user", content });
}

function imagePart(mediaType: string, data: string): OpenAIContentPart {
  return { type: "image_url", image_url: { url: `data:${mediaType};base64,${data}` } };
}

/**
 * Thinking is dropped unless the server wants it back as `reasoning_content`
 * (a signature from another provider means nothing to these servers, and
 * most have no request field for it). Text blocks are joined without a
 * separator because they are pieces of one stream (Anthropic splits text at
 * citations mid-sentence). A message left with neither text nor calls is
 * skipped: servers reject empty assistants.
 */
function pushAssistant(
  wire: OpenAIMessage[],
  blocks: readonly ContentBlock[],
  rules: HistoryRules,
): void {
  let text = "";
  let thinking = "";
  const calls: OpenAIToolCall[] = [];
  for (const block of blocks) {
    if (block.type === "text") text += block.text;
    else if (block.type === "thinking") thinking += block.thinking;
    else if (block.type === "tool_use") calls.push(toOpenAIToolCall(block, rules.callId));
  }
  if (calls.length === 0 && text === "") return;
  const message: OpenAIMessage = calls.length > 0
    ? { role: "assistant", content: text === "" ? null : text, tool_calls: calls }
    : { role: "assistant", content: text };
  if (rules.reasoningContent) message.reasoning_content = thinking;
  wire.push(message);
}

/** Arguments that never parsed are sent as `{}`: servers reject invalid JSON there. */
function toOpenAIToolCall(block: ToolUseBlock, callIds: CallIdMap): OpenAIToolCall {
  const args = block.invalidInput === undefined ? JSON.stringify(block.input) : "{}";
  return {
    id: callIds(block.id),
    type: "function",
    function: { name: block.name, arguments: args },
  };
}

/** How recorded tool-call ids are sent (as-is, or in the server's required shape). */
type CallIdMap = (id: string) => string;

/** How the recorded history is adapted to the server. */
interface HistoryRules {
  callId: CallIdMap;
  /** Send thinking back as `reasoning_content`. */
  reasoningContent: boolean;
}

const IMAGE_NOTE = "(see attached image)";
const IMAGES_INTRO = "Attached image(s) from tool result:";

/**
 * One `tool` message per result. Tool messages carry text only on most
 * servers, so images move to one user message after all the results (the
 * results must directly follow the assistant's calls) and each tool message
 * with images says so.
 */
function pushToolResults(
  wire: OpenAIMessage[],
  blocks: readonly ContentBlock[],
  callIds: CallIdMap,
): void {
  const images: OpenAIContentPart[] = [];
  for (const block of blocks) {
    if (block.type !== "tool_result") continue;
    const resultImages = block.content.filter((part) => part.type === "image");
    for (const image of resultImages) images.push(imagePart(image.mediaType, image.data));
    wire.push({
      role: "tool",
      tool_call_id: callIds(block.toolUseId),
      content: toolResultText(block, resultImages.length > 0),
    });
  }
  if (images.length > 0) {
    wire.push({ role: "user", content: [{ type: "text", text: IMAGES_INTRO }, ...images] });
  }
}

function toolResultText(block: ToolResultBlock, hasImages: boolean): string {
  const text = block.content
    .filter((part: ResultPart) => part.type === "text")
    .map((part) => part.text)
    .join("\n");
  if (!hasImages) return text;
  return text === "" ? IMAGE_NOTE : `${text}\n${IMAGE_NOTE}`;
}
