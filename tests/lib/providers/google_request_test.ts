/**
 * `buildGoogleRequest`: URL and headers, the conversation as Gemini turns
 * (thought signatures and call ids sent back where they came from), tool
 * results with images, thinking parameters per model generation, and tool
 * schemas in the subset Gemini accepts. One test rebuilds a request that a
 * recording shows the live API accepted.
 */
import assert from "node:assert/strict";
import type { ContentBlock } from "../../../lib/content.ts";
import type { ProviderConfig, ReasoningLevel } from "../../../lib/config.ts";
import { prepareContext } from "../../../lib/context.ts";
import { ProviderError } from "../../../lib/errors.ts";
import type { Message } from "../../../lib/message.ts";
import {
  buildGoogleRequest,
  type GeminiContent,
  GOOGLE_DEFAULT_BASE_URL,
} from "../../../lib/providers/google_request.ts";
import { toGeminiParameters } from "../../../lib/providers/google_schema.ts";
import { parseGoogleStream } from "../../../lib/providers/google_stream.ts";
import { geminiThinkingConfig } from "../../../lib/providers/google_thinking.ts";
import type { ProviderRequest } from "../../../lib/providers/provider.ts";
import type { ToolDecl } from "../../../lib/tool.ts";
import { sseEvents } from "../../support/chunked_sse.ts";
import { drainProviderStream } from "../../support/provider_stream.ts";

const FIXTURES_DIR = new URL("../../fixtures/providers/google-generative-ai/", import.meta.url);
const GEMINI = "google-generative-ai";

function config(extra: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    api: GEMINI,
    baseUrl: "https://generativelanguage.googleapis.com/v1beta",
    model: "gemini-2.5-flash",
    reasoning: "off",
    apiKey: "AIza-test-key",
    ...extra,
  };
}

function request(
  messages: Message[],
  extra: Partial<ProviderConfig> = {},
  tools: ToolDecl[] = [],
  system = "",
): ProviderRequest {
  return {
    config: config(extra),
    system,
    messages,
    tools,
    signal: new AbortController().signal,
    idleTimeoutMs: 1000,
  };
}

const user = (...content: ContentBlock[]): Message => ({ role: "user", content, timestamp: "" });
const tool = (...content: ContentBlock[]): Message => ({ role: "tool", content, timestamp: "" });
const fromGemini = (model: string, ...content: ContentBlock[]): Message => ({
  role: "assistant",
  content,
  timestamp: "",
  api: GEMINI,
  model,
});
const fromClaude = (...content: ContentBlock[]): Message => ({
  role: "assistant",
  content,
  timestamp: "",
  api: "anthropic-messages",
  model: "claude-sonnet-4-5",
});
const say = (text: string): ContentBlock => ({ type: "text", text });
const result = (toolUseId: string, toolName: string, ...content: ContentBlock[]): ContentBlock =>
  ({
    type: "tool_result",
    toolUseId,
    toolName,
    content: content.map((part) =>
      part.type === "image" ? part : { type: "text", text: part.type === "text" ? part.text : "" }
    ),
    isError: false,
  }) as ContentBlock;
