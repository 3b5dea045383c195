/**
 * The zod-free check of a config file (cli/config/plain_config.ts) passes
 * only what the zod schema accepts, unchanged, and passes the plain files
 * it is there for, so a start with one loads no zod.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { API_STYLES, REASONING_LEVELS } from "@panto/lib";
import { validateConfig } from "../../../cli/config/config_schema.ts";
import { parseConfigFile } from "../../../cli/config/parse_config_file.ts";
import { isPlainConfig } from "../../../cli/config/plain_config.ts";
import { staticGraph } from "../../support/module_graph.ts";

/** A value that is sometimes the right kind and often not. */
function sometimes<T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 30, arbitrary: good },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.constantFrom(null, true, "", " ", "x", -1, 0, 0.5, 2 ** 53, 1e400, [], {}),
        fc.jsonValue({ maxDepth: 1 }),
      ),
    },
  );
}

/** An object of some of these fields, now and then with one it should not have. */
function fields(
  shape: Record<string, fc.Arbitrary<unknown>>,
  required: string[] = [],
): fc.Arbitrary<unknown> {
  return fc.tuple(
    fc.record(shape, { requiredKeys: required }),
    fc.oneof(
      { weight: 9, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constantFrom("bogus", "__proto__", "mcpServers", "models") },
    ),
  ).map(([value, extra]) => {
    if (extra === null) return value;
    return { ...value, [extra]: extra === "mcpServers" ? { fs: { command: "npx" } } : 1 };
  });
}

/** Mostly `good`, now and then one of `bad`. */
const mostly = <T>(good: fc.Arbitrary<T>, ...bad: T[]) =>
  fc.oneof({ weight: 12, arbitrary: good }, { weight: 1, arbitrary: fc.constantFrom(...bad) });
const name = mostly(
  fc.constantFrom("anthropic", "my-proxy", "gpt.4o", "a:b", "x_1"),
  "bad/name",
  "-x",
  "__proto__",
  "",
  "a b",
);
const text = mostly(fc.oneof(fc.constantFrom("x", "claude-sonnet-4"), fc.string()), "");
const int = mostly(fc.integer({ min: 1, max: 200_000 }), 0, -1, 0.5, 2 ** 53, -0);
const num = mostly(fc.double({ min: 0, max: 100, noNaN: true }), -1, -0.5);
const url = fc.constantFrom("https://api.example.com/v1", "http://127.0.0.1:1", "ftp://x", "x");
const strings = fc.array(text, { maxLength: 3 });
const dict = <T>(key: fc.Arbitrary<string>, value: fc.Arbitrary<T>) =>
  fc.dictionary(key, value, { maxKeys: 3 });

const provider = fields({
  api: sometimes(fc.constantFrom(...API_STYLES)),
  baseUrl: sometimes(url),
  apiKeyEnv: sometimes(mostly(fc.constantFrom("MY_API_KEY", "_X"), "sk-ant-123", "1X")),
  headers: sometimes(
    dict(
      mostly(fc.constant("x-team"), "Bad Name", "a:b", "__proto__"),
      mostly(fc.string(), "a\nb"),
    ),
  ),
  compat: sometimes(fields({
    developerRole: sometimes(fc.boolean()),
    maxTokensField: sometimes(fc.constantFrom("max_tokens", "max_completion_tokens", "x")),
    reasoningParam: sometimes(fc.constantFrom("reasoning_effort", "reasoning", "none")),
    streamUsage: sometimes(fc.boolean()),
  })),
  idleTimeoutMs: sometimes(int),
}, ["api"]);

const model = fields({
  provider: sometimes(name),
  model: sometimes(text),
  reasoning: sometimes(fc.constantFrom(...REASONING_LEVELS, "max")),
  contextWindow: sometimes(int),
  maxTokens: sometimes(int),
  price: sometimes(fields({
    input: sometimes(num),
    output: sometimes(num),
    cacheRead: sometimes(num),
    cacheWrite: sometimes(num),
  }, ["input", "output"])),
}, ["provider", "model"]);

