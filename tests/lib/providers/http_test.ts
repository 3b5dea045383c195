/**
 * The provider HTTP layer: error classification of real server bodies (both
 * protocols and the common compatible servers), retry-after, idle timeouts,
 * cut connections, aborts, and keys that never reach an error.
 */
import assert from "node:assert/strict";
import { ProviderError, type ProviderErrorKind } from "../../../lib/errors.ts";
import {
  classifyHttpError,
  classifyStreamError,
  isAbortError,
  parseRetryAfter,
  type SseRequest,
  streamSse,
  toAbortError,
} from "../../../lib/providers/http.ts";
import { type SseEvent, SseParser } from "../../../lib/providers/sse.ts";
import {
  authErrorReply,
  contextOverflowReply,
  FAKE_PATHS,
  type FakeBlock,
  FakeLlmServer,
  type FakeProtocol,
  overloadedReply,
  PROVIDER_FIXTURES_DIR,
  rateLimitReply,
  withFakeServer,
} from "../../support/fake_llm_server.ts";

const ANTHROPIC = "https://api.anthropic.com/v1/messages";
const OPENAI = "https://api.openai.com/v1/chat/completions";
const FAKE_KEY = "sk-ant-api03-FAKEKEY-do-not-leak-8f2e1c";
/** A delay no test outlasts: what comes after it shows an abort was not heeded. */
const NEVER_MS = 120_000;
/** "Promptly", generous for a machine saturated by other work: half of {@linkcode NEVER_MS}. */
const PROMPTLY_MS = 60_000;
const BLOCKS: readonly FakeBlock[] = [
  { type: "text", text: "Hello from the fake server" },
  { type: "tool_use", id: "toolu_1", name: "read", input: { path: "README.md" } },
];

interface Case {
  name: string;
  status: number;
  body: string | Record<string, unknown> | unknown[];
  kind: ProviderErrorKind;
  url?: string;
  headers?: Record<string, string>;
  /** The message must contain this. */
  says?: string;
}