const image: ContentBlock = { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" };

function contents(messages: Message[], extra: Partial<ProviderConfig> = {}): GeminiContent[] {
  return buildGoogleRequest(request(messages, extra)).body.contents;
}

// ---------------------------------------------------------------------------
// URL and headers.

Deno.test("google request: streams from models/{model}:streamGenerateContent?alt=sse with the key in a header only", () => {
  const { url, headers } = buildGoogleRequest(
    request([user(say("hi"))], { headers: { "x-extra": "1" } }),
  );
  assert.equal(
    url,
    "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
  );
  assert.equal(headers["x-goog-api-key"], "AIza-test-key");
  assert.equal(headers["x-extra"], "1");
  assert.equal(headers.accept, "text/event-stream");
  assert.ok(!url.includes("AIza"), "the key never travels in the URL");
  const keyless = request([user(say("hi"))]);
  delete keyless.config.apiKey;
  assert.equal(buildGoogleRequest(keyless).headers["x-goog-api-key"], undefined);
});

Deno.test("google request: base URL default, trailing slash, a proxy's query, and model name forms", () => {
  const urlFor = (baseUrl: string, model: string) =>
    buildGoogleRequest(request([user(say("hi"))], { baseUrl, model })).url;
  assert.equal(
    urlFor("", "gemini-3-pro-preview"),
    `${GOOGLE_DEFAULT_BASE_URL}/models/gemini-3-pro-preview:streamGenerateContent?alt=sse`,
  );
  assert.equal(
    urlFor("http://proxy.local/gemini/v1beta/?tenant=a", "models/gemini-2.5-pro"),
    "http://proxy.local/gemini/v1beta/models/gemini-2.5-pro:streamGenerateContent?tenant=a&alt=sse",
  );
  assert.equal(
    urlFor("http://proxy.local/v1beta", "tunedModels/my-tune"),
    "http://proxy.local/v1beta/tunedModels/my-tune:streamGenerateContent?alt=sse",
  );
  assert.throws(
    () => urlFor("generativelanguage.googleapis.com", "m"),
    (error: unknown) =>
      error instanceof ProviderError && error.kind === "invalid_request" &&
      error.message.includes('baseUrl "generativelanguage.googleapis.com" is not a valid URL') &&
      error.message.includes(GOOGLE_DEFAULT_BASE_URL),
  );
});

// ---------------------------------------------------------------------------
// The conversation.

Deno.test("google request: system instruction, user text and images, summaries; empty text is dropped", () => {
  const { body } = buildGoogleRequest(request(
    [
      user({ type: "compaction_summary", summary: "We fixed the parser." }),
      user(say("What is in this picture?"), image, say("")),
    ],
    {},
    [],
    "Be brief.",
  ));
  assert.deepEqual(body.systemInstruction, { parts: [{ text: "Be brief." }] });
  assert.deepEqual(body.contents, [{
    role: "user",
    parts: [
      {
        text:
          "The conversation so far was summarised to save space:\n<summary>\nWe fixed the parser.\n</summary>",
      },
      { text: "What is in this picture?" },
      { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
    ],
  }]);
  assert.equal(buildGoogleRequest(request([user(say("x"))])).body.systemInstruction, undefined);
});

Deno.test("google request: Gemini's thoughts and signatures go back on their parts, its ids on calls and results", () => {
  const turn = fromGemini(
    "gemini-3-pro-preview",
    { type: "thinking", thinking: "Look it up.", signature: "VEhPVUdIVA==" },
    say("Let me check."),
    { type: "tool_use", id: "g1bmv6il", name: "get_weather", input: { city: "Paris" } },
    { type: "thinking", thinking: "", signature: "Q0FMTA==" },
    { type: "tool_use", id: "gcall_resp_1", name: "get_time", input: {} },
  );
  const built = contents([
    user(say("Weather and time in Paris?")),
    turn,
    tool(
      result("g1bmv6il", "get_weather", say("sunny")),
      result("gcall_resp_1", "get_time", say("noon")),
    ),
    fromGemini("gemini-3-pro-preview", say("Sunny at noon."), {
      type: "thinking",
      thinking: "",
      signature: "VEVYVA==",
    }),
  ], { model: "gemini-3-pro-preview" });
  assert.deepEqual(built[1], {
    role: "model",
    parts: [
      { text: "Look it up.", thought: true, thoughtSignature: "VEhPVUdIVA==" },
      { text: "Let me check." },
      {
        functionCall: { name: "get_weather", args: { city: "Paris" }, id: "g1bmv6il" },
        thoughtSignature: "Q0FMTA==",
      },
      // A minted id was never Gemini's: it is not sent, and neither is its result's.
      { functionCall: { name: "get_time", args: {} } },
    ],
  });
  assert.deepEqual(built[2], {
    role: "user",
    parts: [
      { functionResponse: { name: "get_weather", response: { output: "sunny" }, id: "g1bmv6il" } },
      { functionResponse: { name: "get_time", response: { output: "noon" } } },
    ],
  });
  assert.deepEqual(built[3], {
    role: "model",
    parts: [{ text: "Sunny at noon.", thoughtSignature: "VEVYVA==" }],
  });
});

Deno.test("google request: a carrier with no signable part before it stands for an empty signed text part", () => {
  const built = contents([
    user(say("hi")),
    fromGemini(
      "gemini-2.5-flash",
      { type: "thinking", thinking: "Plan.", signature: "UDE=" },
      { type: "thinking", thinking: "", signature: "UDI=" },
      say("Answer"),
      { type: "thinking", thinking: "", signature: "UDM=" },
      { type: "thinking", thinking: "", signature: "UDQ=" },
    ),
  ]);
  assert.deepEqual(built[1]?.parts, [
    { text: "Plan.", thought: true, thoughtSignature: "UDE=" },
    { text: "", thoughtSignature: "UDI=" },
    { text: "Answer", thoughtSignature: "UDM=" },
    { text: "", thoughtSignature: "UDQ=" },
  ]);
});

Deno.test("google request: another model's turn goes without thoughts, signatures or ids; Gemini 3 gets the skip signature for the current turn's first call", () => {
  const claude = fromClaude(
    { type: "thinking", thinking: "Hmm.", signature: "anthropic-signature" },
    { type: "tool_use", id: "toolu_01", name: "ls", input: { path: "." } },
    { type: "tool_use", id: "toolu_02", name: "ls", input: { path: ".." } },
  );
  const messages = [
    user(say("list")),
    claude,
    tool(result("toolu_01", "ls", say("a")), result("toolu_02", "ls", say("b"))),
  ];
  const gemini3 = contents(messages, { model: "gemini-3-flash-preview" });
  assert.deepEqual(gemini3[1]?.parts, [
    { text: "Hmm." },
    {
      functionCall: { name: "ls", args: { path: "." } },
      thoughtSignature: "skip_thought_signature_validator",
    },
    { functionCall: { name: "ls", args: { path: ".." } } },
  ]);
  assert.deepEqual(gemini3[2]?.parts.map((part) => part.functionResponse?.id), [
    undefined,
    undefined,
  ]);
  const gemini25 = contents(messages, { model: "gemini-2.5-flash" });
  assert.equal(gemini25[1]?.parts[1]?.thoughtSignature, undefined, "Gemini 2.5 does not check");
  const later = contents([...messages, fromClaude(say("Done.")), user(say("thanks"))], {
    model: "gemini-3-flash-preview",
  });
  assert.equal(later[1]?.parts[1]?.thoughtSignature, undefined, "only the current turn is checked");
});

Deno.test("google request: a hand-off through prepareContext keeps Gemini's signatures for the same model only", () => {
  const messages = [
    user(say("hi")),
    fromGemini("gemini-3-pro-preview", say("Hello."), {
      type: "thinking",
      thinking: "",
      signature: "U0lH",
    }),
    user(say("again")),
  ];
  const same = prepareContext(messages, config({ model: "gemini-3-pro-preview" }));
  assert.deepEqual(contents(same, { model: "gemini-3-pro-preview" })[1]?.parts, [
    { text: "Hello.", thoughtSignature: "U0lH" },
  ]);
  const other = prepareContext(messages, config({ model: "gemini-2.5-pro" }));
  assert.deepEqual(contents(other, { model: "gemini-2.5-pro" })[1]?.parts, [{ text: "Hello." }]);
});

Deno.test("google request: tool results: errors, cut-off arguments, and images for Gemini 3 and older models", () => {
  const failed: ContentBlock = {
    type: "tool_result",
    toolUseId: "c1",
    toolName: "read",
    content: [{ type: "text", text: "no such file" }],
    isError: true,
  };
  const shot: ContentBlock = {
    type: "tool_result",
    toolUseId: "c2",
    toolName: "screenshot",
    content: [{ type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" }],
    isError: false,
  };
  const messages = [
    user(say("go")),
    fromGemini(
      "gemini-3-pro-preview",
      { type: "tool_use", id: "c1", name: "read", input: {}, invalidInput: '{"path": "a' },
      { type: "tool_use", id: "c2", name: "screenshot", input: {} },
    ),
    tool(failed, shot),
    user(say("and now?")),
  ];
  const inline = { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } };
  const gemini3 = contents(messages, { model: "gemini-3-pro-preview" });
  assert.deepEqual(gemini3[1]?.parts[0]?.functionCall?.args, {}, "cut-off arguments go as {}");
  assert.deepEqual(gemini3[2], {
    role: "user",
    parts: [
      { functionResponse: { name: "read", response: { error: "no such file" }, id: "c1" } },
      {
        functionResponse: {
          name: "screenshot",
          response: { output: "(see attached image)" },
          id: "c2",
          parts: [inline],
        },
      },
      { text: "and now?" },
    ],
  });
  const gemini25 = contents(messages, { model: "gemini-2.5-flash" });
  assert.deepEqual(gemini25[2]?.parts.slice(1), [
    {
      functionResponse: {
        name: "screenshot",
        response: { output: "(see attached image)" },
        id: "c2",
      },
    },
    { text: "Attached image(s) from tool result:" },
    inline,
    { text: "and now?" },
  ]);
});

Deno.test("google request: the turn a recording shows the live API accepted is rebuilt from its own stream", async () => {
  const recorded = JSON.parse(
    await Deno.readTextFile(
      new URL("text-after-signed-call-gemini3-flash.request.json", FIXTURES_DIR),
    ),
  );
  const stream = await Deno.readFile(new URL("tool-call-multiply-gemini3-flash.sse", FIXTURES_DIR));
  const first = await drainProviderStream(
    parseGoogleStream(sseEvents([stream]), "https://generativelanguage.googleapis.com"),
  );
  const call = first.result.content.find((block) => block.type === "tool_use");
  assert.ok(call?.type === "tool_use");
  const { body } = buildGoogleRequest(request(
    [
      user(say("What is 5 times 3?")),
      fromGemini("gemini-3-flash-preview", ...first.result.content),
      tool(result(call.id, "multiply", say("15"))),
    ],
    { model: "gemini-3-flash-preview" },
    [{
      name: "multiply",
      description: "Multiply two numbers.",
      inputSchema: {
        type: "object",
        properties: { x: { type: "integer" }, y: { type: "integer" } },
        required: ["x", "y"],
      },
    }],
  ));
  // llm-gemini writes snake_case keys and an empty text part; the API takes both spellings.
  const normalise = (content: { role: string; parts: Record<string, unknown>[] }) => ({
    role: content.role,
    parts: content.parts
      .filter((part) => !(part.text === "" && part.thoughtSignature === undefined))
      .map((part) => {
        const { function_call, function_response, ...rest } = part;
        return {
          ...rest,
          ...(function_call ? { functionCall: function_call } : {}),
          ...(function_response ? { functionResponse: function_response } : {}),
        };
      }),
  });
  assert.deepEqual(body.contents, recorded.contents.map(normalise));
  assert.deepEqual(body.tools, recorded.tools);
});

// ---------------------------------------------------------------------------
// Generation config: output limit and thinking.

Deno.test("google request: maxOutputTokens only when configured; no generationConfig when nothing is set", () => {
  const plain = buildGoogleRequest(request([user(say("hi"))], { model: "gemini-2.0-flash" }));
  assert.equal(plain.body.generationConfig, undefined);
  const limited = buildGoogleRequest(request([user(say("hi"))], { maxTokens: 512 }));
  assert.equal(limited.body.generationConfig?.maxOutputTokens, 512);
});

Deno.test("google request: thinking per model generation and level", () => {
  const cases: [string, ReasoningLevel, object | undefined][] = [
    ["gemini-2.5-flash", "off", { thinkingBudget: 0 }],
    ["gemini-2.5-flash-lite", "off", { thinkingBudget: 0 }],
    ["gemini-2.5-pro", "off", { thinkingBudget: 128 }], // cannot stop thinking
    ["gemini-2.5-flash", "minimal", { includeThoughts: true, thinkingBudget: 512 }],
    ["gemini-2.5-flash", "medium", { includeThoughts: true, thinkingBudget: 8192 }],
    ["gemini-2.5-pro", "minimal", { includeThoughts: true, thinkingBudget: 128 }],
    ["gemini-2.5-pro", "xhigh", { includeThoughts: true, thinkingBudget: 32768 }],
    ["gemini-3-pro-preview", "off", { thinkingLevel: "LOW" }],
    ["gemini-3-pro-preview", "medium", { includeThoughts: true, thinkingLevel: "HIGH" }],
    ["gemini-3-flash-preview", "minimal", { includeThoughts: true, thinkingLevel: "LOW" }],
    ["gemini-3-flash-preview", "medium", { includeThoughts: true, thinkingLevel: "MEDIUM" }],
    ["gemini-3.1-pro-preview", "high", { includeThoughts: true, thinkingLevel: "HIGH" }],
    ["gemma-4-26b-a4b-it", "low", { includeThoughts: true, thinkingLevel: "MINIMAL" }],
    ["gemini-2.0-flash", "high", undefined],
    ["gemma-3-27b-it", "high", undefined],
    ["gemini-flash-latest", "off", undefined],
    ["gemini-flash-latest", "low", { includeThoughts: true, thinkingBudget: 2048 }],
  ];
  for (const [model, reasoning, expected] of cases) {
    const { body } = buildGoogleRequest(request([user(say("hi"))], { model, reasoning }));
    assert.deepEqual(body.generationConfig?.thinkingConfig, expected, `${model} ${reasoning}`);
  }
});

Deno.test("google request: reasoningValues override the defaults: digits are a budget, other values a level", () => {
  const values = { minimal: "MINIMAL", low: "low", high: "xhigh", xhigh: "32768" } as const;
  const thinking = (model: string, reasoning: ReasoningLevel) =>
    geminiThinkingConfig(config({ model, reasoning, reasoningValues: values }));
  assert.deepEqual(thinking("gemini-3-flash-preview", "high"), {
    includeThoughts: true,
    thinkingLevel: "XHIGH",
  });
  assert.deepEqual(thinking("gemini-3-flash-preview", "xhigh"), {
    includeThoughts: true,
    thinkingBudget: 32768,
  });
  assert.deepEqual(thinking("gemini-3-flash-preview", "medium"), {
    includeThoughts: true,
    thinkingLevel: "MEDIUM", // not in the catalog's values: the default
  });
  // Off: the lowest value the catalog gives, for a model that cannot stop thinking.
  assert.deepEqual(thinking("gemini-3-flash-preview", "off"), { thinkingLevel: "MINIMAL" });
  assert.deepEqual(thinking("gemini-2.5-flash", "off"), { thinkingBudget: 0 });
  // A model that would not think by name does when its catalog says so.
  assert.deepEqual(thinking("gemini-2.0-flash", "low"), {
    includeThoughts: true,
    thinkingLevel: "LOW",
  });
});

// ---------------------------------------------------------------------------
// Tool declarations and schemas.

Deno.test("google request: tools become function declarations; empty descriptions and parameter-less schemas are left out", () => {
  const { body } = buildGoogleRequest(request([user(say("hi"))], {}, [
    {
      name: "read",
      description: "Read a file",
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
    { name: "now", description: "", inputSchema: { type: "object", properties: {} } },
  ]));
  assert.deepEqual(body.tools, [{
    functionDeclarations: [
      {
        name: "read",
        description: "Read a file",
        parameters: {
          type: "object",
          properties: { path: { type: "string" } },
          required: ["path"],
        },
      },
      { name: "now" },
    ],
  }]);
});

Deno.test("google schema: keywords the API rejects are dropped, those it cannot express are converted", () => {
  const converted = toGeminiParameters({
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: "urn:tool",
    type: "object",
    additionalProperties: false,
    properties: {
      name: { type: "string", minLength: 1, pattern: "^[a-z]+$", format: "uri", examples: ["a"] },
      mode: { const: "fast" },
      level: { enum: [1, 2, 3], description: "How hard." },
      choice: { enum: ["a", "b", null] },
      count: { type: "integer", exclusiveMinimum: 0, exclusiveMaximum: 10, multipleOf: 2 },
      ratio: { type: "number", minimum: 0, exclusiveMaximum: 1, format: "double" },
      when: { type: "string", format: "date-time" },
      tags: { type: "array", uniqueItems: true, minItems: 1 },
      pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }] },
      meta: { type: "object", additionalProperties: { type: "string" }, propertyNames: {} },
      anything: {},
      never: false,
      flag: true,
    },
    required: ["name", "missing", "name"],
  });
  assert.deepEqual(converted, {
    type: "object",
    properties: {
      name: { type: "string", minLength: 1, pattern: "^[a-z]+$" },
      mode: { type: "string", enum: ["fast"] },
      level: { type: "integer", description: "How hard. One of: 1, 2, 3." },
      choice: { type: "string", enum: ["a", "b"] },
      count: { type: "integer", minimum: 1, maximum: 9 },
      ratio: { type: "number", format: "double", minimum: 0, maximum: 1 },
      when: { type: "string", format: "date-time" },
      tags: { type: "array", items: { type: "string" }, minItems: 1 },
      pair: { type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] } },
      meta: { type: "object" },
      anything: { type: "string" },
      flag: { type: "string" },
    },
    required: ["name"],
  });
});

