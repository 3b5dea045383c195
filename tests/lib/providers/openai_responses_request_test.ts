/**
 * `buildOpenAIResponsesRequest`: the URL, headers and body of a Responses
 * request, checked against the request bodies the recorded cassettes hold
 * (`tests/fixtures/providers/openai-responses/*.request.json`) and the
 * shapes of the official SDK's input item types.
 */
import assert from "node:assert/strict";
import type OpenAI from "openai";
import type { ReasoningLevel } from "../../../lib/config.ts";
import type { ContentBlock } from "../../../lib/content.ts";
import { ProviderError } from "../../../lib/errors.ts";
import type { Message } from "../../../lib/message.ts";
import { encodeReasoningSignature } from "../../../lib/providers/openai_responses_reasoning.ts";
import {
  buildOpenAIResponsesRequest,
  type ResponsesRequestBody,
} from "../../../lib/providers/openai_responses_request.ts";
import type { ProviderRequest } from "../../../lib/providers/provider.ts";
import type { ToolDecl } from "../../../lib/tool.ts";

const FIXTURES = new URL("../../fixtures/providers/openai-responses/", import.meta.url);

const MULTIPLY: ToolDecl = {
  name: "multiply",
  description: "Multiply two numbers.",
  inputSchema: {
    properties: { a: { type: "integer" }, b: { type: "integer" } },
    required: ["a", "b"],
    type: "object",
  },
};

function message(role: Message["role"], content: ContentBlock[]): Message {
  return { role, content, timestamp: "2026-01-01T00:00:00Z" };
}

function request(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    config: {
      api: "openai-responses",
      baseUrl: "https://api.openai.com/v1",
      model: "gpt-5.5",
      reasoning: "off",
      apiKey: "sk-test-key",
    },
    system: "",
    messages: [message("user", [{ type: "text", text: "hi" }])],
    tools: [],
    signal: new AbortController().signal,
    idleTimeoutMs: 1000,
    ...overrides,
  };
}

function recorded(name: string): Record<string, unknown> {
  return JSON.parse(Deno.readTextFileSync(new URL(`${name}.request.json`, FIXTURES)));
}

/** The body as it goes on the wire (what JSON.stringify keeps). */
function wire(body: ResponsesRequestBody): Record<string, unknown> {
  return JSON.parse(JSON.stringify(body));
}

Deno.test("responses request: URL, headers and the body of a plain turn", () => {
  const { url, headers, body } = buildOpenAIResponsesRequest(request({ system: "Be brief." }));
  assert.equal(url, "https://api.openai.com/v1/responses");
  assert.deepEqual(headers, {
    "content-type": "application/json",
    accept: "text/event-stream",
    authorization: "Bearer sk-test-key",
  });
  assert.deepEqual(wire(body), {
    model: "gpt-5.5",
    instructions: "Be brief.",
    input: [{ role: "user", content: [{ type: "input_text", text: "hi" }] }],
    stream: true,
    store: false,
  });
});

Deno.test("responses request: the recorded requests' fields, as panto sends them", () => {
  // simonw/llm sent the same conversations; it sends user text as a plain string,
  // panto as input_text parts (both are the API's EasyInputMessage).
  const pong = recorded("text-pong");
  const built = wire(
    buildOpenAIResponsesRequest(request({
      config: { ...request().config, reasoning: "low" },
      messages: [message("user", [{ type: "text", text: "Reply with exactly: pong" }])],
    })).body,
  );
  for (const key of ["model", "stream", "store", "include", "input"] as const) {
    assert.ok(key in pong && key in built, key);
  }
  assert.equal(built.model, pong.model);
  assert.equal(built.stream, pong.stream);
  assert.equal(built.store, pong.store);
  assert.deepEqual(built.include, pong.include);
  assert.deepEqual(built.reasoning, { ...(pong.reasoning as object), summary: "auto" });
  assert.deepEqual(built.input, [{
    role: "user",
    content: [{ type: "input_text", text: "Reply with exactly: pong" }],
  }]);

  const multiply = recorded("function-call-multiply");
  const tools = wire(buildOpenAIResponsesRequest(request({ tools: [MULTIPLY] })).body).tools;
  // panto adds strict: false: strict mode would reject optional properties.
  assert.deepEqual(tools, (multiply.tools as object[]).map((tool) => ({ ...tool, strict: false })));
});

