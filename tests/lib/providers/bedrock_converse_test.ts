/**
 * `streamBedrockConverse` end to end over HTTP against the fake LLM server
 * speaking Bedrock's ConverseStream (binary event stream) on loopback,
 * directly and through `Agent`: the request it sends (bearer key or SigV4
 * over the exact bytes), recorded streams in small chunks, generated turns
 * as the AWS SDK reads them, a tool round trip carrying the signed
 * reasoning back, images, thinking parameters, retries, error
 * classification (never showing a key or secret), abort and idle timeout.
 */
import assert from "node:assert/strict";
import { Agent, type Config, type ProviderConfig, ProviderError, ResultParts } from "@panto/lib";
import type { Message } from "../../../lib/message.ts";
import { signAwsRequest } from "../../../lib/providers/aws_sigv4.ts";
import { streamBedrockConverse } from "../../../lib/providers/bedrock_converse.ts";
import {
  type BedrockRequestBody,
  buildBedrockRequest,
} from "../../../lib/providers/bedrock_request.ts";
import type { ProviderRequest } from "../../../lib/providers/provider.ts";
import { streamForApi } from "../../../lib/providers/registry.ts";
import { drain, echoTool, textTurn } from "../../support/agent_fixtures.ts";
import { readWithBedrockSdk } from "../../support/bedrock_sdk.ts";
import { craftPng } from "../../support/crafted_png.ts";
import {
  bedrockContextOverflowReply,
  bedrockErrorReply,
  bedrockThrottlingReply,
  bedrockUnavailableReply,
  DEFAULT_FAKE_USAGE,
  type FakeLlmServer,
  type FakeLlmServerOptions,
  withFakeServer,
} from "../../support/fake_llm_server.ts";
import {
  abortOnceTextStreams,
  assertAbortedPrefix,
  drainProviderStream,
} from "../../support/provider_stream.ts";

const KEY = "bedrock-api-key-FAKE-0123456789abcdef";
const CREDENTIALS = {
  accessKeyId: "AKIDFAKEFAKEFAKE0123",
  secretAccessKey: "fake/Secret+Access/Key0123456789abcdefghij",
  sessionToken: "FakeSessionToken//0123456789abcdefghijklmnopqrstuvwxyz==",
};
const CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const CLAUDE_PATH = "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream";

function providerConfig(
  server: FakeLlmServer,
  extra: Partial<ProviderConfig> = {},
): ProviderConfig {
  return {
    api: "bedrock-converse",
    baseUrl: server.url,
    model: CLAUDE,
    reasoning: "off",
    apiKey: KEY,
    ...extra,
  };
}

/** Signing with IAM credentials for a server whose host names no region. */
const IAM: Partial<ProviderConfig> = {
  apiKey: "",
  awsCredentials: CREDENTIALS,
  awsRegion: "us-east-1",
};

function providerRequest(
  server: FakeLlmServer,
  extra: Partial<ProviderConfig> = {},
  signal: AbortSignal = new AbortController().signal,
  idleTimeoutMs = 10_000,
): ProviderRequest {
  return {
    config: providerConfig(server, extra),
    system: "Be brief.",
    messages: [ask("Hi")],
    tools: [echoTool.decl],
    signal,
    idleTimeoutMs,
  };
}

function agentConfig(
  server: FakeLlmServer,
  provider: Partial<ProviderConfig> = {},
  extra: Partial<Config> = {},
): Config {
  return {
    provider: providerConfig(server, provider),
    retry: { baseDelayMs: 5, maxDelayMs: 2000, maxRetries: 5 },
    ...extra,
  };
}

const ask = (text: string): Message => ({
  role: "user",
  content: [{ type: "text", text }],
  timestamp: new Date().toISOString(),
});

function collect(request: ProviderRequest) {
  // Through the registry: the built-in loads on its first request.
  return drainProviderStream(streamForApi("bedrock-converse")(request));
}

function failure(request: ProviderRequest): Promise<ProviderError> {
  return collect(request).then(
    () => assert.fail("the request should fail"),
    (error: unknown) => {
      assert.ok(error instanceof ProviderError, String(error));
      return error;
    },
  );
}

