import type { ContentBlock, ResultPart, ToolResultBlock, ToolUseBlock } from "../content.ts";
import type { Message } from "../message.ts";
import type { ToolDecl } from "../tool.ts";
import { openAIAuthHeaders } from "./openai_compat.ts";
import { endpointUrl, streamHeaders } from "./endpoint.ts";
import { decodeReasoningSignature } from "./openai_responses_reasoning.ts";
import type { ProviderRequest } from "./provider.ts";
import { summaryText } from "./summary_text.ts";
import type { ProviderHttpRequest } from "./stream_provider.ts";

/** A text or image part of a user message or a tool result on the wire. */
export type ResponsesInputContent =
  | { type: "input_text"; text: string }
  | { type: "input_image"; image_url: string; detail: "auto" };

/** A reasoning item sent back so the model can continue from it. */
export interface ResponsesReasoningInput {
  /** Always `reasoning`. */
  type: "reasoning";
  /** The item's id, as the server gave it. */
  id: string;
  /** The opaque reasoning; without it a `store: false` request cannot refer to the item. */
  encrypted_content: string;
  /** Left empty: the summary was for people, the encrypted content is for the model. */
  summary: { type: "summary_text"; text: string }[];
}

/** A call the model made, sent back before its output. */
export interface ResponsesFunctionCallInput {
  /** Always `function_call`. */
  type: "function_call";
  /** The id the output answers. */
  call_id: string;
  /** The tool's wire name. */
  name: string;
  /** The arguments as JSON text. */
  arguments: string;
}

/** The result of one call: text, or parts when it holds images. */
export interface ResponsesFunctionCallOutput {
  /** Always `function_call_output`. */
  type: "function_call_output";
  /** The id of the answered call. */
  call_id: string;
  /** The result's text, or its text and images. */
  output: string | ResponsesInputContent[];
}

/** One item of the request's `input`, in conversation order. */
export type ResponsesInputItem =
  | { role: "user"; content: ResponsesInputContent[] }
  | { role: "assistant"; content: string }
  | ResponsesReasoningInput
  | ResponsesFunctionCallInput
  | ResponsesFunctionCallOutput;

/** A function tool declaration on the wire. */
export interface ResponsesTool {
  /** Always `function`. */
  type: "function";
  /** Wire name. */
  name: string;
  /** What the tool does. */
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
  /** False: strict mode rejects the optional properties and open objects tool schemas use. */
  strict: false;
}

/** The JSON body of a streaming Responses request. */
export interface ResponsesRequestBody {
  /** Model name. */
  model: string;
  /** The system prompt; absent when empty. */
  instructions?: string;
  /** The conversation as input items. */
  input: ResponsesInputItem[];
  /** Always streamed. */
  stream: true;
  /** Nothing is kept on the server: each request carries the whole conversation. */
  store: false;
  /** Output limit, reasoning included; absent when not configured. */
  max_output_tokens?: number;
  /** Tools offered; absent when none. */
  tools?: ResponsesTool[];
  /** Reasoning effort and a summary to show; absent when reasoning is off. */
  reasoning?: { effort: string; summary: "auto" };
  /** Asks for the encrypted reasoning that later requests send back. */
  include?: ["reasoning.encrypted_content"];
}

/**
 * Everything needed to send one Responses request:
 * the URL is `${baseUrl}/responses` (the base URL's query string kept).
 */
export type ResponsesHttpRequest = ProviderHttpRequest<ResponsesRequestBody>;

/**
 * Builds the URL, headers and body of a streaming OpenAI Responses request
 * (`POST {baseUrl}/responses`, `store: false`).
 *
 * The system prompt goes in `instructions`. User text and images become
 * `input_text` and `input_image` parts; assistant text becomes an assistant
 * message (its plain-string form, which the API reads as output text and
 * which needs no item id), calls become `function_call` items and results
 * `function_call_output` items (images included, as parts). Reasoning this
 * API produced earlier (a thinking block whose signature
 * `openai-responses:` … holds the item) goes back as the reasoning item, in
 * its place before the text or calls that followed it; other thinking and
 * redacted thinking is left out (the API has no field for plain reasoning
 * text). The key goes in `authorization: Bearer` (Azure: `api-key`) and only
 * when one is set.
 *
 * @param request The provider request.
 * @returns URL, headers and body.
 * @throws {ProviderError} `invalid_request` when the base URL is not a URL.
 *
 * @example A one-message request with reasoning
 * ```ts
 * import { buildOpenAIResponsesRequest } from "./openai_responses_request.ts";
 * const { url, body } = buildOpenAIResponsesRequest({
 *   config: { api: "openai-responses", baseUrl: "https://api.openai.com/v1", model: "gpt-5", reasoning: "low" },
 *   system: "Be brief.",
 *   messages: [{ role: "user", content: [{ type: "text", text: "hi" }], timestamp: "" }],
 *   tools: [],
 *   signal: new AbortController().signal,
 *   idleTimeoutMs: 1000,
 * });
 * console.assert(url === "https://api.openai.com/v1/responses");
 * console.assert(body.instructions === "Be brief." && body.reasoning?.effort === "low");
 * ```
 */