/** Real error bodies (see shared/reference/provider-protocols.md §1.5, §2.4, and the issues cited there). */
const CASES: readonly Case[] = [
  {
    name: "Anthropic 529 overloaded",
    status: 529,
    body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    kind: "overloaded",
  },
  {
    name: "Anthropic prompt is too long",
    status: 400,
    body: {
      type: "error",
      error: {
        type: "invalid_request_error",
        message: "prompt is too long: 208421 tokens > 200000 maximum",
      },
      request_id: "req_011CSNYqawDMMLh8zPLmMmJ1",
    },
    kind: "context_overflow",
    says: "[request req_011CSNYqawDMMLh8zPLmMmJ1]",
  },
  {
    name: "Anthropic input length and max_tokens exceed context limit",
    status: 400,
    body: {
      type: "error",
      error: {
        type: "invalid_request_error",
        message: "input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, " +
          "decrease input length or `max_tokens` and try again",
      },
    },
    kind: "context_overflow",
  },
  {
    name: "Anthropic 401 invalid x-api-key",
    status: 401,
    body: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } },
    kind: "auth",
    says: "check the API key",
  },
  {
    name: "Anthropic 403 permission",
    status: 403,
    body: { type: "error", error: { type: "permission_error", message: "not allowed" } },
    kind: "auth",
  },
  {
    name: "Anthropic 404 unknown model",
    status: 404,
    body: { type: "error", error: { type: "not_found_error", message: "model: sonnet4" } },
    kind: "invalid_request",
    says: "not_found_error: model: sonnet4",
  },
  {
    name: "Anthropic 413 from Cloudflare (no top-level type)",
    status: 413,
    body: { error: { type: "request_too_large", message: "Request exceeds the maximum size" } },
    kind: "context_overflow",
  },
  {
    name: "Anthropic 429 rate limit",
    status: 429,
    body: {
      type: "error",
      error: {
        type: "rate_limit_error",
        message: "This request would exceed your account's rate limit. Please try again later.",
      },
    },
    headers: { "retry-after": "7" },
    kind: "rate_limit",
  },
  {
    name: "Anthropic 500 api_error",
    status: 500,
    body: { type: "error", error: { type: "api_error", message: "Overloaded" }, request_id: null },
    kind: "server",
  },
  {
    name: "Anthropic 400 lone surrogate",
    status: 400,
    body: {
      type: "error",
      error: {
        type: "invalid_request_error",
        message:
          "The request body is not valid JSON: no low surrogate in string: line 1 column 129185",
      },
    },
    kind: "invalid_request",
  },
  {
    name: "OpenAI 401 echoing a masked key",
    url: OPENAI,
    status: 401,
    body: {
      error: {
        message: "Incorrect API key provided: sk-VKMIs***************wjh3. You can find your API " +
          "key at https://platform.openai.com/account/api-keys.",
        type: "invalid_request_error",
        param: null,
        code: "invalid_api_key",
      },
    },
    kind: "auth",
    says: "api.openai.com answered 401 invalid_api_key: Incorrect API key provided: [redacted]",
  },
  {
    name: "OpenAI 429 rate limit with a retry hint in the message",
    url: OPENAI,
    status: 429,
    body: {
      error: {
        message: "Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): " +
          "Limit 30000, Used 29937, Requested 385. Please try again in 644ms.",
        type: "tokens",
        param: null,
        code: "rate_limit_exceeded",
      },
    },
    kind: "rate_limit",
  },
  {
    name: "OpenAI 429 insufficient_quota (not retryable)",
    url: OPENAI,
    status: 429,
    body: {
      error: {
        message: "You exceeded your current quota, please check your plan and billing details.",
        type: "insufficient_quota",
        param: null,
        code: "insufficient_quota",
      },
    },
    kind: "invalid_request",
    says: "retrying will not help",
  },
  {
    name: "OpenAI 429 request too large for the TPM limit (not retryable)",
    url: OPENAI,
    status: 429,
    body: {
      error: {
        message: "Request too large for gpt-4o on tokens per min (TPM): Limit 30000, Requested " +
          "342389. The input or output tokens must be reduced in order to run successfully.",
        type: "tokens",
        code: "rate_limit_exceeded",
      },
    },
    kind: "invalid_request",
  },
  {
    name: "OpenAI context_length_exceeded",
    url: OPENAI,
    status: 400,
    body: {
      error: {
        message: "This model's maximum context length is 128000 tokens. However, your messages " +
          "resulted in 130412 tokens. Please reduce the length of the messages.",
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    },
    kind: "context_overflow",
  },
  {
    name: "OpenAI GPT-5 configured input limit",
    url: OPENAI,
    status: 400,
    body: {
      error: {
        message: "Input tokens exceed the configured limit of 272000 tokens. Your messages " +
          "resulted in 289650 tokens. Please reduce the length of the messages.",
        type: "invalid_request_error",
        code: null,
      },
    },
    kind: "context_overflow",
  },
  {
    name: "OpenAI exceeds the context window",
    url: OPENAI,
    status: 400,
    body: {
      error: {
        message: "Your input exceeds the context window of this model. Please adjust your input " +
          "and try again.",
        type: "invalid_request_error",
        param: "input",
        code: "context_length_exceeded",
      },
    },
    kind: "context_overflow",
  },
  {
    name: "OpenAI unsupported parameter",
    url: OPENAI,
    status: 400,
    body: {
      error: {
        message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use " +
          "'max_completion_tokens' instead.",
        type: "invalid_request_error",
        param: "max_tokens",
        code: "unsupported_parameter",
      },
    },
    kind: "invalid_request",
  },
  {
    name: "OpenAI 503 overloaded",
    url: OPENAI,
    status: 503,
    body: {
      error: { message: "The server is overloaded or not ready yet.", type: "server_error" },
    },
    kind: "overloaded",
  },
  {
    name: "OpenAI 500 server_error",
    url: OPENAI,
    status: 500,
    body: { error: { message: "The server had an error", type: "server_error", code: null } },
    kind: "server",
  },
  {
    name: "proxy 502 HTML page",
    status: 502,
    body: "<html>\n<head><title>502 Bad Gateway</title></head>\n</html>",
    kind: "server",
    says: "502 Bad Gateway",
  },
  {
    name: "DeepSeek maximum context length",
    url: "https://api.deepseek.com/chat/completions",
    status: 400,
    body: {
      error: {
        message: "This model's maximum context length is 131072 tokens. However, you requested " +
          "131134 tokens (122942 in the messages, 8192 in the completion). Please reduce the " +
          "length of the messages or completion.",
        type: "invalid_request_error",
        param: null,
        code: "invalid_request_error",
      },
    },
    kind: "context_overflow",
  },
  {
    name: "vLLM flat error shape",
    url: "http://gpu-box:8000/v1/chat/completions",
    status: 400,
    body: {
      object: "error",
      message:
        "This model's maximum context length is 16384 tokens. However, you requested 19591 " +
        "tokens (9591 in the messages, 10000 in the completion). Please reduce the length of the " +
        "messages or completion. None",
      type: "BadRequestError",
      param: null,
      code: 400,
    },
    kind: "context_overflow",
    says: "gpu-box:8000 answered 400 BadRequestError: This model's maximum context length",
  },
  {
    name: "vLLM decoder prompt longer than the maximum model length",
    status: 400,
    body: {
      object: "error",
      message:
        "The decoder prompt (length 21535) is longer than the maximum model length of 16384.",
      type: "BadRequestError",
      code: 400,
    },
    kind: "context_overflow",
  },
  {
    name: "llama.cpp exceed_context_size_error (400)",
    url: "http://127.0.0.1:8080/v1/chat/completions",
    status: 400,
    body: {
      error: {
        code: 400,
        message: "the request exceeds the available context size. try increasing the context " +
          "size or enable context shift",
        type: "exceed_context_size_error",
        n_prompt_tokens: 14429,
        n_ctx: 8192,
      },
    },
    kind: "context_overflow",
  },
  {
    name: "llama.cpp exceed_context_size_error (older servers answered 500)",
    status: 500,
    body: {
      error: {
        code: 500,
        message: "the request exceeds the available context size, try increasing it",
        type: "exceed_context_size_error",
      },
    },
    kind: "context_overflow",
  },
  {
    name: "OpenRouter endpoint maximum context length",
    url: "https://openrouter.ai/api/v1/chat/completions",
    status: 400,
    body: {
      error: {
        message: "This endpoint's maximum context length is 32768 tokens. However, you requested " +
          "about 42832 tokens (42832 of text input). Please reduce the length of either one, or " +
          'use the "middle-out" transform to compress your prompt automatically.',
        code: 400,
        metadata: { provider_name: null },
      },
    },
    kind: "context_overflow",
  },
  {
    name: "OpenRouter upstream error in metadata.raw",
    url: "https://openrouter.ai/api/v1/chat/completions",
    status: 400,
    body: {
      error: {
        message: "Provider returned error",
        code: 400,
        metadata: {
          raw: JSON.stringify({
            error: {
              message: "This model's maximum context length is 262144 tokens. However, your " +
                "messages resulted in 262897 tokens. Please reduce the length of the messages.",
              type: "Bad Request",
              code: 400,
            },
          }),
          provider_name: "Nvidia",
        },
      },
    },
    kind: "context_overflow",
    says: "Provider returned error (upstream: This model's maximum context length is 262144",
  },
  {
    name: "Groq 413 request too large for the TPM limit (not retryable)",
    url: "https://api.groq.com/openai/v1/chat/completions",
    status: 413,
    body: {
      error: {
        message: "Request too large for model `llama-3.3-70b-versatile` in organization `org_x` " +
          "service tier `on_demand` on tokens per minute (TPM): Limit 6000, Requested 14810, " +
          "please reduce your message size and try again.",
        type: "tokens",
        code: "rate_limit_exceeded",
      },
    },
    kind: "invalid_request",
  },
  {
    name: "Groq context overflow",
    status: 400,
    body: {
      error: {
        message: "Please reduce the length of the messages or completion.",
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    },
    kind: "context_overflow",
  },
  {
    name: "Mistral too large for model",
    url: "https://api.mistral.ai/v1/chat/completions",
    status: 400,
    body: {
      object: "error",
      message: "Prompt contains 40123 tokens and 0 draft tokens, too large for model with 32768 " +
        "maximum context length",
      type: "invalid_request_error",
      param: null,
      code: null,
    },
    kind: "context_overflow",
  },
  {
    name: "xAI maximum prompt length",
    url: "https://api.x.ai/v1/chat/completions",
    status: 400,
    body: {
      code: "Client specified an invalid argument",
      error: "This model's maximum prompt length is 131072 but the request contains 537812 tokens.",
    },
    kind: "context_overflow",
  },
  {
    name: "Ollama input exceeds the context length",
    url: "http://localhost:11434/v1/chat/completions",
    status: 400,
    body: { error: "the input length exceeds the context length" },
    kind: "context_overflow",
  },
  {
    name: "Ollama unknown model",
    url: "http://localhost:11434/v1/chat/completions",
    status: 404,
    body: { error: "model 'llama9' not found, try pulling it first" },
    kind: "invalid_request",
    says: "localhost:11434 answered 404: model 'llama9' not found",
  },
  {
    name: "LM Studio context the overflows",
    status: 400,
    body: {
      error:
        "Trying to keep the first 10136 tokens when context the overflows. However, the model " +
        "is loaded with context length of only 7866 tokens, which is not enough.",
    },
    kind: "context_overflow",
  },
  {
    name: "LM Studio (MLX) context size has been exceeded",
    status: 400,
    body: { error: { message: "Context size has been exceeded.", type: "invalid_request_error" } },
    kind: "context_overflow",
  },
  {
    name: "Azure OpenAI context_length_exceeded",
    url:
      "https://example.openai.azure.com/openai/deployments/gpt4o/chat/completions?api-version=2024-02-01",
    status: 400,
    body: {
      error: {
        code: "context_length_exceeded",
        message: "This model's maximum context length is 8192 tokens. However, your messages " +
          "resulted in 9000 tokens. Please reduce the length of the messages.",
        param: "messages",
        type: "invalid_request_error",
      },
    },
    kind: "context_overflow",
  },
  {
    name: "Azure OpenAI 429 with a string code",
    status: 429,
    body: {
      error: {
        code: "429",
        message:
          "Requests to the ChatCompletions_Create Operation have exceeded token rate limit " +
          "of your current OpenAI S0 pricing tier.",
      },
    },
    kind: "rate_limit",
  },
  {
    name: "Gemini OpenAI endpoint (array) input token count",
    status: 400,
    body: [{
      error: {
        code: 400,
        message: "The input token count (1200293) exceeds the maximum number of tokens allowed " +
          "(1048576).",
        status: "INVALID_ARGUMENT",
      },
    }],
    kind: "context_overflow",
  },
  { name: "Cerebras 413 with no body", status: 413, body: "", kind: "context_overflow" },
  {
    name: "408 request timeout",
    status: 408,
    body: { type: "error", error: { type: "timeout_error", message: "Request timed out" } },
    kind: "timeout",
  },
];

for (const c of CASES) {
  Deno.test(`classifyHttpError: ${c.name} → ${c.kind}`, () => {
    const url = c.url ?? ANTHROPIC;
    const text = typeof c.body === "string" ? c.body : JSON.stringify(c.body);
    const error = classifyHttpError(c.status, text, new Headers(c.headers), url);
    assert.ok(error instanceof ProviderError);
    assert.equal(error.kind, c.kind, error.message);
    assert.equal(error.status, c.status);
    assert.ok(error.message.startsWith(`${new URL(url).host} answered ${c.status}`), error.message);
    assert.ok(!error.message.includes("?api-version"), "no query string in messages");
    if (c.says !== undefined) assert.ok(error.message.includes(c.says), error.message);
  });
}

Deno.test("classifyHttpError: the message is host, status, type and the server's message", () => {
  const body = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
  const error = classifyHttpError(529, body, new Headers(), `${ANTHROPIC}?beta=true`);
  assert.equal(error.message, "api.anthropic.com answered 529 overloaded_error: Overloaded");
  assert.ok(error.retryable);
});

Deno.test("classifyHttpError: masked keys echoed by a server are removed", () => {
  const body = JSON.stringify({
    error: { message: "Incorrect API key provided: sk-VKMIs***wjh3.", code: "invalid_api_key" },
  });
  const error = classifyHttpError(401, body, new Headers(), OPENAI);
  assert.ok(!error.message.includes("VKMIs"), error.message);
  assert.ok(!error.message.includes("wjh3"), error.message);
});

Deno.test("classifyHttpError: retry-after header, else the server's 'try again in' hint", () => {
  const headers = new Headers({ "retry-after": "7" });
  assert.equal(classifyHttpError(429, "{}", headers, ANTHROPIC).retryAfterMs, 7000);
  const hinted = CASES.find((c) => c.name.startsWith("OpenAI 429 rate limit"))!;
  const error = classifyHttpError(429, JSON.stringify(hinted.body), new Headers(), OPENAI);
  assert.equal(error.retryAfterMs, 644);
  const groq =
    '{"error":{"message":"Rate limit reached. Please try again in 4.77s.","code":"rate_limit_exceeded"}}';
  assert.equal(classifyHttpError(429, groq, new Headers(), OPENAI).retryAfterMs, 4770);
  assert.equal(classifyHttpError(500, "{}", new Headers(), OPENAI).retryAfterMs, undefined);
});

Deno.test("classifyHttpError: long bodies are cut in the message", () => {
  const body = JSON.stringify({ error: { message: "x".repeat(50_000) } });
  const error = classifyHttpError(400, body, new Headers(), OPENAI);
  assert.ok(error.message.length < 1200, `message is ${error.message.length} chars`);
});

Deno.test("parseRetryAfter: seconds, fractions, HTTP dates, retry-after-ms first", () => {
  assert.equal(parseRetryAfter(new Headers()), undefined);
  assert.equal(parseRetryAfter(new Headers({ "retry-after": "1" })), 1000);
  assert.equal(parseRetryAfter(new Headers({ "retry-after": "0.5" })), 500);
  assert.equal(parseRetryAfter(new Headers({ "retry-after": "0" })), 0);
  assert.equal(parseRetryAfter(new Headers({ "retry-after-ms": "250.5" })), 250.5);
  assert.equal(
    parseRetryAfter(new Headers({ "retry-after-ms": "300", "retry-after": "20" })),
    300,
  );
  const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
  const fromDate = parseRetryAfter(new Headers({ "retry-after": inTenSeconds }));
  assert.ok(fromDate !== undefined && fromDate > 8_000 && fromDate <= 10_000, String(fromDate));
  const past = new Date(Date.now() - 60_000).toUTCString();
  assert.equal(parseRetryAfter(new Headers({ "retry-after": past })), 0);
  assert.equal(parseRetryAfter(new Headers({ "retry-after": "soon" })), undefined);
  assert.equal(parseRetryAfter(new Headers({ "retry-after": "-5" })), undefined);
  assert.equal(parseRetryAfter(new Headers({ "retry-after-ms": "abc", "retry-after": "2" })), 2000);
});

/** The last `data:` payload of a recorded fixture. */
async function lastFixtureEvent(path: string): Promise<SseEvent> {
  const parser = new SseParser();
  const events = [
    ...parser.push(await Deno.readFile(`${PROVIDER_FIXTURES_DIR}${path}`)),
    ...parser.end(),
  ];
  return events.filter((e) => e.data !== "[DONE]").at(-1)!;
}

Deno.test("classifyStreamError: Anthropic mid-stream overloaded_error (recorded)", async () => {
  const event = await lastFixtureEvent("anthropic/error-overloaded-midstream.sse");
  assert.equal(event.type, "error");
  const error = classifyStreamError(JSON.parse(event.data), ANTHROPIC);
  assert.equal(error.kind, "overloaded");
  assert.equal(
    error.message,
    "api.anthropic.com sent an error mid-stream overloaded_error: Overloaded",
  );
});

Deno.test("classifyStreamError: Groq tool_use_failed error event (recorded)", async () => {
  const event = await lastFixtureEvent("openai/groq-error-event-no-done.sse");
  const error = classifyStreamError(event.data, "https://api.groq.com/openai/v1/chat/completions");
  assert.equal(error.kind, "invalid_request");
  assert.equal(error.status, 400);
  assert.match(error.message, /tool_use_failed: Tool call validation failed/);
});

Deno.test("classifyStreamError: OpenRouter error chunk with code 400 (recorded)", async () => {
  const event = await lastFixtureEvent("openai/openrouter-comments-error-chunk.sse");
  const error = classifyStreamError(
    JSON.parse(event.data),
    "https://openrouter.ai/api/v1/chat/completions",
  );
  assert.equal(error.kind, "invalid_request");
  assert.equal(error.status, 400);
  assert.ok(error.message.endsWith(": Token limit reached"), error.message);
});

Deno.test("classifyStreamError: other mid-stream shapes", () => {
  const cases: [unknown, ProviderErrorKind][] = [
    [{
      error: {
        message: "The server experienced an error while processing your request.",
        type: "server_error",
        param: null,
        code: null,
      },
    }, "server"],
    [{ error: { code: "server_error", message: "Provider disconnected unexpectedly" } }, "server"],
    [
      { object: "error", message: "bad tool schema", type: "BadRequestError", code: 400 },
      "invalid_request",
    ],
    [{ type: "error", error: { type: "rate_limit_error", message: "Rate limited" } }, "rate_limit"],
    [{ type: "error", error: { type: "api_error", message: "Internal server error" } }, "server"],
    [{
      error: {
        code: "context_length_exceeded",
        message: "Your input exceeds the context window of this model.",
      },
    }, "context_overflow"],
    [{ error: { message: "something odd" } }, "server"],
    ["not json at all", "server"],
  ];
  for (const [payload, kind] of cases) {
    const error = classifyStreamError(payload, OPENAI);
    assert.equal(error.kind, kind, `${JSON.stringify(payload)} → ${error.message}`);
    assert.ok(error.message.startsWith("api.openai.com sent an error mid-stream"), error.message);
  }
});

Deno.test("isAbortError and toAbortError", () => {
  assert.ok(isAbortError(new DOMException("x", "AbortError")));
  assert.ok(!isAbortError(new DOMException("x", "TimeoutError")));
  assert.ok(!isAbortError(new ProviderError("timeout", "slow")));
  assert.ok(!isAbortError("AbortError"));
  const controller = new AbortController();
  controller.abort("user pressed Esc");
  const error = toAbortError(controller.signal);
  assert.ok(isAbortError(error));
  assert.equal(error.cause, "user pressed Esc");
  const plain = new AbortController();
  plain.abort();
  assert.equal(toAbortError(plain.signal), plain.signal.reason);
});

// --- against the fake server ---------------------------------------------------------------

function request(
  server: FakeLlmServer,
  protocol: FakeProtocol,
  overrides: Partial<SseRequest> = {},
): SseRequest {
  return {
    url: `${server.url}${FAKE_PATHS[protocol]}`,
    headers: { "x-api-key": FAKE_KEY, authorization: `Bearer ${FAKE_KEY}` },
    body: { model: "test-model", stream: true },
    signal: new AbortController().signal,
    idleTimeoutMs: 5_000,
    ...overrides,
  };
}

/** Collects events until the stream ends or throws; returns both (batches flattened). */
async function drain(req: SseRequest): Promise<{ events: SseEvent[]; error: unknown }> {
  const events: SseEvent[] = [];
  try {
    for await (const batch of streamSse(req)) {
      assert.ok(batch.length > 0, "no empty batch is yielded");
      events.push(...batch);
    }
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

function assertNoKey(error: unknown): void {
  assert.ok(error instanceof Error);
  assert.ok(!String(error).includes(FAKE_KEY), String(error));
  assert.ok(!(error.stack ?? "").includes(FAKE_KEY), error.stack ?? "");
  assert.ok(!String(error).includes("FAKEKEY"), String(error));
}

Deno.test("streamSse: POSTs JSON with the given headers and yields the events", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({ kind: "turn", blocks: BLOCKS, chunkSize: 3 });
    const { events, error } = await drain(request(server, "anthropic"));
    assert.equal(error, undefined);
    assert.equal(events[0]?.type, "message_start");
    assert.equal(events.at(-1)?.type, "message_stop");
    const text = events
      .filter((e) => e.type === "content_block_delta")
      .map((e) => JSON.parse(e.data).delta)
      .filter((d) => d.type === "text_delta")
      .map((d) => d.text)
      .join("");
    assert.equal(text, "Hello from the fake server");
    const [recorded] = server.requests;
    assert.equal(recorded?.headers["content-type"], "application/json");
    assert.equal(recorded?.headers["accept"], "text/event-stream");
    assert.equal(recorded?.headers["x-api-key"], FAKE_KEY);
    assert.deepEqual(recorded?.body, { model: "test-model", stream: true });
  });
});

