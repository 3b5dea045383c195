/** Every {@linkcode ApiStyle}, for validation and help text. */
export const API_STYLES = [
  "anthropic-messages",
  "openai-chat",
  "openai-responses",
  "google-generative-ai",
  "bedrock-converse",
] as const;

/**
 * Every way an OpenAI-compatible server takes reasoning levels, for
 * validation and help text: `reasoning_effort` (OpenAI), a `reasoning`
 * object (OpenRouter), `thinking: {type}` switched on or off (Z.ai), that
 * plus `reasoning_effort` (`thinking_effort`: DeepSeek), `enable_thinking`
 * (Qwen), or not at all.
 *
 * @example
 * ```ts
 * import { REASONING_PARAMS } from "@panto/lib";
 * console.assert(REASONING_PARAMS.includes("thinking_effort"));
 * ```
 */
export const REASONING_PARAMS = [
  "reasoning_effort",
  "reasoning",
  "thinking",
  "thinking_effort",
  "enable_thinking",
  "none",
] as const;

/** How an OpenAI-compatible server takes reasoning levels (see {@linkcode REASONING_PARAMS}). */
export type ReasoningParam = typeof REASONING_PARAMS[number];

/** The wire protocol a provider speaks. */
export type ApiStyle = typeof API_STYLES[number];

/**
 * A wire protocol's name: a built-in {@linkcode ApiStyle}, or a protocol
 * added with {@linkcode registerProvider}. The built-in names stay typed for
 * completion; `ApiStyle` stays closed because only the built-ins need no
 * code from the embedder (the CLI validates its config against them).
 *
 * @example A registered protocol's name
 * ```ts
 * import type { ApiName } from "@panto/lib";
 * const api: ApiName = "my-gateway";
 * console.assert(api === "my-gateway");
 * ```
 */
export type ApiName =
  | ApiStyle
  // The intersection keeps the literals from collapsing into `string`, so editors still complete them.
  | (string & Record<never, never>);

/** Every {@linkcode ReasoningLevel}, for validation and help text, from least to most. */
export const REASONING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;

/**
 * How hard the model should think. `off` sends no reasoning parameters; the
 * others map onto each API's own scale (a thinking budget, an effort), and
 * a model may take only some of them (see `ProviderConfig.reasoningValues`).
 */
export type ReasoningLevel = typeof REASONING_LEVELS[number];

/**
 * Quirks of OpenAI-compatible servers. Unset fields are detected from the
 * base URL (see `resolveOpenAICompat`).
 */
export interface OpenAICompat {
  /** Send the system prompt with role `developer` instead of `system`. */
  developerRole?: boolean;
  /** Which field carries the output limit. */
  maxTokensField?: "max_tokens" | "max_completion_tokens";
  /** How reasoning levels are sent (see {@linkcode REASONING_PARAMS}). */
  reasoningParam?: ReasoningParam;
  /**
   * Send earlier reasoning back as `reasoning_content` on assistant messages
   * (DeepSeek and Z.ai want it with tool calls while thinking).
   */
  reasoningContent?: boolean;
  /** Ask for usage in the stream with `stream_options.include_usage`. */
  streamUsage?: boolean;
  /**
   * How tool-call ids must look: `any` sends them as recorded; `alnum9` maps
   * each to 9 letters and digits (Mistral rejects every other shape, so a
   * conversation begun on another provider needs it).
   */
  toolCallIds?: "any" | "alnum9";
}

/**
 * AWS credentials that sign `bedrock-converse` requests with Signature
 * Version 4 (an IAM user's or role's keys, the same the AWS CLI uses).
 *
 * @example Keys from the environment, as the AWS CLI reads them
 * ```ts
 * import type { AwsCredentials } from "@panto/lib";
 * const credentials: AwsCredentials = {
 *   accessKeyId: Deno.env.get("AWS_ACCESS_KEY_ID") ?? "",
 *   secretAccessKey: Deno.env.get("AWS_SECRET_ACCESS_KEY") ?? "",
 * };
 * console.assert(typeof credentials.accessKeyId === "string");
 * ```
 */
export interface AwsCredentials {
  /** The access key id (`AKIA…`, or `ASIA…` for temporary credentials). */
  accessKeyId: string;
  /** The secret access key. */
  secretAccessKey: string;
  /** The session token that comes with temporary credentials (STS, SSO, an assumed role). */
  sessionToken?: string;
}

/**
 * Which provider and model to talk to. The key (and AWS credentials) are
 * held in memory only: they never enter a session record, a log or an
 * error message.
 *
 * @example An Anthropic provider
 * ```ts
 * import type { ProviderConfig } from "@panto/lib";
 * const provider: ProviderConfig = {
 *   api: "anthropic-messages",
 *   baseUrl: "https://api.anthropic.com",
 *   model: "claude-sonnet-4-5",
 *   reasoning: "off",
 * };
 * console.assert(provider.api === "anthropic-messages");
 * ```
 */