const bodyOf = (server: FakeLlmServer, index: number) =>
  server.requests[index]?.body as BedrockRequestBody;

/** Nothing of the key or the credentials, in any shape a message might quote. */
function assertNoSecret(text: string): void {
  for (const secret of [KEY, ...Object.values(CREDENTIALS)]) {
    assert.ok(!text.includes(secret), `a secret leaked: ${text}`);
  }
}

/** By default bodies go out in 7-byte chunks: frames, headers and UTF-8 split anywhere. */
function withServer(
  run: (server: FakeLlmServer) => Promise<void>,
  options: FakeLlmServerOptions = { chunkSize: 7 },
): Promise<void> {
  return withFakeServer(run, options);
}

Deno.test("bedrock provider: a recorded binary stream over HTTP; the request is the built one, the key a bearer token", async () => {
  await withServer(async (server) => {
    server.enqueue({
      kind: "fixture",
      path: "bedrock-converse/thinking-signature-claude-sonnet4.eventstream",
    });
    const request = providerRequest(server);
    const { result } = await collect(request);
    assert.equal(result.stopReason, "end_turn");
    assert.deepEqual(result.content[1], {
      type: "text",
      text: "Hello! How are you doing today? Is there anything I can help you with?",
    });
    assert.equal(result.usage.outputTokens, 74);
    const [received] = server.requests;
    assert.equal(received?.path, CLAUDE_PATH);
    assert.equal(received.headers.authorization, `Bearer ${KEY}`);
    assert.equal(received.headers.accept, "application/vnd.amazon.eventstream");
    assert.deepEqual(received.body, JSON.parse(JSON.stringify(buildBedrockRequest(request).body)));
  });
});

Deno.test("bedrock provider: IAM credentials sign the exact bytes sent; the secret never travels", async () => {
  await withServer(async (server) => {
    server.enqueue(textTurn("signed"));
    const { result } = await collect(providerRequest(server, IAM));
    assert.deepEqual(result.content, [{ type: "text", text: "signed" }]);
    const [received] = server.requests;
    assert.ok(received);
    const digest = new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(received.rawBody)),
    );
    assert.equal(received.headers["x-amz-content-sha256"], digest.toHex());
    assert.equal(received.headers["x-amz-security-token"], CREDENTIALS.sessionToken);
    // Signing what arrived again gives what was sent: the headers and body were not changed on the way.
    const signedNames = /SignedHeaders=([^,]+)/.exec(received.headers.authorization ?? "")?.[1]
      ?.split(";") ?? [];
    const unsigned = new Set([
      "host",
      "x-amz-date",
      "x-amz-security-token",
      "x-amz-content-sha256",
    ]);
    const headers = Object.fromEntries(
      signedNames.filter((name) => !unsigned.has(name)).map((name) => [
        name,
        received.headers[name] ?? "",
      ]),
    );
    const stamp = received.headers["x-amz-date"] ?? "";
    const signingDate = new Date(
      stamp.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, "$1-$2-$3T$4:$5:$6Z"),
    );
    const again = await signAwsRequest(
      { url: `${server.url}${received.path}`, headers, body: received.rawBody },
      { credentials: CREDENTIALS, region: "us-east-1", service: "bedrock", signingDate },
    );
    assert.equal(received.headers.authorization, again.authorization);
    assertNoSecret(JSON.stringify(server.requests.map((r) => r.body)));
    assert.ok(!JSON.stringify(server.requests).includes(CREDENTIALS.secretAccessKey));
  });
});