Deno.test("streamSse: lone surrogates in the body are sent as U+FFFD, for every provider", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({ kind: "turn", blocks: BLOCKS });
    const req = request(server, "openai");
    req.body = { messages: [{ role: "user", content: "half \ud83d emoji", nested: ["\udc00"] }] };
    const { error } = await drain(req);
    assert.equal(error, undefined);
    assert.deepEqual(server.requests[0]?.body, {
      messages: [{ role: "user", content: "half \uFFFD emoji", nested: ["\uFFFD"] }],
    });
  });
});

Deno.test("streamSse: each scripted HTTP error is classified", async () => {
  await withFakeServer(async (server) => {
    const cases: [FakeProtocol, ReturnType<typeof overloadedReply>, ProviderErrorKind, number][] = [
      ["anthropic", overloadedReply(), "overloaded", 529],
      ["openai", overloadedReply("openai"), "overloaded", 503],
      ["anthropic", contextOverflowReply("anthropic"), "context_overflow", 400],
      ["openai", contextOverflowReply("openai"), "context_overflow", 400],
      ["anthropic", rateLimitReply(1), "rate_limit", 429],
      ["openai", rateLimitReply(2, "openai"), "rate_limit", 429],
      ["anthropic", authErrorReply("anthropic"), "auth", 401],
      ["openai", authErrorReply("openai"), "auth", 401],
      ["openai", { kind: "http_error", status: 500, body: "oops" }, "server", 500],
    ];
    for (const [protocol, reply, kind, status] of cases) {
      server.enqueue(reply);
      const { events, error } = await drain(request(server, protocol));
      assert.equal(events.length, 0);
      assert.ok(error instanceof ProviderError, String(error));
      assert.equal(error.kind, kind, error.message);
      assert.equal(error.status, status);
      assert.ok(
        error.message.startsWith(`127.0.0.1:${new URL(server.url).port} answered ${status}`),
      );
      assertNoKey(error);
    }
  });
});

