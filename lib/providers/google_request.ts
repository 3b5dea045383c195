import type { ContentBlock, ImagePart, ToolResultBlock } from "../content.ts";
import type { ProviderConfig } from "../config.ts";
import type { Message } from "../message.ts";
import type { ToolDecl } from "../tool.ts";
import { isMintedCallId } from "./google_call_ids.ts";
import { type GeminiModelTraits, geminiModelTraits } from "./google_models.ts";
import { type GeminiSchema, toGeminiParameters } from "./google_schema.ts";
import { type GeminiThinkingConfig, geminiThinkingConfig } from "./google_thinking.ts";
import { carriedSignature } from "./google_thought_signatures.ts";
import type { ProviderRequest } from "./provider.ts";
import { summaryText } from "./summary_text.ts";
import { endpointUrl, streamHeaders } from "./endpoint.ts";
import type { ProviderHttpRequest } from "./stream_provider.ts";

/** The Generative Language API's base URL, used when the config's `baseUrl` is empty. */
export const GOOGLE_DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta";

/**
 * The signature Google documents for a replayed function call whose own
 * signature is not known (a call another model made): Gemini 3 then skips
 * its check instead of failing the request with 400.
 */
const SKIP_SIGNATURE = "skip_thought_signature_validator";

/** Base64 image or other bytes. */
export interface GeminiInlineData {
  /** IANA media type, e.g. `image/png`. */
  mimeType: string;
  /** Base64 of the bytes. */
  data: string;
}

/** A call the model made, as sent back in history. */
export interface GeminiFunctionCall {
  /** The tool's wire name. */
  name: string;
  /** The arguments. */
  args: Record<string, unknown>;
  /** The id Gemini gave the call (absent when it gave none). */
  id?: string;
}

/** The answer to one function call. */
export interface GeminiFunctionResponse {
  /** The called tool's name. */
  name: string;
  /** `{ output }` on success, `{ error }` on failure (the SDK's documented keys). */
  response: { output: string } | { error: string };
  /** The call's id, when Gemini gave it one. */
  id?: string;
  /** Images returned by the tool (Gemini 3 and later). */
  parts?: { inlineData: GeminiInlineData }[];
}

/** One part of a turn: text, thought, image, call or result, with its thought signature. */
export interface GeminiPart {
  /** Text (with `thought`, a thought summary). */
  text?: string;
  /** Marks a thought summary. */
  thought?: true;
  /** The opaque signature Gemini gave this part, sent back unchanged. */
  thoughtSignature?: string;
  /** An image. */
  inlineData?: GeminiInlineData;
  /** A call the model made. */
  functionCall?: GeminiFunctionCall;
  /** A tool's result. */
  functionResponse?: GeminiFunctionResponse;
}

/** One turn of the conversation. */
export interface GeminiContent {
  /** `user` (prompts and tool results) or `model`. */
  role: "user" | "model";
  /** The parts, never empty. */
  parts: GeminiPart[];
}

/** A tool as Gemini declares it. */
export interface GeminiFunctionDeclaration {
  /** Wire name. */
  name: string;
  /** What the tool does (left out when empty). */
  description?: string;
  /** The arguments' schema (left out for a tool without parameters). */
  parameters?: GeminiSchema;
}

/** The JSON body of a `streamGenerateContent` request. */
export interface GeminiRequestBody {
  /** The conversation. */
  contents: GeminiContent[];
  /** The system prompt; absent when empty. */
  systemInstruction?: { parts: [{ text: string }] };
  /** Tools offered; absent when none. */
  tools?: [{ functionDeclarations: GeminiFunctionDeclaration[] }];
  /** Output limit and thinking; absent when neither is set. */
  generationConfig?: { maxOutputTokens?: number; thinkingConfig?: GeminiThinkingConfig };
}

/**
 * Everything needed to send one Gemini request with `fetch`: the URL is
 * `${baseUrl}/models/${model}:streamGenerateContent?alt=sse`; the key travels
 * in `x-goog-api-key`, never in the URL.
 */
export type GeminiHttpRequest = ProviderHttpRequest<GeminiRequestBody>;

