/**
 * The HTTP layer shared by every provider: POST a JSON body, stream the
 * reply's events back (server-sent events, or another framing a provider
 * supplies), and turn every failure into a classified
 * {@linkcode ProviderError} (or an abort error when the caller cancelled).
 *
 * @module
 */
import { ProviderError } from "../errors.ts";
import { type BodyReader, bodyReader } from "./body_reader.ts";
import { classifyHttpErrorRedacting, hostOf, redactSecrets } from "./error_classification.ts";
import { RequestGuard } from "./request_guard.ts";
import { type SseEvent, SseParser } from "./sse.ts";

export { classifyHttpError, classifyStreamError, parseRetryAfter } from "./error_classification.ts";

/** One streaming POST request. */
export interface SseRequest {
  /** Full URL. */
  url: string;
  /** Request headers, auth included; their values never reach an error or a log. */
  headers: Record<string, string>;
  /** JSON-serialised before sending. */
  body: unknown;
  /** Cancels the request and the stream. */
  signal: AbortSignal;
  /** Fail with a `timeout` error when no bytes arrive for this long (ms). */
  idleTimeoutMs: number;
  /**
   * Credentials that travel in no header as they are (an AWS secret key
   * signs the request instead): removed from error messages like header
   * values.
   */
  secrets?: readonly string[];
  /**
   * Signs the request: given the exact JSON text that will be sent, returns
   * the headers to send in place of `headers` (AWS Signature Version 4
   * covers a hash of the body). It should throw a `ProviderError`.
   */
  sign?: (body: string) => Promise<Record<string, string>>;
}

/**
 * How a streamed reply is cut into events: the media type a 2xx reply must
 * have, and a decoder for one reply's body. Server-sent events are
 * {@linkcode SSE_FRAMING}; Amazon's binary event stream is another.
 */
export interface BodyFraming {
  /** The reply's media type (lower case), e.g. `text/event-stream`; also the default `accept`. */
  mediaType: string;
  /**
   * A decoder for one reply's body (a promise: it may load its parser on first use).
   *
   * @param url The request URL, for error messages (only its host is shown).
   */
  decoder(url: string): Promise<BodyDecoder>;
}

/** Decodes one reply's body into events, chunk by chunk (the shape of {@linkcode SseParser}). */
export interface BodyDecoder {
  /**
   * The events the next bytes complete; throws a `ProviderError` for a
   * malformed body. `chunk`'s buffer is reused once this returns: keep a copy.
   */
  push(chunk: Uint8Array): SseEvent[];
  /** The events the end of the body completes; throws a `ProviderError` for a body cut short. */
  end(): SseEvent[];
}

/** Server-sent events (`text/event-stream`), read with {@linkcode SseParser}. */
export const SSE_FRAMING: BodyFraming = {
  mediaType: "text/event-stream",
  decoder: () => Promise.resolve(new SseParser()),
};

/** Most bytes of an error body read before classifying it. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** What the request was waiting for, for timeout and network messages. */
type Phase = "response headers" | "the error body" | "the next chunk";

/**
 * POSTs `req.body` as JSON and yields the server-sent events of the reply,
 * in batches: the events each network chunk completes (never an empty batch),
 * so that consumers pay one async step per chunk, not per event.
 *
 * Throws a {@linkcode ProviderError}: classified from the body for a non-2xx
 * reply; `invalid_request` for a 2xx reply that is not an event stream, or
 * for a redirect to another origin (only same-origin redirects are followed,
 * so the headers, key included, never reach another server); `timeout` when
 * nothing arrives for `idleTimeoutMs` (waiting for the headers or between
 * chunks); `network` when the connection fails or breaks; `permission` when Deno denies it (no `--allow-net` for the host). When `req.signal`
 * aborts it stops at once, however much was streamed, and throws an error
 * for which {@linkcode isAbortError} is true. The response body is always
 * released, also when the consumer stops iterating early.
 *
 * @param req The request.
 * @returns Batches of events, in order; the stream's trailing unterminated event is dropped.
 *
 * @example Stream from an OpenAI-compatible server
 * ```ts ignore
 * import { streamSse } from "./http.ts";
 * for await (const batch of streamSse({
 *   url: "https://api.openai.com/v1/chat/completions",
 *   headers: { authorization: `Bearer ${Deno.env.get("OPENAI_API_KEY")}` },
 *   body: { model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "hi" }] },
 *   signal: new AbortController().signal,
 *   idleTimeoutMs: 120_000,
 * })) for (const event of batch) console.log(event.data);
 * ```
 */
