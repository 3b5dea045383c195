import type { ContentBlock, ResultPart } from "../content.ts";
import type { ProviderConfig, ReasoningLevel } from "../config.ts";
import type { Message } from "../message.ts";
import type { ToolDecl } from "../tool.ts";
import type { ProviderRequest } from "./provider.ts";
import { summaryText } from "./summary_text.ts";
import { streamHeaders } from "./endpoint.ts";
import type { ProviderHttpRequest } from "./stream_provider.ts";

/** The `anthropic-version` header every request carries. */
export const ANTHROPIC_VERSION = "2023-06-01";

/** `max_tokens` when the config sets none (raised when a thinking budget needs room). */
export const DEFAULT_MAX_TOKENS = 16384;

/** The API's smallest thinking budget; `max_tokens` must stay above the budget. */
const MIN_THINKING_BUDGET = 1024;

/** Room for the visible answer kept above the thinking budget when no limit is configured. */
const ANSWER_HEADROOM = 4096;

/** Thinking budgets (tokens) per reasoning level, for models with budget-based thinking. */
export const THINKING_BUDGETS: Readonly<Record<Exclude<ReasoningLevel, "off">, number>> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 24576,
  xhigh: 32768,
};

/** Adaptive models' effort per level by default: the API has no `minimal`. */
const ADAPTIVE_EFFORTS: Readonly<Record<Exclude<ReasoningLevel, "off">, string>> = {
  minimal: "low",
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "xhigh",
};

/** Marks a prompt-cache breakpoint. */
export interface AnthropicCacheControl {
  /** The only cache type the API has. */
  type: "ephemeral";
}

/** A text block on the wire. */
export interface AnthropicTextBlock {
  /** Discriminator. */
  type: "text";
  /** Non-empty text (the API rejects empty text blocks). */
  text: string;
  /** Prompt-cache breakpoint. */
  cache_control?: AnthropicCacheControl;
}

/** An image block on the wire (base64 only). */
export interface AnthropicImageBlock {
  /** Discriminator. */
  type: "image";
  /** The image bytes. */
  source: { type: "base64"; media_type: string; data: string };
  /** Prompt-cache breakpoint. */
  cache_control?: AnthropicCacheControl;
}

/** A signed thinking block sent back unchanged. */
export interface AnthropicThinkingBlock {
  /** Discriminator. */
  type: "thinking";
  /** The reasoning text, exactly as received. */
  thinking: string;
  /** The signature that lets the API verify the text. */
  signature: string;
}

/** Encrypted reasoning sent back unchanged. */
export interface AnthropicRedactedThinkingBlock {
  /** Discriminator. */
  type: "redacted_thinking";
  /** Opaque data. */
  data: string;
}

/** A tool call the model made. */
export interface AnthropicToolUseBlock {
  /** Discriminator. */
  type: "tool_use";
  /** Call id (`[a-zA-Z0-9_-]+`). */
  id: string;
  /** Tool name in wire form. */
  name: string;
  /** Arguments. */
  input: Record<string, unknown>;
}

/** The answer to one tool call. */
export interface AnthropicToolResultBlock {
  /** Discriminator. */
  type: "tool_result";
  /** The id of the answered call. */
  tool_use_id: string;
  /** A string when the result is one text part, else text and image blocks. */
  content?: string | (AnthropicTextBlock | AnthropicImageBlock)[];
  /** Present (true) only for failed tools. */
  is_error?: true;
  /** Prompt-cache breakpoint. */
  cache_control?: AnthropicCacheControl;
}

/** Any content block we send. */
export type AnthropicContentBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock;

/** One turn on the wire; turns alternate between user and assistant. */
export interface AnthropicMessage {
  /** Who speaks. Tool results are user content. */
  role: "user" | "assistant";
  /** The blocks, never empty. */
  content: AnthropicContentBlock[];
}

/** A tool declaration on the wire. */
export interface AnthropicTool {
  /** Wire name. */
  name: string;
  /** What the tool does. */
  description: string;
  /** JSON Schema of the arguments. */
  input_schema: Record<string, unknown>;
}

