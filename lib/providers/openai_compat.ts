import type { OpenAICompat, ProviderConfig } from "../config.ts";

/** OpenAI's reasoning models want the `developer` role ("o1 and newer"). */
const OPENAI_REASONING_MODEL = /^(o1|o3|o4)(-|$)|^gpt-5/;

/** Servers we know only by their host; anything else gets {@linkcode UNKNOWN_SERVER}. */
interface HostRule {
  matches(host: string): boolean;
  compat(model: string): Required<OpenAICompat>;
}

/**
 * Unknown servers: the oldest common denominator. `system` and `max_tokens`
 * are understood by every compatible server we know; `reasoning_effort` is
 * ignored by those that lack it; `include_usage` is the only way most of them
 * report usage while streaming.
 */
const UNKNOWN_SERVER: Required<OpenAICompat> = {
  developerRole: false,
  maxTokensField: "max_tokens",
  reasoningParam: "reasoning_effort",
  streamUsage: true,
  toolCallIds: "any",
  reasoningContent: false,
};

/** OpenAI itself and Azure OpenAI (same models, same parameters). */
function openAIProper(model: string): Required<OpenAICompat> {
  return {
    // Reasoning models take `developer`; older ones (gpt-4o) only know `system`.
    developerRole: OPENAI_REASONING_MODEL.test(model),
    // `max_tokens` is rejected by reasoning models; every current model takes this one.
    maxTokensField: "max_completion_tokens",
    reasoningParam: "reasoning_effort",
    streamUsage: true,
    toolCallIds: "any",
    reasoningContent: false,
  };
}

function hostIs(...names: string[]): (host: string) => boolean {
  return (host) => names.some((name) => host === name || host.endsWith(`.${name}`));
}

const LOCAL_HOSTS: ReadonlySet<string> = new Set([
  "localhost",
  "127.0.0.1",
  "[::1]",
  "0.0.0.0",
  "host.docker.internal",
]);

/** Azure OpenAI serves OpenAI's models under resource subdomains of these hosts. */
const isAzure = hostIs("openai.azure.com", "cognitiveservices.azure.com", "services.ai.azure.com");

const HOST_RULES: readonly HostRule[] = [
  { matches: hostIs("api.openai.com"), compat: openAIProper },
  { matches: isAzure, compat: openAIProper },
  {
    // OpenRouter normalises reasoning through its own `reasoning: {effort}` object
    // and documents `max_tokens`; it forwards `system` to every upstream.
    matches: hostIs("openrouter.ai"),
    compat: () => ({ ...UNKNOWN_SERVER, reasoningParam: "reasoning" }),
  },
  {
    // DeepSeek rejects `developer` and knows only `max_tokens`; thinking is
    // switched by `thinking: {type}` with `reasoning_effort` for its depth, and
    // answers 400 to a thinking-mode tool call sent back without its reasoning.
    matches: hostIs("api.deepseek.com"),
    compat: () => ({
      ...UNKNOWN_SERVER,
      reasoningParam: "thinking_effort",
      reasoningContent: true,
    }),
  },
  {
    // Z.ai (GLM) thinks unless sent `thinking: {type: "disabled"}`, has no
    // effort setting, and wants reasoning returned with tool results.
    matches: hostIs("api.z.ai", "open.bigmodel.cn"),
    compat: () => ({ ...UNKNOWN_SERVER, reasoningParam: "thinking", reasoningContent: true }),
  },
  {
    // Moonshot (Kimi) takes `max_tokens` and no reasoning parameter.
    matches: hostIs("api.moonshot.ai", "api.moonshot.cn"),
    compat: () => ({ ...UNKNOWN_SERVER, reasoningParam: "none" }),
  },
  {
    // Groq deprecated `max_tokens` for `max_completion_tokens` and accepts
    // `reasoning_effort` on its reasoning models (gpt-oss, qwen3).
    matches: hostIs("api.groq.com"),
    compat: () => ({ ...UNKNOWN_SERVER, maxTokensField: "max_completion_tokens" }),
  },
  {
    // xAI rejects `developer`; grok-4 rejects `reasoning_effort` (it always
    // reasons), and some grok models require `max_completion_tokens`.
    matches: hostIs("api.x.ai"),
    compat: () => ({
      ...UNKNOWN_SERVER,
      maxTokensField: "max_completion_tokens",
      reasoningParam: "none",
    }),
  },
  {
    // Mistral answers 422 "Extra inputs are not permitted" to `stream_options`,
    // `max_completion_tokens` and `reasoning_effort`; it sends usage on the
    // last chunk without being asked, and takes only 9-character ids.
    matches: hostIs("api.mistral.ai"),
    compat: () => ({
      ...UNKNOWN_SERVER,
      reasoningParam: "none",
      streamUsage: false,
      toolCallIds: "alnum9",
    }),
  },
  {
    // Alibaba DashScope (Qwen) turns thinking on with its own `enable_thinking`
    // flag, not `reasoning_effort`; usage only arrives with `include_usage`.
    matches: hostIs("dashscope.aliyuncs.com", "dashscope-intl.aliyuncs.com"),
    compat: () => ({ ...UNKNOWN_SERVER, reasoningParam: "enable_thinking" }),
  },
  {
    // Local servers (llama.cpp, Ollama, vLLM, LM Studio): `system` and
    // `max_tokens` work on every version, `reasoning_effort` is honoured by
    // recent ones (gpt-oss templates) and ignored by the rest, and all of them
    // report usage with `include_usage`.
    matches: (host) => LOCAL_HOSTS.has(host) || host.endsWith(".localhost"),
    compat: () => UNKNOWN_SERVER,
  },
];

