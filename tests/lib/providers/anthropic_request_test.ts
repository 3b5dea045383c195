/**
 * `buildAnthropicRequest`: every recorded request body in
 * `tests/fixtures/providers/anthropic/*.request.json` rebuilt from the
 * equivalent conversation and compared semantically, then the mapping rules
 * one by one.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ContentBlock } from "../../../lib/content.ts";
import type { ProviderConfig, ReasoningLevel } from "../../../lib/config.ts";
import type { Message } from "../../../lib/message.ts";
import {
  type AnthropicRequestBody,
  buildAnthropicRequest,
  DEFAULT_MAX_TOKENS,
  THINKING_BUDGETS,
  usesAdaptiveThinking,
} from "../../../lib/providers/anthropic_request.ts";
import type { ProviderRequest } from "../../../lib/providers/provider.ts";
import type { ToolDecl } from "../../../lib/tool.ts";

const FIXTURES_DIR = new URL("../../fixtures/providers/anthropic", import.meta.url)
  .pathname;

function message(role: Message["role"], content: ContentBlock[]): Message {
  return { role, content, timestamp: "2026-04-05T00:00:00.000Z" };
}

const user = (text: string) => message("user", [{ type: "text", text }]);

function request(
  config: Partial<ProviderConfig>,
  messages: Message[],
  extra: Partial<ProviderRequest> = {},
): ProviderRequest {
  return {
    config: {
      api: "anthropic-messages",
      baseUrl: "https://api.anthropic.com",
      model: "claude-haiku-4-5-20251001",
      reasoning: "off",
      ...config,
    },
    system: "",
    messages,
    tools: [],
    signal: new AbortController().signal,
    idleTimeoutMs: 1000,
    ...extra,
  };
}

/** Removes every `cache_control` (fixtures were recorded without caching). */
function withoutCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheControl);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== "cache_control")
      .map(([key, field]) => [key, withoutCacheControl(field)]),
  );
}

// ---------------------------------------------------------------------------
// Recorded requests.

const PELICAN_TOOL: ToolDecl = {
  name: "pelican_name_generator",
  description: "",
  inputSchema: { properties: {}, type: "object" },
};
const VERSION_TOOL: ToolDecl = {
  name: "fixed_version",
  description: "Return a fixed test version string",
  inputSchema: { properties: {}, type: "object" },
};
const VERSION_PROMPT =
  "Use the fixed_version tool. Then tell me the version and make one short joke about it. Think about it first.";
const PELICAN_BRIEF = "Two names for a pet pelican, be brief";

interface RecordedCase {
  /** What we would be asked to send for the same conversation (built lazily). */
  request: () => ProviderRequest;
  /** Parts of the recorded request our builder does not produce, and why. */
  notSent: string;
}

function signedThinking(): ContentBlock {
  const recorded = readRecorded("thinking-after-tool-result").messages as {
    content: { type: string; thinking?: string; signature?: string }[];
  }[];
  const block = recorded[1]?.content[0];
  assert.ok(block?.thinking && block.signature, "fixture holds a signed thinking block");
  return { type: "thinking", thinking: block.thinking, signature: block.signature };
}