Deno.test("streamSse: retry-after reaches the error", async () => {
  await withFakeServer(async (server) => {
    server.enqueue(rateLimitReply(1));
    const { error } = await drain(request(server, "anthropic"));
    assert.ok(error instanceof ProviderError);
    assert.equal(error.retryAfterMs, 1000);
    server.enqueue({
      kind: "http_error",
      status: 503,
      headers: { "retry-after-ms": "120" },
      body: {},
    });
    const second = await drain(request(server, "openai"));
    assert.ok(second.error instanceof ProviderError);
    assert.equal(second.error.retryAfterMs, 120);
  });
});

Deno.test("streamSse: a server that echoes the key never puts it in the error", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({
      kind: "http_error",
      status: 401,
      body: {
        error: { message: `Bad key ${FAKE_KEY} for header Authorization: Bearer ${FAKE_KEY}` },
      },
    });
    const { error } = await drain(request(server, "openai"));
    assert.ok(error instanceof ProviderError);
    assert.equal(error.kind, "auth");
    assertNoKey(error);
    assert.match(error.message, /\[redacted\]/);
    // A key without a recognisable shape is removed because it is a request header value.
    const azureKey = "7f3e9c1d5b2a4e6f80913c5d";
    server.enqueue({
      kind: "http_error",
      status: 401,
      body: { error: { code: "401", message: `Access denied for key ${azureKey}.` } },
    });
    const second = await drain(request(server, "openai", { headers: { "api-key": azureKey } }));
    assert.ok(second.error instanceof ProviderError);
    assert.ok(!String(second.error).includes(azureKey), String(second.error));
    assert.ok(!(second.error.stack ?? "").includes(azureKey));
  });
});