/** The `thinking` request parameter. */
export type AnthropicThinking = { type: "enabled"; budget_tokens: number } | { type: "adaptive" };

/** The JSON body of a streaming Messages request. */
export interface AnthropicRequestBody {
  /** Model name. */
  model: string;
  /** Output limit, thinking included. */
  max_tokens: number;
  /** Always streamed. */
  stream: true;
  /** The system prompt as one cached text block; absent when empty. */
  system?: AnthropicTextBlock[];
  /** The conversation. */
  messages: AnthropicMessage[];
  /** Tools offered; absent when none. */
  tools?: AnthropicTool[];
  /** Extended thinking; absent when reasoning is off. */
  thinking?: AnthropicThinking;
  /** Effort for adaptive thinking. */
  output_config?: { effort: string };
}

/**
 * Everything needed to send a Messages request with `fetch`:
 * the URL is `${baseUrl}/v1/messages`.
 */
export type AnthropicHttpRequest = ProviderHttpRequest<AnthropicRequestBody>;

const EPHEMERAL: AnthropicCacheControl = { type: "ephemeral" };

/**
 * Builds the HTTP request for Anthropic's streaming Messages API from a
 * provider request.
 *
 * Messages are mapped to alternating user/assistant turns: `tool` messages
 * become user turns of `tool_result` blocks, consecutive same-side messages
 * are merged (tool results first, as the API requires), empty text is
 * dropped, unsigned thinking is sent as text, and a compaction summary
 * becomes framed user text. The system prompt and the last user turn carry
 * prompt-cache breakpoints.
 *
 * @param request The provider request.
 * @returns The URL, headers and JSON body.
 *
 * @example Build a one-message request
 * ```ts
 * import { buildAnthropicRequest } from "./anthropic_request.ts";
 * const { url, body } = buildAnthropicRequest({
 *   config: { api: "anthropic-messages", baseUrl: "https://api.anthropic.com", model: "claude-haiku-4-5", reasoning: "off" },
 *   system: "",
 *   messages: [{ role: "user", content: [{ type: "text", text: "Hi" }], timestamp: "2026-01-01T00:00:00Z" }],
 *   tools: [],
 *   signal: new AbortController().signal,
 *   idleTimeoutMs: 60_000,
 * });
 * console.assert(url === "https://api.anthropic.com/v1/messages");
 * console.assert(body.messages[0]?.role === "user");
 * ```
 */
export function buildAnthropicRequest(request: ProviderRequest): AnthropicHttpRequest {
  const { config } = request;
  const body: AnthropicRequestBody = {
    model: config.model,
    max_tokens: config.maxTokens ?? DEFAULT_MAX_TOKENS,
    stream: true,
    messages: toAnthropicMessages(request.messages),
  };
  if (request.system !== "") {
    body.system = [{ type: "text", text: request.system, cache_control: EPHEMERAL }];
  }
  if (request.tools.length > 0) body.tools = request.tools.map(toAnthropicTool);
  applyReasoning(body, config);
  return {
    url: `${config.baseUrl.replace(/\/+$/, "")}/v1/messages`,
    headers: anthropicHeaders(config),
    body,
  };
}

function anthropicHeaders(config: ProviderConfig): Record<string, string> {
  const key: Record<string, string> = config.apiKey ? { "x-api-key": config.apiKey } : {};
  return streamHeaders(config, { "anthropic-version": ANTHROPIC_VERSION, ...key });
}

function toAnthropicTool(decl: ToolDecl): AnthropicTool {
  return { name: decl.name, description: decl.description, input_schema: decl.inputSchema };
}

