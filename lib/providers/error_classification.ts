/**
 * Turns provider error replies (HTTP error bodies and error payloads sent in
 * the middle of a stream) into {@linkcode ProviderError}s with a kind the
 * agent can act on: retry, compact, or stop and tell the person.
 *
 * @module
 */
import { type PartialMessage, ProviderError, type ProviderErrorKind } from "../errors.ts";
import { errorMessage } from "../error_message.ts";

/** What a server said about a failure, from whichever JSON shape it uses. */
interface ServerError {
  /** `error.type` (Anthropic, OpenAI, llama.cpp) or a flat `type`. */
  type?: string;
  /** `error.code` as text (OpenAI's string codes, or numeric statuses). */
  code?: string;
  /** A numeric status found in the payload (`code: 400`, `status_code`). */
  payloadStatus?: number;
  /** The human-readable message ("" when the server gave none). */
  message: string;
  /** An upstream error a gateway passed through (OpenRouter `metadata.raw`). */
  upstream?: string;
  /** `request_id` from the body (Anthropic), for support requests. */
  requestId?: string;
  /** The wait a Google `RetryInfo` detail asks for (ms). */
  retryDelayMs?: number;
}

/** Longest server message kept in an error, in characters. */
const MAX_MESSAGE_CHARS = 1000;

