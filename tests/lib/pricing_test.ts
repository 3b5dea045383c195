import assert from "node:assert/strict";
import { emptyUsage, Pricing, PricingRegistry, type Usage } from "../../lib/mod.ts";

function assertDollars(actual: number, expected: number): void {
  assert.ok(Math.abs(actual - expected) < 1e-12, `expected $${expected}, got $${actual}`);
}

function usage(counts: Partial<Usage>): Usage {
  return { ...emptyUsage(), ...counts };
}

function registryPrice(registry: PricingRegistry, model: string): Pricing {
  const pricing = registry.get(model);
  assert.ok(pricing, `no price for ${model}`);
  return pricing;
}

Deno.test("Anthropic usage: uncached input, cache writes, cache reads and output each at their rate", () => {
  // Anthropic reports input_tokens without the cache tokens; the provider copies them as is.
  const wire = {
    input_tokens: 25,
    cache_creation_input_tokens: 1500,
    cache_read_input_tokens: 20000,
    output_tokens: 400,
  };
  const anthropicUsage = usage({
    inputTokens: wire.input_tokens,
    cacheWriteTokens: wire.cache_creation_input_tokens,
    cacheReadTokens: wire.cache_read_input_tokens,
    outputTokens: wire.output_tokens,
  });
  const pricing = registryPrice(PricingRegistry.withDefaults(), "claude-sonnet-4-5-20250929");
  // 25·$3 + 1500·$3.75 + 20000·$0.30 + 400·$15 = 75 + 5625 + 6000 + 6000 = $17700 per million
  assertDollars(pricing.cost(anthropicUsage), 0.0177);
});

Deno.test("OpenAI usage: cached tokens are subtracted from prompt tokens and billed at the cached rate", () => {
  // A recorded gpt-4.1 response: prompt_tokens includes the 11904 cached tokens.
  const wire = { prompt_tokens: 12033, cached_tokens: 11904, completion_tokens: 44 };
  const openaiUsage = usage({
    inputTokens: wire.prompt_tokens - wire.cached_tokens,
    cacheReadTokens: wire.cached_tokens,
    outputTokens: wire.completion_tokens,
  });
  const pricing = registryPrice(PricingRegistry.withDefaults(), "gpt-4.1-2025-04-14");
  // 129·$2 + 11904·$0.50 + 44·$8 = 258 + 5952 + 352 = $6562 per million
  assertDollars(pricing.cost(openaiUsage), 0.006562);
  // Billing every prompt token at the input rate would have cost almost four times as much.
  const naive = usage({ inputTokens: wire.prompt_tokens, outputTokens: wire.completion_tokens });
  assertDollars(pricing.cost(naive), 0.024418);
});

Deno.test("reasoning tokens are part of output tokens and are not billed twice", () => {
  const reasoningUsage = usage({ inputTokens: 1000, outputTokens: 3000, reasoningTokens: 2500 });
  const pricing = registryPrice(PricingRegistry.withDefaults(), "o4-mini");
  // 1000·$1.10 + 3000·$4.40 = 1100 + 13200 = $14300 per million
  assertDollars(pricing.cost(reasoningUsage), 0.0143);
});

Deno.test("missing cache prices fall back to the input price", () => {
  const pricing = new Pricing({ input: 2, output: 4 });
  assert.deepEqual(pricing.price, { input: 2, output: 4, cacheRead: 2, cacheWrite: 2 });
  const cached = usage({
    inputTokens: 10,
    cacheReadTokens: 100,
    cacheWriteTokens: 50,
    outputTokens: 5,
  });
  // (10 + 100 + 50)·$2 + 5·$4 = 320 + 20 = $340 per million
  assertDollars(pricing.cost(cached), 0.00034);
  assert.equal(pricing.cost(emptyUsage()), 0);
});

Deno.test("invalid rates are rejected with the rate's name and value", () => {
  assert.throws(() => new Pricing({ input: -1, output: 1 }), RangeError, "input");
  assert.throws(
    () => new Pricing({ input: 1, output: Number.NaN }),
    /Price output must be a finite number.*got NaN/,
  );
  assert.throws(
    () => new Pricing({ input: 1, output: 1, cacheRead: Infinity }),
    /cacheRead.*got Infinity/,
  );
  assert.throws(() => new PricingRegistry().set("m", { input: 1, output: -2 }), /got -2/);
});

Deno.test("dated snapshots and -latest aliases find their family", () => {
  const registry = PricingRegistry.withDefaults();
  const cases: [string, number][] = [
    ["claude-sonnet-4-5-20250929", 3],
    ["claude-sonnet-4-5@20250929", 3],
    ["claude-opus-4-1-20250805", 15],
    ["claude-opus-4-20250514", 15],
    ["claude-opus-4-5-20251101", 5],
    ["claude-haiku-4-5-20251001", 1],
    ["claude-3-5-haiku-latest", 0.8],
    ["gpt-4o-2024-08-06", 2.5],
    ["gpt-4o-mini-2024-07-18", 0.15],
    ["gpt-4.1-nano-2025-04-14", 0.1],
    ["o3-2025-04-16", 2],
    ["gpt-5-mini-2025-08-07", 0.25],
  ];
  for (const [model, input] of cases) {
    assert.equal(registryPrice(registry, model).price.input, input, model);
  }
});

Deno.test("an exact entry wins over its family, and lookups ignore case", () => {
  const registry = PricingRegistry.withDefaults();
  assert.equal(registryPrice(registry, "gpt-4o-2024-05-13").price.input, 5);
  assert.equal(registryPrice(registry, "GPT-4o").price.input, 2.5);
});

Deno.test("models that only share a prefix with a known family are unknown", () => {
  const registry = PricingRegistry.withDefaults();
  for (const model of ["o3-pro", "gpt-5-pro", "gpt-4o-audio-preview", "claude-opus-4-9"]) {
    assert.equal(registry.get(model), undefined, model);
  }
});

Deno.test("unknown models and empty registries give undefined", () => {
  assert.equal(PricingRegistry.withDefaults().get("llama-3.3-70b"), undefined);
  assert.equal(PricingRegistry.withDefaults().get(""), undefined);
  assert.equal(new PricingRegistry().get("gpt-4o"), undefined);
});

Deno.test("set overrides a seeded price, applies to dated snapshots, and stays in its registry", () => {
  const registry = PricingRegistry.withDefaults();
  registry.set("gpt-4o", { input: 1, output: 2 });
  assert.deepEqual(registryPrice(registry, "gpt-4o-2024-11-20").price, {
    input: 1,
    output: 2,
    cacheRead: 1,
    cacheWrite: 1,
  });
  assert.equal(registryPrice(PricingRegistry.withDefaults(), "gpt-4o").price.input, 2.5);

  registry.set("qwen3-coder:30b", { input: 0, output: 0 });
  assert.equal(registryPrice(registry, "qwen3-coder:30b").cost(usage({ outputTokens: 9 })), 0);
});
