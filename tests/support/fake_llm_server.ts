/**
 * A fake LLM server on loopback that speaks the Anthropic Messages, the
 * OpenAI Chat Completions, the OpenAI Responses, the Gemini
 * (`streamGenerateContent`) and the Bedrock `ConverseStream` (binary event
 * stream) streaming protocols.
 * Tests script its replies in a FIFO queue: recorded fixtures, raw SSE,
 * generated turns, HTTP errors, cut or stalled connections, malformed data
 * and slow streams.
 *
 * @example
 * ```ts ignore
 * const server = await FakeLlmServer.start();
 * try {
 *   server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Hello there" }] });
 *   // point a provider at server.anthropicBaseUrl or server.openaiBaseUrl …
 * } finally {
 *   await server.close();
 * }
 * ```
 *
 * @module
 */
import { concatBytes } from "../../lib/concat_bytes.ts";
import type { Usage } from "../../lib/usage.ts";
import { eventStreamBytes, frameChunks, jsonlEvents } from "./bedrock_frames.ts";

/** Where the recorded provider streams live (`tests/fixtures/providers`). */
export const PROVIDER_FIXTURES_DIR: string = new URL(
  "../fixtures/providers/",
  import.meta.url,
).pathname;

/** The wire protocols, told apart by the request path. */
export type FakeProtocol = "anthropic" | "openai" | "openai-responses" | "gemini" | "bedrock";

/** One request the server received. */
export interface RecordedRequest {
  /** HTTP method. */
  method: string;
  /** URL path, e.g. `/v1/messages`. */
  path: string;
  /** Which protocol the path belongs to (undefined for unknown routes). */
  protocol: FakeProtocol | undefined;
  /** Request headers, names lower-cased. */
  headers: Record<string, string>;
  /** The parsed JSON body (the raw text when it is not JSON; undefined when empty). */
  body: unknown;
  /** The body's text as received (what a signature covers). */
  rawBody: string;
}

/** A content block of a generated turn. */
export type FakeBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature?: string }
  | { type: "tool_use"; id: string; name: string; input: unknown };

/** Why a generated turn stops, in Anthropic's words (mapped to `finish_reason` for OpenAI). */
export type FakeStopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "refusal";

/** Options every streamed reply accepts. */
export interface FakeStreamOptions {
  /** Send the body in chunks of this many bytes (default: the server's, else whole). */
  chunkSize?: number;
  /** Wait this long before sending the response headers (ms). */
  headerDelayMs?: number;
}

/** A body source: a fixture file, raw SSE text, or a generated turn. */
export type FakeSource =
  | {
    kind: "fixture";
    /**
     * Relative to {@linkcode PROVIDER_FIXTURES_DIR} (or absolute), e.g.
     * `anthropic/text-hello.sse`. Sent as stored, except a `.jsonl`
     * recording of Bedrock members, which goes as event-stream frames.
     */
    path: string;
  }
  | { kind: "sse"; body: string }
  | {
    kind: "turn";
    blocks: readonly FakeBlock[];
    /** Default: `tool_use` when a tool_use block is present, else `end_turn`. */
    stopReason?: FakeStopReason;
    /** Default: {@linkcode DEFAULT_FAKE_USAGE}. */
    usage?: Partial<Usage>;
  };

/** One scripted reply. */
export type FakeReply =
  | (FakeSource & FakeStreamOptions)
  | {
    kind: "http_error";
    status: number;
    /** A string is sent as is; anything else as JSON. */
    body?: unknown;
    headers?: Record<string, string>;
    headerDelayMs?: number;
  }
  | ({
    kind: "cut";
    /** Bytes of the source sent before the connection is dropped. */
    afterBytes: number;
    source: FakeSource;
  } & FakeStreamOptions)
  | ({
    /** A generated text turn with a data line that is not JSON in the middle. */
    kind: "malformed";
  } & FakeStreamOptions)
  | ({
    kind: "stall";
    /** Bytes of the source sent before the server goes silent (until the client leaves or the server closes). */
    afterBytes: number;
    source: FakeSource;
  } & FakeStreamOptions)
  | {
    /**
     * A text turn of `deltas` text deltas (`line 0\n`, `line 1\n`, …),
     * generated as fast as the client reads; `Infinity` never ends. Counts
     * what it sent in {@linkcode FakeLlmServer.longDeltasSent}.
     */
    kind: "long";
    deltas: number;
    headerDelayMs?: number;
  }
  | ({
    kind: "slow";
    /** Pause before each chunk after the first (ms). Chunks are SSE events unless `chunkSize` is set. */
    delayMs: number;
    source: FakeSource;
  } & FakeStreamOptions);

/** Server-wide options. */
export interface FakeLlmServerOptions {
  /** Default chunk size for every streamed body (bytes). */
  chunkSize?: number;
}

/** Usage reported by generated turns unless the reply says otherwise. */
export const DEFAULT_FAKE_USAGE: Usage = {
  inputTokens: 10,
  outputTokens: 20,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
};

/** The path each protocol is served at (below {@linkcode FakeLlmServer.url}). */
export const FAKE_PATHS: Readonly<Record<FakeProtocol, string>> = {
  anthropic: "/v1/messages",
  openai: "/v1/chat/completions",
  "openai-responses": "/v1/responses",
  // Any model is served (see GEMINI_ROUTE); this path names one.
  gemini: "/v1beta/models/fake-model:streamGenerateContent",
  // Any model is served (see BEDROCK_ROUTE); this path names one.
  bedrock: "/model/fake-model/converse-stream",
};

const ROUTES = new Map(
  (Object.entries(FAKE_PATHS) as [FakeProtocol, string][]).map(([protocol, path]) => [
    path,
    protocol,
  ]),
);