/**
 * Builds the HTTP request for the Gemini API's streaming
 * `models/{model}:streamGenerateContent?alt=sse`.
 *
 * User messages become `user` turns (text and `inlineData` images), tool
 * results `functionResponse` parts of a `user` turn (images inside the
 * response for Gemini 3, else as parts after the responses), and assistant
 * messages `model` turns. Consecutive turns of one side are merged. In
 * messages from this API, thinking goes back as `thought` parts and every
 * thought signature on the part it came with (see
 * `google_thought_signatures.ts`); the ids Gemini gave its calls go back on
 * the calls and their responses. For Gemini 3, a call of the current turn
 * that lost its signature (made by another model) gets Google's documented
 * skip value. Tool schemas are converted to the subset Gemini accepts.
 *
 * @param request The provider request.
 * @returns URL, headers and body.
 * @throws {ProviderError} `invalid_request` when the base URL is not a URL.
 *
 * @example A one-message request
 * ```ts
 * import { buildGoogleRequest } from "./google_request.ts";
 * const { url, headers, body } = buildGoogleRequest({
 *   config: { api: "google-generative-ai", baseUrl: "", model: "gemini-2.5-flash", reasoning: "off", apiKey: "k" },
 *   system: "Be brief.",
 *   messages: [{ role: "user", content: [{ type: "text", text: "Hi" }], timestamp: "" }],
 *   tools: [],
 *   signal: new AbortController().signal,
 *   idleTimeoutMs: 60_000,
 * });
 * console.assert(url === "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
 * console.assert(headers["x-goog-api-key"] === "k");
 * console.assert(body.contents[0]?.parts[0]?.text === "Hi");
 * console.assert(body.generationConfig?.thinkingConfig?.thinkingBudget === 0);
 * ```
 */
export function buildGoogleRequest(request: ProviderRequest): GeminiHttpRequest {
  const { config } = request;
  const traits = geminiModelTraits(config.model);
  const body: GeminiRequestBody = { contents: toGeminiContents(request.messages, traits) };
  if (request.system !== "") body.systemInstruction = { parts: [{ text: request.system }] };
  if (request.tools.length > 0) {
    body.tools = [{ functionDeclarations: request.tools.map(toFunctionDeclaration) }];
  }
  const generationConfig: NonNullable<GeminiRequestBody["generationConfig"]> = {};
  // No default limit: each model has its own ceiling, which the API applies.
  if (config.maxTokens !== undefined) generationConfig.maxOutputTokens = config.maxTokens;
  const thinkingConfig = geminiThinkingConfig(config);
  if (thinkingConfig !== undefined) generationConfig.thinkingConfig = thinkingConfig;
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  return {
    url: streamUrl(config),
    headers: streamHeaders(config, config.apiKey ? { "x-goog-api-key": config.apiKey } : {}),
    body,
  };
}

function streamUrl(config: ProviderConfig): string {
  const base = config.baseUrl.trim() === "" ? GOOGLE_DEFAULT_BASE_URL : config.baseUrl;
  // `models/x` and `tunedModels/x` name their collection; a bare name is a model.
  const name = /^(?:models|tunedModels)\//.test(config.model)
    ? config.model
    : `models/${config.model}`;
  const path = name.split("/").map(encodeURIComponent).join("/");
  const url = endpointUrl(base, `/${path}:streamGenerateContent`, GOOGLE_DEFAULT_BASE_URL);
  url.searchParams.set("alt", "sse");
  return url.href;
}

function toFunctionDeclaration(decl: ToolDecl): GeminiFunctionDeclaration {
  const declaration: GeminiFunctionDeclaration = { name: decl.name };
  if (decl.description !== "") declaration.description = decl.description;
  const parameters = toGeminiParameters(decl.inputSchema);
  if (parameters !== undefined) declaration.parameters = parameters;
  return declaration;
}

/** State of one conversion: which call ids go on the wire. */
interface Conversion {
  traits: GeminiModelTraits;
  /** Ids of the calls sent with an id, so that their responses carry it too. */
  sentIds: Set<string>;
}

/** Maps messages to alternating turns (consecutive turns of one side are merged). */
function toGeminiContents(
  messages: readonly Message[],
  traits: GeminiModelTraits,
): GeminiContent[] {
  const conversion: Conversion = { traits, sentIds: new Set() };
  const currentTurn = messages.findLastIndex((message) => message.role === "user");
  const contents: GeminiContent[] = [];
  messages.forEach((message, index) => {
    let content: GeminiContent | undefined;
    switch (message.role) {
      case "user":
        content = { role: "user", parts: message.content.flatMap(userParts) };
        break;
      case "assistant":
        content = {
          role: "model",
          parts: modelParts(message, conversion, index > currentTurn),
        };
        break;
      case "tool":
        content = { role: "user", parts: toolResultParts(message.content, conversion) };
        break;
      case "system":
        return; // the effective system prompt travels in systemInstruction
    }
    if (content.parts.length === 0) return;
    const last = contents.at(-1);
    if (last?.role === content.role) last.parts.push(...content.parts);
    else contents.push(content);
  });
  return contents;
}