Deno.test("streamSse: a large error body is read only in part and still classified", async () => {
  await withFakeServer(async (server) => {
    const message = `prompt is too long: 300000 tokens > 200000 maximum ${
      "padding ".repeat(40_000)
    }`;
    server.enqueue({
      kind: "http_error",
      status: 400,
      body: { type: "error", error: { type: "invalid_request_error", message } },
    });
    const { error } = await drain(request(server, "anthropic"));
    assert.ok(error instanceof ProviderError);
    // The body is cut at 64 KB, so it is no longer JSON: the text itself is classified.
    assert.equal(error.kind, "context_overflow");
    assert.ok(error.message.length < 1200);
  });
});

Deno.test("streamSse: idle timeout while waiting for the headers", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({ kind: "sse", body: "data: late\n\n", headerDelayMs: 5_000 });
    const start = performance.now();
    const { error } = await drain(request(server, "openai", { idleTimeoutMs: 200 }));
    const elapsed = performance.now() - start;
    assert.ok(error instanceof ProviderError, String(error));
    assert.equal(error.kind, "timeout");
    assert.ok(error.retryable);
    assert.match(
      error.message,
      /^127\.0\.0\.1:\d+ sent nothing for 200 ms while we waited for response headers/,
    );
    // A lower bound only: a busy machine makes it later, never sooner.
    assert.ok(elapsed >= 190, `took ${elapsed} ms`);
    assertNoKey(error);
  });
});

