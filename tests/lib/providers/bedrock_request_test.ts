/**
 * `buildBedrockRequest`: the URL (model ids encoded, the base URL from the
 * region), auth (a Bedrock API key as a bearer token, or SigV4 with the
 * right region), Claude's thinking parameters, and the conversation as
 * Converse turns (reasoning sent back only to the API that produced it).
 */
import assert from "node:assert/strict";
import type { ContentBlock, ResultPart } from "../../../lib/content.ts";
import type { ProviderConfig } from "../../../lib/config.ts";
import { ProviderError } from "../../../lib/errors.ts";
import type { Message } from "../../../lib/message.ts";
import { signAwsRequest } from "../../../lib/providers/aws_sigv4.ts";
import {
  type BedrockHttpRequest,
  buildBedrockRequest,
} from "../../../lib/providers/bedrock_request.ts";
import { echoTool } from "../../support/agent_fixtures.ts";

const BASE_URL = "https://bedrock-runtime.us-east-1.amazonaws.com";
const CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const CREDENTIALS = {
  accessKeyId: "AKIDFAKEFAKEFAKE",
  secretAccessKey: "fake-secret-access-key-for-tests",
  sessionToken: "fake-session-token-for-tests",
};

function build(
  extra: Partial<ProviderConfig> = {},
  messages: Message[] = [user([{ type: "text", text: "Hi" }])],
  system = "",
): BedrockHttpRequest {
  return buildBedrockRequest({
    config: {
      api: "bedrock-converse",
      baseUrl: BASE_URL,
      model: CLAUDE,
      reasoning: "off",
      ...extra,
    },
    system,
    messages,
    tools: [],
    signal: new AbortController().signal,
    idleTimeoutMs: 1000,
  });
}

function user(content: ContentBlock[]): Message {
  return { role: "user", content, timestamp: "" };
}

function assistant(content: ContentBlock[], api = "bedrock-converse"): Message {
  return { role: "assistant", content, timestamp: "", api, model: CLAUDE };
}

function toolResults(...content: ContentBlock[]): Message {
  return { role: "tool", content, timestamp: "" };
}

const result = (toolUseId: string, content: ResultPart[], isError = false): ContentBlock => ({
  type: "tool_result",
  toolUseId,
  toolName: "echo",
  content,
  isError,
});

function invalidRequest(run: () => unknown): ProviderError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ProviderError && error.kind === "invalid_request", String(error));
    return error;
  }
  return assert.fail("the request should not build");
}

Deno.test("bedrock request: the model id is one encoded path segment below the base URL", () => {
  assert.equal(
    build().url,
    `${BASE_URL}/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream`,
  );
  const arn = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-x";
  assert.equal(
    build({ model: arn, baseUrl: `${BASE_URL}/` }).url,
    `${BASE_URL}/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile` +
      `%2Fus.anthropic.claude-x/converse-stream`,
  );
});

Deno.test("bedrock request: an empty base URL is built from awsRegion; without one, or with a bad URL, it fails", () => {
  assert.ok(
    build({ baseUrl: "", awsRegion: "eu-west-3" }).url.startsWith(
      "https://bedrock-runtime.eu-west-3.amazonaws.com/model/",
    ),
  );
  assert.match(
    invalidRequest(() => build({ baseUrl: "" })).message,
    /needs a baseUrl .* awsRegion/,
  );
  assert.match(invalidRequest(() => build({ baseUrl: "bedrock" })).message, /not a valid URL/);
});

Deno.test("bedrock request: a Bedrock API key goes as a bearer token (and wins over credentials)", () => {
  for (const extra of [{}, { awsCredentials: CREDENTIALS }]) {
    const request = build({ apiKey: "bedrock-key-fake", headers: { "x-extra": "1" }, ...extra });
    assert.deepEqual(request.headers, {
      "content-type": "application/json",
      accept: "application/vnd.amazon.eventstream",
      "x-extra": "1",
      authorization: "Bearer bedrock-key-fake",
    });
    assert.equal(request.sign, undefined);
    assert.deepEqual(request.secrets, []);
  }
  const anonymous = build();
  assert.equal(anonymous.headers.authorization, undefined, "a proxy may add auth itself");
});

Deno.test("bedrock request: AWS credentials sign the exact body; their values are secrets to redact", async () => {
  const request = build({ awsCredentials: CREDENTIALS });
  assert.equal(request.headers.authorization, undefined);
  assert.deepEqual(request.secrets, [
    CREDENTIALS.accessKeyId,
    CREDENTIALS.secretAccessKey,
    CREDENTIALS.sessionToken,
  ]);
  const body = JSON.stringify(request.body);
  const signed = await request.sign!(body);
  assert.match(
    signed.authorization ?? "",
    /^AWS4-HMAC-SHA256 Credential=AKIDFAKEFAKEFAKE\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
  );
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body)),
  );
  assert.equal(signed["x-amz-content-sha256"], digest.toHex());
  assert.equal(signed["x-amz-security-token"], CREDENTIALS.sessionToken);
  assert.equal(signed.host, undefined, "fetch sends the host itself");
});