/** User-side blocks: text (never empty: the API rejects empty text), images, summaries. */
function userParts(block: ContentBlock): GeminiPart[] {
  switch (block.type) {
    case "text":
      return block.text === "" ? [] : [{ text: block.text }];
    case "image":
      return [{ inlineData: { mimeType: block.mediaType, data: block.data } }];
    case "compaction_summary":
      return [{ text: summaryText(block.summary) }];
    default:
      return [];
  }
}

/**
 * A model turn. Thought parts and signatures are sent only for messages
 * from this API; thinking from elsewhere goes as plain text.
 */
function modelParts(message: Message, conversion: Conversion, currentTurn: boolean): GeminiPart[] {
  const fromGemini = message.api === "google-generative-ai";
  const parts: GeminiPart[] = [];
  for (const block of message.content) {
    switch (block.type) {
      case "text":
        if (block.text !== "") parts.push({ text: block.text });
        break;
      case "thinking": {
        const carried = fromGemini ? carriedSignature(block) : undefined;
        if (carried !== undefined) {
          attachSignature(parts, carried);
        } else if (block.thinking !== "") {
          parts.push(
            fromGemini
              ? {
                text: block.thinking,
                thought: true,
                ...(block.signature ? { thoughtSignature: block.signature } : {}),
              }
              : { text: block.thinking },
          );
        }
        break;
      }
      case "tool_use": {
        // Arguments cut off (never JSON) are sent as {}: the API needs an object.
        const call: GeminiFunctionCall = {
          name: block.name,
          args: block.invalidInput === undefined ? block.input : {},
        };
        if (fromGemini && !isMintedCallId(block.id)) {
          call.id = block.id;
          conversion.sentIds.add(block.id);
        }
        parts.push({ functionCall: call });
        break;
      }
      default:
        break; // redacted thinking is Anthropic's; other blocks have no model-side form
    }
  }
  const calls = parts.filter((part) => part.functionCall !== undefined);
  if (
    conversion.traits.gemini3 && currentTurn && calls.length > 0 &&
    !calls.some((part) => part.thoughtSignature !== undefined)
  ) {
    calls[0]!.thoughtSignature = SKIP_SIGNATURE;
  }
  return parts;
}

/**
 * A carrier's signature goes on the text or call part before it; with no
 * such part (or one already signed) it stands for an empty signed text part.
 */
function attachSignature(parts: GeminiPart[], signature: string): void {
  const last = parts.at(-1);
  const signable = last !== undefined && last.thoughtSignature === undefined &&
    (last.functionCall !== undefined || (last.text !== undefined && last.thought === undefined));
  if (signable) last.thoughtSignature = signature;
  else parts.push({ text: "", thoughtSignature: signature });
}

const IMAGE_NOTE = "(see attached image)";
const IMAGES_INTRO = "Attached image(s) from tool result:";

/**
 * One `functionResponse` per result. Gemini 3 takes a result's images in
 * the response's `parts`; older models take them as parts after all the
 * responses of the turn.
 */
function toolResultParts(blocks: readonly ContentBlock[], conversion: Conversion): GeminiPart[] {
  const responses: GeminiPart[] = [];
  const looseImages: GeminiPart[] = [];
  for (const block of blocks) {
    if (block.type !== "tool_result") continue;
    const images = block.content.filter((part): part is ImagePart => part.type === "image");
    const response: GeminiFunctionResponse = {
      name: block.toolName,
      response: block.isError
        ? { error: resultText(block, images.length > 0) }
        : { output: resultText(block, images.length > 0) },
    };
    if (conversion.sentIds.has(block.toolUseId)) response.id = block.toolUseId;
    const inline = images.map((image) => ({
      inlineData: { mimeType: image.mediaType, data: image.data },
    }));
    if (inline.length > 0 && conversion.traits.gemini3) response.parts = inline;
    else looseImages.push(...inline);
    responses.push({ functionResponse: response });
  }
  if (looseImages.length === 0) return responses;
  return [...responses, { text: IMAGES_INTRO }, ...looseImages];
}

function resultText(block: ToolResultBlock, hasImages: boolean): string {
  const text = block.content.flatMap((part) => part.type === "text" ? [part.text] : []).join("\n");
  if (!hasImages) return text;
  return text === "" ? IMAGE_NOTE : `${text}\n${IMAGE_NOTE}`;
}