Deno.test("streamSse: idle timeout between chunks, after the first events", async () => {
  await withFakeServer(async (server) => {
    const path = "anthropic/text-hello.sse";
    const full = await Deno.readTextFile(`${PROVIDER_FIXTURES_DIR}${path}`);
    const afterBytes = full.indexOf("event: content_block_start");
    server.enqueue({ kind: "stall", afterBytes, source: { kind: "fixture", path } });
    const { events, error } = await drain(request(server, "anthropic", { idleTimeoutMs: 200 }));
    assert.ok(error instanceof ProviderError, String(error));
    assert.equal(error.kind, "timeout");
    assert.match(error.message, /sent nothing for 200 ms while we waited for the next chunk/);
    assert.deepEqual(events.map((e) => e.type), ["message_start"]);
  });
});

Deno.test("streamSse: a slow consumer does not trip the idle timeout", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({ kind: "turn", blocks: BLOCKS });
    const events: SseEvent[] = [];
    let batches = 0;
    for await (const batch of streamSse(request(server, "openai", { idleTimeoutMs: 100 }))) {
      events.push(...batch);
      if (++batches === 1) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.equal(events.at(-1)?.data, "[DONE]");
  });
});

Deno.test("streamSse: a cut connection is a network error after the events before it", async () => {
  await withFakeServer(async (server) => {
    const path = "openai/text-usage.sse";
    const full = await Deno.readTextFile(`${PROVIDER_FIXTURES_DIR}${path}`);
    const afterBytes = full.indexOf("\n\n") + 2 + 10; // one whole event and a bit of the next
    server.enqueue({ kind: "cut", afterBytes, source: { kind: "fixture", path } });
    const { events, error } = await drain(request(server, "openai"));
    assert.ok(error instanceof ProviderError, String(error));
    assert.equal(error.kind, "network");
    assert.ok(error.retryable);
    assert.match(
      error.message,
      /^the connection to 127\.0\.0\.1:\d+ broke while reading the next chunk/,
    );
    assert.equal(events.length, 1);
    assertNoKey(error);
  });
});