/**
 * The quirks of the server behind `config.baseUrl`: explicit `config.compat`
 * fields win, the rest is detected from the host name (unknown hosts get
 * `system`, `max_tokens`, `reasoning_effort` and streamed usage).
 *
 * @param config The provider configuration.
 * @returns Every compat field, filled in.
 *
 * @example OpenAI reasoning models get the developer role
 * ```ts
 * import { resolveOpenAICompat } from "./openai_compat.ts";
 * const compat = resolveOpenAICompat({
 *   api: "openai-chat", baseUrl: "https://api.openai.com/v1", model: "o3", reasoning: "high",
 * });
 * console.assert(compat.developerRole && compat.maxTokensField === "max_completion_tokens");
 * ```
 */
export function resolveOpenAICompat(config: ProviderConfig): Required<OpenAICompat> {
  const host = hostOf(config.baseUrl);
  const rule = HOST_RULES.find((candidate) => candidate.matches(host));
  const detected = rule ? rule.compat(config.model) : UNKNOWN_SERVER;
  const explicit = config.compat ?? {};
  return {
    developerRole: explicit.developerRole ?? detected.developerRole,
    maxTokensField: explicit.maxTokensField ?? detected.maxTokensField,
    reasoningParam: explicit.reasoningParam ?? detected.reasoningParam,
    streamUsage: explicit.streamUsage ?? detected.streamUsage,
    toolCallIds: explicit.toolCallIds ?? detected.toolCallIds,
    reasoningContent: explicit.reasoningContent ?? detected.reasoningContent,
  };
}

/**
 * The key's header for an OpenAI-compatible server: `api-key` for an Azure
 * OpenAI resource (`*.openai.azure.com` and the other Azure AI hosts), else
 * `authorization: Bearer`; none without a key, so keyless local servers are
 * not sent an empty credential.
 *
 * @param config The provider's config (its key and base URL).
 * @returns The auth headers.
 *
 * @example
 * ```ts
 * import { openAIAuthHeaders } from "./openai_compat.ts";
 * const azure = { api: "openai-chat", baseUrl: "https://r.openai.azure.com/openai/v1", model: "m", reasoning: "off", apiKey: "k" } as const;
 * console.assert(openAIAuthHeaders(azure)["api-key"] === "k");
 * ```
 */
export function openAIAuthHeaders(config: ProviderConfig): Record<string, string> {
  if (!config.apiKey) return {};
  return isAzure(hostOf(config.baseUrl))
    ? { "api-key": config.apiKey }
    : { authorization: `Bearer ${config.apiKey}` };
}

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).hostname.toLowerCase();
  } catch {
    return "";
  }
}