Deno.test("bedrock provider: the fake's generated turns read the same through the AWS SDK and panto", async () => {
  await withServer(async (server) => {
    const thinking = {
      type: "thinking" as const,
      thinking: "The user wants Paris.",
      signature: "VEhJTks=",
    };
    const text = { type: "text" as const, text: "Checking — ünïcødé 🦅." };
    const call = {
      type: "tool_use" as const,
      id: "tooluse_1",
      name: "get_weather",
      input: { city: "Paris" },
    };
    const blocks = [thinking, text, call];
    const usage = { cacheReadTokens: 7, cacheWriteTokens: 3 };
    server.enqueue({ kind: "turn", blocks, usage }, { kind: "turn", blocks, usage });
    const [read] = await readWithBedrockSdk({
      endpoint: server.url,
      region: "us-east-1",
      credentials: CREDENTIALS,
    }, [CLAUDE]);
    assert.equal(read?.error, undefined);
    const deltas = read!.events.flatMap((event) => {
      const delta = event.contentBlockDelta as { delta: Record<string, never> } | undefined;
      return delta ? [delta.delta] : [];
    });
    const pick = (key: string, field: string) =>
      deltas.map((delta) => (delta[key] as Record<string, string> | undefined)?.[field] ?? "")
        .join("");
    assert.equal(pick("reasoningContent", "text"), thinking.thinking);
    assert.equal(pick("reasoningContent", "signature"), thinking.signature);
    assert.equal(deltas.map((delta) => delta.text ?? "").join(""), text.text);
    assert.deepEqual(JSON.parse(pick("toolUse", "input")), call.input);
    assert.deepEqual(read!.events.at(-2), { messageStop: { stopReason: "tool_use" } });
    const { result } = await collect(providerRequest(server));
    assert.deepEqual(result.content, blocks);
    assert.equal(result.stopReason, "tool_use");
    assert.deepEqual(result.usage, { ...DEFAULT_FAKE_USAGE, ...usage });
  });
});

Deno.test("bedrock provider: a tool round trip through Agent sends the signed reasoning back, in order", async () => {
  await withServer(async (server) => {
    server.enqueue(
      {
        kind: "turn",
        blocks: [
          { type: "thinking", thinking: "Echo both.", signature: "UExBTg==" },
          { type: "text", text: "Echoing." },
          { type: "tool_use", id: "tooluse_a", name: "echo", input: { text: "hi" } },
          { type: "tool_use", id: "tooluse_b", name: "echo", input: { text: "there" } },
        ],
      },
      textTurn("Done."),
    );
    const agent = new Agent({ config: agentConfig(server, { reasoning: "low" }) });
    agent.registerTool(echoTool);
    const events = await drain(agent.run("please echo hi and there"));
    assert.equal(events.at(-1)?.type, "run_complete");
    assert.deepEqual(agent.conversation.messages.at(-1)?.content, [
      { type: "text", text: "Done." },
    ]);
    const second = bodyOf(server, 1);
    assert.deepEqual(second.additionalModelRequestFields, {
      thinking: { type: "enabled", budget_tokens: 2048 },
    });
    assert.deepEqual(second.inferenceConfig, { maxTokens: 16384 });
    assert.deepEqual(second.messages.map((message) => message.role), [
      "user",
      "assistant",
      "user",
    ]);
    assert.deepEqual(second.messages[1]?.content, [
      { reasoningContent: { reasoningText: { text: "Echo both.", signature: "UExBTg==" } } },
      { text: "Echoing." },
      { toolUse: { toolUseId: "tooluse_a", name: "echo", input: { text: "hi" } } },
      { toolUse: { toolUseId: "tooluse_b", name: "echo", input: { text: "there" } } },
    ]);
    assert.deepEqual(second.messages[2]?.content, [
      { toolResult: { toolUseId: "tooluse_a", content: [{ text: "echo: hi" }] } },
      { toolResult: { toolUseId: "tooluse_b", content: [{ text: "echo: there" }] } },
    ]);
    assertNoSecret(JSON.stringify(server.requests.map((r) => r.body)));
  });
});