export function buildOpenAIResponsesRequest(request: ProviderRequest): ResponsesHttpRequest {
  const { config } = request;
  const body: ResponsesRequestBody = {
    model: config.model,
    input: toResponsesInput(request.messages),
    stream: true,
    store: false,
  };
  if (request.system !== "") body.instructions = request.system;
  // No default limit: the server knows each model's ceiling.
  if (config.maxTokens !== undefined) body.max_output_tokens = config.maxTokens;
  if (request.tools.length > 0) body.tools = request.tools.map(toResponsesTool);
  if (config.reasoning !== "off") {
    // The level's own name unless the model's catalog entry says otherwise (e.g. "none").
    body.reasoning = {
      effort: config.reasoningValues?.[config.reasoning] ?? config.reasoning,
      summary: "auto",
    };
    // Only with reasoning on: models that do not reason reject the include.
    body.include = ["reasoning.encrypted_content"];
  }
  return {
    url: endpointUrl(config.baseUrl, "/responses", "https://api.openai.com/v1").href,
    headers: streamHeaders(config, openAIAuthHeaders(config)),
    body,
  };
}

function toResponsesTool(decl: ToolDecl): ResponsesTool {
  return {
    type: "function",
    name: decl.name,
    description: decl.description,
    parameters: decl.inputSchema,
    strict: false,
  };
}

/**
 * Converts the wire context to Responses input items, in order.
 *
 * @param messages User, assistant and tool messages.
 * @returns The `input` array of the request body.
 */
function toResponsesInput(messages: readonly Message[]): ResponsesInputItem[] {
  const input: ResponsesInputItem[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "user": {
        const content = message.content.flatMap(userPart);
        if (content.length > 0) input.push({ role: "user", content });
        break;
      }
      case "assistant":
        pushAssistant(input, message.content);
        break;
      case "tool":
        for (const block of message.content) {
          if (block.type === "tool_result") input.push(functionCallOutput(block));
        }
        break;
      case "system":
        break; // The effective prompt arrives in `system`; entries are history.
    }
  }
  return input;
}

function userPart(block: ContentBlock): ResponsesInputContent[] {
  switch (block.type) {
    case "text":
      return block.text === "" ? [] : [{ type: "input_text", text: block.text }];
    case "image":
      return [imagePart(block.mediaType, block.data)];
    case "compaction_summary":
      return [{ type: "input_text", text: summaryText(block.summary) }];
    default:
      return [];
  }
}

function imagePart(mediaType: string, data: string): ResponsesInputContent {
  return { type: "input_image", image_url: `data:${mediaType};base64,${data}`, detail: "auto" };
}

/**
 * An assistant message becomes its items in block order: adjacent text
 * blocks join into one message (they are pieces of one stream), reasoning
 * items and calls keep their place between them, so each reasoning item
 * precedes the output it led to, as the API requires.
 */
function pushAssistant(input: ResponsesInputItem[], blocks: readonly ContentBlock[]): void {
  let text = "";
  const flushText = () => {
    if (text !== "") input.push({ role: "assistant", content: text });
    text = "";
  };
  for (const block of blocks) {
    if (block.type === "text") {
      text += block.text;
      continue;
    }
    if (block.type === "thinking") {
      const item = decodeReasoningSignature(block.signature);
      if (item === undefined) continue; // not this API's: nothing the server could verify
      flushText();
      input.push({
        type: "reasoning",
        id: item.id,
        encrypted_content: item.encryptedContent,
        summary: [],
      });
    } else if (block.type === "tool_use") {
      flushText();
      input.push(functionCall(block));
    }
  }
  flushText();
}

/** Arguments that never parsed are sent as `{}`: the API wants JSON there. */
function functionCall(block: ToolUseBlock): ResponsesFunctionCallInput {
  return {
    type: "function_call",
    call_id: block.id,
    name: block.name,
    arguments: block.invalidInput === undefined ? JSON.stringify(block.input) : "{}",
  };
}

/** Text alone goes as a string (the common form); with images, as text and image parts. */
function functionCallOutput(block: ToolResultBlock): ResponsesFunctionCallOutput {
  const text = block.content
    .filter((part: ResultPart) => part.type === "text")
    .map((part) => part.text)
    .join("\n");
  const images = block.content.filter((part) => part.type === "image");
  if (images.length === 0) {
    return { type: "function_call_output", call_id: block.toolUseId, output: text };
  }
  const output: ResponsesInputContent[] = text === "" ? [] : [{ type: "input_text", text }];
  for (const image of images) output.push(imagePart(image.mediaType, image.data));
  return { type: "function_call_output", call_id: block.toolUseId, output };
}