/** The media type of each protocol's streamed replies. */
const CONTENT_TYPES: Readonly<Record<FakeProtocol, string>> = {
  anthropic: "text/event-stream",
  openai: "text/event-stream",
  "openai-responses": "text/event-stream",
  gemini: "text/event-stream",
  bedrock: "application/vnd.amazon.eventstream",
};

/** The protocol of a path that names its model (Gemini's, Bedrock's). */
function patternProtocol(path: string): FakeProtocol | undefined {
  if (GEMINI_ROUTE.test(path)) return "gemini";
  return BEDROCK_ROUTE.test(path) ? "bedrock" : undefined;
}

const encoder = new TextEncoder();

/** How a streamed body ends after its bytes are sent. */
type Ending = "close" | "cut" | "stall";

interface StreamPlan {
  bytes: Uint8Array;
  /** Total body length announced in `content-length` (cut only). */
  announcedLength?: number;
  chunks: Uint8Array[];
  delayMs: number;
  ending: Ending;
}

/**
 * The fake server. Start it with {@linkcode FakeLlmServer.start}, script
 * replies with {@linkcode FakeLlmServer.enqueue}, and always
 * {@linkcode FakeLlmServer.close} it.
 */
export class FakeLlmServer {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #queue: FakeReply[] = [];
  readonly #options: FakeLlmServerOptions;
  readonly #closing = new AbortController();
  readonly #pumps = new Set<Promise<void>>();
  #messageCount = 0;
  /** Text deltas sent so far by `long` replies. */
  longDeltasSent = 0;