Deno.test("google schema: null in types and unions becomes nullable; other unions become anyOf", () => {
  const converted = toGeminiParameters({
    type: "object",
    properties: {
      a: { type: ["string", "null"] },
      b: { anyOf: [{ type: "integer" }, { type: "null" }], description: "Optional count." },
      c: { oneOf: [{ type: "string" }, { type: "object", properties: { x: { type: "number" } } }] },
      d: { type: ["string", "number"] },
      e: { type: "object", properties: { k: { type: "string" } }, anyOf: [{ required: ["k"] }] },
    },
  });
  assert.deepEqual(converted?.properties, {
    a: { type: "string", nullable: true },
    b: { type: "integer", description: "Optional count.", nullable: true },
    c: {
      anyOf: [{ type: "string" }, { type: "object", properties: { x: { type: "number" } } }],
    },
    d: { anyOf: [{ type: "string" }, { type: "number" }] },
    e: { type: "object", properties: { k: { type: "string" } } },
  });
});

Deno.test("google schema: $ref is inlined, allOf merged, and a recursive reference stops at an object", () => {
  const converted = toGeminiParameters({
    type: "object",
    $defs: {
      Point: { type: "object", properties: { x: { type: "number" }, y: { type: "number" } } },
      Node: {
        type: "object",
        properties: { value: { type: "string" }, next: { $ref: "#/$defs/Node" } },
      },
    },
    properties: {
      start: { $ref: "#/$defs/Point", description: "Where to start." },
      list: { $ref: "#/$defs/Node" },
      both: {
        allOf: [
          { $ref: "#/$defs/Point" },
          { properties: { z: { type: "number" } }, required: ["z"] },
        ],
      },
      unknown: { $ref: "https://example.com/schema.json" },
    },
  });
  const point = { type: "object", properties: { x: { type: "number" }, y: { type: "number" } } };
  assert.deepEqual(converted?.properties, {
    start: { ...point, description: "Where to start." },
    list: {
      type: "object",
      properties: { value: { type: "string" }, next: { type: "object" } },
    },
    both: {
      type: "object",
      properties: { ...point.properties, z: { type: "number" } },
      required: ["z"],
    },
    unknown: { type: "object" },
  });
});