export interface ProviderConfig {
  /** Wire protocol: a built-in {@linkcode ApiStyle} or a name given to {@linkcode registerProvider}. */
  api: ApiName;
  /**
   * Base URL, following each vendor SDK's convention: Anthropic without
   * `/v1` (`https://api.anthropic.com`), OpenAI with it
   * (`https://api.openai.com/v1`), Bedrock the runtime endpoint
   * (`https://bedrock-runtime.us-east-1.amazonaws.com`).
   */
  baseUrl: string;
  /** Model name as the server knows it. */
  model: string;
  /** Reasoning level. */
  reasoning: ReasoningLevel;
  /**
   * What this model's API is sent for a level, where it differs from the
   * API's default mapping (an effort name such as `"max"`, a Gemini
   * thinking level such as `"HIGH"`, or a budget in tokens as digits): from
   * a model catalog. Levels the model does not take are left out by the
   * caller; a level missing here gets the default.
   */
  reasoningValues?: Partial<Record<Exclude<ReasoningLevel, "off">, string>>;
  /**
   * The API key, if the server needs one. For `bedrock-converse`, a Bedrock
   * API key (what `AWS_BEARER_TOKEN_BEDROCK` holds), sent as a bearer token;
   * it wins over `awsCredentials` when both are set.
   */
  apiKey?: string;
  /**
   * `bedrock-converse` only: AWS credentials that sign each request
   * (SigV4), for accounts that use IAM rather than Bedrock API keys. Held in
   * memory only, like `apiKey`.
   */
  awsCredentials?: AwsCredentials;
  /**
   * `bedrock-converse` only: the AWS region, e.g. `us-east-1`. It builds the
   * base URL when `baseUrl` is empty, and names the region to sign for when
   * the base URL does not (a proxy, a test server); otherwise the region is
   * read from the host (`bedrock-runtime.{region}.amazonaws.com`).
   */
  awsRegion?: string;
  /** Extra HTTP headers sent with every request. */
  headers?: Record<string, string>;
  /** Output token limit; a per-API default applies when unset. */
  maxTokens?: number;
  /** The model's context window in tokens (used by compaction). */
  contextWindow?: number;
  /**
   * What the model takes as input; unset: text and images. A model without
   * `"image"` gets a note in place of each image (a user's or a tool's),
   * never the image, which its API would refuse.
   */
  input?: readonly ("text" | "image")[];
  /** OpenAI-compatible server quirks. */
  compat?: OpenAICompat;
}

/** Retry policy for retryable provider errors (rate limits, overload, 5xx, cut connections). */
export interface RetryConfig {
  /** Attempts after the first; 0 disables retries. Default 4. */
  maxRetries?: number;
  /** First backoff delay in ms, doubled each attempt. Default 1000. */
  baseDelayMs?: number;
  /** Longest delay honoured, whether computed or from `retry-after`. Default 60000. */
  maxDelayMs?: number;
}

/** Automatic compaction settings. */
export interface CompactionConfig {
  /** Compact automatically near the context window and on overflow. Default true. */
  enabled?: boolean;
  /** Tokens kept free below the context window before auto-compaction starts. Default 16384. */
  reserveTokens?: number;
  /** Recent tokens kept verbatim after compaction. Default 20000. */
  keepRecentTokens?: number;
  /** System prompt used for the summarising request. */
  prompt?: string;
}

/**
 * Everything an {@linkcode Agent} needs besides its tools and session.
 *
 * @example A minimal config
 * ```ts
 * import type { Config } from "@panto/lib";
 * const config: Config = {
 *   provider: { api: "openai-chat", baseUrl: "https://api.openai.com/v1", model: "gpt-4o", reasoning: "off" },
 *   maxTurns: 20,
 * };
 * console.assert(config.provider.model === "gpt-4o");
 * ```
 */
export interface Config {
  /** The provider and model. */
  provider: ProviderConfig;
  /** Retry policy. */
  retry?: RetryConfig;
  /** Compaction policy. */
  compaction?: CompactionConfig;
  /** Run the tool calls of one message concurrently (results still in the model's order). Default false. */
  parallelTools?: boolean;
  /**
   * Most model requests in one run (one `Agent.run`). Default 50. Despite
   * the name (kept for compatibility), it counts requests: a run with one
   * tool call makes two.
   */
  maxTurns?: number;
  /** Abort a response when the server sends nothing for this long (ms). Default 120000. */
  idleTimeoutMs?: number;
  /** Images from tools and users are downsized to this longer side (px) before they are stored or sent. Default 2000. */
  imageMaxSide?: number;
}