  private constructor(options: FakeLlmServerOptions) {
    this.#options = options;
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (request, info) => this.#handle(request, info),
    );
  }

  /**
   * Starts a server on a free loopback port.
   *
   * @param options Server-wide options.
   * @returns The running server.
   */
  static start(options: FakeLlmServerOptions = {}): Promise<FakeLlmServer> {
    return Promise.resolve(new FakeLlmServer(options));
  }

  /** The origin, e.g. `http://127.0.0.1:40123`. */
  get url(): string {
    return `http://127.0.0.1:${this.#server.addr.port}`;
  }

  /** Base URL in the Anthropic SDK convention (no `/v1`). */
  get anthropicBaseUrl(): string {
    return this.url;
  }

  /** Base URL in the OpenAI SDK convention (with `/v1`). */
  get openaiBaseUrl(): string {
    return `${this.url}/v1`;
  }

  /** Replies not consumed yet. */
  get pendingReplies(): number {
    return this.#queue.length;
  }

  /**
   * Appends replies to the queue; each request consumes the next one.
   *
   * @param replies The replies, in order.
   */
  enqueue(...replies: FakeReply[]): void {
    this.#queue.push(...replies);
  }

  /** Ends stalled and slow responses, then stops the server. */
  async close(): Promise<void> {
    this.#closing.abort();
    await Promise.all(this.#pumps);
    await this.#server.shutdown();
  }

  async #handle(request: Request, info: Deno.ServeHandlerInfo): Promise<Response> {
    const url = new URL(request.url);
    const protocol = ROUTES.get(url.pathname) ?? patternProtocol(url.pathname);
    const rawBody = await request.text();
    this.requests.push({
      method: request.method,
      path: url.pathname,
      protocol,
      headers: Object.fromEntries(request.headers),
      body: parseBody(rawBody),
      rawBody,
    });
    const route = `${request.method} ${url.pathname}`;
    if (protocol === undefined || request.method !== "POST") {
      return jsonError(404, `fake server: no route for ${route}`);
    }
    const reply = this.#queue.shift();
    if (reply === undefined) return jsonError(500, `fake server: no scripted reply for ${route}`);
    const life = this.#responseLifetime(info);
    if (reply.headerDelayMs !== undefined && !await pause(reply.headerDelayMs, life.signal)) {
      return jsonError(503, "fake server: closing");
    }
    if (reply.kind === "http_error") return httpErrorResponse(reply);
    const model = protocol === "gemini"
      ? geminiModel(url.pathname)
      : protocol === "bedrock"
      ? bedrockModel(url.pathname)
      : modelOf(this.requests.at(-1)?.body);
    if (reply.kind === "long") return this.#longResponse(reply.deltas, protocol, model, life);
    const plan = await this.#plan(reply, protocol, model);
    return this.#streamResponse(plan, protocol, life);
  }

  /** Aborts when the response is done, the client left, or the server closes. */
  #responseLifetime(info: Deno.ServeHandlerInfo): AbortController {
    const life = new AbortController();
    const end = () => life.abort();
    this.#closing.signal.addEventListener("abort", end, { once: true });
    void info.completed.catch(() => {}).finally(() => {
      end();
      this.#closing.signal.removeEventListener("abort", end);
    });
    return life;
  }

  /** Streams a `long` reply, a batch of deltas per pull, until done, cancelled or closing. */
  #longResponse(
    deltas: number,
    protocol: FakeProtocol,
    model: string,
    life: AbortController,
  ): Response {
    const marker = "§"; // one character: the turn sends it as a single delta
    const events = turnEvents(protocol, {
      blocks: [{ type: "text", text: marker }],
      model,
      messageId: this.#nextMessageId(),
    });
    // The first event holding the marker; it may be the first (Gemini has no preamble event).
    const at = events.findIndex((event) => event.data.includes(marker));
    const head = wireBytes(protocol, events.slice(0, at));
    const tail = wireBytes(protocol, events.slice(at + 1));
    const deltaEvent = events[at]!;
    const delta = (text: string) =>
      wireBytes(protocol, [{
        ...deltaEvent,
        data: deltaEvent.data.replace(marker, JSON.stringify(text).slice(1, -1)),
      }]);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        controller.enqueue(head);
        life.signal.addEventListener("abort", () => {
          try {
            controller.close();
          } catch {
            // Already closed or cancelled.
          }
        }, { once: true });
      },
      pull: (controller) => {
        if (life.signal.aborted) return;
        const batch: Uint8Array[] = [];
        for (let i = 0; i < 20 && sent < deltas; i++, sent++, this.longDeltasSent++) {
          batch.push(delta(`line ${sent}\n`));
        }
        if (sent >= deltas) batch.push(tail);
        controller.enqueue(concatBytes(batch));
        if (sent >= deltas) controller.close();
      },
      cancel: () => life.abort(),
    });
    return new Response(body, { headers: { "content-type": CONTENT_TYPES[protocol] } });
  }

  async #plan(
    reply: Exclude<FakeReply, { kind: "http_error" | "long" }>,
    protocol: FakeProtocol,
    model: string,
  ): Promise<StreamPlan> {
    const chunkSize = reply.chunkSize ?? this.#options.chunkSize;
    switch (reply.kind) {
      case "fixture":
      case "sse":
      case "turn": {
        const bytes = await this.#render(reply, protocol, model);
        return { bytes, chunks: split(bytes, chunkSize, false), delayMs: 0, ending: "close" };
      }
      case "malformed": {
        const bytes = malformedTurn(protocol, model, this.#nextMessageId());
        return { bytes, chunks: split(bytes, chunkSize, false), delayMs: 0, ending: "close" };
      }
      case "cut":
      case "stall": {
        const full = await this.#render(reply.source, protocol, model);
        const bytes = full.subarray(0, reply.afterBytes);
        const ending = reply.kind;
        return {
          bytes,
          chunks: split(bytes, chunkSize, false),
          delayMs: 0,
          ending,
          // A cut announces more bytes than it sends, so the client sees a broken body.
          ...(ending === "cut" ? { announcedLength: Math.max(full.length, bytes.length + 1) } : {}),
        };
      }
      case "slow": {
        const bytes = await this.#render(reply.source, protocol, model);
        const chunks = chunkSize === undefined && protocol === "bedrock"
          ? frameChunks(bytes) // one event a chunk, as for the SSE protocols below
          : split(bytes, chunkSize, chunkSize === undefined);
        return { bytes, chunks, delayMs: reply.delayMs, ending: "close" };
      }
    }
  }

  async #render(source: FakeSource, protocol: FakeProtocol, model: string): Promise<Uint8Array> {
    switch (source.kind) {
      case "fixture": {
        const path = source.path.startsWith("/")
          ? source.path
          : `${PROVIDER_FIXTURES_DIR}${source.path}`;
        if (path.endsWith(".jsonl")) {
          return eventStreamBytes(jsonlEvents(await Deno.readTextFile(path)));
        }
        return await Deno.readFile(path);
      }
      case "sse":
        return encoder.encode(source.body);
      case "turn": {
        const turn = { ...source, model, messageId: this.#nextMessageId() };
        return wireBytes(protocol, turnEvents(protocol, turn));
      }
    }
  }

  #nextMessageId(): string {
    this.#messageCount++;
    return `fake_${this.#messageCount}`;
  }

  #streamResponse(plan: StreamPlan, protocol: FakeProtocol, life: AbortController): Response {
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        const pump = this.#pump(plan, controller, life.signal);
        this.#pumps.add(pump);
        void pump.finally(() => this.#pumps.delete(pump));
      },
      cancel: () => life.abort(),
    });
    const headers = new Headers({
      "content-type": CONTENT_TYPES[protocol],
      "cache-control": "no-cache",
    });
    if (plan.announcedLength !== undefined) {
      headers.set("content-length", String(plan.announcedLength));
    }
    return new Response(body, { headers });
  }

  async #pump(
    plan: StreamPlan,
    controller: ReadableStreamDefaultController<Uint8Array>,
    signal: AbortSignal,
  ): Promise<void> {
    try {
      for (const [index, chunk] of plan.chunks.entries()) {
        if (index > 0 && plan.delayMs > 0 && !await pause(plan.delayMs, signal)) break;
        if (signal.aborted) break;
        controller.enqueue(chunk);
      }
      if (plan.ending === "stall") await pause(Number.POSITIVE_INFINITY, signal);
      // For a cut, closing early makes the body shorter than its content-length:
      // the server drops the connection and the client's read throws.
      controller.close();
    } catch {
      // The client went away: the stream is already cancelled.
    }
  }
}

/**
 * Runs `run` with a fresh server, closing it afterwards whatever happens.
 *
 * @example
 * ```ts ignore
 * await withFakeServer(async (server) => {
 *   server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "Hi" }] });
 *   // … stream from server.openaiBaseUrl …
 * });
 * ```
 *
 * @param run The test body.
 * @param options Server-wide options.
 */