Deno.test("streamSse: a refused connection is a network error without the URL's query", async () => {
  const server = await FakeLlmServer.start();
  const url = `${server.url}/v1/chat/completions?key=${FAKE_KEY}`;
  await server.close();
  const { error } = await drain({
    url,
    headers: { authorization: `Bearer ${FAKE_KEY}` },
    body: {},
    signal: new AbortController().signal,
    idleTimeoutMs: 5_000,
  });
  assert.ok(error instanceof ProviderError, String(error));
  assert.equal(error.kind, "network");
  assert.match(error.message, /^could not get a response from 127\.0\.0\.1:\d+/);
  assertNoKey(error);
});

Deno.test("streamSse: an already aborted signal throws an abort error before any request", async () => {
  await withFakeServer(async (server) => {
    const controller = new AbortController();
    controller.abort();
    const { error } = await drain(request(server, "anthropic", { signal: controller.signal }));
    assert.ok(isAbortError(error), String(error));
    assert.equal(server.requests.length, 0);
  });
});

Deno.test("streamSse: abort while waiting for the headers stops promptly", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({ kind: "sse", body: "data: late\n\n", headerDelayMs: NEVER_MS });
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 50);
    const start = performance.now();
    const { error } = await drain(request(server, "openai", { signal: controller.signal }));
    clearTimeout(timer);
    assert.ok(isAbortError(error), String(error));
    assert.ok(performance.now() - start < PROMPTLY_MS, "did not wait for the headers");
  });
});