const RECORDED: Record<string, RecordedCase> = {
  "text-hello": {
    request: () => request({ maxTokens: 8192 }, [user("Say just hello")]),
    notSent: "temperature",
  },
  "error-overloaded-midstream": {
    request: () => request({ model: "claude-sonnet-4-5", maxTokens: 8192 }, [user(PELICAN_BRIEF)]),
    notSent: "temperature",
  },
  "adaptive-thinking": {
    request: () =>
      request(
        { model: "claude-opus-4-6", maxTokens: 8192, reasoning: "high" },
        [user(PELICAN_BRIEF)],
      ),
    notSent: "temperature; we add output_config.effort (high is the API default)",
  },
  "redacted-thinking": {
    request: () =>
      request(
        { model: "claude-sonnet-4-5-20250929", maxTokens: 4096, reasoning: "low" },
        [user(
          "ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING_46C9A13E193C177646C7398A98432ECCCE4C1253D5E2D82641AC0E52CC2876CB",
        )],
      ),
    notSent: "budget 1024 (our lowest level is 2048)",
  },
  "stop-sequence-prefill": {
    request: () =>
      request({ maxTokens: 8192 }, [
        user("Very short function describing a pelican"),
        message("assistant", [{ type: "text", text: "```python" }]),
      ]),
    notSent: "temperature, stop_sequences (not part of ProviderConfig)",
  },
  "text-after-tool-results": {
    request: () =>
      request({ maxTokens: 8192 }, [
        user("Two names for a pet pelican"),
        message("assistant", [
          { type: "text", text: " " },
          {
            type: "tool_use",
            id: "toolu_01LtHJmixrs9NcWQkK8hu8hj",
            name: PELICAN_TOOL.name,
            input: {},
          },
          {
            type: "tool_use",
            id: "toolu_01N8a4jWyf116qKTMqKKmjyt",
            name: PELICAN_TOOL.name,
            input: {},
          },
        ]),
        message("tool", [
          toolResult("toolu_01LtHJmixrs9NcWQkK8hu8hj", "Charles"),
          toolResult("toolu_01N8a4jWyf116qKTMqKKmjyt", "Sammy"),
        ]),
      ], { tools: [PELICAN_TOOL] }),
    notSent: "temperature",
  },
  "thinking-summarized-tool-use": {
    request: () =>
      request(
        { maxTokens: 64000, reasoning: "low" },
        [user(VERSION_PROMPT)],
        { tools: [VERSION_TOOL] },
      ),
    notSent: "temperature, thinking.display, budget 1024",
  },
  "thinking-after-tool-result": {
    request: () =>
      request({ maxTokens: 64000, reasoning: "low" }, [
        user(VERSION_PROMPT),
        message("assistant", [
          signedThinking(),
          {
            type: "tool_use",
            id: "toolu_01825dXWLSoJwCst1qTsiWdb",
            name: VERSION_TOOL.name,
            input: {},
          },
        ]),
        message("tool", [toolResult("toolu_01825dXWLSoJwCst1qTsiWdb", "0.32a0")]),
      ], { tools: [VERSION_TOOL] }),
    notSent: "temperature, thinking.display, budget 1024",
  },
  "thinking-text": {
    request: () => request({ maxTokens: 8192, reasoning: "low" }, [user(PELICAN_BRIEF)]),
    notSent: "temperature, budget 1024",
  },
  "tool-use-no-args": {
    request: () =>
      request({ maxTokens: 8192 }, [user("Generate one name for a pet pelican")], {
        tools: [PELICAN_TOOL],
      }),
    notSent: "temperature",
  },
  "tool-use-parallel-no-args": {
    request: () =>
      request({ maxTokens: 8192 }, [user("Two names for a pet pelican")], {
        tools: [PELICAN_TOOL],
      }),
    notSent: "temperature",
  },
  "web-search-server-tool": {
    request: () =>
      request(
        { model: "claude-opus-4-1-20250805", maxTokens: 8192 },
        [user("What is the current weather in San Francisco?")],
      ),
    notSent: "temperature, the server tool web_search_20250305 (ToolDecl has no server tools)",
  },
};

function toolResult(toolUseId: string, output: string, isError = false): ContentBlock {
  return {
    type: "tool_result",
    toolUseId,
    toolName: "tool",
    content: [{ type: "text", text: output }],
    isError,
  };
}

function readRecorded(name: string): Record<string, unknown> {
  return JSON.parse(Deno.readTextFileSync(join(FIXTURES_DIR, `${name}.request.json`)));
}

function recordedNames(): string[] {
  return [...Deno.readDirSync(FIXTURES_DIR)]
    .filter((entry) => entry.name.endsWith(".request.json"))
    .map((entry) => entry.name.slice(0, -".request.json".length))
    .sort();
}

Deno.test("anthropic request fixtures: every recorded request has a case here", () => {
  const names = recordedNames();
  assert.ok(names.length >= 10, `found only ${names.length} request fixtures`);
  assert.deepEqual(names, Object.keys(RECORDED).sort());
});

for (const name of recordedNames()) {
  const recordedCase = RECORDED[name];
  Deno.test({
    name:
      `anthropic request fixture ${name}: same messages, tools and thinking mode (not sent: ${recordedCase?.notSent})`,
    ignore: recordedCase === undefined, // reported by the coverage test above
    fn() {
      const recorded = readRecorded(name);
      const { body } = buildAnthropicRequest(recordedCase!.request());
      assert.equal(body.model, recorded.model);
      assert.equal(body.stream, true);
      assert.deepEqual(withoutCacheControl(body.messages), recorded.messages);
      const recordedTools = recorded.tools as { type?: string }[] | undefined;
      const customTools = recordedTools?.filter((tool) => tool.type === undefined);
      assert.deepEqual(body.tools, customTools?.length ? customTools : undefined);
      assertSameThinkingMode(body, recorded.thinking as AnthropicRequestBody["thinking"]);
      if (body.thinking?.type !== "enabled") assert.equal(body.max_tokens, recorded.max_tokens);
    },
  });
}