export async function withFakeServer(
  run: (server: FakeLlmServer) => Promise<void>,
  options: FakeLlmServerOptions = {},
): Promise<void> {
  const server = await FakeLlmServer.start(options);
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

/**
 * A 400 context-overflow reply in the protocol's real shape: Anthropic's
 * `prompt is too long`, OpenAI's `context_length_exceeded`.
 *
 * @param protocol The protocol of the request it answers.
 * @returns The reply.
 */
export function contextOverflowReply(protocol: FakeProtocol): FakeReply {
  const body = protocol === "anthropic"
    ? {
      type: "error",
      error: {
        type: "invalid_request_error",
        message: "prompt is too long: 208421 tokens > 200000 maximum",
      },
      request_id: "req_fake_overflow",
    }
    : {
      error: {
        message: "This model's maximum context length is 128000 tokens. However, your messages " +
          "resulted in 130412 tokens. Please reduce the length of the messages.",
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    };
  return { kind: "http_error", status: 400, body };
}

/**
 * An overload reply: Anthropic's 529 `overloaded_error` (with
 * `x-should-retry: true`), or for OpenAI a 503 `server_error`.
 *
 * @param protocol The protocol of the request it answers (default Anthropic).
 * @returns The reply.
 */
export function overloadedReply(protocol: FakeProtocol = "anthropic"): FakeReply {
  if (protocol === "openai") {
    return {
      kind: "http_error",
      status: 503,
      body: {
        error: {
          message: "The server is overloaded or not ready yet.",
          type: "server_error",
          param: null,
          code: null,
        },
      },
    };
  }
  return {
    kind: "http_error",
    status: 529,
    headers: { "x-should-retry": "true" },
    body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
  };
}

/**
 * A 429 rate-limit reply with a `retry-after` header, in the protocol's shape.
 *
 * @param retryAfterSeconds The `retry-after` value.
 * @param protocol The protocol of the request it answers (default Anthropic).
 * @returns The reply.
 */
export function rateLimitReply(
  retryAfterSeconds: number,
  protocol: FakeProtocol = "anthropic",
): FakeReply {
  const body = protocol === "anthropic"
    ? {
      type: "error",
      error: {
        type: "rate_limit_error",
        message: "This request would exceed your account's rate limit. Please try again later.",
      },
    }
    : {
      error: {
        message:
          "Rate limit reached for gpt-4o in organization org-fake on tokens per min (TPM): " +
          "Limit 30000, Used 29937, Requested 385.",
        type: "tokens",
        param: null,
        code: "rate_limit_exceeded",
      },
    };
  return {
    kind: "http_error",
    status: 429,
    headers: { "retry-after": String(retryAfterSeconds) },
    body,
  };
}

/**
 * A 401 reply for a bad key, in the protocol's shape.
 *
 * @param protocol The protocol of the request it answers.
 * @returns The reply.
 */
export function authErrorReply(protocol: FakeProtocol): FakeReply {
  const body = protocol === "anthropic"
    ? { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }
    : {
      error: {
        message: "Incorrect API key provided. You can find your API key at " +
          "https://platform.openai.com/account/api-keys.",
        type: "invalid_request_error",
        param: null,
        code: "invalid_api_key",
      },
    };
  return { kind: "http_error", status: 401, body };
}

interface TurnSpec {
  blocks: readonly FakeBlock[];
  stopReason?: FakeStopReason;
  usage?: Partial<Usage>;
  model: string;
  messageId: string;
}

/** One SSE event: an optional `event:` name and its JSON (or raw) data. */
interface WireEvent {
  event?: string;
  data: string;
}

function turnEvents(protocol: FakeProtocol, turn: TurnSpec): WireEvent[] {
  if (protocol === "openai-responses") return responsesTurn(turn);
  if (protocol === "gemini") return geminiTurn(turn);
  if (protocol === "bedrock") return bedrockTurn(turn);
  return protocol === "anthropic" ? anthropicTurn(turn) : openaiTurn(turn);
}

function stopReasonOf(turn: TurnSpec): FakeStopReason {
  return turn.stopReason ??
    (turn.blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn");
}

function anthropicEvent(data: { type: string } & Record<string, unknown>): WireEvent {
  return { event: data.type, data: JSON.stringify(data) };
}

function anthropicTurn(turn: TurnSpec): WireEvent[] {
  const usage = { ...DEFAULT_FAKE_USAGE, ...turn.usage };
  const inputUsage = {
    input_tokens: usage.inputTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
  };
  const events: WireEvent[] = [
    anthropicEvent({
      type: "message_start",
      message: {
        id: `msg_${turn.messageId}`,
        type: "message",
        role: "assistant",
        model: turn.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...inputUsage, output_tokens: 1 },
      },
    }),
    { event: "ping", data: '{"type": "ping"}' },
  ];
  turn.blocks.forEach((block, index) => events.push(...anthropicBlock(block, index)));
  events.push(
    anthropicEvent({
      type: "message_delta",
      delta: { stop_reason: stopReasonOf(turn), stop_sequence: null },
      usage: {
        ...inputUsage,
        output_tokens: usage.outputTokens,
        ...(usage.reasoningTokens > 0
          ? { output_tokens_details: { thinking_tokens: usage.reasoningTokens } }
          : {}),
      },
    }),
    anthropicEvent({ type: "message_stop" }),
  );
  return events;
}

function anthropicBlock(block: FakeBlock, index: number): WireEvent[] {
  const delta = (payload: Record<string, unknown>) =>
    anthropicEvent({ type: "content_block_delta", index, delta: payload });
  const start = (content_block: Record<string, unknown>) =>
    anthropicEvent({ type: "content_block_start", index, content_block });
  const stop = anthropicEvent({ type: "content_block_stop", index });
  switch (block.type) {
    case "text":
      return [
        start({ type: "text", text: "" }),
        ...pieces(block.text).map((text) => delta({ type: "text_delta", text })),
        stop,
      ];
    case "thinking":
      return [
        start({ type: "thinking", thinking: "", signature: "" }),
        ...pieces(block.thinking).map((thinking) => delta({ type: "thinking_delta", thinking })),
        ...(block.signature === undefined
          ? []
          : [delta({ type: "signature_delta", signature: block.signature })]),
        stop,
      ];
    case "tool_use":
      return [
        start({ type: "tool_use", id: block.id, name: block.name, input: {} }),
        ...argumentFragments(block.input).map((partial_json) =>
          delta({ type: "input_json_delta", partial_json })
        ),
        stop,
      ];
  }
}

const FINISH_REASONS: Record<FakeStopReason, string> = {
  end_turn: "stop",
  tool_use: "tool_calls",
  max_tokens: "length",
  stop_sequence: "stop",
  refusal: "content_filter",
};

function openaiTurn(turn: TurnSpec): WireEvent[] {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    data: JSON.stringify({
      id: `chatcmpl-${turn.messageId}`,
      object: "chat.completion.chunk",
      created: 1_700_000_000,
      model: turn.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    }),
  });
  const events: WireEvent[] = [chunk({ role: "assistant", content: "" })];
  let toolIndex = 0;
  for (const block of turn.blocks) {
    if (block.type === "text") {
      events.push(...pieces(block.text).map((content) => chunk({ content })));
    } else if (block.type === "thinking") {
      events.push(
        ...pieces(block.thinking).map((reasoning_content) => chunk({ reasoning_content })),
      );
    } else {
      const index = toolIndex++;
      const [first = "", ...rest] = argumentFragments(block.input);
      events.push(
        chunk({
          tool_calls: [{
            index,
            id: block.id,
            type: "function",
            function: { name: block.name, arguments: first },
          }],
        }),
        ...rest.map((fragment) =>
          chunk({ tool_calls: [{ index, function: { arguments: fragment } }] })
        ),
      );
    }
  }
  events.push(chunk({}, FINISH_REASONS[stopReasonOf(turn)]));
  const usage = { ...DEFAULT_FAKE_USAGE, ...turn.usage };
  events.push({
    data: JSON.stringify({
      id: `chatcmpl-${turn.messageId}`,
      object: "chat.completion.chunk",
      created: 1_700_000_000,
      model: turn.model,
      choices: [],
      usage: {
        // OpenAI counts cached tokens inside prompt_tokens; it has no cache-write count.
        prompt_tokens: usage.inputTokens + usage.cacheReadTokens,
        completion_tokens: usage.outputTokens,
        total_tokens: usage.inputTokens + usage.cacheReadTokens + usage.outputTokens,
        prompt_tokens_details: { cached_tokens: usage.cacheReadTokens },
        completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
      },
    }),
  });
  events.push({ data: "[DONE]" });
  return events;
}

