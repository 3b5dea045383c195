import assert from "node:assert/strict";
import { modelsMatchingSession, type SessionInfo } from "@panto/lib";
import { agentConfig } from "../../../cli/config/agent_config.ts";
import { loadConfig, resolvePantoHome } from "../../../cli/config/load_config.ts";
import { modelChoices, resolveModel } from "../../../cli/config/model_registry.ts";
import type { PantoConfig } from "../../../cli/config/panto_config.ts";
import type { UntrustedProjectPolicy } from "../../../cli/config/project_trust.ts";
import { UsageError } from "../../../cli/shared/errors.ts";

const KEY = "sk-test-config-KEY-0123";

/** A fake HOME with `.panto` inside and a project directory; files given relative to HOME. */
async function withHome(
  files: Record<string, string>,
  fn: (
    dirs: {
      home: string;
      pantoHome: string;
      project: string;
      env: (n: string) => string | undefined;
    },
  ) => Promise<void>,
): Promise<void> {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "panto_config_" }));
  try {
    for (const dir of [".panto", "project/.panto"]) {
      await Deno.mkdir(`${home}/${dir}`, { recursive: true });
    }
    for (const [path, text] of Object.entries(files)) {
      await Deno.writeTextFile(`${home}/${path}`, text);
    }
    const vars = new Map([["HOME", home], ["ANTHROPIC_API_KEY", KEY]]);
    await fn({
      home,
      pantoHome: `${home}/.panto`,
      project: `${home}/project`,
      env: (n) => vars.get(n),
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

async function load(
  files: Record<string, string>,
  untrustedProject: UntrustedProjectPolicy = "refuse",
): Promise<PantoConfig> {
  let config: PantoConfig | undefined;
  await withHome(files, async ({ pantoHome, project, env }) => {
    config = await loadConfig({ pantoHome, cwd: project, env, untrustedProject });
  });
  return config!;
}

/** The UsageError a config produces (asserting there is one). */
async function configError(files: Record<string, string>): Promise<UsageError> {
  try {
    await load(files);
  } catch (error) {
    assert.ok(error instanceof UsageError, `expected a UsageError, got ${error}`);
    assert.equal(error.exitCode, 2);
    return error;
  }
  assert.fail("the config was accepted");
}

const HOME_CONFIG = ".panto/config.json";
const PROJECT_CONFIG = "project/.panto/config.json";

Deno.test("config: no files gives the built-in providers and tool defaults", async () => {
  const config = await load({});
  assert.deepEqual(Object.keys(config.providers).slice(0, 3), ["anthropic", "openai", "google"]);
  assert.ok(
    Object.hasOwn(config.providers, "openrouter") && Object.hasOwn(config.providers, "ollama"),
  );
  assert.equal(config.providers.anthropic!.baseUrl, "https://api.anthropic.com");
  assert.equal(config.providers.openai!.apiKeyEnv, "OPENAI_API_KEY");
  assert.deepEqual(config.models, {});
  assert.deepEqual(config.tools, { allowedPaths: [], bashTimeoutSeconds: 120 });
  assert.equal(config.parallelTools, false);
  assert.deepEqual(config.files, []);
});

Deno.test("config: provider/model works with no config file, key from the conventional variable", async () => {
  const config = await load({});
  const env = (name: string) => (name === "ANTHROPIC_API_KEY" ? KEY : undefined);
  const selection = resolveModel(config, "anthropic/claude-sonnet-4-5", { env });
  assert.deepEqual(selection.provider, {
    api: "anthropic-messages",
    baseUrl: "https://api.anthropic.com",
    model: "claude-sonnet-4-5",
    reasoning: "off",
    apiKey: KEY,
  });
  assert.equal(selection.alias, "anthropic/claude-sonnet-4-5");
});

Deno.test("config: a missing API key names the variable, never a value", async () => {
  const config = await load({});
  assert.throws(
    () => resolveModel(config, "openai/gpt-4o", { env: () => undefined }),
    (error: unknown) =>
      error instanceof UsageError && error.exitCode === 2 &&
      error.message.includes("OPENAI_API_KEY") &&
      error.message.includes('"openai/gpt-4o"'),
  );
});

Deno.test("config: the project file wins per key; providers and models merge by name", async () => {
  const config = await load({
    [HOME_CONFIG]: JSON.stringify({
      defaultModel: "a",
      providers: { local: { api: "openai-chat", baseUrl: "http://localhost:8080/v1" } },
      models: {
        a: { provider: "local", model: "model-a", contextWindow: 1000 },
        b: { provider: "local", model: "model-b" },
      },
      compaction: { reserveTokens: 1, keepRecentTokens: 2 },
      retry: { maxRetries: 1 },
      keybindings: { "app.interrupt": "escape", "app.quit": ["ctrl+c", "ctrl+d"] },
      tools: { allowedPaths: ["/opt/shared"], bashTimeoutSeconds: 30 },
      parallelTools: true,
    }),
    [PROJECT_CONFIG]: JSON.stringify({
      defaultModel: "b",
      models: { b: { provider: "anthropic", model: "claude-x", reasoning: "high" } },
      compaction: { reserveTokens: 9 },
      keybindings: { "app.interrupt": ["ctrl+g"] },
      tools: { allowedPaths: ["../sibling"] },
    }),
  }, "trust");
  assert.equal(config.defaultModel, "b");
  assert.deepEqual(Object.keys(config.models), ["a", "b"]);
  assert.equal(config.models.a!.model, "model-a");
  assert.equal(config.models.b!.provider, "anthropic");
  assert.equal(config.models.b!.reasoning, "high");
  assert.match(config.models.b!.source, /project\/\.panto\/config\.json$/);
  assert.deepEqual(config.compaction, { reserveTokens: 9, keepRecentTokens: 2 });
  assert.deepEqual(config.retry, { maxRetries: 1 });
  assert.deepEqual(config.keybindings, {
    "app.interrupt": ["ctrl+g"],
    "app.quit": ["ctrl+c", "ctrl+d"],
  });
  assert.equal(config.tools.bashTimeoutSeconds, 30);
  assert.equal(config.tools.allowedPaths[0], "/opt/shared");
  assert.match(config.tools.allowedPaths[1]!, /^\/.*\/sibling$/);
  assert.ok(
    !config.tools.allowedPaths[1]!.includes("project"),
    "relative paths resolve against the working directory",
  );
  assert.equal(config.parallelTools, true);
  assert.equal(config.files.length, 2);
  assert.equal(
    config.providers.local!.apiKeyEnv,
    undefined,
    "a custom base URL gets no key variable by default",
  );
});

Deno.test("config: a provider redefined by name replaces the built-in whole", async () => {
  const config = await load({
    [HOME_CONFIG]: JSON.stringify({
      providers: {
        anthropic: {
          api: "anthropic-messages",
          baseUrl: "https://proxy.example/anthropic",
          apiKeyEnv: "PROXY_KEY",
        },
      },
    }),
  });
  assert.equal(config.providers.anthropic!.baseUrl, "https://proxy.example/anthropic");
  const selection = resolveModel(config, "anthropic/claude-x", {
    env: (n) => (n === "PROXY_KEY" ? "proxy-key" : undefined),
  });
  assert.equal(selection.provider.apiKey, "proxy-key");
});

Deno.test("config: ~ in allowedPaths is the home directory", async () => {
  await withHome(
    { [HOME_CONFIG]: JSON.stringify({ tools: { allowedPaths: ["~/notes", "~"] } }) },
    async (dirs) => {
      const config = await loadConfig({
        pantoHome: dirs.pantoHome,
        cwd: dirs.project,
        env: dirs.env,
      });
      assert.deepEqual(config.tools.allowedPaths, [`${dirs.home}/notes`, dirs.home]);
    },
  );
});

Deno.test("config: the documented error for a bad enum value", async () => {
  const error = await configError({
    [HOME_CONFIG]: JSON.stringify({
      models: { sonnet: { provider: "anthropic", model: "m", reasoning: "max" } },
    }),
  });
  assert.equal(
    error.message,
    '~/.panto/config.json: models.sonnet.reasoning: expected one of "off", "minimal", "low", "medium", "high", "xhigh", got "max"',
  );
});

const BAD_FIELDS: { name: string; config: unknown; expected: string }[] = [
  {
    name: "misspelled top-level key",
    config: { defaultModle: "x" },
    expected:
      '~/.panto/config.json: unknown key "defaultModle" (did you mean "defaultModel"?); allowed keys: $schema, ',
  },
  {
    name: "unknown key inside a provider",
    config: { providers: { local: { api: "openai-chat", baseURL: "http://x" } } },
    expected:
      '~/.panto/config.json: providers.local: unknown key "baseURL" (did you mean "baseUrl"?)',
  },
  {
    name: "wrong type",
    config: { models: { sonnet: { provider: "anthropic", model: "m", contextWindow: "200k" } } },
    expected: '~/.panto/config.json: models.sonnet.contextWindow: expected a number, got "200k"',
  },
  {
    name: "not an integer",
    config: { models: { sonnet: { provider: "anthropic", model: "m", maxTokens: 1.5 } } },
    expected: "~/.panto/config.json: models.sonnet.maxTokens: expected an integer, got 1.5",
  },
  {
    name: "negative price",
    config: {
      models: { sonnet: { provider: "anthropic", model: "m", price: { input: -1, output: 1 } } },
    },
    expected: "~/.panto/config.json: models.sonnet.price.input: expected a number >= 0, got -1",
  },
  {
    name: "missing required field",
    config: { models: { sonnet: { provider: "anthropic" } } },
    expected: "~/.panto/config.json: models.sonnet.model: missing; expected a string",
  },
  {
    name: "base URL without a scheme",
    config: { providers: { local: { api: "openai-chat", baseUrl: "localhost:8080" } } },
    expected:
      '~/.panto/config.json: providers.local.baseUrl: expected an http(s) URL such as https://api.example.com/v1, got "localhost:8080"',
  },
  {
    name: "alias containing a slash",
    config: { models: { "a/b": { provider: "anthropic", model: "m" } } },
    expected:
      '~/.panto/config.json: models["a/b"]: invalid name "a/b": a model alias must start with a letter or digit',
  },
  {
    name: "a key where a variable name belongs",
    config: { providers: { local: { api: "openai-chat", apiKeyEnv: "sk-abc-123" } } },
    expected:
      "~/.panto/config.json: providers.local.apiKeyEnv: expected an environment variable name",
  },
  {
    name: "compat on an Anthropic provider",
    config: { providers: { a: { api: "anthropic-messages", compat: { streamUsage: true } } } },
    expected:
      '~/.panto/config.json: providers.a.compat: compat applies to "openai-chat" providers only',
  },
  {
    name: "key binding that is not a key",
    config: { keybindings: { "app.interrupt": 27 } },
    expected:
      `~/.panto/config.json: keybindings["app.interrupt"]: expected a key such as "ctrl+c" or a list of keys, got 27`,
  },
  {
    name: "top level is not an object",
    config: [1, 2],
    expected: "~/.panto/config.json: expected an object, got a list",
  },
  {
    name: "zero timeout",
    config: { tools: { bashTimeoutSeconds: 0 } },
    expected: "~/.panto/config.json: tools.bashTimeoutSeconds: expected a number > 0, got 0",
  },
];

for (const { name, config, expected } of BAD_FIELDS) {
  Deno.test(`config: bad field: ${name}`, async () => {
    const error = await configError({ [HOME_CONFIG]: JSON.stringify(config, null, 2) });
    assert.ok(
      error.message.startsWith(expected),
      `message was:\n${error.message}\nexpected it to start with:\n${expected}`,
    );
  });
}

const BAD_JSON: { name: string; text: string; expected: string }[] = [
  {
    name: "missing colon",
    text: '{\n  "defaultModel" "x"\n}',
    expected: `~/.panto/config.json:2:18: invalid JSON: expected ":" after the property name`,
  },
  {
    name: "bare word",
    text: '{"parallelTools": tru}',
    expected: "~/.panto/config.json:1:19: invalid JSON: unexpected character",
  },
  {
    name: "unterminated comment",
    text: '{"parallelTools": true} /* settings',
    expected: '~/.panto/config.json:1:25: invalid JSON: unterminated comment: close it with "*/"',
  },
  {
    name: "cut short",
    text: '{\n  "models": {\n',
    expected: "~/.panto/config.json:3:1: invalid JSON:",
  },
];

Deno.test("config: comments and trailing commas are allowed (JSONC)", async () => {
  const config = await load({
    [HOME_CONFIG]:
      '// mine\n{\n  /* on */ "parallelTools": true,\n  "defaultThinkingLevel": "high",\n}\n',
  });
  assert.equal(config.parallelTools, true);
  assert.equal(config.defaultThinkingLevel, "high");
});

for (const { name, text, expected } of BAD_JSON) {
  Deno.test(`config: invalid JSON: ${name}`, async () => {
    const error = await configError({ [HOME_CONFIG]: text });
    assert.ok(
      error.message.startsWith(expected),
      `message was:\n${error.message}\nexpected it to start with:\n${expected}`,
    );
  });
}

Deno.test("config: the file is JSONC: comments and trailing commas are read", async () => {
  const config = await load({
    [HOME_CONFIG]: [
      "// my settings",
      "{",
      '  "defaultModel": "anthropic/claude-sonnet-4-6", /* the usual */',
      '  "parallelTools": false,',
      "}",
    ].join("\n"),
  });
  assert.equal(config.defaultModel, "anthropic/claude-sonnet-4-6");
  assert.equal(config.parallelTools, false);
});

Deno.test("config: an error in the project file names the project file", async () => {
  const error = await configError({ [PROJECT_CONFIG]: JSON.stringify({ parallelTools: "yes" }) });
  assert.match(
    error.message,
    /^~\/project\/\.panto\/config\.json: parallelTools: expected true or false, got "yes"$/,
  );
});

Deno.test("config: a model naming an unknown provider names both", async () => {
  const error = await configError({
    [HOME_CONFIG]: JSON.stringify({ models: { fast: { provider: "antropic", model: "m" } } }),
  });
  assert.match(error.message, /^~\/\.panto\/config\.json: models\.fast\.provider: /);
  assert.match(
    error.message,
    /model "fast" names the unknown provider "antropic" \(did you mean "anthropic"\?\)/,
  );
  assert.match(error.message, /providers: anthropic, openai, google, .*panto models lists them\)$/);
});

Deno.test("config: a model may use a provider defined in the other file", async () => {
  const config = await load({
    [HOME_CONFIG]: JSON.stringify({ models: { q: { provider: "local", model: "qwen" } } }),
    [PROJECT_CONFIG]: JSON.stringify({
      providers: { local: { api: "openai-chat", baseUrl: "http://127.0.0.1:1/v1" } },
    }),
  });
  assert.equal(
    resolveModel(config, "q", { env: () => undefined }).provider.baseUrl,
    "http://127.0.0.1:1/v1",
  );
});

Deno.test("config: an unknown defaultModel is reported with the file", async () => {
  const error = await configError({ [HOME_CONFIG]: JSON.stringify({ defaultModel: "sonet" }) });
  assert.match(
    error.message,
    /^~\/\.panto\/config\.json: defaultModel: "sonet" is neither a model alias/,
  );
});

Deno.test("config: unknown key binding actions are rejected when the actions are known", async () => {
  await withHome(
    { [HOME_CONFIG]: JSON.stringify({ keybindings: { "app.interupt": "escape" } }) },
    async (dirs) => {
      await assert.rejects(
        loadConfig({
          pantoHome: dirs.pantoHome,
          cwd: dirs.project,
          env: dirs.env,
          keybindingActions: ["app.interrupt"],
        }),
        /keybindings\["app\.interupt"\]: unknown action \(did you mean "app\.interrupt"\?\)/,
      );
    },
  );
});

Deno.test("config: a config path that is a directory is a usage error", async () => {
  await withHome({}, async (dirs) => {
    await Deno.mkdir(`${dirs.pantoHome}/config.json`);
    await assert.rejects(
      loadConfig({ pantoHome: dirs.pantoHome, cwd: dirs.project, env: dirs.env }),
      (error: unknown) =>
        error instanceof UsageError && /config\.json is a directory/.test(error.message),
    );
  });
});

const ALIASES = JSON.stringify({
  defaultModel: "sonnet",
  providers: {
    local: {
      api: "openai-chat",
      baseUrl: "http://localhost:8080/v1",
      compat: { maxTokensField: "max_tokens" },
    },
    router: {
      api: "openai-chat",
      baseUrl: "https://openrouter.ai/api/v1",
      apiKeyEnv: "ROUTER_KEY",
      headers: { "X-Title": "panto" },
    },
  },
  models: {
    sonnet: {
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      reasoning: "medium",
      contextWindow: 200000,
      maxTokens: 32000,
      price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    },
    qwen: { provider: "local", model: "qwen2.5-coder" },
  },
});

Deno.test("config: aliases resolve with their settings; the default applies without a spec", async () => {
  const config = await load({ [HOME_CONFIG]: ALIASES });
  const env = (n: string) => (n === "ANTHROPIC_API_KEY" ? KEY : undefined);
  const sonnet = resolveModel(config, undefined, { env });
  assert.equal(sonnet.alias, "sonnet");
  assert.deepEqual(sonnet.provider, {
    api: "anthropic-messages",
    baseUrl: "https://api.anthropic.com",
    model: "claude-sonnet-4-5",
    reasoning: "medium",
    apiKey: KEY,
    maxTokens: 32000,
    contextWindow: 200000,
  });
  assert.deepEqual(sonnet.pricing, { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
  const qwen = resolveModel(config, "qwen", { env, thinking: "low" });
  assert.deepEqual(qwen.provider, {
    api: "openai-chat",
    baseUrl: "http://localhost:8080/v1",
    model: "qwen2.5-coder",
    reasoning: "low",
    compat: { maxTokensField: "max_tokens" },
  });
  assert.equal(qwen.pricing, undefined);
});

Deno.test("config: provider/model keeps slashes in the model and borrows a matching alias's settings", async () => {
  const config = await load({ [HOME_CONFIG]: ALIASES });
  const env = (n: string) =>
    ({ ANTHROPIC_API_KEY: KEY, ROUTER_KEY: "router-key" } as Record<string, string>)[n];
  const routed = resolveModel(config, "router/anthropic/claude-3.5", { env });
  assert.equal(routed.provider.model, "anthropic/claude-3.5");
  assert.equal(routed.provider.apiKey, "router-key");
  assert.deepEqual(routed.provider.headers, { "X-Title": "panto" });
  const direct = resolveModel(config, "anthropic/claude-sonnet-4-5", { env });
  assert.equal(direct.alias, "anthropic/claude-sonnet-4-5");
  assert.equal(direct.provider.contextWindow, 200000);
  assert.equal(direct.pricing?.output, 15);
});

Deno.test("config: --api-key-env and --thinking override the config", async () => {
  const config = await load({ [HOME_CONFIG]: ALIASES });
  const env = (n: string) => (n === "OTHER_KEY" ? "other" : undefined);
  const selection = resolveModel(config, "sonnet", {
    env,
    apiKeyEnv: "OTHER_KEY",
    thinking: "off",
  });
  assert.equal(selection.provider.apiKey, "other");
  assert.equal(selection.provider.reasoning, "off");
});

Deno.test("config: defaultThinkingLevel applies to models whose alias sets none; --thinking wins", async () => {
  const withDefault = { ...JSON.parse(ALIASES), defaultThinkingLevel: "high" };
  const config = await load({ [HOME_CONFIG]: JSON.stringify(withDefault) });
  const env = () => KEY;
  assert.equal(resolveModel(config, "qwen", { env }).provider.reasoning, "high");
  assert.equal(resolveModel(config, "sonnet", { env }).provider.reasoning, "medium");
  assert.equal(resolveModel(config, "qwen", { env, thinking: "low" }).provider.reasoning, "low");
  const without = await load({ [HOME_CONFIG]: ALIASES });
  assert.equal(resolveModel(without, "qwen", { env }).provider.reasoning, "off");
});

Deno.test("config: an unknown model lists the aliases and suggests the closest", async () => {
  const config = await load({ [HOME_CONFIG]: ALIASES });
  assert.throws(
    () => resolveModel(config, "sonet", { env: () => KEY }),
    (error: unknown) =>
      error instanceof UsageError && error.exitCode === 2 &&
      error.message.startsWith(
        'Unknown model "sonet" (did you mean "sonnet"?). Configured models: sonnet, qwen.',
      ) &&
      error.message.includes("providers: local, router; built in: anthropic, openai"),
  );
});

Deno.test("config: an unknown provider in provider/model lists the providers", async () => {
  const config = await load({ [HOME_CONFIG]: ALIASES });
  assert.throws(
    () => resolveModel(config, "openia/gpt-4o", { env: () => KEY }),
    /Unknown provider "openia" in model "openia\/gpt-4o" \(did you mean "openai"\?\): providers are local, router; built in: anthropic, openai/,
  );
});

Deno.test("config: no model at all says how to choose one", async () => {
  const config = await load({});
  assert.throws(
    () => resolveModel(config, undefined, { env: () => KEY }),
    /No model chosen: pass -m ALIAS or -m provider\/model .* No model aliases are configured/,
  );
});

Deno.test("config: --base-url or --api make an ad hoc provider, ignoring the config", async () => {
  const config = await load({ [HOME_CONFIG]: ALIASES });
  const selection = resolveModel(config, "sonnet", {
    api: "openai-chat",
    baseUrl: "http://127.0.0.1:9/v1",
    env: () => undefined,
  });
  assert.equal(
    selection.provider.model,
    "sonnet",
    "the spec is the server's model name, not an alias",
  );
  assert.equal(selection.provider.baseUrl, "http://127.0.0.1:9/v1");
  assert.equal(selection.pricing, undefined);
});

Deno.test("config: modelChoices feed modelsMatchingSession() for pre-selection on resume, without keys", async () => {
  const config = await load({ [HOME_CONFIG]: ALIASES });
  const choices = modelChoices(config);
  assert.deepEqual(choices.map((c) => c.alias), ["sonnet", "qwen"]);
  assert.ok(choices.every((c) => c.provider.apiKey === undefined));
  const info: SessionInfo = {
    id: "s",
    created: "",
    modified: "",
    messageCount: 2,
    lastUserMessage: "",
    wire: {
      apiStyle: "openai-chat",
      baseUrl: "http://localhost:8080/v1/",
      model: "qwen2.5-coder",
      reasoning: "off",
    },
  };
  assert.deepEqual(modelsMatchingSession(choices, info).map((c) => c.alias), ["qwen"]);
});

Deno.test("config: agentConfig carries retry, compaction and tool concurrency", async () => {
  const config = await load({
    [HOME_CONFIG]: JSON.stringify({
      retry: { maxRetries: 2 },
      compaction: { enabled: false },
      parallelTools: true,
    }),
  });
  const provider = {
    api: "openai-chat",
    baseUrl: "http://x/v1",
    model: "m",
    reasoning: "off",
  } as const;
  assert.deepEqual(agentConfig(config, { alias: "m", provider }, 7), {
    provider,
    retry: { maxRetries: 2 },
    compaction: { enabled: false },
    parallelTools: true,
    maxTurns: 7,
  });
});

Deno.test("config: PANTO_HOME wins over HOME; neither set is a usage error", () => {
  const env = (vars: Record<string, string>) => (n: string) => vars[n];
  assert.equal(resolvePantoHome(env({ HOME: "/h", PANTO_HOME: "/p" }), "/"), "/p");
  assert.equal(resolvePantoHome(env({ HOME: "/h" }), "/"), "/h/.panto");
  assert.equal(resolvePantoHome(env({ PANTO_HOME: "rel" }), "/work"), "/work/rel");
  assert.throws(() => resolvePantoHome(env({}), "/"), UsageError);
});

Deno.test("config: a config file panto may not read is reported with the flag to add, without a prompt", async () => {
  await withHome({ [HOME_CONFIG]: "{}" }, async (dirs) => {
    const script = `
      import { loadConfig } from ${
      JSON.stringify(new URL("../../../cli/config/load_config.ts", import.meta.url).href)
    };
      try {
        await loadConfig({ pantoHome: Deno.args[0], cwd: Deno.args[1], env: () => undefined });
      } catch (error) {
        console.log(error.name + ": " + error.message);
      }`;
    await Deno.writeTextFile(`${dirs.home}/probe.ts`, script);
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        `--config=${new URL("../../../deno.json", import.meta.url).pathname}`,
        `--allow-read=${dirs.project}`,
        `${dirs.home}/probe.ts`,
        dirs.pantoHome,
        dirs.project,
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    assert.equal(
      new TextDecoder().decode(output.stdout).trim(),
      `CliError: panto may not read its config file ${dirs.pantoHome}/config.json: run it with --allow-read=${dirs.pantoHome}/config.json`,
    );
  });
});

Deno.test("config: a key pasted as apiKeyEnv is not echoed in the error", async () => {
  const key = "sk-ant-api03-SECRETVALUE";
  const error = await configError({
    [HOME_CONFIG]: JSON.stringify({ providers: { p: { api: "openai-chat", apiKeyEnv: key } } }),
  });
  assert.match(error.message, /providers\.p\.apiKeyEnv: expected an environment variable name/);
  assert.ok(!error.message.includes("SECRET"), error.message);
});

Deno.test("config: a key passed as --api-key-env is refused without being echoed", async () => {
  const config = await load({ [HOME_CONFIG]: ALIASES });
  const key = "sk-ant-api03-SECRETVALUE";
  for (const flags of [{ apiKeyEnv: key }, { apiKeyEnv: key, baseUrl: "http://localhost:1/v1" }]) {
    assert.throws(
      () => resolveModel(config, "sonnet", { ...flags, env: () => undefined }),
      (error: unknown) =>
        error instanceof UsageError && /^--api-key-env takes the name/.test(error.message) &&
        !error.message.includes("SECRET"),
    );
  }
});

Deno.test("config: cycleModels keeps its order; an entry that is neither an alias, a provider/model nor a glob is reported", async () => {
  const models = {
    sonnet: { provider: "anthropic", model: "m-s" },
    opus: { provider: "anthropic", model: "m-o" },
  };
  const config = await load({
    [HOME_CONFIG]: JSON.stringify({ models, cycleModels: ["opus", "sonnet"] }),
  });
  assert.deepEqual(config.cycleModels, ["opus", "sonnet"]);
  const error = await configError({
    [HOME_CONFIG]: JSON.stringify({ models, cycleModels: ["opus", "sonet"] }),
  });
  assert.match(
    error.message,
    /^~\/\.panto\/config\.json: cycleModels: "sonet" is not a model alias \(did you mean "sonnet"\?\), provider\/model or glob \(anthropic\/\*\); aliases: sonnet, opus$/,
  );
});

Deno.test("config: tools.sandbox and tools.hideEnv from a project only make things stricter, without trust", async () => {
  const stricter = await load({
    ".panto/config.json": JSON.stringify({ tools: { sandbox: { enabled: true }, hideEnv: ["A"] } }),
    "project/.panto/config.json": JSON.stringify({
      tools: { sandbox: { enabled: false, network: false }, hideEnv: ["B"] },
    }),
  });
  assert.deepEqual(stricter.tools.sandbox, { enabled: true, network: false });
  assert.deepEqual(stricter.tools.hideEnv, ["A", "B"]);
  const turnedOn = await load({
    "project/.panto/config.json": JSON.stringify({ tools: { sandbox: { enabled: true } } }),
  });
  assert.deepEqual(turnedOn.tools.sandbox, { enabled: true, network: true });
});

Deno.test("config: a bad tools.sandbox or tools.hideEnv names the field", async () => {
  const sandbox = await configError({
    ".panto/config.json": JSON.stringify({ tools: { sandbox: { enabled: "yes" } } }),
  });
  assert.match(sandbox.message, /tools\.sandbox\.enabled/);
  const hide = await configError({
    ".panto/config.json": JSON.stringify({ tools: { hideEnv: ["not a name"] } }),
  });
  assert.match(hide.message, /tools\.hideEnv\[0\].*name of an environment variable/);
});