function assertSameThinkingMode(
  body: AnthropicRequestBody,
  recorded: AnthropicRequestBody["thinking"],
): void {
  assert.equal(body.thinking?.type, recorded?.type);
  if (body.thinking?.type === "enabled") {
    assert.ok(body.thinking.budget_tokens >= 1024);
    assert.ok(body.thinking.budget_tokens < body.max_tokens, "budget below max_tokens");
  }
}

// ---------------------------------------------------------------------------
// URL and headers.

Deno.test("anthropic request: URL is baseUrl + /v1/messages, trailing slashes tolerated", () => {
  for (
    const baseUrl of [
      "https://api.anthropic.com",
      "https://api.anthropic.com/",
      "http://127.0.0.1:9/x//",
    ]
  ) {
    const { url } = buildAnthropicRequest(request({ baseUrl }, [user("hi")]));
    assert.equal(url, `${baseUrl.replace(/\/+$/, "")}/v1/messages`);
  }
});

Deno.test("anthropic request: headers carry the version, the key only when set, and config headers last", () => {
  const keyless = buildAnthropicRequest(request({}, [user("hi")])).headers;
  assert.equal(keyless["anthropic-version"], "2023-06-01");
  assert.equal(keyless["content-type"], "application/json");
  assert.equal(keyless.accept, "text/event-stream");
  assert.equal("x-api-key" in keyless, false);
  const keyed = buildAnthropicRequest(request({
    apiKey: "test-key",
    headers: { "anthropic-beta": "context-1m-2025-08-07", "anthropic-version": "2099-01-01" },
  }, [user("hi")])).headers;
  assert.equal(keyed["x-api-key"], "test-key");
  assert.equal(keyed["anthropic-beta"], "context-1m-2025-08-07");
  assert.equal(keyed["anthropic-version"], "2099-01-01", "config headers override defaults");
});

// ---------------------------------------------------------------------------
// Body.

Deno.test("anthropic request: system prompt is a cached text block, omitted when empty", () => {
  const none = buildAnthropicRequest(request({}, [user("hi")])).body;
  assert.equal("system" in none, false);
  const some = buildAnthropicRequest(request({}, [user("hi")], { system: "Be terse." })).body;
  assert.deepEqual(some.system, [{
    type: "text",
    text: "Be terse.",
    cache_control: { type: "ephemeral" },
  }]);
});

Deno.test("anthropic request: the last block of the last user turn is the only message cache breakpoint", () => {
  const { body } = buildAnthropicRequest(request({}, [
    user("first"),
    message("assistant", [{ type: "tool_use", id: "t1", name: "x", input: {} }]),
    message("tool", [toolResult("t1", "done")]),
    message("assistant", [{ type: "text", text: "prefill" }]),
  ]));
  const marked = body.messages.flatMap((turn, turnIndex) =>
    turn.content.flatMap((block, blockIndex) =>
      "cache_control" in block ? [`${turnIndex}.${blockIndex}.${block.type}`] : []
    )
  );
  assert.deepEqual(marked, ["2.0.tool_result"]);
});

Deno.test("anthropic request: tools are sent as name, description, input_schema; omitted when none", () => {
  const decl: ToolDecl = {
    name: "read",
    description: "Read a file",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  };
  const { body } = buildAnthropicRequest(request({}, [user("hi")], { tools: [decl] }));
  assert.deepEqual(body.tools, [{
    name: "read",
    description: "Read a file",
    input_schema: decl.inputSchema,
  }]);
  assert.equal("tools" in buildAnthropicRequest(request({}, [user("hi")])).body, false);
});