/** A text turn with an event that is not JSON (for Bedrock, a frame that fails its checksum) after the first text. */
function malformedTurn(protocol: FakeProtocol, model: string, messageId: string): Uint8Array {
  if (protocol === "bedrock") return malformedBedrockTurn(model, messageId);
  return encoder.encode(malformedSseTurn(protocol, model, messageId));
}

function malformedSseTurn(protocol: FakeProtocol, model: string, messageId: string): string {
  if (protocol === "openai-responses") {
    return malformedResponsesTurn({
      blocks: [{ type: "text", text: "Hello, world" }],
      model,
      messageId,
    });
  }
  if (protocol === "gemini") return malformedGeminiTurn(model, messageId);
  const events = turnEvents(protocol, {
    blocks: [{ type: "text", text: "Hello, world" }],
    model,
    messageId,
  });
  const afterFirstDelta = protocol === "anthropic" ? 4 : 2;
  const broken: WireEvent = protocol === "anthropic"
    ? { event: "content_block_delta", data: '{"type":"content_block_delta","index":0,"delta":{' }
    : { data: '{"id":"chatcmpl-broken","choices":[{"index":0,"delta":{"content":' };
  events.splice(afterFirstDelta, 0, broken);
  return sseText(events);
}

/** Wire events as the protocol frames them: server-sent events, or Bedrock's binary frames. */
function wireBytes(protocol: FakeProtocol, events: readonly WireEvent[]): Uint8Array {
  if (protocol !== "bedrock") return encoder.encode(sseText(events));
  return eventStreamBytes(events.map((event) => ({ type: event.event ?? "", data: event.data })));
}

function sseText(events: readonly WireEvent[]): string {
  return events
    .map((e) => `${e.event === undefined ? "" : `event: ${e.event}\n`}data: ${e.data}\n\n`)
    .join("");
}

/** Splits text into about three pieces, never inside a surrogate pair. */
function pieces(text: string): string[] {
  const characters = Array.from(text);
  if (characters.length === 0) return [];
  const size = Math.max(1, Math.ceil(characters.length / 3));
  const out: string[] = [];
  for (let i = 0; i < characters.length; i += size) {
    out.push(characters.slice(i, i + size).join(""));
  }
  return out;
}

/** Tool arguments as streamed: an empty first fragment (as real servers send), then pieces. */
function argumentFragments(input: unknown): string[] {
  return ["", ...pieces(JSON.stringify(input ?? {}))];
}

/** Splits a body into chunks of `size` bytes, or after each SSE event, or not at all. */
function split(bytes: Uint8Array, size: number | undefined, perEvent: boolean): Uint8Array[] {
  if (size !== undefined && size > 0) {
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
    return chunks;
  }
  if (!perEvent) return bytes.length === 0 ? [] : [bytes];
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (let i = 1; i < bytes.length; i++) {
    if (bytes[i] === 10 && bytes[i - 1] === 10) {
      chunks.push(bytes.subarray(start, i + 1));
      start = i + 1;
    }
  }
  if (start < bytes.length) chunks.push(bytes.subarray(start));
  return chunks;
}

function httpErrorResponse(reply: Extract<FakeReply, { kind: "http_error" }>): Response {
  const isText = typeof reply.body === "string" || reply.body === undefined;
  const headers = new Headers(reply.headers);
  if (!headers.has("content-type")) {
    headers.set("content-type", isText ? "text/plain; charset=utf-8" : "application/json");
  }
  const body = reply.body === undefined
    ? null
    : typeof reply.body === "string"
    ? reply.body
    : JSON.stringify(reply.body);
  return new Response(body, { status: reply.status, headers });
}

function jsonError(status: number, message: string): Response {
  return Response.json({ type: "error", error: { type: "api_error", message } }, { status });
}