Deno.test("bedrock provider: images from the user and from a tool travel as image blocks", async () => {
  const png = await craftPng({ width: 4, height: 4 });
  await withServer(async (server) => {
    server.enqueue(
      { kind: "turn", blocks: [{ type: "tool_use", id: "tooluse_1", name: "shot", input: {} }] },
      textTurn("A black square."),
    );
    const agent = new Agent({ config: agentConfig(server) });
    agent.registerTool({
      decl: { name: "shot", description: "Screenshot", inputSchema: { type: "object" } },
      execute: () => ResultParts.image(png, "image/png"),
    });
    await drain(agent.run({
      text: "Compare",
      images: [{ type: "image", mediaType: "image/png", data: png.toBase64() }],
    }));
    const image = { image: { format: "png", source: { bytes: png.toBase64() } } };
    assert.deepEqual(bodyOf(server, 0).messages[0]?.content, [{ text: "Compare" }, image]);
    assert.deepEqual(bodyOf(server, 1).messages[2]?.content, [
      { toolResult: { toolUseId: "tooluse_1", content: [image] } },
    ]);
  });
});

Deno.test("bedrock provider: Agent retries 429, 503, a cut connection and a throttlingException frame", async () => {
  await withServer(async (server) => {
    server.enqueue(
      bedrockThrottlingReply(),
      bedrockUnavailableReply(),
      { kind: "cut", afterBytes: 200, source: textTurn("this answer is cut off halfway") },
      { kind: "fixture", path: "bedrock-converse/throttling-exception-midstream.jsonl" },
      textTurn("finally"),
    );
    const agent = new Agent({ config: agentConfig(server, IAM) });
    const events = await drain(agent.run("hi"));
    const retries = events.flatMap((event) => event.type === "provider_retry" ? [event] : []);
    assert.deepEqual(retries.map((retry) => retry.error.kind), [
      "rate_limit",
      "overloaded",
      "network",
      "rate_limit",
    ]);
    assert.equal(retries[0]?.error.status, 429);
    assert.match(retries[0]?.error.message ?? "", /answered 429 ThrottlingException: Too many/);
    assert.match(retries[3]?.error.message ?? "", /mid-stream throttlingException: Too many/);
    assert.deepEqual(agent.conversation.messages.at(-1)?.content, [
      { type: "text", text: "finally" },
    ]);
    assertNoSecret(JSON.stringify(events));
  }, {});
});

Deno.test("bedrock provider: a context overflow is its own kind, over HTTP and mid-stream", async () => {
  const midStream = await writeMembers([
    '{"messageStart":{"role":"assistant"}}',
    '{"validationException":{"message":"Input is too long for requested model."}}',
  ]);
  try {
    await withServer(async (server) => {
      server.enqueue(bedrockContextOverflowReply(), { kind: "fixture", path: midStream });
      const overHttp = await failure(providerRequest(server));
      assert.equal(overHttp.kind, "context_overflow");
      assert.equal(overHttp.status, 400);
      assert.match(overHttp.message, /400 ValidationException: Input is too long for requested/);
      const inStream = await failure(providerRequest(server));
      assert.equal(inStream.kind, "context_overflow");
      assert.match(inStream.message, /mid-stream validationException: Input is too long/);
    });
  } finally {
    await Deno.remove(midStream);
  }
});

/** A JSON-lines recording in a temporary file: a reply made of these members. */
async function writeMembers(lines: string[]): Promise<string> {
  const path = await Deno.makeTempFile({ suffix: ".jsonl" });
  await Deno.writeTextFile(path, lines.join("\n"));
  return path;
}

Deno.test("bedrock provider: auth errors are classified and never show the key or the credentials", async () => {
  await withServer(async (server) => {
    // A bad key, echoed by the server.
    server.enqueue(bedrockErrorReply(
      403,
      "AccessDeniedException",
      `Authentication failed: invalid API key ${KEY}`,
    ));
    const keyError = await failure(providerRequest(server));
    assert.equal(keyError.kind, "auth");
    assert.match(keyError.message, /403 AccessDeniedException: Authentication failed/);
    assertNoSecret(keyError.message);
    // A signature AWS refuses: its message quotes the canonical request, session token included.
    server.enqueue(bedrockErrorReply(
      403,
      "InvalidSignatureException",
      "The request signature we calculated does not match the signature you provided. " +
        `The Canonical String for this request should have been 'POST\n${CLAUDE_PATH}\n\n` +
        `x-amz-security-token:${CREDENTIALS.sessionToken}\n' and the String-to-Sign ` +
        `'AWS4-HMAC-SHA256 … ${CREDENTIALS.accessKeyId}' (secret ${CREDENTIALS.secretAccessKey})`,
    ));
    const signatureError = await failure(providerRequest(server, IAM));
    assert.equal(signatureError.kind, "auth");
    assert.match(signatureError.message, /InvalidSignatureException: The request signature/);
    assertNoSecret(signatureError.message);
    assert.ok(signatureError.message.includes("[redacted]"));
  });
});