export function streamSse(req: SseRequest): AsyncGenerator<SseEvent[], void, void> {
  return streamFramed(req, SSE_FRAMING);
}

/**
 * {@linkcode streamSse} for a reply in another framing: the same request,
 * redirects, timeouts, errors and abort, with the body cut into events by
 * `framing` (and a 2xx reply required to have its media type).
 *
 * @param req The request.
 * @param framing How the reply's body is read.
 * @returns Batches of events, in order (never an empty batch).
 */
export async function* streamFramed(
  req: SseRequest,
  framing: BodyFraming,
): AsyncGenerator<SseEvent[], void, void> {
  if (req.signal.aborted) throw toAbortError(req.signal);
  const host = hostOf(req.url);
  const secrets = [...secretValues(req.headers), ...req.secrets ?? []];
  const guard = new RequestGuard(req.signal, req.idleTimeoutMs);
  let phase: Phase = "response headers";
  let reader: BodyReader | undefined;
  let finished = false;
  try {
    const body = requestBody(req, host);
    const headers = req.sign ? await guard.wait(req.sign(body)) : req.headers;
    const { response, url } = await postFollowingRedirects(req, { body, headers }, framing, guard);
    reader = response.body ? bodyReader(response.body) : undefined;
    if (reader) guard.watch(reader);
    if (!response.ok) {
      phase = "the error body";
      const text = reader ? await readBounded(reader, guard) : "";
      throw classifyHttpErrorRedacting(response.status, text, response.headers, url, secrets);
    }
    assertMediaType(response, url, framing.mediaType);
    if (!reader) return;
    phase = "the next chunk";
    const decoder = await guard.wait(framing.decoder(url));
    for (;;) {
      const chunk = await guard.wait(reader.read());
      if (chunk.done) break;
      const events = decoder.push(chunk.value);
      if (events.length > 0) yield events;
    }
    finished = true;
    const last = decoder.end();
    if (last.length > 0) yield last;
  } catch (error) {
    throw translateError(error, { req, host, phase, guard, secrets });
  } finally {
    guard.dispose();
    if (reader && !finished) await reader.cancel().catch(() => {});
  }
}

/** What is sent: the JSON text and the headers (signed, when the request signs). */
interface Outgoing {
  body: string;
  headers: Record<string, string>;
}

/** Most same-origin redirects followed before giving up. */
const MAX_REDIRECTS = 5;

/** Redirects that keep the method and body (301 and 302 too: every client re-POSTs them to an API). */
const FOLLOWED_REDIRECTS: ReadonlySet<number> = new Set([301, 302, 307, 308]);

/**
 * POSTs the request, following redirects only within the same origin (the
 * headers carry the key: they must never reach another server).
 */
async function postFollowingRedirects(
  req: SseRequest,
  outgoing: Outgoing,
  framing: BodyFraming,
  guard: RequestGuard,
): Promise<{ response: Response; url: string }> {
  let url = req.url;
  for (let hops = 0;; hops++) {
    const response = await post(url, outgoing, framing, guard);
    if (response.status < 300 || response.status > 399) return { response, url };
    await response.body?.cancel();
    const location = response.headers.get("location");
    const target = location === null ? null : URL.parse(location, url);
    if (
      target?.origin !== new URL(url).origin || !FOLLOWED_REDIRECTS.has(response.status) ||
      hops >= MAX_REDIRECTS
    ) {
      throw refusedRedirect(url, response.status, location, target);
    }
    url = target.href;
  }
}

