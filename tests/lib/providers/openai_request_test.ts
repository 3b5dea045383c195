/**
 * `buildOpenAIRequest`: the bodies recorded in the `*.request.json`
 * fixtures (compared semantically), plus URL, headers and every message
 * conversion rule.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ContentBlock } from "../../../lib/content.ts";
import type { ProviderConfig } from "../../../lib/config.ts";
import { ProviderError } from "../../../lib/errors.ts";
import type { Message } from "../../../lib/message.ts";
import type { ToolDecl } from "../../../lib/tool.ts";
import { buildOpenAIRequest } from "../../../lib/providers/openai_request.ts";
import type { ProviderRequest } from "../../../lib/providers/provider.ts";

const FIXTURES_DIR = new URL("../../fixtures/providers/openai", import.meta.url)
  .pathname;

function recorded(name: string): Record<string, unknown> {
  return JSON.parse(Deno.readTextFileSync(join(FIXTURES_DIR, `${name}.request.json`)));
}

function message(role: Message["role"], ...content: ContentBlock[]): Message {
  return { role, content, timestamp: "2026-01-01T00:00:00.000Z" };
}

const user = (text: string) => message("user", { type: "text", text });

function request(
  config: Partial<ProviderConfig> & Pick<ProviderConfig, "baseUrl" | "model">,
  messages: Message[],
  options: { system?: string; tools?: ToolDecl[] } = {},
): ProviderRequest {
  return {
    config: { api: "openai-chat", reasoning: "off", ...config },
    system: options.system ?? "",
    messages,
    tools: options.tools ?? [],
    signal: new AbortController().signal,
    idleTimeoutMs: 1000,
  };
}

const MULTIPLY: ToolDecl = {
  name: "multiply",
  description: "Multiply two numbers.",
  inputSchema: {
    properties: { a: { type: "integer" }, b: { type: "integer" } },
    required: ["a", "b"],
    type: "object",
  },
};

const LLM_VERSION: ToolDecl = {
  name: "llm_version",
  description: "Return the installed version of llm",
  inputSchema: { properties: {}, type: "object" },
};

/**
 * Recorded bodies and ours compared as data: tool arguments parsed (the
 * recordings have spaces), a missing `content` read as null, and options we
 * do not send left out.
 */
function normalise(body: unknown, dropKeys: readonly string[] = []): unknown {
  const copy = structuredClone(body) as Record<string, unknown>;
  for (const key of dropKeys) delete copy[key];
  const messages = copy.messages as Record<string, unknown>[];
  for (const wire of messages) {
    if (wire.role === "assistant" && !("content" in wire)) wire.content = null;
    for (const call of (wire.tool_calls ?? []) as { function: { arguments: unknown } }[]) {
      call.function.arguments = JSON.parse(call.function.arguments as string);
    }
  }
  for (const tool of (copy.tools ?? []) as { function: Record<string, unknown> }[]) {
    delete tool.function.strict; // we never ask for strict schemas
  }
  return copy;
}

Deno.test("openai request: tool-call-single.request.json, exactly", () => {
  const built = buildOpenAIRequest(
    request({ baseUrl: "https://api.openai.com/v1", model: "gpt-4o-mini" }, [
      user("What is 1231 * 2331?"),
    ], { tools: [MULTIPLY] }),
  );
  assert.deepEqual(built.body, recorded("tool-call-single"));
});

Deno.test("openai request: openrouter-kimi-tool-*.request.json (same request), exactly", () => {
  const built = buildOpenAIRequest(
    request({ baseUrl: "https://api.openai.com/v1", model: "gpt-4.1-mini" }, [
      user("What is the current llm version?"),
    ], { tools: [LLM_VERSION] }),
  );
  assert.deepEqual(built.body, recorded("openrouter-kimi-tool-repeated"));
  assert.deepEqual(built.body, recorded("openrouter-kimi-tool-split"));
});

Deno.test("openai request: snowflake-no-finish-reason.request.json (unknown host), exactly", () => {
  const built = buildOpenAIRequest(
    request(
      {
        baseUrl: "https://acct.snowflakecomputing.com/api/v2/cortex/v1",
        model: "claude-sonnet-4-6",
      },
      [user("What is 2 + 2? Reply with just the number.")],
    ),
  );
  assert.deepEqual(built.body, recorded("snowflake-no-finish-reason"));
});