Deno.test("google schema: every part of a converted schema uses only fields Gemini's Schema has", () => {
  const allowed = new Set([
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "items",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "anyOf",
    "default",
  ]);
  const check = (schema: unknown, path: string): void => {
    if (typeof schema !== "object" || schema === null) return;
    for (const [key, value] of Object.entries(schema)) {
      assert.ok(allowed.has(key), `${path}.${key} is not a Gemini Schema field`);
      if (key === "properties") {
        for (const [name, child] of Object.entries(value as object)) {
          check(child, `${path}.${name}`);
        }
      } else if (key === "items") check(value, `${path}[]`);
      else if (key === "anyOf") (value as unknown[]).forEach((v, i) => check(v, `${path}|${i}`));
    }
    const typed = schema as { type?: string; anyOf?: unknown; items?: unknown };
    assert.ok(typed.type !== undefined || typed.anyOf !== undefined, `${path} has a type`);
    if (typed.type === "array") assert.ok(typed.items !== undefined, `${path} has items`);
    if (typed.items !== undefined) {
      assert.equal(typed.type, "array", `${path}: items on arrays only`);
    }
  };
  // The kind of schema zod and MCP servers produce.
  check(
    toGeminiParameters({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        edits: {
          type: "array",
          items: {
            type: "object",
            properties: {
              old: { type: "string" },
              new: { anyOf: [{ type: "string" }, { type: "null" }] },
              lines: { type: "array", items: { type: "integer", exclusiveMinimum: 0 } },
            },
            required: ["old"],
            additionalProperties: false,
          },
        },
        options: {
          type: "object",
          properties: {},
          additionalProperties: { anyOf: [{ type: "string" }, { type: "boolean" }] },
        },
        mode: { anyOf: [{ const: "a" }, { const: "b" }] },
        deep: { type: "array", items: { type: "array", items: { type: "array" } } },
      },
      required: ["edits"],
      additionalProperties: false,
    }),
    "parameters",
  );
});

Deno.test("google request: a converted declaration is what the request carries", () => {
  const schema = { type: "object", properties: { q: { type: ["string", "null"] } } };
  const { body } = buildGoogleRequest(request([user(say("hi"))], {}, [
    { name: "search", description: "Search", inputSchema: schema },
  ]));
  assert.deepEqual(body.tools?.[0].functionDeclarations[0]?.parameters, toGeminiParameters(schema));
});
