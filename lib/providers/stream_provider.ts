import { ProviderError } from "../errors.ts";
import { emptyUsage } from "../usage.ts";
import { redactSecrets } from "./error_classification.ts";
import { type BodyFraming, secretValues, SSE_FRAMING, streamFramed } from "./http.ts";
import type {
  AssistantResult,
  ProviderRequest,
  ProviderStreamEvent,
  StreamMessage,
} from "./provider.ts";
import type { SseEvent } from "./sse.ts";

/** The HTTP request a provider builds: where to POST, with which headers and JSON body. */
export interface ProviderHttpRequest<Body = unknown> {
  /** Full URL. */
  url: string;
  /** Request headers, auth included. */
  headers: Record<string, string>;
  /** The body, JSON-serialised before sending. */
  body: Body;
  /** Credentials that travel in no header as they are: kept out of error messages too. */
  secrets?: readonly string[];
  /**
   * Signs the request from the exact JSON text sent: returns the headers to
   * send in place of `headers` (see `SseRequest.sign`).
   */
  sign?: (body: string) => Promise<Record<string, string>>;
}

/**
 * Assembles a message from batches of events read from `url`: server-sent
 * events, or the frames of another framing decoded to the same shape.
 */
export type ParseProviderStream = (
  events: AsyncIterable<readonly SseEvent[]>,
  url: string,
) => AsyncGenerator<ProviderStreamEvent[], AssistantResult, void>;

/**
 * A provider from its two halves: `build` turns the request into HTTP,
 * `parse` turns the server-sent events of the reply into a message. When
 * `request.signal` fires, what was assembled so far is returned with stop
 * reason `aborted` instead of an error.
 *
 * @example An OpenAI-compatible gateway that wants its own auth header
 * ```ts
 * import { providerStream } from "@panto/lib";
 * import { parseOpenAIStream } from "@panto/lib/providers";
 * const streamGateway = providerStream((request) => ({
 *   url: `${request.config.baseUrl}/chat/completions`,
 *   headers: { "content-type": "application/json", "x-gateway-key": request.config.apiKey ?? "" },
 *   body: { model: request.config.model, stream: true, messages: [] },
 * }), parseOpenAIStream);
 * console.assert(typeof streamGateway === "function");
 * ```
 *
 * @param build Builds the URL, headers and body of a request.
 * @param parse Assembles the reply; it is given the built URL.
 * @returns The provider.
 */
export function providerStream(
  build: (request: ProviderRequest) => ProviderHttpRequest,
  parse: ParseProviderStream,
): StreamMessage {
  return framedProviderStream(build, parse, SSE_FRAMING);
}

/**
 * {@linkcode providerStream} for a reply in another framing than
 * server-sent events (Bedrock's binary event stream): `parse` receives the
 * events `framing` decodes.
 *
 * @param build Builds the URL, headers and body of a request.
 * @param parse Assembles the reply; it is given the built URL.
 * @param framing How the reply's body is cut into events.
 * @returns The provider.
 */
export function framedProviderStream(
  build: (request: ProviderRequest) => ProviderHttpRequest,
  parse: ParseProviderStream,
  framing: BodyFraming,
): StreamMessage {
  return async function* (
    request: ProviderRequest,
  ): AsyncGenerator<ProviderStreamEvent[], AssistantResult, void> {
    const { url, headers, body, secrets = [], sign } = build(request);
    const events = streamFramed({
      url,
      headers,
      body,
      signal: request.signal,
      idleTimeoutMs: request.idleTimeoutMs,
      secrets,
      ...(sign ? { sign } : {}),
    }, framing);
    try {
      return yield* parse(events, url);
    } catch (error) {
      // An abort may surface as another failure (a cut connection, a cancelled
      // read) when it races with the read; the caller asked to stop, so it is
      // not an error.
      if (request.signal.aborted && error instanceof ProviderError) {
        return {
          content: error.partial?.content ?? [],
          usage: error.partial?.usage ?? emptyUsage(),
          stopReason: "aborted",
        };
      }
      // A server may echo a credential in a mid-stream error: scrub this request's own.
      if (error instanceof ProviderError) {
        error.message = redactSecrets(error.message, [...secretValues(headers), ...secrets]);
      }
      throw error;
    }
  };
}