/**
 * Whether a model takes `thinking: {type: "adaptive"}` rather than a token
 * budget: Claude 4.6 and later. Opus 4.7+ rejects budgets outright and 4.6
 * deprecates them, while 4.5 and older know only budgets, so the choice must
 * follow the model name (`claude-<family>-<major>[-<minor>]`).
 *
 * @param model The model name.
 * @returns True for Claude 4.6 and later.
 *
 * @example
 * ```ts
 * import { usesAdaptiveThinking } from "./anthropic_request.ts";
 * console.assert(usesAdaptiveThinking("claude-opus-4-6"));
 * console.assert(!usesAdaptiveThinking("claude-sonnet-4-5-20250929"));
 * ```
 */
export function usesAdaptiveThinking(model: string): boolean {
  // The minor version has one or two digits: "-20250514" is a date, not a minor.
  const match = /claude-(?:opus|sonnet|haiku)-(\d+)(?:[-.](\d{1,2})(?!\d))?/.exec(
    model.toLowerCase(),
  );
  if (!match) return false;
  const major = Number(match[1]);
  const minor = Number(match[2] ?? 0);
  return major > 4 || (major === 4 && minor >= 6);
}

/** How a Claude model is asked to think at the configured level. */
export interface ClaudeThinking {
  /** The `thinking` parameter. */
  thinking: AnthropicThinking;
  /** The effort of adaptive thinking (`output_config.effort`). */
  effort?: string;
  /** The output limit a budget needs (kept above it), when it differs from the configured one. */
  maxTokens?: number;
}

/**
 * The thinking parameters of a Claude model, for the Messages API and for
 * Bedrock (which passes them through). Adaptive models get `thinking:
 * adaptive` plus an effort (the level names match the API's); the others
 * get a budget from {@linkcode THINKING_BUDGETS}, and the output limit is
 * kept above it: without a configured limit it grows to budget + headroom;
 * with one, the budget shrinks to fit (never below the API minimum of
 * 1024). `reasoningValues` override the effort or (as digits) the budget.
 *
 * @param config The provider config (model, level, limit, values).
 * @returns The parameters, or `undefined` when reasoning is off.
 *
 * @example
 * ```ts
 * import { claudeThinking } from "./anthropic_request.ts";
 * const config = { api: "anthropic-messages", baseUrl: "", model: "claude-sonnet-4-5", reasoning: "low" } as const;
 * console.assert(claudeThinking(config)?.maxTokens === 16384);
 * console.assert(claudeThinking({ ...config, model: "claude-opus-4-6" })?.effort === "low");
 * ```
 */
export function claudeThinking(config: ProviderConfig): ClaudeThinking | undefined {
  if (config.reasoning === "off") return undefined;
  const value = config.reasoningValues?.[config.reasoning];
  if (usesAdaptiveThinking(config.model)) {
    return { thinking: { type: "adaptive" }, effort: value ?? ADAPTIVE_EFFORTS[config.reasoning] };
  }
  const budget = value !== undefined && /^\d+$/.test(value)
    ? Number(value)
    : THINKING_BUDGETS[config.reasoning];
  if (config.maxTokens === undefined) {
    return {
      thinking: { type: "enabled", budget_tokens: budget },
      maxTokens: Math.max(DEFAULT_MAX_TOKENS, budget + ANSWER_HEADROOM),
    };
  }
  const fitted = Math.max(
    MIN_THINKING_BUDGET,
    Math.min(budget, config.maxTokens - MIN_THINKING_BUDGET),
  );
  return {
    thinking: { type: "enabled", budget_tokens: fitted },
    maxTokens: Math.max(config.maxTokens, fitted + MIN_THINKING_BUDGET),
  };
}

/** Adds the thinking parameters of {@linkcode claudeThinking}. */
function applyReasoning(body: AnthropicRequestBody, config: ProviderConfig): void {
  const params = claudeThinking(config);
  if (params === undefined) return;
  body.thinking = params.thinking;
  if (params.effort !== undefined) body.output_config = { effort: params.effort };
  if (params.maxTokens !== undefined) body.max_tokens = params.maxTokens;
}

/**
 * Maps our messages to alternating wire turns and marks the last user turn
 * as a cache breakpoint.
 */