Deno.test("bedrock request: SigV4 gives the signature the AWS SDK's own hash gives", async () => {
  // Computed once with `@smithy/signature-v4` over `@aws-crypto/sha256-js` (the
  // pure-JS SHA-256 the AWS SDK ships) for the same request, credentials and date.
  const signed = await signAwsRequest({
    url: `${BASE_URL}/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream`,
    headers: { "content-type": "application/json", accept: "application/vnd.amazon.eventstream" },
    body: JSON.stringify({ messages: [{ role: "user", content: [{ text: "héllo" }] }] }),
  }, {
    credentials: {
      accessKeyId: "AKIDEXAMPLE",
      secretAccessKey: "not-a-real-secret-0123456789",
      sessionToken: "tok",
    },
    region: "us-east-1",
    service: "bedrock",
    signingDate: new Date("2026-01-02T03:04:05Z"),
  });
  assert.equal(
    signed.authorization,
    "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260102/us-east-1/bedrock/aws4_request, " +
      "SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, " +
      "Signature=ad4d4283e622fe60194f3cfd89709c83da0288366b8d89f1450deb372df5e0ce",
  );
  assert.equal(signed["x-amz-date"], "20260102T030405Z");
});

Deno.test("bedrock request: the region to sign for is read from the host, or given", async () => {
  const cases: [Partial<ProviderConfig>, string][] = [
    [{}, "us-east-1"],
    [{ baseUrl: "https://bedrock-runtime-fips.us-gov-west-1.amazonaws.com" }, "us-gov-west-1"],
    [{ baseUrl: "https://bedrock-runtime.cn-north-1.amazonaws.com.cn" }, "cn-north-1"],
    [
      { baseUrl: "https://vpce-0abc-xyz.bedrock-runtime.ap-south-1.vpce.amazonaws.com" },
      "ap-south-1",
    ],
    [{ baseUrl: "http://127.0.0.1:8080", awsRegion: "eu-central-1" }, "eu-central-1"],
    [{ awsRegion: "us-west-2" }, "us-west-2"],
  ];
  for (const [extra, region] of cases) {
    const request = build({ awsCredentials: CREDENTIALS, ...extra });
    const signed = await request.sign!("{}");
    assert.match(signed.authorization ?? "", new RegExp(`/${region}/bedrock/`), region);
  }
  assert.match(
    invalidRequest(() => build({ awsCredentials: CREDENTIALS, baseUrl: "https://proxy.example" }))
      .message,
    /region to sign for is not in the host of https:\/\/proxy.example: set awsRegion/,
  );
});

Deno.test("bedrock request: system prompt, tools and the output limit", () => {
  const request = buildBedrockRequest({
    config: { api: "bedrock-converse", baseUrl: BASE_URL, model: CLAUDE, reasoning: "off" },
    system: "Be brief.",
    messages: [user([{ type: "text", text: "Hi" }])],
    tools: [echoTool.decl, { name: "now", description: "", inputSchema: { type: "object" } }],
    signal: new AbortController().signal,
    idleTimeoutMs: 1000,
  });
  assert.deepEqual(request.body.system, [{ text: "Be brief." }]);
  assert.deepEqual(request.body.toolConfig?.tools, [
    {
      toolSpec: {
        name: "echo",
        description: echoTool.decl.description,
        inputSchema: { json: echoTool.decl.inputSchema },
      },
    },
    { toolSpec: { name: "now", inputSchema: { json: { type: "object" } } } },
  ]);
  assert.equal(request.body.inferenceConfig, undefined, "no limit of our own");
  assert.equal(build({}, undefined, "").body.system, undefined);
  assert.deepEqual(build({ maxTokens: 2000 }).body.inferenceConfig, { maxTokens: 2000 });
});

Deno.test("bedrock request: Claude thinks with Anthropic's parameters; other models get none", () => {
  const cases: [Partial<ProviderConfig>, object | undefined, number | undefined][] = [
    [{ reasoning: "low" }, { thinking: { type: "enabled", budget_tokens: 2048 } }, 16384],
    [
      { reasoning: "high", maxTokens: 8000 },
      { thinking: { type: "enabled", budget_tokens: 6976 } },
      8000,
    ],
    [
      { reasoning: "high", reasoningValues: { high: "30000" } },
      { thinking: { type: "enabled", budget_tokens: 30000 } },
      34096,
    ],
    [
      { model: "us.anthropic.claude-sonnet-4-6", reasoning: "medium" },
      { thinking: { type: "adaptive" }, output_config: { effort: "medium" } },
      undefined,
    ],
    [
      { model: "global.anthropic.claude-opus-4-6-v1", reasoning: "xhigh", maxTokens: 64000 },
      { thinking: { type: "adaptive" }, output_config: { effort: "xhigh" } },
      64000,
    ],
    [{ model: "amazon.nova-pro-v1:0", reasoning: "high" }, undefined, undefined],
    [{ reasoning: "off" }, undefined, undefined],
  ];
  for (const [extra, fields, maxTokens] of cases) {
    const { body } = build(extra);
    assert.deepEqual(body.additionalModelRequestFields, fields, JSON.stringify(extra));
    assert.equal(body.inferenceConfig?.maxTokens, maxTokens, JSON.stringify(extra));
  }
});