Deno.test("openai request: text-usage.request.json (tool round trip), semantically", () => {
  const built = buildOpenAIRequest(
    request({ baseUrl: "https://api.openai.com/v1", model: "gpt-4o-mini" }, [
      user("What is 1231 * 2331?"),
      message("assistant", {
        type: "tool_use",
        id: "call_1EYWDzueHEp8OsB8jJSEp7WB",
        name: "multiply",
        input: { a: 1231, b: 2331 },
      }),
      message("tool", {
        type: "tool_result",
        toolUseId: "call_1EYWDzueHEp8OsB8jJSEp7WB",
        toolName: "multiply",
        content: [{ type: "text", text: "2869461" }],
        isError: false,
      }),
    ], { tools: [MULTIPLY] }),
  );
  const expected = recorded("text-usage");
  // simonw/llm sent an extra empty assistant message before the call; we send none.
  const messages = expected.messages as Record<string, unknown>[];
  expected.messages = messages.filter((wire) =>
    !(wire.role === "assistant" && wire.content === "")
  );
  assert.deepEqual(normalise(built.body), normalise(expected));
});

Deno.test("openai request: text-obfuscation.request.json (content null with calls), semantically", () => {
  const built = buildOpenAIRequest(
    request({ baseUrl: "https://api.openai.com/v1", model: "gpt-4o-mini" }, [
      user("What is the capital of the UK? Use the tool, then answer."),
      message("assistant", {
        type: "tool_use",
        id: "call_ZR5UUuTt3pf61kjwAJIYdVMj",
        name: "get_capital",
        input: { country: "UK" },
      }),
      message("tool", {
        type: "tool_result",
        toolUseId: "call_ZR5UUuTt3pf61kjwAJIYdVMj",
        toolName: "get_capital",
        content: [{ type: "text", text: "London" }],
        isError: false,
      }),
    ], {
      tools: [{
        name: "get_capital",
        description: "",
        inputSchema: {
          additionalProperties: false,
          properties: { country: { type: "string" } },
          required: ["country"],
          type: "object",
        },
      }],
    }),
  );
  // tool_choice "auto" is the server default; we leave it out.
  assert.deepEqual(normalise(built.body), normalise(recorded("text-obfuscation"), ["tool_choice"]));
});

Deno.test("openai request: groq-error-event-no-done.request.json (system prompt), messages and tools", () => {
  const built = buildOpenAIRequest(
    request({ baseUrl: "https://api.groq.com/openai/v1", model: "openai/gpt-oss-120b" }, [
      user(
        'Please call the "get_something_by_name" tool with non-existent parameters to test error handling; on the second try you can use valid args',
      ),
    ], {
      system: "Be concise. Never use pretty double quotes, just regular ones.",
      tools: [{
        name: "get_something_by_name",
        description: "",
        inputSchema: {
          additionalProperties: false,
          properties: { name: { type: "string" } },
          required: ["name"],
          type: "object",
        },
      }],
    }),
  );
  const expected = recorded("groq-error-event-no-done");
  assert.deepEqual(built.body.messages, expected.messages);
  assert.deepEqual(built.body.tools, expected.tools);
  assert.equal(built.url, "https://api.groq.com/openai/v1/chat/completions");
});

Deno.test("openai request: openrouter-comments-error-chunk.request.json with an explicit max-tokens field, exactly", () => {
  const built = buildOpenAIRequest(
    request({
      baseUrl: "https://openrouter.ai/api/v1",
      model: "minimax/minimax-m2:free",
      maxTokens: 10,
      compat: { maxTokensField: "max_completion_tokens" },
    }, [user("Hello there")]),
  );
  assert.deepEqual(built.body, recorded("openrouter-comments-error-chunk"));
});

Deno.test("openai request: openrouter-claude-reasoning.request.json, reasoning as OpenRouter's object", () => {
  const built = buildOpenAIRequest(
    request(
      {
        baseUrl: "https://openrouter.ai/api/v1",
        model: "anthropic/claude-sonnet-4.5",
        reasoning: "high",
      },
      [user("What is 2+2?")],
    ),
  );
  const { reasoning: _enabled, ...expected } = recorded("openrouter-claude-reasoning");
  const { reasoning, ...body } = built.body;
  assert.deepEqual(body, expected);
  // The recording used {enabled:true}; we send a level, which OpenRouter documents as well.
  assert.deepEqual(reasoning, { effort: "high" });
});

