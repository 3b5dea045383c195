/** `resolveOpenAICompat`: detection per host, and explicit settings winning. */
import assert from "node:assert/strict";
import type { OpenAICompat, ProviderConfig } from "../../../lib/config.ts";
import { resolveOpenAICompat } from "../../../lib/providers/openai_compat.ts";

function config(baseUrl: string, model = "m", compat?: OpenAICompat): ProviderConfig {
  return { api: "openai-chat", baseUrl, model, reasoning: "off", ...(compat ? { compat } : {}) };
}

type Compat = Required<OpenAICompat>;

const SYSTEM_MAX_TOKENS: Compat = {
  developerRole: false,
  maxTokensField: "max_tokens",
  reasoningParam: "reasoning_effort",
  streamUsage: true,
  toolCallIds: "any",
  reasoningContent: false,
};
const OPENAI_CLASSIC: Compat = { ...SYSTEM_MAX_TOKENS, maxTokensField: "max_completion_tokens" };
const OPENAI_REASONING: Compat = { ...OPENAI_CLASSIC, developerRole: true };

const CASES: readonly [string, string, Compat][] = [
  ["https://api.openai.com/v1", "gpt-4o", OPENAI_CLASSIC],
  ["https://api.openai.com/v1", "gpt-4.1-mini", OPENAI_CLASSIC],
  ["https://api.openai.com/v1", "o1", OPENAI_REASONING],
  ["https://api.openai.com/v1", "o3-mini", OPENAI_REASONING],
  ["https://api.openai.com/v1", "o4-mini-2025-04-16", OPENAI_REASONING],
  ["https://api.openai.com/v1", "gpt-5-nano", OPENAI_REASONING],
  ["https://API.OpenAI.com/v1/", "gpt-5.1", OPENAI_REASONING],
  ["https://myres.openai.azure.com/openai/v1?api-version=preview", "gpt-5-nano", OPENAI_REASONING],
  ["https://myres.cognitiveservices.azure.com/openai/v1", "gpt-4o", OPENAI_CLASSIC],
  ["https://openrouter.ai/api/v1", "anthropic/claude-sonnet-4.5", {
    ...SYSTEM_MAX_TOKENS,
    reasoningParam: "reasoning",
  }],
  ["https://api.deepseek.com/v1", "deepseek-v4-pro", {
    ...SYSTEM_MAX_TOKENS,
    reasoningParam: "thinking_effort",
    reasoningContent: true,
  }],
  ["https://api.z.ai/api/coding/paas/v4", "glm-5.1", {
    ...SYSTEM_MAX_TOKENS,
    reasoningParam: "thinking",
    reasoningContent: true,
  }],
  ["https://api.moonshot.ai/v1", "kimi-k2.6", { ...SYSTEM_MAX_TOKENS, reasoningParam: "none" }],
  ["https://api.groq.com/openai/v1", "openai/gpt-oss-120b", {
    ...SYSTEM_MAX_TOKENS,
    maxTokensField: "max_completion_tokens",
  }],
  ["https://api.x.ai/v1", "grok-4", {
    ...SYSTEM_MAX_TOKENS,
    maxTokensField: "max_completion_tokens",
    reasoningParam: "none",
  }],
  ["https://api.mistral.ai/v1", "mistral-small-latest", {
    ...SYSTEM_MAX_TOKENS,
    reasoningParam: "none",
    streamUsage: false,
    toolCallIds: "alnum9",
  }],
  ["https://dashscope-intl.aliyuncs.com/compatible-mode/v1", "qwen3-max", {
    ...SYSTEM_MAX_TOKENS,
    reasoningParam: "enable_thinking",
  }],
  ["https://dashscope.aliyuncs.com/compatible-mode/v1", "qwen3-max", {
    ...SYSTEM_MAX_TOKENS,
    reasoningParam: "enable_thinking",
  }],
  ["http://localhost:8080/v1", "o3", SYSTEM_MAX_TOKENS], // llama.cpp: model names are not OpenAI's
  ["http://127.0.0.1:11434/v1", "gpt-oss:20b", SYSTEM_MAX_TOKENS], // Ollama
  ["http://[::1]:8000/v1", "Qwen/Qwen3-8B", SYSTEM_MAX_TOKENS], // vLLM
  ["http://host.docker.internal:1234/v1", "local", SYSTEM_MAX_TOKENS], // LM Studio
  ["https://llm.internal.example/v1", "anything", SYSTEM_MAX_TOKENS],
  ["https://notapi.openai.com.evil.example/v1", "o3", SYSTEM_MAX_TOKENS], // suffix, not host
  ["not a url", "o3", SYSTEM_MAX_TOKENS],
];

for (const [baseUrl, model, expected] of CASES) {
  Deno.test(`openai compat: ${baseUrl} with ${model}`, () => {
    assert.deepEqual(resolveOpenAICompat(config(baseUrl, model)), expected);
  });
}

Deno.test("openai compat: explicit fields win, unset ones are still detected", () => {
  const resolved = resolveOpenAICompat(
    config("https://api.openai.com/v1", "o3", { developerRole: false, streamUsage: false }),
  );
  assert.deepEqual(resolved, { ...OPENAI_REASONING, developerRole: false, streamUsage: false });
  const local = resolveOpenAICompat(
    config("http://localhost:8000/v1", "m", {
      maxTokensField: "max_completion_tokens",
      reasoningParam: "reasoning",
    }),
  );
  assert.deepEqual(local, {
    ...SYSTEM_MAX_TOKENS,
    maxTokensField: "max_completion_tokens",
    reasoningParam: "reasoning",
  });
});