Deno.test("streamSse: abort during a slow stream stops promptly and keeps the reason", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({ kind: "slow", delayMs: NEVER_MS, source: { kind: "turn", blocks: BLOCKS } });
    const controller = new AbortController();
    const events: SseEvent[] = [];
    const start = performance.now();
    let caught: unknown;
    try {
      for await (
        const batch of streamSse(request(server, "anthropic", { signal: controller.signal }))
      ) {
        events.push(...batch);
        controller.abort("user pressed Esc");
      }
    } catch (error) {
      caught = error;
    }
    assert.ok(isAbortError(caught), String(caught));
    assert.equal((caught as Error).cause, "user pressed Esc");
    assert.equal(events.length, 1);
    assert.ok(performance.now() - start < PROMPTLY_MS, "did not wait for the next chunk");
  });
});

Deno.test("streamSse: stopping iteration early releases the response body", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({ kind: "slow", delayMs: 20, source: { kind: "turn", blocks: BLOCKS } });
    for await (const batch of streamSse(request(server, "anthropic"))) {
      assert.equal(batch[0]?.type, "message_start");
      break;
    }
    // The op and resource sanitizers fail this test if the body or a timer leaked.
  });
});

Deno.test("streamSse: the events of one network chunk come as one batch", async () => {
  await withFakeServer(async (server) => {
    // A small body is sent in a single chunk.
    server.enqueue({ kind: "sse", body: "data: one\n\ndata: two\n\n" });
    const batches: string[][] = [];
    for await (const batch of streamSse(request(server, "openai"))) {
      batches.push(batch.map((event) => event.data));
    }
    assert.deepEqual(batches, [["one", "two"]]);
  });
});

Deno.test("streamSse: a trailing event without a blank line is dropped (V22)", async () => {
  await withFakeServer(async (server) => {
    server.enqueue({ kind: "sse", body: "data: one\n\ndata: two" });
    const { events, error } = await drain(request(server, "openai"));
    assert.equal(error, undefined);
    assert.deepEqual(events.map((e) => e.data), ["one"]);
  });
});

Deno.test("streamSse: a redirect to another origin is refused and the key never goes there", async () => {
  await withFakeServer(async (elsewhere) => {
    await withFakeServer(async (server) => {
      elsewhere.enqueue({ kind: "turn", blocks: BLOCKS });
      const location = `${elsewhere.url}${FAKE_PATHS.anthropic}?from=redirect`;
      server.enqueue({ kind: "http_error", status: 307, headers: { location } });
      const { events, error } = await drain(request(server, "anthropic"));
      assert.equal(events.length, 0);
      assert.deepEqual(elsewhere.requests, [], "nothing reached the other origin");
      assert.ok(error instanceof ProviderError, String(error));
      assert.equal(error.kind, "invalid_request");
      assert.equal(error.retryable, false);
      assert.equal(error.status, 307);
      assert.ok(error.message.includes(`answered 307 to ${elsewhere.url}${FAKE_PATHS.anthropic}`));
      assert.match(error.message, /does not follow a redirect to another server/);
      assert.match(error.message, /baseUrl/);
      assertNoKey(error);
    });
  });
});

Deno.test("streamSse: a same-origin redirect is followed with the same request", async () => {
  await withFakeServer(async (server) => {
    server.enqueue(
      {
        kind: "http_error",
        status: 308,
        headers: { location: `${FAKE_PATHS.openai}?hop=2` },
      },
      { kind: "turn", blocks: BLOCKS },
    );
    const req = request(server, "openai", { url: `${server.url}${FAKE_PATHS.openai}?hop=1` });
    const { events, error } = await drain(req);
    assert.equal(error, undefined);
    assert.equal(events.at(-1)?.data, "[DONE]");
    assert.equal(server.requests.length, 2);
    const second = server.requests[1];
    assert.equal(second?.method, "POST");
    assert.equal(second?.headers["x-api-key"], FAKE_KEY);
    assert.deepEqual(second?.body, { model: "test-model", stream: true });
  });
});

Deno.test("streamSse: a 200 reply that is not an event stream is reported as such", async () => {
  await withFakeServer(async (server) => {
    const pages: [string, string][] = [
      ["text/html; charset=utf-8", "<!doctype html><title>Welcome to nginx!</title>"],
      ["application/json", '{"id":"chatcmpl-1","choices":[]}'],
    ];
    for (const [contentType, body] of pages) {
      server.enqueue({
        kind: "http_error",
        status: 200,
        headers: { "content-type": contentType },
        body,
      });
      const { events, error } = await drain(request(server, "openai"));
      assert.equal(events.length, 0);
      assert.ok(error instanceof ProviderError, String(error));
      assert.equal(error.kind, "invalid_request");
      assert.equal(error.retryable, false, "retrying cannot help");
      const mediaType = contentType.split(";")[0];
      assert.ok(
        error.message.includes(
          `answered 200 with content-type ${mediaType}, not an event stream: check --base-url / baseUrl`,
        ),
        error.message,
      );
      assert.ok(error.message.includes(`${server.url}${FAKE_PATHS.openai}`));
    }
  });
});