Deno.test("openai request: URL tolerates a trailing slash and keeps a query string", () => {
  const url = (baseUrl: string) =>
    buildOpenAIRequest(request({ baseUrl, model: "m" }, [user("hi")])).url;
  assert.equal(url("https://api.openai.com/v1"), "https://api.openai.com/v1/chat/completions");
  assert.equal(url("https://api.openai.com/v1/"), "https://api.openai.com/v1/chat/completions");
  assert.equal(
    url("https://r.openai.azure.com/openai/v1?api-version=preview"),
    "https://r.openai.azure.com/openai/v1/chat/completions?api-version=preview",
  );
  assert.throws(
    () => url("api.openai.com/v1"),
    (error) =>
      error instanceof ProviderError && error.kind === "invalid_request" &&
      error.message.includes('"api.openai.com/v1"'),
  );
});

Deno.test("openai request: auth header only with a key; Azure uses api-key; extra headers win", () => {
  const headers = (config: Partial<ProviderConfig>) =>
    buildOpenAIRequest(
      request({ baseUrl: "http://localhost:8080/v1", model: "m", ...config }, [user("hi")]),
    )
      .headers;
  assert.deepEqual(headers({}), {
    "content-type": "application/json",
    accept: "text/event-stream",
  });
  assert.equal(headers({ apiKey: "k-123" }).authorization, "Bearer k-123");
  const azure = headers({ baseUrl: "https://r.openai.azure.com/openai/v1", apiKey: "k-123" });
  assert.equal(azure["api-key"], "k-123");
  assert.equal(azure.authorization, undefined);
  const extra = headers({
    apiKey: "k",
    headers: { "HTTP-Referer": "https://panto.dev", accept: "*/*" },
  });
  assert.equal(extra["HTTP-Referer"], "https://panto.dev");
  assert.equal(extra.accept, "*/*");
});

Deno.test("openai request: system prompt role per compat, omitted when empty", () => {
  const first = (model: string, system: string) =>
    buildOpenAIRequest(
      request({ baseUrl: "https://api.openai.com/v1", model }, [user("hi")], { system }),
    )
      .body.messages[0];
  assert.deepEqual(first("o3", "Be brief."), { role: "developer", content: "Be brief." });
  assert.deepEqual(first("gpt-4o", "Be brief."), { role: "system", content: "Be brief." });
  assert.deepEqual(first("gpt-4o", ""), { role: "user", content: "hi" });
});

Deno.test("openai request: max tokens only when set, in the compat's field", () => {
  const body = (baseUrl: string, maxTokens?: number) =>
    buildOpenAIRequest(
      request({ baseUrl, model: "m", ...(maxTokens ? { maxTokens } : {}) }, [user("hi")]),
    )
      .body;
  const unset = body("https://api.openai.com/v1");
  assert.ok(!("max_tokens" in unset) && !("max_completion_tokens" in unset));
  assert.equal(body("https://api.openai.com/v1", 500).max_completion_tokens, 500);
  assert.equal(body("https://api.deepseek.com/v1", 500).max_tokens, 500);
  assert.equal(body("https://api.mistral.ai/v1", 500).stream_options, undefined);
});

Deno.test("openai request: reasoning per compat, nothing when off", () => {
  const body = (baseUrl: string, reasoning: ProviderConfig["reasoning"]) =>
    buildOpenAIRequest(request({ baseUrl, model: "o3", reasoning }, [user("hi")])).body;
  assert.equal(body("https://api.openai.com/v1", "low").reasoning_effort, "low");
  assert.equal(body("https://api.openai.com/v1", "off").reasoning_effort, undefined);
  assert.deepEqual(body("https://openrouter.ai/api/v1", "medium").reasoning, { effort: "medium" });
  const moonshot = body("https://api.moonshot.ai/v1", "high");
  assert.ok(!("reasoning_effort" in moonshot) && !("reasoning" in moonshot));
});