Deno.test("responses request: a tool round trip sends reasoning, the call and its output in order", () => {
  const signature = encodeReasoningSignature({ id: "rs_1", encryptedContent: "gAAAA-one" });
  const later = encodeReasoningSignature({ id: "rs_2", encryptedContent: "gAAAA-two" });
  const messages = [
    message("user", [{ type: "text", text: "What is 1231 * 2331? Use the multiply tool." }]),
    message("assistant", [
      { type: "thinking", thinking: "**Multiplying**", signature },
      { type: "text", text: "Let me " },
      { type: "text", text: "compute." },
      { type: "tool_use", id: "call_1", name: "multiply", input: { a: 1231, b: 2331 } },
      { type: "thinking", thinking: "", signature: later },
      { type: "tool_use", id: "call_2", name: "multiply", input: {}, invalidInput: '{"a":' },
    ]),
    message("tool", [
      {
        type: "tool_result",
        toolUseId: "call_1",
        toolName: "multiply",
        content: [{ type: "text", text: "2869461" }],
        isError: false,
      },
      {
        type: "tool_result",
        toolUseId: "call_2",
        toolName: "multiply",
        content: [{ type: "text", text: "Invalid arguments" }],
        isError: true,
      },
    ]),
  ];
  const { body } = buildOpenAIResponsesRequest(request({ messages, tools: [MULTIPLY] }));
  // Compile-time proof that the body fits the official SDK's request type (the
  // effort is a string: a model's catalog may name values the SDK does not list).
  const { reasoning: _effort, ...typed } = body;
  const sdkBody: OpenAI.Responses.ResponseCreateParamsStreaming = typed;
  const input = wire(body).input;
  assert.equal(sdkBody.input, body.input);
  assert.deepEqual(input, [
    {
      role: "user",
      content: [{ type: "input_text", text: "What is 1231 * 2331? Use the multiply tool." }],
    },
    { type: "reasoning", id: "rs_1", encrypted_content: "gAAAA-one", summary: [] },
    { role: "assistant", content: "Let me compute." },
    {
      type: "function_call",
      call_id: "call_1",
      name: "multiply",
      arguments: '{"a":1231,"b":2331}',
    },
    { type: "reasoning", id: "rs_2", encrypted_content: "gAAAA-two", summary: [] },
    // Arguments that never parsed go as {}: the API wants JSON.
    { type: "function_call", call_id: "call_2", name: "multiply", arguments: "{}" },
    { type: "function_call_output", call_id: "call_1", output: "2869461" },
    { type: "function_call_output", call_id: "call_2", output: "Invalid arguments" },
  ]);
});

Deno.test("responses request: thinking signed by another API, unsigned thinking and redacted thinking stay out", () => {
  const messages = [
    message("user", [{ type: "text", text: "hi" }]),
    message("assistant", [
      { type: "thinking", thinking: "Anthropic's", signature: "EqQBCkYIBxgCKkA" },
      { type: "thinking", thinking: "unsigned" },
      { type: "redacted_thinking", data: "opaque" },
      { type: "thinking", thinking: "bad", signature: "openai-responses:{not json" },
      { type: "text", text: "Hello" },
    ]),
  ];
  const input = wire(buildOpenAIResponsesRequest(request({ messages })).body).input;
  assert.deepEqual(input, [
    { role: "user", content: [{ type: "input_text", text: "hi" }] },
    { role: "assistant", content: "Hello" },
  ]);
});