const config = fields({
  $schema: sometimes(text),
  defaultModel: sometimes(text),
  providers: sometimes(dict(name, provider)),
  models: sometimes(dict(name, model)),
  cycleModels: sometimes(strings),
  compaction: sometimes(fields({
    enabled: sometimes(fc.boolean()),
    reserveTokens: sometimes(int),
    keepRecentTokens: sometimes(int),
    prompt: sometimes(text),
  })),
  retry: sometimes(fields({
    maxRetries: sometimes(int),
    baseDelayMs: sometimes(int),
    maxDelayMs: sometimes(int),
  })),
  keybindings: sometimes(
    dict(mostly(fc.constant("submit"), "", "__proto__"), fc.oneof(text, strings)),
  ),
  tools: sometimes(fields({
    allowedPaths: sometimes(strings),
    bashTimeoutSeconds: sometimes(num),
    requireApproval: sometimes(strings),
  })),
  parallelTools: sometimes(fc.boolean()),
  idleTimeoutMs: sometimes(int),
  defaultThinkingLevel: sometimes(mostly(fc.constantFrom(...REASONING_LEVELS), "max")),
  hideThinkingBlock: sometimes(fc.boolean()),
  theme: sometimes(name),
});

/** What the schema makes of a file, or `null` when it refuses it. */
function schemaReading(data: unknown): unknown {
  try {
    return validateConfig(data, "config.json");
  } catch {
    return null;
  }
}

/** Whether a key `__proto__` appears anywhere (the schema's copy drops it: left to the schema). */
function hasProtoKey(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  return Object.entries(value).some(([key, inner]) => key === "__proto__" || hasProtoKey(inner));
}

Deno.test("a plainly valid config is one the schema accepts unchanged, and the schema's plain files pass", () => {
  let plain = 0;
  fc.assert(
    fc.property(config, (generated) => {
      // As read from a file: JSON has no -0, no Infinity (1e400 reads back as Infinity).
      const data = JSON.parse(JSON.stringify(generated).replace("1e+400", "1e400"));
      const reading = schemaReading(data);
      if (isPlainConfig(data)) {
        plain++;
        assert.notEqual(reading, null, "the check passed a file the schema refuses");
        assert.deepEqual(reading, data);
      } else if (reading !== null && !("mcpServers" in data) && !hasProtoKey(data)) {
        assert.fail(`a valid plain file was left to the schema: ${JSON.stringify(data)}`);
      }
    }),
    { numRuns: 3000 },
  );
  assert.ok(plain > 30, `only ${plain} of the generated files were plainly valid`);
});

Deno.test("the config file of a usual start is read without the zod schema", async () => {
  const text = JSON.stringify({
    defaultModel: "sonnet",
    providers: { anthropic: { api: "anthropic-messages", apiKeyEnv: "ANTHROPIC_API_KEY" } },
    models: { sonnet: { provider: "anthropic", model: "claude-sonnet-4", reasoning: "low" } },
  });
  assert.ok(isPlainConfig(JSON.parse(text)));
  const file = await parseConfigFile(text, "config.json");
  assert.equal(file.models?.sonnet?.model, "claude-sonnet-4");
  // And parse_config_file.ts reaches zod only through its dynamic import.
  const loaded = await staticGraph(
    new URL("../../../cli/config/parse_config_file.ts", import.meta.url).href,
  );
  assert.ok(loaded.some((s) => s.endsWith("/cli/config/plain_config.ts")));
  assert.deepEqual(loaded.filter((s) => /\/zod@|config_schema\.ts$/.test(s)), []);
});

Deno.test("a file the check does not vouch for still gets the schema's message", async () => {
  const text = JSON.stringify({
    models: { sonnet: { provider: "anthropic", model: "x", reasoning: "max" } },
  });
  await assert.rejects(
    () => parseConfigFile(text, "config.json"),
    /config\.json: models\.sonnet\.reasoning: expected one of .*, got "max"/,
  );
});