// Context-overflow wordings seen from real servers (sources: each vendor's
// error docs and public bug reports; see shared/reference/provider-protocols.md §1.5, §2.4).
const CONTEXT_OVERFLOW_PATTERNS: readonly RegExp[] = [
  /prompt is too long/i, // Anthropic: "prompt is too long: 208421 tokens > 200000 maximum"
  /input length and `?max_tokens`? exceed context limit/i, // Anthropic, with max_tokens
  /context[_ ]length[_ ]exceeded/i, // OpenAI code, Azure
  /maximum context length is \d+/i, // OpenAI classic, DeepSeek, vLLM, OpenRouter ("This endpoint's …")
  /reduce the length of the messages/i, // OpenAI, Groq
  /exceeds? the context window/i, // OpenAI GPT-5.x: "Your input exceeds the context window of this model"
  /input tokens exceed the configured limit/i, // OpenAI GPT-5: "… of 272000 tokens"
  /too large for model with \d+ maximum context length/i, // Mistral
  /context size has been exceeded/i, // LM Studio (MLX)
  /exceeds? (?:the )?(?:available )?context size/i, // llama.cpp server
  /exceed_context_size_error/i, // llama.cpp error type
  /prompt too long/i, // Ollama and small servers
  /maximum prompt length is \d+/i, // xAI
  /longer than the (?:model's context length|maximum model length)/i, // vLLM
  /too long to fit into the model/i, // vLLM ("The prompt (total length N) is too long …")
  /greater than the context length/i, // LM Studio ("tokens to keep … greater than the context length")
  /loaded with context length of only/i, // LM Studio (llama.cpp engine)
  /input (?:length )?exceeds (?:the )?context length/i, // Ollama
  /input token count.*exceeds the maximum/i, // Gemini OpenAI endpoint
  /input is too long for requested model/i, // Bedrock
  /model_context_window_exceeded/i, // Anthropic stop reason echoed by gateways
  /prompt exceeds (?:maximum context length|max length)/i, // MLX servers, Zhipu
];

/**
 * Whether a server message says the request does not fit the model's
 * context window.
 *
 * @param text The server's message (and error type or code).
 * @returns True for a context overflow.
 *
 * @example
 * ```ts
 * import { isContextOverflowMessage } from "./error_classification.ts";
 * console.assert(isContextOverflowMessage("prompt is too long: 208421 tokens > 200000 maximum"));
 * ```
 */
export function isContextOverflowMessage(text: string): boolean {
  return CONTEXT_OVERFLOW_PATTERNS.some((pattern) => pattern.test(text));
}

/**
 * Classifies an HTTP error reply: 401/403 → `auth`; 429 → `rate_limit`
 * (a quota or per-minute size limit → `invalid_request`); 529, 503 or an
 * `overloaded_error` → `overloaded`; a context-overflow message (or any 413)
 * → `context_overflow`; 408 → `timeout`; other 5xx → `server`; other 4xx →
 * `invalid_request`. An AWS error type (`x-amzn-errortype`, or `__type` in
 * the body) refines that: Bedrock's 424 `ModelErrorException` is `server`,
 * a `ServiceQuotaExceededException` a `rate_limit`. The message names the
 * host, the status and what the server said, never a header value.
 *
 * @param status The HTTP status.
 * @param bodyText The body, as text (possibly truncated).
 * @param headers The response headers (for `retry-after`).
 * @param url The request URL; only its host is shown.
 * @returns The classified error.
 *
 * @example An Anthropic overload
 * ```ts
 * import { classifyHttpError } from "./error_classification.ts";
 * const body = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
 * const error = classifyHttpError(529, body, new Headers(), "https://api.anthropic.com/v1/messages");
 * console.assert(error.kind === "overloaded");
 * console.assert(error.message === "api.anthropic.com answered 529 overloaded_error: Overloaded");
 * ```
 */
export function classifyHttpError(
  status: number,
  bodyText: string,
  headers: Headers,
  url: string,
): ProviderError {
  return classifyHttpErrorRedacting(status, bodyText, headers, url, []);
}

/**
 * {@linkcode classifyHttpError}, also removing the given secret values
 * (request header values) from the server's message, in case it echoes them.
 */
export function classifyHttpErrorRedacting(
  status: number,
  bodyText: string,
  headers: Headers,
  url: string,
  secrets: readonly string[],
): ProviderError {
  const info = extractServerError(parseJson(bodyText), bodyText);
  // AWS puts the error's type in a header; the body holds only the message.
  const awsType = awsErrorType(headers.get("x-amzn-errortype"));
  if (info.type === undefined && awsType !== undefined) info.type = awsType;
  const kind = classifyKind(status, info);
  const retryAfterMs = parseRetryAfter(headers) ?? info.retryDelayMs ?? retryHintMs(info.message);
  const message = `${hostOf(url)} answered ${status}${describe(info, secrets)}${
    hintFor(kind, info)
  }`;
  return new ProviderError(kind, message, {
    status,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

/**
 * Classifies an error the server sent inside a 200 stream: Anthropic's
 * `event: error` payload (`{"type":"error","error":{"type":"overloaded_error",…}}`),
 * an OpenAI-compatible `{"error":{"message","code"}}` chunk, vLLM's flat
 * `{"object":"error",…}`, or a Bedrock exception frame given as
 * `{"error":{"type":"throttlingException","message":…}}`. Numeric codes are
 * read as HTTP statuses; AWS exception types by their name. An error
 * that says nothing classifiable is `server` (retryable): the request was
 * accepted, so the failure happened upstream mid-generation.
 *
 * @param payload The parsed `data:` JSON (a string is parsed first).
 * @param url The request URL; only its host is shown.
 * @returns The classified error.
 *
 * @example Anthropic mid-stream overload
 * ```ts
 * import { classifyStreamError } from "./error_classification.ts";
 * const error = classifyStreamError(
 *   { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
 *   "https://api.anthropic.com/v1/messages",
 * );
 * console.assert(error.kind === "overloaded");
 * ```
 */
export function classifyStreamError(payload: unknown, url: string): ProviderError {
  const value = typeof payload === "string" ? parseJson(payload) ?? payload : payload;
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? "";
  const info = extractServerError(value, text);
  const kind = classifyKind(info.payloadStatus, info);
  const status = info.payloadStatus;
  const message = `${hostOf(url)} sent an error mid-stream${describe(info, [])}${
    hintFor(kind, info)
  }`;
  return new ProviderError(kind, message, status === undefined ? {} : { status });
}

/**
 * Reads `retry-after-ms` (milliseconds), then `retry-after` (seconds, or an
 * HTTP date), as the official SDKs do.
 *
 * @param headers Response headers.
 * @returns The delay in ms, or undefined when absent or unreadable.
 *
 * @example
 * ```ts
 * import { parseRetryAfter } from "./error_classification.ts";
 * console.assert(parseRetryAfter(new Headers({ "retry-after": "2" })) === 2000);
 * ```
 */
export function parseRetryAfter(headers: Headers): number | undefined {
  const milliseconds = parseNonNegative(headers.get("retry-after-ms"));
  if (milliseconds !== undefined) return milliseconds;
  const value = headers.get("retry-after")?.trim();
  if (!value) return undefined;
  const seconds = parseNonNegative(value);
  if (seconds !== undefined) return Math.round(seconds * 1000);
  // An HTTP date names its day or month; without that check Date.parse reads "-5" as a year.
  const date = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * The host (with port) of a URL, for messages: never the path's query or
 * any credentials.
 *
 * @param url An absolute URL.
 * @returns `api.example.com`, or `(invalid URL)`.
 */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "(invalid URL)";
  }
}

/**
 * Replaces secrets and key-shaped tokens in text that came from elsewhere
 * (a server message, a network error). Servers echo masked keys
 * ("Incorrect API key provided: sk-abc***wxyz"): even that is derived from
 * the key, so it goes too.
 *
 * @param text The text to clean.
 * @param secrets Exact values to remove (request header values).
 * @returns The text with `[redacted]` in their place.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let clean = text;
  for (const secret of secrets) {
    if (secret.length >= 4) clean = clean.replaceAll(secret, "[redacted]");
  }
  return clean
    .replace(/(api[ _-]?key provided:\s*)\S+/gi, "$1[redacted]")
    .replace(/\bBearer\s+\S+/g, "Bearer [redacted]")
    .replace(/\b(?:sk|pk|rk)-[A-Za-z0-9*._…-]{3,}/g, "[redacted]");
}

function classifyKind(status: number | undefined, info: ServerError): ProviderErrorKind {
  const text = [info.type, info.code, info.message, info.upstream].filter(Boolean).join(" ");
  const type = (info.type ?? "").toLowerCase();
  const code = (info.code ?? "").toLowerCase();
  if (status === 401 || status === 403 || /authentication|permission/.test(type)) return "auth";
  if (code === "invalid_api_key") return "auth";
  // Gemini answers a bad or expired key with 400 INVALID_ARGUMENT.
  if (/API key (?:not valid|expired)/i.test(info.message)) return "auth";
  // OpenAI's insufficient_quota arrives as a 429 but waiting does not help
  // (the account is out of credit): retrying would only burn attempts.
  // There is no billing kind, and auth would send people to check a key that
  // is fine, so it is an invalid request whose message says what to do.
  // Gemini words its per-minute limits the same way, but says when to retry: that is a rate limit.
  const outOfQuota = /insufficient_quota|exceeded your current quota/i.test(text);
  if (outOfQuota && info.retryDelayMs === undefined) return "invalid_request";
  if (status === 529 || status === 503 || type === "overloaded_error") return "overloaded";
  if (status === 429 || type === "rate_limit_error" || code === "rate_limit_exceeded") {
    // "Request too large … tokens per minute": this request alone exceeds a
    // per-minute limit (OpenAI 429, Groq 413), so no wait will let it through.
    return isOversizedForRateLimit(text) ? "invalid_request" : "rate_limit";
  }
  if (isContextOverflowMessage(text)) return "context_overflow";
  const awsKind = AWS_ERROR_KINDS.get(type);
  if (awsKind !== undefined) return awsKind;
  // 413 means the request body is too big (Anthropic's request_too_large,
  // Cerebras' empty 413): shrinking the conversation is the cure, as for an overflow.
  if (status === 413) return "context_overflow";
  if (status === 408 || type === "timeout_error") return "timeout";
  if (status !== undefined && status >= 500) return "server";
  if (status !== undefined) return "invalid_request";
  return /invalid_request|bad_request|tool_use_failed|not_found/.test(`${type} ${code}`)
    ? "invalid_request"
    : "server";
}

/**
 * AWS errors by type (lower case), for what a status alone misreads: a 424
 * is the model failing, not the request, and an exception inside a stream
 * has no status at all. Bedrock's own words: "resubmit your request later"
 * for a quota, "retry" for a model stream error.
 */
const AWS_ERROR_KINDS: ReadonlyMap<string, ProviderErrorKind> = new Map([
  ["throttlingexception", "rate_limit"],
  ["servicequotaexceededexception", "rate_limit"],
  ["serviceunavailableexception", "overloaded"],
  ["modelnotreadyexception", "overloaded"],
  ["internalserverexception", "server"],
  ["modelstreamerrorexception", "server"],
  ["modelerrorexception", "server"],
  ["modeltimeoutexception", "timeout"],
  ["validationexception", "invalid_request"],
  ["resourcenotfoundexception", "invalid_request"],
  ["accessdeniedexception", "auth"],
]);

/**
 * An AWS error type as the JSON protocols give it, without the namespace
 * or URI: `x-amzn-errortype: ValidationException:http://internal.amazon.com/…`,
 * `__type: "com.amazon.coral.service#UnrecognizedClientException"`.
 */
function awsErrorType(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  return stringOf(value.split(":", 1)[0]!.split("#").at(-1)!.trim());
}

function isOversizedForRateLimit(text: string): boolean {
  return /request too large/i.test(text) && /tokens per min|\bTPM\b/i.test(text);
}

function hintFor(kind: ProviderErrorKind, info: ServerError): string {
  if (kind === "auth") return " (check the API key configured for this provider)";
  if (
    kind === "invalid_request" && /quota|billing/i.test(`${info.type} ${info.code} ${info.message}`)
  ) {
    return " (a billing or quota limit: add credit or raise the limit; retrying will not help)";
  }
  return "";
}

function describe(info: ServerError, secrets: readonly string[]): string {
  const label = info.code !== undefined && !/^\d+$/.test(info.code) ? info.code : info.type;
  const message = truncate(redactSecrets(info.message, secrets));
  const upstream = info.upstream === undefined || info.message.includes(info.upstream)
    ? ""
    : ` (upstream: ${truncate(redactSecrets(info.upstream, secrets))})`;
  const request = info.requestId === undefined ? "" : ` [request ${info.requestId}]`;
  if (message === "") return `${label ? ` ${label}` : ""} with no error message${request}`;
  return `${label ? ` ${label}` : ""}: ${message}${upstream}${request}`;
}

function extractServerError(value: unknown, text: string): ServerError {
  const root = Array.isArray(value) ? value[0] : value; // Gemini wraps errors in an array
  if (!isRecord(root)) return { message: collapse(text) };
  const nested = root.error;
  if (typeof nested === "string") return withRequestId({ message: nested }, root); // Ollama
  const source = isRecord(nested) ? nested : root; // vLLM, Mistral: flat {"object":"error",…}
  const info: ServerError = {
    message: messageOf(source) ?? (isRecord(nested) ? "" : collapse(text)),
  };
  const type = stringOf(source.type) ?? stringOf(source.status) ?? awsErrorType(source.__type);
  if (type !== undefined) info.type = type;
  const code = source.code;
  if (typeof code === "string" && code !== "") info.code = code;
  const payloadStatus = statusOf(code) ?? statusOf(source.status_code);
  if (payloadStatus !== undefined) {
    info.payloadStatus = payloadStatus;
    info.code ??= String(payloadStatus);
  }
  const retryDelayMs = googleRetryDelayMs(source.details);
  if (retryDelayMs !== undefined) info.retryDelayMs = retryDelayMs;
  const upstream = upstreamOf(source.metadata);
  if (upstream !== undefined) info.upstream = upstream;
  return withRequestId(info, root);
}

function withRequestId(info: ServerError, root: Record<string, unknown>): ServerError {
  const requestId = stringOf(root.request_id);
  if (requestId !== undefined) info.requestId = requestId;
  return info;
}

function messageOf(source: Record<string, unknown>): string | undefined {
  for (const key of ["message", "detail", "msg", "error_message", "Message"]) {
    const value = source[key];
    if (typeof value === "string") return value;
    if (value !== undefined && value !== null) return JSON.stringify(value);
  }
  return undefined;
}

/** OpenRouter puts the upstream provider's own error in `metadata.raw`. */
function upstreamOf(metadata: unknown): string | undefined {
  if (!isRecord(metadata)) return undefined;
  const raw = metadata.raw;
  if (typeof raw === "string") {
    const parsed = parseJson(raw);
    return parsed === undefined ? collapse(raw) : extractServerError(parsed, raw).message;
  }
  return isRecord(raw) ? extractServerError(raw, JSON.stringify(raw)).message : undefined;
}

function statusOf(value: unknown): number | undefined {
  const number = typeof value === "string" && /^\d{3}$/.test(value) ? Number(value) : value;
  return typeof number === "number" && Number.isInteger(number) && number >= 100 && number < 600
    ? number
    : undefined;
}

/** Google's `RetryInfo` detail (`"retryDelay": "34.4s"`, a protobuf Duration), in ms. */
function googleRetryDelayMs(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    if (!isRecord(detail) || !String(detail["@type"]).endsWith("google.rpc.RetryInfo")) continue;
    const match = /^(\d+(?:\.\d+)?)s$/.exec(String(detail.retryDelay));
    if (match) return Math.round(Number(match[1]) * 1000);
  }
  return undefined;
}

/** OpenAI and Groq say "Please try again in 644ms" / "in 4.77s" when no header does. */
function retryHintMs(message: string): number | undefined {
  const match = /try again in (\d+(?:\.\d+)?)\s*(ms|s)\b/i.exec(message);
  if (!match) return undefined;
  const amount = Number(match[1]);
  return Math.round(match[2]?.toLowerCase() === "ms" ? amount : amount * 1000);
}

function parseNonNegative(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || !/^\s*\d+(?:\.\d+)?\s*$/.test(value)) {
    return undefined;
  }
  return Number(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function truncate(text: string): string {
  return text.length <= MAX_MESSAGE_CHARS ? text : `${text.slice(0, MAX_MESSAGE_CHARS)}…`;
}

/**
 * A failure while reading a response's stream, as a `ProviderError`: one
 * that already is passes through; anything else (a cut connection) is a
 * retryable `network` error naming the host. What was assembled so far is
 * attached, unless the error already carries a partial message.
 *
 * @param error What reading threw.
 * @param url The request's URL.
 * @param partial What was assembled so far (called only when it is attached);
 *   none before streaming began.
 * @returns The error, with the partial message.
 *
 * @example
 * ```ts
 * import { streamReadFailure } from "./error_classification.ts";
 * const failure = streamReadFailure(new TypeError("connection reset"), "https://api.example.com/v1/x");
 * console.assert(failure.kind === "network" && failure.message.includes("api.example.com"));
 * ```
 */
export function streamReadFailure(
  error: unknown,
  url: string,
  partial?: () => PartialMessage,
): ProviderError {
  const failure = error instanceof ProviderError ? error : new ProviderError(
    "network",
    `reading the stream from ${hostOf(url)} failed: ${errorMessage(error)}`,
    { cause: error },
  );
  if (partial && failure.partial === undefined) failure.partial = partial();
  return failure;
}