Deno.test("responses request: images in user messages and tool results, compaction summaries", () => {
  const messages = [
    message("user", [
      { type: "compaction_summary", summary: "Earlier we read a.txt." },
      { type: "text", text: "What is in this picture?" },
      { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
      { type: "text", text: "" },
    ]),
    message("assistant", [{ type: "tool_use", id: "call_1", name: "screenshot", input: {} }]),
    message("tool", [{
      type: "tool_result",
      toolUseId: "call_1",
      toolName: "screenshot",
      content: [
        { type: "text", text: "Here it is." },
        { type: "image", mediaType: "image/jpeg", data: "/9j/4AAQ" },
      ],
      isError: false,
    }, {
      type: "tool_result",
      toolUseId: "call_2",
      toolName: "screenshot",
      content: [{ type: "image", mediaType: "image/png", data: "AAAA" }],
      isError: false,
    }]),
  ];
  const input = wire(buildOpenAIResponsesRequest(request({ messages })).body).input;
  assert.deepEqual(input, [
    {
      role: "user",
      content: [
        {
          type: "input_text",
          text: "The conversation so far was summarised to save space:\n<summary>\n" +
            "Earlier we read a.txt.\n</summary>",
        },
        { type: "input_text", text: "What is in this picture?" },
        { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "auto" },
      ],
    },
    { type: "function_call", call_id: "call_1", name: "screenshot", arguments: "{}" },
    {
      type: "function_call_output",
      call_id: "call_1",
      output: [
        { type: "input_text", text: "Here it is." },
        { type: "input_image", image_url: "data:image/jpeg;base64,/9j/4AAQ", detail: "auto" },
      ],
    },
    {
      type: "function_call_output",
      call_id: "call_2",
      output: [{ type: "input_image", image_url: "data:image/png;base64,AAAA", detail: "auto" }],
    },
  ]);
});

Deno.test("responses request: reasoning levels, the model's own values, and off", () => {
  const levels: ReasoningLevel[] = ["minimal", "low", "medium", "high", "xhigh"];
  for (const level of levels) {
    const { body } = buildOpenAIResponsesRequest(
      request({ config: { ...request().config, reasoning: level } }),
    );
    assert.deepEqual(body.reasoning, { effort: level, summary: "auto" }, level);
    assert.deepEqual(body.include, ["reasoning.encrypted_content"]);
  }
  const mapped = buildOpenAIResponsesRequest(request({
    config: {
      ...request().config,
      reasoning: "minimal",
      reasoningValues: { minimal: "none", xhigh: "max" },
    },
  })).body;
  assert.deepEqual(mapped.reasoning, { effort: "none", summary: "auto" });
  const off = wire(buildOpenAIResponsesRequest(request()).body);
  assert.ok(!("reasoning" in off) && !("include" in off), JSON.stringify(off));
});

Deno.test("responses request: max_output_tokens and extra headers; no key, no credential", () => {
  const { headers, body } = buildOpenAIResponsesRequest(request({
    config: {
      api: "openai-responses",
      baseUrl: "http://localhost:8000/v1/",
      model: "local",
      reasoning: "off",
      maxTokens: 2048,
      headers: { "x-team": "panto" },
    },
  }));
  assert.equal(body.max_output_tokens, 2048);
  assert.deepEqual(headers, {
    "content-type": "application/json",
    accept: "text/event-stream",
    "x-team": "panto",
  });
});

Deno.test("responses request: Azure takes the key in api-key and keeps its api-version query", () => {
  const { url, headers } = buildOpenAIResponsesRequest(request({
    config: {
      api: "openai-responses",
      baseUrl: "https://example.openai.azure.com/openai/v1?api-version=preview",
      model: "gpt-5",
      reasoning: "off",
      apiKey: "azure-key",
    },
  }));
  assert.equal(url, "https://example.openai.azure.com/openai/v1/responses?api-version=preview");
  assert.equal(headers["api-key"], "azure-key");
  assert.equal(headers.authorization, undefined);
});

Deno.test("responses request: a base URL that is not a URL says what to use", () => {
  assert.throws(
    () =>
      buildOpenAIResponsesRequest(request({
        config: { ...request().config, baseUrl: "api.openai.com/v1" },
      })),
    (error) => {
      assert.ok(error instanceof ProviderError);
      assert.equal(error.kind, "invalid_request");
      assert.match(error.message, /baseUrl "api\.openai\.com\/v1" is not a valid URL; use e\.g\./);
      return true;
    },
  );
});