Deno.test("bedrock provider: a frame that fails its checksum is a stream error with the partial text", async () => {
  await withServer(async (server) => {
    server.enqueue({ kind: "malformed" });
    const malformed = await failure(providerRequest(server, IAM));
    assert.equal(malformed.kind, "stream");
    assert.match(malformed.message, /malformed event-stream frame: The message checksum/);
    assert.deepEqual(malformed.partial?.content, [{ type: "text", text: "Hell" }]);
  });
});

Deno.test("bedrock provider: aborting mid-stream returns the partial text with stop reason aborted", async () => {
  await withServer(async (server) => {
    const fullText = "one two three four five six seven eight nine ten";
    server.enqueue({ kind: "slow", delayMs: 40, source: textTurn(fullText) });
    const controller = new AbortController();
    const stream = streamBedrockConverse(providerRequest(server, {}, controller.signal));
    const { streamed, end } = await abortOnceTextStreams(stream, controller);
    assertAbortedPrefix(end, streamed, fullText);
  }, {}); // one frame per chunk, 40 ms apart
});

Deno.test("bedrock provider: a server that goes silent fails with a timeout once the idle time passes", async () => {
  await withServer(async (server) => {
    server.enqueue({ kind: "stall", afterBytes: 150, source: textTurn("never finishes") });
    const error = await failure(providerRequest(server, {}, undefined, 200));
    assert.equal(error.kind, "timeout");
    assert.match(error.message, /sent nothing for 200 ms/);
  });
});

Deno.test("bedrock provider: a long generated reply streams whole, and an endless one stops at the abort", async () => {
  await withServer(async (server) => {
    server.enqueue({ kind: "long", deltas: 500 }, { kind: "long", deltas: Infinity });
    const { result } = await collect(providerRequest(server));
    const text = result.content[0];
    assert.ok(text?.type === "text");
    assert.equal(text.text.split("\n").length - 1, 500);
    assert.ok(text.text.startsWith("line 0\nline 1\n") && text.text.endsWith("line 499\n"));

    const controller = new AbortController();
    const stream = streamBedrockConverse(providerRequest(server, IAM, controller.signal));
    let lines = 0;
    let step = await stream.next();
    for (; !step.done; step = await stream.next()) {
      for (const event of step.value) {
        if (event.type === "content_delta") lines += event.text.split("\n").length - 1;
      }
      if (lines >= 2000) controller.abort();
    }
    assert.equal(step.value.stopReason, "aborted");
    assert.ok(lines >= 2000);
  }, {});
});

Deno.test("bedrock provider: a conversation from another provider keeps its text and calls, not its reasoning", async () => {
  await withServer(async (server) => {
    server.enqueue(textTurn("ok"));
    const request = providerRequest(server);
    request.messages = [
      ask("echo x"),
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Listing.", signature: "anthropic-sig" },
          { type: "tool_use", id: "toolu_1", name: "echo", input: { text: "x" } },
        ],
        timestamp: "",
        api: "anthropic-messages",
        model: "claude-sonnet-4-5",
      },
      {
        role: "tool",
        content: [{
          type: "tool_result",
          toolUseId: "toolu_1",
          toolName: "echo",
          content: [{ type: "text", text: "echo: x" }],
          isError: false,
        }],
        timestamp: "",
      },
    ];
    await collect(request);
    assert.deepEqual(bodyOf(server, 0).messages[1]?.content, [
      { toolUse: { toolUseId: "toolu_1", name: "echo", input: { text: "x" } } },
    ]);
  });
});
