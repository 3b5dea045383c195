/**
 * The built-in model catalog under the config: with only a provider's key,
 * its models resolve with their window, prices, input kinds and thinking
 * levels; `provider/model:level`; a bare catalog id; ctrl+p's and /model's
 * choices.
 */
import assert from "node:assert/strict";
import { API_STYLES, REASONING_LEVELS } from "../../../lib/config.ts";
import { BUILTIN_PROVIDERS } from "../../../cli/config/load_config.ts";
import { clampThinkingLevel, resolveModel } from "../../../cli/config/model_registry.ts";
import type { PantoConfig } from "../../../cli/config/panto_config.ts";
import { UsageError } from "../../../cli/shared/errors.ts";
import {
  cachedCatalogModels,
  catalogProviders,
  loadCatalogModels,
} from "../../../cli/models/catalog.ts";
import { cycleChoices, pickerModels } from "../../../cli/models/model_choices.ts";
import { BUILTIN_KEY_VARIABLES } from "../../../cli/tools/child_env.ts";

/** A config with no file: the catalog's providers only. */
function bareConfig(models: PantoConfig["models"] = {}): PantoConfig {
  return {
    providers: { ...BUILTIN_PROVIDERS },
    models,
    compaction: {},
    retry: {},
    keybindings: {},
    keybindingSources: {},
    tools: { allowedPaths: [], bashTimeoutSeconds: 120 },
    parallelTools: false,
    files: [],
    notices: [],
  } as PantoConfig;
}

const keys = (...names: string[]) => (name: string) => names.includes(name) ? "sk-test" : undefined;

Deno.test("catalog: every provider that lists models has a key variable, an API panto speaks and valid defaults", async () => {
  const providers = catalogProviders().filter((p) => p.modelCount > 0);
  assert.ok(providers.length >= 15, `${providers.length} providers`);
  await loadCatalogModels(providers.map((p) => p.id));
  for (const provider of providers) {
    assert.ok(provider.keyEnv, provider.id);
    assert.ok(BUILTIN_KEY_VARIABLES.includes(provider.keyEnv!), `${provider.keyEnv} is withheld`);
    assert.ok(API_STYLES.includes(provider.api), `${provider.id}: ${provider.api}`);
  }
});

Deno.test("catalog: every model's JSON holds what CatalogModel says (no type checker reads it)", async () => {
  const providers = catalogProviders().filter((p) => p.modelCount > 0);
  await loadCatalogModels(providers.map((p) => p.id));
  for (const provider of providers) {
    const models = cachedCatalogModels(provider.id) ?? [];
    assert.equal(models.length, provider.modelCount, provider.id);
    for (const model of models) {
      const where = `${provider.id}/${model.id}`;
      assert.ok(model.name && model.contextWindow > 0 && model.maxTokens > 0, where);
      assert.ok(model.api === undefined || API_STYLES.includes(model.api), where);
      assert.ok(model.input.every((kind) => kind === "text" || kind === "image"), where);
      assert.ok(model.thinkingLevels.every((level) => REASONING_LEVELS.includes(level)), where);
      assert.ok(Object.values(model.price).every((usd) => typeof usd === "number"), where);
    }
  }
});