/**
 * The request's JSON. A value nested too deep for `JSON.stringify` (its
 * replacer recurses) would overflow the stack the same way on every retry:
 * it is an invalid request, not a network failure.
 */
function requestBody(req: SseRequest, host: string): string {
  try {
    return JSON.stringify(req.body, wellFormed);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new ProviderError(
      "invalid_request",
      `The request to ${host} could not be written as JSON (${error.message}): the ` +
        `conversation holds a value nested too deeply (a tool call's arguments?); remove that ` +
        `message (or start a new session) and try again`,
      { cause: error },
    );
  }
}

/** One POST without following redirects; a reply that comes after a stop is released. */
async function post(
  url: string,
  { body, headers }: Outgoing,
  framing: BodyFraming,
  guard: RequestGuard,
): Promise<Response> {
  const pending = fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: framing.mediaType, ...headers },
    body,
    redirect: "manual",
    signal: guard.signal,
  });
  try {
    return await guard.wait(pending);
  } catch (error) {
    // Deno's fetch may still answer after the stop, with a body already
    // errored by the abort: its cancel then rejects, and nothing awaits it.
    void pending.then((late) => late.body?.cancel()).catch(() => {});
    throw error;
  }
}

/** The error for a redirect not followed; the target is shown without its query (it may hold a key). */
function refusedRedirect(
  url: string,
  status: number,
  location: string | null,
  target: URL | null,
): ProviderError {
  const answered = `${hostOf(url)} answered ${status}`;
  const message = location === null
    ? `${answered} without a Location`
    : target === null
    ? `${answered} with an invalid Location`
    : target.origin !== new URL(url).origin
    ? `${answered} to ${target.origin}${target.pathname}: panto does not follow a redirect to ` +
      `another server, which would receive the API key; if you trust it, set the provider's ` +
      `baseUrl (or --base-url) to it`
    : `${answered} to ${target.origin}${target.pathname}: too many redirects, or a redirect ` +
      `that does not keep the request`;
  return new ProviderError("invalid_request", message, { status });
}

/**
 * A 2xx reply must be an event stream of the expected framing: an HTML page
 * or a JSON document means the base URL points at the wrong server or path,
 * and retrying cannot help. A reply without a content type is read as a
 * stream.
 */
function assertMediaType(response: Response, url: string, expected: string): void {
  const type = response.headers.get("content-type");
  if (type === null) return;
  const mediaType = type.split(";", 1)[0]!.trim().toLowerCase().slice(0, 100);
  if (mediaType === expected) return;
  throw new ProviderError(
    "invalid_request",
    `${hostOf(url)} answered ${response.status} with content-type ${mediaType}, ` +
      `not an event stream: check --base-url / baseUrl (the request went to ${
        redactUrl(url, url)
      })`,
    { status: response.status },
  );
}

/**
 * Whether an error means the caller cancelled: a `DOMException` (or any
 * error) named `AbortError`, as thrown by {@linkcode streamSse} and `sleep`
 * when their signal aborts.
 *
 * @param error Anything caught.
 * @returns True for an abort.
 *
 * @example
 * ```ts
 * import { isAbortError } from "./http.ts";
 * console.assert(isAbortError(new DOMException("stop", "AbortError")));
 * console.assert(!isAbortError(new Error("boom")));
 * ```
 */
export function isAbortError(error: unknown): boolean {
  return (error instanceof DOMException || error instanceof Error) && error.name === "AbortError";
}

/**
 * The error to throw when `signal` has aborted: its reason when that is
 * already an abort error, else an `AbortError` `DOMException` whose `cause`
 * is the reason (so a `TimeoutError` or custom reason is not lost).
 *
 * @param signal An aborted signal.
 * @returns An error for which {@linkcode isAbortError} is true.
 *
 * @example
 * ```ts
 * import { isAbortError, toAbortError } from "./http.ts";
 * const controller = new AbortController();
 * controller.abort("user pressed Esc");
 * console.assert(isAbortError(toAbortError(controller.signal)));
 * ```
 */