Deno.test("anthropic request: user images become base64 image blocks", () => {
  const { body } = buildAnthropicRequest(request({}, [message("user", [
    { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
    { type: "text", text: "What is this?" },
  ])]));
  assert.deepEqual(withoutCacheControl(body.messages[0]?.content), [
    { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
    { type: "text", text: "What is this?" },
  ]);
});

Deno.test("anthropic request: tool results with images and errors become tool_result blocks with content arrays", () => {
  const { body } = buildAnthropicRequest(request({}, [
    user("go"),
    message("assistant", [{ type: "tool_use", id: "t1", name: "shot", input: {} }]),
    message("tool", [{
      type: "tool_result",
      toolUseId: "t1",
      toolName: "shot",
      content: [
        { type: "text", text: "boom" },
        { type: "text", text: "" },
        { type: "image", mediaType: "image/jpeg", data: "/9j/" },
      ],
      isError: true,
    }, { type: "tool_result", toolUseId: "t2", toolName: "shot", content: [], isError: false }]),
  ]));
  assert.deepEqual(withoutCacheControl(body.messages[2]), {
    role: "user",
    content: [
      {
        type: "tool_result",
        tool_use_id: "t1",
        is_error: true,
        content: [
          { type: "text", text: "boom" },
          { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/" } },
        ],
      },
      { type: "tool_result", tool_use_id: "t2" },
    ],
  });
});

Deno.test("anthropic request: consecutive user-side messages merge into one turn with tool results first", () => {
  const { body } = buildAnthropicRequest(request({}, [
    user("go"),
    message("assistant", [{ type: "tool_use", id: "t1", name: "x", input: {} }]),
    message("user", [{ type: "text", text: "steer" }]),
    message("tool", [toolResult("t1", "ok")]),
    message("assistant", []), // e.g. an aborted turn with nothing in it
    user("next"),
  ]));
  assert.deepEqual(body.messages.map((turn) => turn.role), ["user", "assistant", "user"]);
  assert.deepEqual(body.messages[2]?.content.map((block) => block.type), [
    "tool_result",
    "text",
    "text",
  ]);
});

Deno.test("anthropic request: system messages are skipped (the prompt travels in `system`)", () => {
  const { body } = buildAnthropicRequest(request({}, [
    message("system", [{ type: "system", text: "old prompt", mode: "replace" }]),
    user("hi"),
  ]));
  assert.equal(body.messages.length, 1);
  assert.equal(JSON.stringify(body.messages).includes("old prompt"), false);
});

Deno.test("anthropic request: assistant thinking keeps its signature; unsigned thinking becomes text; empty text is dropped", () => {
  const { body } = buildAnthropicRequest(request({}, [
    user("hi"),
    message("assistant", [
      { type: "thinking", thinking: "signed", signature: "sig" },
      { type: "thinking", thinking: "unsigned" },
      { type: "thinking", thinking: "" },
      { type: "redacted_thinking", data: "opaque" },
      { type: "text", text: "" },
      { type: "text", text: "answer" },
    ]),
  ]));
  assert.deepEqual(body.messages[1]?.content, [
    { type: "thinking", thinking: "signed", signature: "sig" },
    { type: "text", text: "unsigned" },
    { type: "redacted_thinking", data: "opaque" },
    { type: "text", text: "answer" },
  ]);
});

Deno.test("anthropic request: a tool call with invalid (cut-off) input is sent with input {}", () => {
  const { body } = buildAnthropicRequest(request({}, [
    user("write"),
    message("assistant", [{
      type: "tool_use",
      id: "t1",
      name: "make_file",
      input: {},
      invalidInput: '{"filename": "tax',
    }]),
    message("tool", [toolResult("t1", "arguments were cut off", true)]),
  ]));
  assert.deepEqual(body.messages[1]?.content, [
    { type: "tool_use", id: "t1", name: "make_file", input: {} },
  ]);
});

Deno.test("anthropic request: call ids from other providers are rewritten to the allowed alphabet, consistently", () => {
  const id = "functions.bash:0";
  const { body } = buildAnthropicRequest(request({}, [
    user("go"),
    message("assistant", [{ type: "tool_use", id, name: "bash", input: {} }]),
    message("tool", [toolResult(id, "ok")]),
  ]));
  const call = body.messages[1]?.content[0];
  const result = body.messages[2]?.content[0];
  assert.ok(call?.type === "tool_use" && result?.type === "tool_result");
  assert.equal(call.id, "functions_bash_0");
  assert.equal(result.tool_use_id, call.id);
});

Deno.test("anthropic request: a compaction summary becomes framed user text", () => {
  const { body } = buildAnthropicRequest(request({}, [
    message("user", [{ type: "compaction_summary", summary: "We fixed the parser." }]),
    user("continue"),
  ]));
  assert.equal(body.messages.length, 1);
  const summary = body.messages[0]?.content[0];
  assert.ok(summary?.type === "text");
  assert.match(summary.text, /<summary>\nWe fixed the parser\.\n<\/summary>$/);
});

// ---------------------------------------------------------------------------
// Reasoning.

function reasoningBody(reasoning: ReasoningLevel, model: string, maxTokens?: number) {
  const config: Partial<ProviderConfig> = { reasoning, model };
  if (maxTokens !== undefined) config.maxTokens = maxTokens;
  return buildAnthropicRequest(request(config, [user("hi")])).body;
}

Deno.test("anthropic request: reasoning off sends no thinking and the default max_tokens", () => {
  const body = reasoningBody("off", "claude-sonnet-4-5");
  assert.equal(body.thinking, undefined);
  assert.equal(body.output_config, undefined);
  assert.equal(body.max_tokens, DEFAULT_MAX_TOKENS);
});

Deno.test("anthropic request: budget levels minimal to xhigh with max_tokens above each budget", () => {
  for (const level of ["minimal", "low", "medium", "high", "xhigh"] as const) {
    const body = reasoningBody(level, "claude-sonnet-4-5-20250929");
    assert.deepEqual(body.thinking, { type: "enabled", budget_tokens: THINKING_BUDGETS[level] });
    assert.ok(body.max_tokens > THINKING_BUDGETS[level], `${level}: ${body.max_tokens}`);
    assert.ok(body.max_tokens >= DEFAULT_MAX_TOKENS);
  }
  assert.deepEqual(THINKING_BUDGETS, {
    minimal: 1024,
    low: 2048,
    medium: 8192,
    high: 24576,
    xhigh: 32768,
  });
});

Deno.test("anthropic request: a model's catalog values replace the defaults (an effort, a budget)", () => {
  const config = (model: string, reasoning: ReasoningLevel): Partial<ProviderConfig> => ({
    model,
    reasoning,
    reasoningValues: { xhigh: "max", high: "30000" },
  });
  const adaptive = buildAnthropicRequest(request(config("claude-opus-4-6", "xhigh"), [user("hi")]));
  assert.deepEqual(adaptive.body.output_config, { effort: "max" });
  const minimal = buildAnthropicRequest(
    request(config("claude-opus-4-6", "minimal"), [user("hi")]),
  );
  assert.deepEqual(minimal.body.output_config, { effort: "low" }, "the API has no minimal effort");
  const budget = buildAnthropicRequest(request(config("claude-sonnet-4-5", "high"), [user("hi")]));
  assert.deepEqual(budget.body.thinking, { type: "enabled", budget_tokens: 30000 });
});

Deno.test("anthropic request: a configured max_tokens is kept and the budget shrinks to fit under it", () => {
  const fits = reasoningBody("high", "claude-sonnet-4-5", 64000);
  assert.deepEqual(fits.thinking, { type: "enabled", budget_tokens: 24576 });
  assert.equal(fits.max_tokens, 64000);
  const tight = reasoningBody("high", "claude-sonnet-4-5", 8192);
  assert.equal(tight.max_tokens, 8192);
  assert.ok(tight.thinking?.type === "enabled" && tight.thinking.budget_tokens < 8192);
  const tiny = reasoningBody("low", "claude-sonnet-4-5", 1500);
  assert.ok(tiny.thinking?.type === "enabled" && tiny.thinking.budget_tokens === 1024);
  assert.ok(tiny.max_tokens > 1024, "max_tokens raised above the API's minimum budget");
});

Deno.test("anthropic request: Claude 4.6+ gets adaptive thinking with the level as effort", () => {
  const body = reasoningBody("medium", "claude-opus-4-6");
  assert.deepEqual(body.thinking, { type: "adaptive" });
  assert.deepEqual(body.output_config, { effort: "medium" });
  assert.equal(body.max_tokens, DEFAULT_MAX_TOKENS);
});

Deno.test("anthropic request: adaptive thinking is chosen by model version", () => {
  const adaptive = [
    "claude-opus-4-6",
    "claude-sonnet-4-6",
    "claude-opus-4-7-20260101",
    "claude-sonnet-5",
  ];
  const budget = [
    "claude-sonnet-4-5-20250929",
    "claude-haiku-4-5",
    "claude-opus-4-20250514",
    "claude-sonnet-4-0",
    "claude-3-7-sonnet-20250219",
    "my-local-model",
  ];
  for (const model of adaptive) assert.ok(usesAdaptiveThinking(model), model);
  for (const model of budget) assert.ok(!usesAdaptiveThinking(model), model);
});