Deno.test("catalog: with only the key set, provider/model resolves with the catalog's window, prices, input and levels", async () => {
  await loadCatalogModels(["anthropic"]);
  const config = bareConfig();
  const selection = resolveModel(config, "anthropic/claude-sonnet-4-5", {
    env: keys("ANTHROPIC_API_KEY"),
  });
  assert.equal(selection.provider.contextWindow, 200_000);
  assert.deepEqual(selection.provider.input, ["text", "image"]);
  assert.deepEqual(selection.pricing, { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
  assert.deepEqual(selection.thinkingLevels, ["off", "minimal", "low", "medium", "high"]);
});

Deno.test("catalog: provider/model:level sets the level, mapped for the model and clamped to what it takes", async () => {
  await loadCatalogModels(["anthropic"]);
  const config = bareConfig();
  const env = keys("ANTHROPIC_API_KEY");
  const opus = resolveModel(config, "anthropic/claude-opus-4-6:xhigh", { env });
  assert.equal(opus.provider.reasoning, "xhigh");
  assert.equal(opus.provider.reasoningValues?.xhigh, "max");
  assert.equal(opus.alias, "anthropic/claude-opus-4-6");
  const sonnet = resolveModel(config, "anthropic/claude-sonnet-4-5:xhigh", { env });
  assert.equal(sonnet.provider.reasoning, "high", "sonnet 4.5 takes no xhigh: the nearest it has");
  assert.equal(clampThinkingLevel(["off"], "high"), "off");
});

Deno.test("catalog: a catalog id alone resolves at the provider whose key is set; ambiguity names the choices", async () => {
  await loadCatalogModels(["anthropic", "opencode"]);
  const config = bareConfig();
  const one = resolveModel(config, "claude-haiku-4-5", { env: keys("ANTHROPIC_API_KEY") });
  assert.equal(one.alias, "anthropic/claude-haiku-4-5");
  assert.equal(one.provider.api, "anthropic-messages");
  assert.throws(
    () =>
      resolveModel(config, "claude-haiku-4-5", {
        env: keys("ANTHROPIC_API_KEY", "OPENCODE_API_KEY"),
      }),
    (error: unknown) =>
      error instanceof UsageError &&
      /anthropic\/claude-haiku-4-5 or opencode\/claude-haiku-4-5/.test(error.message) &&
      /several providers/.test(error.message),
  );
  assert.throws(
    () => resolveModel(config, "claude-haiku-4-5", { env: keys() }),
    /Unknown model "claude-haiku-4-5"/,
    "without a key no provider serves it",
  );
});

Deno.test("catalog: a provider the user moved keeps the catalog's facts but not its per-model URLs", async () => {
  await loadCatalogModels(["anthropic"]);
  const config = bareConfig();
  config.providers.anthropic = {
    ...config.providers.anthropic!,
    baseUrl: "http://127.0.0.1:9/proxy",
    source: "config.json",
  };
  const selection = resolveModel(config, "anthropic/claude-sonnet-4-5", {
    env: keys("ANTHROPIC_API_KEY"),
  });
  assert.equal(selection.provider.baseUrl, "http://127.0.0.1:9/proxy");
  assert.equal(selection.provider.contextWindow, 200_000);
});

Deno.test("catalog: ctrl+p cycles aliases, else the defaults of the providers with a key; --models globs pick from those", async () => {
  await loadCatalogModels(["anthropic", "groq"]);
  const env = keys("ANTHROPIC_API_KEY");
  const bare = bareConfig();
  assert.deepEqual(cycleChoices(bare, undefined, env), [
    "anthropic/claude-sonnet-4-6",
    "anthropic/claude-opus-4-7",
    "anthropic/claude-haiku-4-5",
  ]);
  assert.deepEqual(
    cycleChoices(bare, ["anthropic/*opus-4-[67]*"], env),
    [],
    "a glob has * only: brackets are literal",
  );
  const opus = cycleChoices(bare, ["*opus-4-6", "anthropic/claude-haiku-4-5"], env);
  assert.deepEqual(opus, ["anthropic/claude-opus-4-6", "anthropic/claude-haiku-4-5"]);
  const aliased = bareConfig({ fast: { provider: "anthropic", model: "m", source: "x" } });
  assert.deepEqual(cycleChoices(aliased, undefined, env), ["fast"]);
});

Deno.test("catalog: /model offers the aliases, then the models of the providers with a key, provider shown", async () => {
  await loadCatalogModels(["anthropic"]);
  const config = bareConfig({
    sonnet: { provider: "anthropic", model: "claude-sonnet-4-5", source: "x" },
  });
  const items = pickerModels(config, keys("ANTHROPIC_API_KEY"));
  assert.equal(items[0]?.value, "sonnet");
  assert.ok(
    items.some((i) => i.value === "anthropic/claude-opus-4-7" && /context/.test(i.description)),
  );
  assert.ok(
    !items.some((i) => i.value === "anthropic/claude-sonnet-4-5"),
    "the alias stands for it",
  );
  assert.deepEqual(pickerModels(bareConfig(), keys()), []);
});

Deno.test("catalog: a model's own server quirks reach its request, and the user's compat wins", async () => {
  await loadCatalogModels(["deepseek", "openrouter"]);
  const env = keys("DEEPSEEK_API_KEY", "OPENROUTER_API_KEY");
  const config = bareConfig();
  const direct = resolveModel(config, "deepseek/deepseek-v4-pro:xhigh", { env });
  assert.deepEqual(direct.provider.compat, {
    reasoningParam: "thinking_effort",
    reasoningContent: true,
  });
  assert.equal(direct.provider.reasoningValues?.xhigh, "max");
  const routed = resolveModel(config, "openrouter/deepseek/deepseek-v4-pro", { env });
  assert.equal(routed.provider.compat?.reasoningParam, "thinking_effort");
  const other = resolveModel(config, "openrouter/anthropic/claude-sonnet-4.6", { env });
  assert.equal(other.provider.compat, undefined, "OpenRouter's other models keep its defaults");
  const mine = bareConfig();
  mine.providers = {
    ...mine.providers,
    openrouter: { ...BUILTIN_PROVIDERS["openrouter"]!, compat: { reasoningParam: "reasoning" } },
  };
  const overridden = resolveModel(mine, "openrouter/deepseek/deepseek-v4-pro", { env });
  assert.equal(overridden.provider.compat?.reasoningParam, "reasoning");
  assert.equal(overridden.provider.compat?.reasoningContent, true);
});

Deno.test("catalog: Bedrock takes its API key, else an IAM key pair; AWS_REGION moves AWS's endpoint", async () => {
  await loadCatalogModels(["amazon-bedrock"]);
  const config = bareConfig();
  const spec = "amazon-bedrock/global.anthropic.claude-sonnet-4-6";
  const pair = { AWS_ACCESS_KEY_ID: "AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY: "s3cret" };
  const withKeys = (values: Record<string, string>) => (name: string) => values[name];
  const signed = resolveModel(config, spec, {
    env: withKeys({ ...pair, AWS_SESSION_TOKEN: "tok", AWS_DEFAULT_REGION: "eu-west-1" }),
  });
  assert.equal(signed.provider.apiKey, undefined);
  assert.deepEqual(signed.provider.awsCredentials, {
    accessKeyId: "AKIDEXAMPLE",
    secretAccessKey: "s3cret",
    sessionToken: "tok",
  });
  assert.equal(signed.provider.baseUrl, "https://bedrock-runtime.eu-west-1.amazonaws.com");
  const bearer = resolveModel(config, spec, {
    env: withKeys({ ...pair, AWS_BEARER_TOKEN_BEDROCK: "bedrock-key" }),
  });
  assert.equal(bearer.provider.apiKey, "bedrock-key");
  assert.equal(bearer.provider.awsCredentials, undefined, "the API key wins");
  assert.equal(bearer.provider.baseUrl, "https://bedrock-runtime.us-east-1.amazonaws.com");
  assert.throws(
    () => resolveModel(config, spec, { env: withKeys({ AWS_ACCESS_KEY_ID: "AKIDEXAMPLE" }) }),
    (error: unknown) =>
      error instanceof UsageError && /AWS_BEARER_TOKEN_BEDROCK/.test(error.message) &&
      /AWS_SECRET_ACCESS_KEY/.test(error.message) && !error.message.includes("AKIDEXAMPLE"),
  );
});

Deno.test("catalog: a Bedrock proxy keeps its URL and is signed for AWS_REGION", async () => {
  await loadCatalogModels(["amazon-bedrock"]);
  const config = bareConfig();
  config.providers["amazon-bedrock"] = {
    ...config.providers["amazon-bedrock"]!,
    baseUrl: "http://127.0.0.1:9/bedrock",
  };
  const env = new Map([
    ["AWS_ACCESS_KEY_ID", "AKIDEXAMPLE"],
    ["AWS_SECRET_ACCESS_KEY", "s3cret"],
    ["AWS_REGION", "ap-south-1"],
  ]);
  const selection = resolveModel(config, "amazon-bedrock/amazon.nova-pro-v1:0", {
    env: (name) => env.get(name),
  });
  assert.equal(selection.provider.baseUrl, "http://127.0.0.1:9/bedrock");
  assert.equal(selection.provider.awsRegion, "ap-south-1");
});