export function toAbortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && isAbortError(reason)) return reason;
  const error = new DOMException("The request was aborted", "AbortError");
  // Deno's DOMException accepts `cause` at runtime, but its type does not declare it.
  Object.defineProperty(error, "cause", { value: reason, configurable: true, writable: true });
  return error;
}

interface ErrorContext {
  req: SseRequest;
  host: string;
  phase: Phase;
  guard: RequestGuard;
  secrets: readonly string[];
}

function translateError(error: unknown, context: ErrorContext): unknown {
  const { req, host, phase, guard } = context;
  if (req.signal.aborted) return toAbortError(req.signal);
  if (error instanceof ProviderError) return error;
  if (guard.timedOut) {
    return new ProviderError(
      "timeout",
      `${host} sent nothing for ${req.idleTimeoutMs} ms while we waited for ${phase} ` +
        `(idle timeout: raise the idleTimeoutMs setting, for this provider or for all, ` +
        `if this server is slow to answer)`,
    );
  }
  const detail = redactSecrets(redactUrl(errorText(error), req.url), context.secrets);
  if (isPermissionDenial(error)) {
    return new ProviderError(
      "permission",
      `Deno denied the request to ${host} (${detail}): grant network access to it, ` +
        `e.g. run with --allow-net=${host}`,
      { cause: error },
    );
  }
  const what = phase === "response headers"
    ? `could not get a response from ${host}`
    : `the connection to ${host} broke while reading ${phase}`;
  return new ProviderError("network", `${what}: ${detail}`, { cause: error });
}

/**
 * Deno refused an operation for want of a permission (`--allow-net`),
 * directly or as the cause. Told by the error's name, so the core runs
 * where there is no `Deno` (Node, Bun).
 */
function isPermissionDenial(error: unknown): boolean {
  const denied = (e: unknown) =>
    e instanceof Error && (e.name === "NotCapable" || e.name === "PermissionDenied");
  return denied(error) || (error instanceof Error && denied(error.cause));
}

/** Reads at most {@linkcode MAX_ERROR_BODY_BYTES} of an error body as text. */
async function readBounded(
  reader: BodyReader,
  guard: RequestGuard,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let total = 0;
  while (total < MAX_ERROR_BODY_BYTES) {
    const chunk = await guard.wait(reader.read());
    if (chunk.done) return text + decoder.decode();
    const kept = chunk.value.subarray(0, MAX_ERROR_BODY_BYTES - total);
    total += kept.length;
    text += decoder.decode(kept, { stream: true });
  }
  return text + decoder.decode();
}

/**
 * Values of headers that may carry credentials, also without an auth scheme
 * ("Bearer …"), for scrubbing error messages.
 *
 * @param headers Request headers.
 * @returns The values to redact.
 */
export function secretValues(headers: Record<string, string>): string[] {
  return Object.entries(headers)
    .filter(([name]) => /auth|key|token|secret|cookie|session/i.test(name))
    .flatMap(([, value]) => [value, value.replace(/^[A-Za-z]+\s+/, "")]);
}

function errorText(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
    return `${error.message}${cause}`;
  }
  return String(error);
}

/** Network errors quote the URL; keep its origin and path, drop a query that may hold a key. */
function redactUrl(text: string, url: string): string {
  try {
    const parsed = new URL(url);
    const safe = `${parsed.origin}${parsed.pathname}`;
    return text.replaceAll(url, safe).replaceAll(parsed.href, safe);
  } catch {
    return text.replaceAll(url, "(the provider URL)");
  }
}

/**
 * JSON replacer that replaces lone surrogates (half an emoji, e.g. from
 * output cut mid-character) with U+FFFD: servers reject them as invalid
 * UTF-8.
 */
function wellFormed(_key: string, value: unknown): unknown {
  return typeof value === "string" ? value.toWellFormed() : value;
}