Deno.test("openai request: thinking switched on and off where it is the default", () => {
  const body = (baseUrl: string, reasoning: ProviderConfig["reasoning"]) => {
    const config = { baseUrl, model: "m", reasoning, reasoningValues: { xhigh: "max" } };
    const built = buildOpenAIRequest(request(config, [user("hi")])).body;
    return { ...built, messages: undefined, model: undefined, stream: undefined };
  };
  const deepseek = "https://api.deepseek.com";
  assert.deepEqual(body(deepseek, "xhigh"), {
    ...body(deepseek, "off"),
    thinking: { type: "enabled" },
    reasoning_effort: "max",
  });
  assert.deepEqual(body(deepseek, "off").thinking, { type: "disabled" });
  assert.equal(body(deepseek, "off").reasoning_effort, undefined);
  const zai = "https://api.z.ai/api/coding/paas/v4";
  assert.deepEqual(body(zai, "high").thinking, { type: "enabled" });
  assert.equal(body(zai, "high").reasoning_effort, undefined, "Z.ai has no effort setting");
  assert.deepEqual(body(zai, "off").thinking, { type: "disabled" });
  const qwen = "https://dashscope-intl.aliyuncs.com/compatible-mode/v1";
  assert.equal(body(qwen, "medium").enable_thinking, true);
  assert.equal(body(qwen, "off").enable_thinking, false);
  assert.equal(body(qwen, "medium").reasoning_effort, undefined);
});