function parseBody(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function modelOf(body: unknown): string {
  if (typeof body === "object" && body !== null && "model" in body) {
    const model = (body as { model: unknown }).model;
    if (typeof model === "string") return model;
  }
  return "fake-model";
}

/** Waits `ms` (forever for Infinity); resolves false early when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = Number.isFinite(ms)
      ? setTimeout(() => {
        signal.removeEventListener("abort", onAbort);
        resolve(true);
      }, ms)
      : undefined;
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

// ---------------------------------------------------------------------------
// OpenAI Responses protocol (`/v1/responses`): generated turns as the API
// streams them (`event:` lines, sequence numbers, one output item per block).

/** A generated turn as Responses events: items in block order, then the terminal event. */
function responsesTurn(turn: TurnSpec): WireEvent[] {
  const events: WireEvent[] = [];
  let sequence = 0;
  const emit = (data: { type: string } & Record<string, unknown>) =>
    events.push({
      event: data.type,
      data: JSON.stringify({ ...data, sequence_number: sequence++ }),
    });
  const response = (status: string, output: unknown[], extra: Record<string, unknown> = {}) => ({
    id: `resp_${turn.messageId}`,
    object: "response",
    created_at: 1_700_000_000,
    status,
    model: turn.model,
    output,
    usage: null,
    ...extra,
  });
  emit({ type: "response.created", response: response("in_progress", []) });
  emit({ type: "response.in_progress", response: response("in_progress", []) });
  const output = turn.blocks.map((block, index) =>
    responsesItem(block, `${turn.messageId}_${index}`, index, emit)
  );
  const usage = { ...DEFAULT_FAKE_USAGE, ...turn.usage };
  const wireUsage = {
    // The Responses API counts cached tokens inside input_tokens, like Chat Completions.
    input_tokens: usage.inputTokens + usage.cacheReadTokens,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.inputTokens + usage.cacheReadTokens + usage.outputTokens,
  };
  const stop = stopReasonOf(turn);
  if (stop === "max_tokens" || stop === "refusal") {
    const reason = stop === "max_tokens" ? "max_output_tokens" : "content_filter";
    emit({
      type: "response.incomplete",
      response: response("incomplete", output, {
        incomplete_details: { reason },
        usage: wireUsage,
      }),
    });
  } else {
    emit({
      type: "response.completed",
      response: response("completed", output, { usage: wireUsage }),
    });
  }
  return events;
}

/** Streams one block as an output item; returns the finished item. */
function responsesItem(
  block: FakeBlock,
  id: string,
  outputIndex: number,
  emit: (data: { type: string } & Record<string, unknown>) => void,
): Record<string, unknown> {
  const at = { output_index: outputIndex };
  switch (block.type) {
    case "text": {
      const itemId = `msg_${id}`;
      const item = { id: itemId, type: "message", status: "in_progress", role: "assistant" };
      const part = (text: string) => ({ type: "output_text", annotations: [], text });
      const ofPart = { ...at, item_id: itemId, content_index: 0 };
      emit({ type: "response.output_item.added", ...at, item: { ...item, content: [] } });
      emit({ type: "response.content_part.added", ...ofPart, part: part("") });
      for (const delta of pieces(block.text)) {
        emit({ type: "response.output_text.delta", ...ofPart, delta });
      }
      emit({ type: "response.output_text.done", ...ofPart, text: block.text });
      emit({ type: "response.content_part.done", ...ofPart, part: part(block.text) });
      const done = { ...item, status: "completed", content: [part(block.text)] };
      emit({ type: "response.output_item.done", ...at, item: done });
      return done;
    }
    case "thinking": {
      // Blank lines separate summary parts, as the parser joins them.
      const parts = block.thinking === "" ? [] : block.thinking.split("\n\n");
      const itemId = `rs_${id}`;
      const encrypted = block.signature ?? `enc_${id}`;
      const item = { id: itemId, type: "reasoning", encrypted_content: encrypted };
      emit({ type: "response.output_item.added", ...at, item: { ...item, summary: [] } });
      parts.forEach((text, summaryIndex) => {
        const ofPart = { ...at, item_id: itemId, summary_index: summaryIndex };
        emit({
          type: "response.reasoning_summary_part.added",
          ...ofPart,
          part: { type: "summary_text", text: "" },
        });
        for (const delta of pieces(text)) {
          emit({ type: "response.reasoning_summary_text.delta", ...ofPart, delta });
        }
        emit({ type: "response.reasoning_summary_text.done", ...ofPart, text });
        emit({
          type: "response.reasoning_summary_part.done",
          ...ofPart,
          part: { type: "summary_text", text },
        });
      });
      const summary = parts.map((text) => ({ type: "summary_text", text }));
      const done = { ...item, summary };
      emit({ type: "response.output_item.done", ...at, item: done });
      return done;
    }
    case "tool_use": {
      const itemId = `fc_${id}`;
      const args = JSON.stringify(block.input ?? {});
      const item = { id: itemId, type: "function_call", call_id: block.id, name: block.name };
      emit({
        type: "response.output_item.added",
        ...at,
        item: { ...item, status: "in_progress", arguments: "" },
      });
      for (const delta of pieces(args)) {
        emit({ type: "response.function_call_arguments.delta", ...at, item_id: itemId, delta });
      }
      emit({
        type: "response.function_call_arguments.done",
        ...at,
        item_id: itemId,
        arguments: args,
      });
      const done = { ...item, status: "completed", arguments: args };
      emit({ type: "response.output_item.done", ...at, item: done });
      return done;
    }
  }
}

/** A text turn with a delta whose data is not JSON after the first delta. */
function malformedResponsesTurn(turn: TurnSpec): string {
  const events = responsesTurn(turn);
  const firstDelta = events.findIndex((e) => e.event === "response.output_text.delta");
  events.splice(firstDelta + 1, 0, {
    event: "response.output_text.delta",
    data: '{"type":"response.output_text.delta","output_index":0,"delta":',
  });
  return sseText(events);
}

// ---------------------------------------------------------------------------
// Gemini protocol (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse`):
// generated turns as Gemini 3 streams them, and its error replies.

/** Any model's streaming path (`v1` or `v1beta`). */
const GEMINI_ROUTE = /^\/v1(?:beta)?\/models\/[^/:]+:streamGenerateContent$/;

/** The model a Gemini request names in its path. */
function geminiModel(path: string): string {
  return /\/models\/([^/:]+):/.exec(path)?.[1] ?? "fake-model";
}

/**
 * The thought signature a generated Gemini turn attaches to its `n`-th
 * signed part: base64, like the real ones, and unique per turn.
 *
 * @param messageId The turn's id (`fake_<n>`, in order of the replies generated).
 * @param n The signed part's position among the turn's signed parts.
 * @returns The signature.
 */
export function fakeGeminiSignature(messageId: string, n = 0): string {
  return btoa(`fake-signature:${messageId}:${n}`);
}

const GEMINI_FINISH_REASONS: Record<FakeStopReason, string> = {
  end_turn: "STOP",
  tool_use: "STOP", // Gemini ends a turn of calls with STOP
  max_tokens: "MAX_TOKENS",
  stop_sequence: "STOP",
  refusal: "SAFETY",
};

/**
 * A generated turn as Gemini 3 streams it: one chunk per text or thought
 * piece (a thinking block's signature on its last piece), one chunk per
 * call (the first call of the turn signed), then a chunk with an empty text
 * part (signed when the turn has no calls), the finish reason and the usage.
 */
function geminiTurn(turn: TurnSpec): WireEvent[] {
  const usage = { ...DEFAULT_FAKE_USAGE, ...turn.usage };
  const prompt = {
    promptTokenCount: usage.inputTokens + usage.cacheReadTokens,
    ...(usage.cacheReadTokens > 0 ? { cachedContentTokenCount: usage.cacheReadTokens } : {}),
  };
  const chunk = (
    parts: unknown[],
    extra: Record<string, unknown> = {},
    counts: object = prompt,
  ) => ({
    data: JSON.stringify({
      candidates: [{ content: { parts, role: "model" }, ...extra, index: 0 }],
      usageMetadata: counts,
      modelVersion: turn.model,
      responseId: `resp_${turn.messageId}`,
    }),
  });
  let signatures = 0;
  const sign = () => ({ thoughtSignature: fakeGeminiSignature(turn.messageId, signatures++) });
  const events: WireEvent[] = [];
  let calls = 0;
  for (const block of turn.blocks) {
    if (block.type === "text") {
      events.push(...pieces(block.text).map((text) => chunk([{ text }])));
    } else if (block.type === "thinking") {
      const texts = pieces(block.thinking);
      if (texts.length === 0) texts.push("");
      events.push(...texts.map((text, index) =>
        chunk([{
          text,
          thought: true,
          ...(index === texts.length - 1 && block.signature !== undefined
            ? { thoughtSignature: block.signature }
            : {}),
        }])
      ));
    } else {
      const call = { name: block.name, args: block.input ?? {}, id: block.id };
      events.push(chunk([{ functionCall: call, ...(calls++ === 0 ? sign() : {}) }]));
    }
  }
  const thoughts = usage.reasoningTokens;
  events.push(
    chunk([{ text: "", ...(calls === 0 ? sign() : {}) }], {
      finishReason: GEMINI_FINISH_REASONS[stopReasonOf(turn)],
    }, {
      ...prompt,
      candidatesTokenCount: usage.outputTokens - thoughts,
      ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
      totalTokenCount: prompt.promptTokenCount + usage.outputTokens,
    }),
  );
  return events;
}

/** A text turn with a chunk that is not JSON after the first text piece. */
function malformedGeminiTurn(model: string, messageId: string): string {
  const events = geminiTurn({ blocks: [{ type: "text", text: "Hello, world" }], model, messageId });
  events.splice(1, 0, { data: '{"candidates":[{"content":{"parts":[{"text":' });
  return sseText(events);
}

/** A Gemini error body: `{"error": {code, message, status, details?}}`. */
function geminiError(
  status: number,
  code: string,
  message: string,
  details?: unknown[],
): FakeReply {
  return {
    kind: "http_error",
    status,
    body: { error: { code: status, message, status: code, ...(details ? { details } : {}) } },
  };
}

/**
 * Gemini's 400 for a prompt over the model's input limit.
 *
 * @returns The reply.
 */
export function geminiContextOverflowReply(): FakeReply {
  return geminiError(
    400,
    "INVALID_ARGUMENT",
    "The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).",
  );
}

/**
 * Gemini's 429 for a per-minute quota: no `retry-after` header, the wait is
 * in a `RetryInfo` detail (as in the recorded `error-429-retry-info.json`).
 *
 * @param retryDelay The `retryDelay` Duration, e.g. `"0.05s"`.
 * @returns The reply.
 */
export function geminiRateLimitReply(retryDelay: string): FakeReply {
  return geminiError(
    429,
    "RESOURCE_EXHAUSTED",
    "You exceeded your current quota, please check your plan and billing details.",
    [
      {
        "@type": "type.googleapis.com/google.rpc.QuotaFailure",
        violations: [{ quotaId: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier" }],
      },
      { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay },
    ],
  );
}

/**
 * Gemini's 503 when the model is overloaded.
 *
 * @returns The reply.
 */
export function geminiOverloadedReply(): FakeReply {
  return geminiError(503, "UNAVAILABLE", "The model is overloaded. Please try again later.");
}

/**
 * Gemini's answer to a bad key: 400 INVALID_ARGUMENT, not 401.
 *
 * @returns The reply.
 */
export function geminiAuthErrorReply(): FakeReply {
  return geminiError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", [
    {
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: "API_KEY_INVALID",
      domain: "googleapis.com",
      metadata: { service: "generativelanguage.googleapis.com" },
    },
  ]);
}

// ---------------------------------------------------------------------------
// Bedrock ConverseStream (`POST /model/{modelId}/converse-stream`): generated
// turns as the service streams them (binary event-stream frames, each JSON
// payload padded with a `p` field as the live service pads it), and its
// error replies (`x-amzn-errortype` names the type, the body only `message`).

/** Any model's streaming path (the model id URL-encoded in one segment). */
const BEDROCK_ROUTE = /^\/model\/[^/]+\/converse-stream$/;

/** The model a Bedrock request names in its path. */
function bedrockModel(path: string): string {
  return decodeURIComponent(/^\/model\/([^/]+)\//.exec(path)?.[1] ?? "fake-model");
}

const BEDROCK_STOP_REASONS: Record<FakeStopReason, string> = {
  end_turn: "end_turn",
  tool_use: "tool_use",
  max_tokens: "max_tokens",
  stop_sequence: "stop_sequence",
  refusal: "content_filtered",
};

/** One ConverseStream member, padded as the live service pads its payloads. */
function bedrockEvent(type: string, payload: Record<string, unknown>): WireEvent {
  return { event: type, data: JSON.stringify({ ...payload, p: "abcdefghijklmnop" }) };
}

/**
 * A generated turn as Bedrock streams it: `messageStart`, each block as its
 * deltas between `contentBlockStart` (tool calls only) and
 * `contentBlockStop`, then `messageStop` and `metadata` with the usage.
 */
function bedrockTurn(turn: TurnSpec): WireEvent[] {
  const usage = { ...DEFAULT_FAKE_USAGE, ...turn.usage };
  const events = [bedrockEvent("messageStart", { role: "assistant" })];
  turn.blocks.forEach((block, index) => events.push(...bedrockBlock(block, index)));
  events.push(
    bedrockEvent("messageStop", { stopReason: BEDROCK_STOP_REASONS[stopReasonOf(turn)] }),
    bedrockEvent("metadata", {
      metrics: { latencyMs: 1 },
      usage: {
        // Bedrock counts cached tokens apart from inputTokens.
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        totalTokens: usage.inputTokens + usage.outputTokens + usage.cacheReadTokens +
          usage.cacheWriteTokens,
        ...(usage.cacheReadTokens > 0 ? { cacheReadInputTokens: usage.cacheReadTokens } : {}),
        ...(usage.cacheWriteTokens > 0 ? { cacheWriteInputTokens: usage.cacheWriteTokens } : {}),
      },
    }),
  );
  return events;
}

function bedrockBlock(block: FakeBlock, contentBlockIndex: number): WireEvent[] {
  const delta = (payload: Record<string, unknown>) =>
    bedrockEvent("contentBlockDelta", { contentBlockIndex, delta: payload });
  const stop = bedrockEvent("contentBlockStop", { contentBlockIndex });
  switch (block.type) {
    case "text":
      return [...pieces(block.text).map((text) => delta({ text })), stop];
    case "thinking":
      return [
        ...pieces(block.thinking).map((text) => delta({ reasoningContent: { text } })),
        ...(block.signature === undefined
          ? []
          : [delta({ reasoningContent: { signature: block.signature } })]),
        stop,
      ];
    case "tool_use":
      return [
        bedrockEvent("contentBlockStart", {
          contentBlockIndex,
          start: { toolUse: { toolUseId: block.id, name: block.name } },
        }),
        ...argumentFragments(block.input).map((input) => delta({ toolUse: { input } })),
        stop,
      ];
  }
}

/** A text turn with a frame whose message checksum is wrong after the first text delta. */
function malformedBedrockTurn(model: string, messageId: string): Uint8Array {
  const events = bedrockTurn({
    blocks: [{ type: "text", text: "Hello, world" }],
    model,
    messageId,
  });
  const before = eventStreamBytes(
    events.slice(0, 2).map((e) => ({ type: e.event!, data: e.data })),
  );
  const broken = eventStreamBytes([{ type: "contentBlockDelta", data: events[2]!.data }]);
  broken[broken.length - 1]! ^= 0xff;
  const after = eventStreamBytes(events.slice(3).map((e) => ({ type: e.event!, data: e.data })));
  return concatBytes([before, broken, after]);
}

/**
 * A Bedrock error reply: the type in `x-amzn-errortype` (with the service's
 * URI suffix), the body `{"message": …}`.
 *
 * @param status The HTTP status.
 * @param type The error type, e.g. `ThrottlingException`.
 * @param message The message.
 * @returns The reply.
 */
export function bedrockErrorReply(status: number, type: string, message: string): FakeReply {
  return {
    kind: "http_error",
    status,
    headers: {
      "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
      "x-amzn-requestid": "00000000-0000-4000-8000-000000000000",
    },
    body: { message },
  };
}

/**
 * Bedrock's 429 for too many requests or tokens.
 *
 * @returns The reply.
 */
export function bedrockThrottlingReply(): FakeReply {
  return bedrockErrorReply(
    429,
    "ThrottlingException",
    "Too many tokens, please wait before trying again.",
  );
}

/**
 * Bedrock's 503 when the model is busy.
 *
 * @returns The reply.
 */
export function bedrockUnavailableReply(): FakeReply {
  return bedrockErrorReply(
    503,
    "ServiceUnavailableException",
    "Bedrock is unable to process your request.",
  );
}

/**
 * Bedrock's 400 for a prompt over the model's context window.
 *
 * @returns The reply.
 */
export function bedrockContextOverflowReply(): FakeReply {
  return bedrockErrorReply(400, "ValidationException", "Input is too long for requested model.");
}