function toAnthropicMessages(messages: readonly Message[]): AnthropicMessage[] {
  const turns: AnthropicMessage[] = [];
  for (const message of messages) {
    if (message.role === "system") continue; // the system prompt travels in `system`
    const role = message.role === "assistant" ? "assistant" : "user";
    const content = message.content.flatMap((block) =>
      role === "assistant" ? assistantBlock(block) : userBlock(block)
    );
    if (content.length === 0) continue;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...content);
    else turns.push({ role, content });
  }
  for (const turn of turns) {
    if (turn.role === "user") turn.content = toolResultsFirst(turn.content);
  }
  markLastUserTurnCached(turns);
  return turns;
}

/** The API wants a turn's tool results before any other block of that turn. */
function toolResultsFirst(content: AnthropicContentBlock[]): AnthropicContentBlock[] {
  const results = content.filter((block) => block.type === "tool_result");
  if (results.length === 0) return content;
  return [...results, ...content.filter((block) => block.type !== "tool_result")];
}

function markLastUserTurnCached(turns: AnthropicMessage[]): void {
  const lastUser = turns.findLast((turn) => turn.role === "user");
  const block = lastUser?.content.at(-1);
  if (block?.type === "text" || block?.type === "image" || block?.type === "tool_result") {
    block.cache_control = EPHEMERAL;
  }
}

/** User-side blocks: text, images, tool results and compaction summaries. */
function userBlock(block: ContentBlock): AnthropicContentBlock[] {
  switch (block.type) {
    case "text":
      return textBlocks(block.text);
    case "image":
      return [imageBlock(block.mediaType, block.data)];
    case "tool_result": {
      const wire: AnthropicToolResultBlock = {
        type: "tool_result",
        tool_use_id: wireToolId(block.toolUseId),
      };
      const content = toolResultContent(block.content);
      if (content !== undefined) wire.content = content;
      if (block.isError) wire.is_error = true;
      return [wire];
    }
    case "compaction_summary":
      return textBlocks(summaryText(block.summary));
    default:
      return []; // assistant-only and system blocks have no user-side form
  }
}

/** Assistant-side blocks: text, thinking, redacted thinking and tool calls. */
function assistantBlock(block: ContentBlock): AnthropicContentBlock[] {
  switch (block.type) {
    case "text":
      return textBlocks(block.text);
    case "thinking":
      // The API rejects thinking without its signature (e.g. from another
      // provider, or cut by an abort), so such reasoning travels as text.
      return block.signature
        ? [{ type: "thinking", thinking: block.thinking, signature: block.signature }]
        : textBlocks(block.thinking);
    case "redacted_thinking":
      return [{ type: "redacted_thinking", data: block.data }];
    case "tool_use":
      return [{
        type: "tool_use",
        id: wireToolId(block.id),
        name: block.name,
        // Arguments cut off by max_tokens are not JSON; the API needs an object.
        input: block.invalidInput === undefined ? block.input : {},
      }];
    default:
      return [];
  }
}

/** Empty text blocks are rejected by the API, so they vanish. */
function textBlocks(text: string): AnthropicTextBlock[] {
  return text === "" ? [] : [{ type: "text", text }];
}

function imageBlock(mediaType: string, data: string): AnthropicImageBlock {
  return { type: "image", source: { type: "base64", media_type: mediaType, data } };
}

/** One text part → a string (the common, compact form); otherwise blocks. */
function toolResultContent(
  parts: readonly ResultPart[],
): AnthropicToolResultBlock["content"] {
  const blocks = parts.flatMap((part): (AnthropicTextBlock | AnthropicImageBlock)[] =>
    part.type === "text" ? textBlocks(part.text) : [imageBlock(part.mediaType, part.data)]
  );
  if (blocks.length === 0) return undefined;
  const [only] = blocks;
  return blocks.length === 1 && only?.type === "text" ? only.text : blocks;
}

/**
 * Call ids must match `^[a-zA-Z0-9_-]+$`; ids minted by other providers
 * (e.g. `functions.bash:0`) are rewritten the same way in calls and results.
 */
function wireToolId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, "_");
}