Deno.test("openai request: user images become data URLs; a compaction summary becomes text", () => {
  const built = buildOpenAIRequest(
    request({ baseUrl: "https://api.openai.com/v1", model: "gpt-4o" }, [
      message("user", { type: "compaction_summary", summary: "We fixed the parser." }),
      message(
        "user",
        { type: "text", text: "What is this?" },
        { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
      ),
    ]),
  );
  assert.deepEqual(built.body.messages, [
    {
      role: "user",
      content:
        "The conversation so far was summarised to save space:\n<summary>\nWe fixed the parser.\n</summary>",
    },
    {
      role: "user",
      content: [
        { type: "text", text: "What is this?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
      ],
    },
  ]);
});

Deno.test("openai request: a user message of text blocks alone goes as one string, blank lines between", () => {
  const built = buildOpenAIRequest(
    request({ baseUrl: "https://api.openai.com/v1", model: "gpt-4o" }, [
      message(
        "user",
        { type: "text", text: "summarise @notes.txt" },
        { type: "text", text: '<file path="notes.txt">\nthe notes\n</file>' },
      ),
    ]),
  );
  assert.deepEqual(built.body.messages, [{
    role: "user",
    content: 'summarise @notes.txt\n\n<file path="notes.txt">\nthe notes\n</file>',
  }]);
});

Deno.test("openai request: assistant thinking is dropped, text joined, bad arguments sent as {}", () => {
  const built = buildOpenAIRequest(
    request({ baseUrl: "https://api.openai.com/v1", model: "gpt-4o" }, [
      user("go"),
      message(
        "assistant",
        { type: "thinking", thinking: "hmm", signature: "sig" },
        { type: "redacted_thinking", data: "opaque" },
        { type: "text", text: "Part one, " },
        { type: "text", text: "part two." },
        { type: "tool_use", id: "c1", name: "write", input: {}, invalidInput: '{"path": "a' },
      ),
      message("assistant", { type: "thinking", thinking: "only thoughts" }),
    ]),
  );
  assert.deepEqual(built.body.messages.slice(1), [{
    role: "assistant",
    content: "Part one, part two.",
    tool_calls: [{ id: "c1", type: "function", function: { name: "write", arguments: "{}" } }],
  }]);
  assert.ok(!JSON.stringify(built.body).includes("reasoning_content"));
});

Deno.test("openai request: DeepSeek gets its reasoning back on every assistant message", () => {
  const built = buildOpenAIRequest(
    request({ baseUrl: "https://api.deepseek.com", model: "deepseek-v4-pro" }, [
      user("go"),
      message(
        "assistant",
        { type: "thinking", thinking: "First I " },
        { type: "thinking", thinking: "list." },
        { type: "tool_use", id: "c1", name: "ls", input: {} },
      ),
      message("tool", {
        type: "tool_result",
        toolUseId: "c1",
        toolName: "ls",
        content: [{ type: "text", text: "a.ts" }],
        isError: false,
      }),
      message("assistant", { type: "text", text: "One file." }),
    ]),
  );
  const assistants = built.body.messages.filter((m) => m.role === "assistant");
  assert.deepEqual(assistants.map((m) => "reasoning_content" in m && m.reasoning_content), [
    "First I list.",
    "",
  ]);
});

Deno.test("openai request: one tool message per result; images follow in one user message", () => {
  const built = buildOpenAIRequest(
    request({ baseUrl: "https://api.openai.com/v1", model: "gpt-4o" }, [
      message("tool", {
        type: "tool_result",
        toolUseId: "a",
        toolName: "screenshot",
        content: [{ type: "image", mediaType: "image/jpeg", data: "AAAA" }],
        isError: false,
      }, {
        type: "tool_result",
        toolUseId: "b",
        toolName: "read",
        content: [{ type: "text", text: "line 1" }, { type: "text", text: "line 2" }],
        isError: true,
      }, {
        type: "tool_result",
        toolUseId: "c",
        toolName: "view",
        content: [{ type: "text", text: "chart" }, {
          type: "image",
          mediaType: "image/png",
          data: "BBBB",
        }],
        isError: false,
      }),
    ]),
  );
  assert.deepEqual(built.body.messages, [
    { role: "tool", tool_call_id: "a", content: "(see attached image)" },
    { role: "tool", tool_call_id: "b", content: "line 1\nline 2" },
    { role: "tool", tool_call_id: "c", content: "chart\n(see attached image)" },
    {
      role: "user",
      content: [
        { type: "text", text: "Attached image(s) from tool result:" },
        { type: "image_url", image_url: { url: "data:image/jpeg;base64,AAAA" } },
        { type: "image_url", image_url: { url: "data:image/png;base64,BBBB" } },
      ],
    },
  ]);
});

Deno.test("openai request: tools omitted when none; declared as functions otherwise", () => {
  const none = buildOpenAIRequest(
    request({ baseUrl: "https://api.openai.com/v1", model: "m" }, [user("hi")]),
  );
  assert.ok(!("tools" in none.body));
  const some = buildOpenAIRequest(
    request({ baseUrl: "https://api.openai.com/v1", model: "m" }, [user("hi")], {
      tools: [MULTIPLY],
    }),
  );
  assert.deepEqual(some.body.tools, [{
    type: "function",
    function: {
      name: "multiply",
      description: MULTIPLY.description,
      parameters: MULTIPLY.inputSchema,
    },
  }]);
});

Deno.test("openai request: Mistral gets 9-character ids that pair each call with its result", () => {
  const messages = [
    user("list"),
    message("assistant", {
      type: "tool_use",
      id: "toolu_01XyZabc",
      name: "ls",
      input: {},
    }, { type: "tool_use", id: "Mistral99", name: "ls", input: { path: "b" } }),
    message("tool", {
      type: "tool_result",
      toolUseId: "toolu_01XyZabc",
      toolName: "ls",
      content: [{ type: "text", text: "a" }],
      isError: false,
    }, {
      type: "tool_result",
      toolUseId: "Mistral99",
      toolName: "ls",
      content: [{ type: "text", text: "b" }],
      isError: false,
    }),
  ];
  const body = (baseUrl: string) =>
    buildOpenAIRequest(request({ baseUrl, model: "mistral-large-latest" }, messages)).body;
  const wire = body("https://api.mistral.ai/v1").messages;
  const assistant = wire[1] as { tool_calls: { id: string }[] };
  const [first, second] = assistant.tool_calls.map((call) => call.id);
  assert.match(first ?? "", /^[A-Za-z0-9]{9}$/);
  assert.equal(second, "Mistral99", "an id already in Mistral's shape is kept");
  assert.deepEqual(wire.slice(2).map((m) => (m as { tool_call_id: string }).tool_call_id), [
    first,
    "Mistral99",
  ]);
  const openai = body("https://api.openai.com/v1").messages[1] as { tool_calls: { id: string }[] };
  assert.equal(openai.tool_calls[0]?.id, "toolu_01XyZabc", "other servers get ids as recorded");
});