Deno.test("bedrock request: turns alternate, tool results lead their turn, blank text goes", () => {
  const { body } = build({}, [
    user([{ type: "text", text: "echo hi" }]),
    { role: "system", content: [{ type: "system", text: "x", mode: "append" }], timestamp: "" },
    assistant([
      { type: "text", text: " " },
      { type: "tool_use", id: "t1", name: "echo", input: { text: "hi" } },
      { type: "tool_use", id: "t2", name: "echo", input: {}, invalidInput: '{"text": "cut' },
    ]),
    toolResults(result("t1", [{ type: "text", text: "echo: hi" }])),
    user([{ type: "text", text: "and now?" }]),
    toolResults(result("t2", [], true)),
  ]);
  assert.deepEqual(body.messages, [
    { role: "user", content: [{ text: "echo hi" }] },
    {
      role: "assistant",
      content: [
        { toolUse: { toolUseId: "t1", name: "echo", input: { text: "hi" } } },
        { toolUse: { toolUseId: "t2", name: "echo", input: {} } },
      ],
    },
    {
      role: "user",
      content: [
        { toolResult: { toolUseId: "t1", content: [{ text: "echo: hi" }] } },
        { toolResult: { toolUseId: "t2", content: [{ text: "(no output)" }], status: "error" } },
        { text: "and now?" },
      ],
    },
  ]);
});

Deno.test("bedrock request: images from the user and from tools, in the formats Bedrock takes", () => {
  const { body } = build({}, [
    user([
      { type: "text", text: "look" },
      { type: "image", mediaType: "image/png", data: "iVBORw0K" },
      { type: "image", mediaType: "image/webp", data: "UklGR" },
      { type: "image", mediaType: "image/bmp", data: "Qk0" },
    ]),
    assistant([{ type: "tool_use", id: "t1", name: "shot", input: {} }]),
    toolResults({
      type: "tool_result",
      toolUseId: "t1",
      toolName: "shot",
      content: [{ type: "text", text: "here" }, {
        type: "image",
        mediaType: "image/jpeg",
        data: "/9j/",
      }],
      isError: false,
    }),
  ]);
  assert.deepEqual(body.messages[0]?.content, [
    { text: "look" },
    { image: { format: "png", source: { bytes: "iVBORw0K" } } },
    { image: { format: "webp", source: { bytes: "UklGR" } } },
    { text: "(an image of type image/bmp, which Bedrock does not take)" },
  ]);
  assert.deepEqual(body.messages[2]?.content, [{
    toolResult: {
      toolUseId: "t1",
      content: [{ text: "here" }, { image: { format: "jpeg", source: { bytes: "/9j/" } } }],
    },
  }]);
});

Deno.test("bedrock request: reasoning goes back in its place only to the API that produced it", () => {
  const reasoning: ContentBlock[] = [
    { type: "thinking", thinking: "Plan.", signature: "c2ln" },
    { type: "redacted_thinking", data: "ZW5j" },
    { type: "thinking", thinking: "Unsigned (Kimi)." },
    { type: "text", text: "Calling." },
    { type: "tool_use", id: "t1", name: "echo", input: {} },
  ];
  const [fromBedrock, fromElsewhere] = ["bedrock-converse", "anthropic-messages"].map((api) =>
    build({}, [user([{ type: "text", text: "go" }]), assistant(reasoning, api)]).body.messages[1]
  );
  assert.deepEqual(fromBedrock?.content, [
    { reasoningContent: { reasoningText: { text: "Plan.", signature: "c2ln" } } },
    { reasoningContent: { redactedContent: "ZW5j" } },
    { reasoningContent: { reasoningText: { text: "Unsigned (Kimi)." } } },
    { text: "Calling." },
    { toolUse: { toolUseId: "t1", name: "echo", input: {} } },
  ]);
  assert.deepEqual(fromElsewhere?.content, [
    { text: "Calling." },
    { toolUse: { toolUseId: "t1", name: "echo", input: {} } },
  ]);
});

Deno.test("bedrock request: a compaction summary is user text, worded as on the other APIs", () => {
  const { body } = build({}, [user([{ type: "compaction_summary", summary: "We fixed it." }])]);
  assert.deepEqual(body.messages, [{
    role: "user",
    content: [{
      text:
        "The conversation so far was summarised to save space:\n<summary>\nWe fixed it.\n</summary>",
    }],
  }]);
});
