// A config file is validated by the zod schema in config_schema.ts, whose
// modules cost every start about 8 MiB and 10 ms. Most files are plainly
// valid: this check, written without zod, recognizes them, and whatever it
// does not vouch for (an MCP server, a doubtful value, a mistake) goes to the
// schema, which accepts it or says what is wrong. It may leave a valid file
// to the schema, never pass one the schema rejects: a property test
// (tests/cli/plain_config_test.ts) holds the two together. The
// patterns both use are defined here.
import { API_STYLES, REASONING_LEVELS, REASONING_PARAMS } from "@panto/lib";
import { ENV_NAME_PATTERN } from "../env.ts";
import type { ConfigFile } from "./config_schema.ts";

/** Provider names and model aliases: no `/`, which separates `provider/model`. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

/** RFC 9110 token characters: anything else (a space, a colon, a line break) breaks the request. */
export const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A line break would let a header value smuggle in further headers. */
export function isSafeHeaderValue(value: string): boolean {
  return !/[\r\n\0]/.test(value);
}

/** Whether `value` parses as an http: or https: URL. */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

type Check = (value: unknown) => boolean;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const string: Check = (value) => typeof value === "string";
const nonEmpty: Check = (value) => typeof value === "string" && value.length > 0;
const matching = (pattern: RegExp): Check => (value) =>
  typeof value === "string" && pattern.test(value);
const boolean: Check = (value) => typeof value === "boolean";
const oneOf = (values: readonly unknown[]): Check => (value) => values.includes(value);
const httpUrl: Check = (value) => typeof value === "string" && isHttpUrl(value);
const headerValue: Check = (value) => typeof value === "string" && isSafeHeaderValue(value);

/** A finite number, or with `integer` a safe integer, above (or with `orZero` at least) 0. */
const count = (integer: boolean, orZero: boolean): Check => (value) =>
  typeof value === "number" && (integer ? Number.isSafeInteger(value) : Number.isFinite(value)) &&
  (orZero ? value >= 0 : value > 0);
const positiveInt = count(true, false);
const nonNegativeInt = count(true, true);
const nonNegative = count(false, true);
const positive = count(false, false);

const list = (item: Check, min = 0): Check => (value) =>
  Array.isArray(value) && value.length >= min && value.every(item);

/** A record, minus an own `__proto__` key (the schema's copy would lose it): left to the schema. */
const record = (key: Check, item: Check): Check => (value) =>
  isObject(value) &&
  Object.entries(value).every(([name, inner]) => name !== "__proto__" && key(name) && item(inner));

/** An object with only these keys, `required` among them, each passing its check. */
const object = (shape: Record<string, Check>, required: readonly string[] = []): Check => (value) =>
  isObject(value) && required.every((key) => Object.hasOwn(value, key)) &&
  Object.entries(value).every(([key, inner]) => Object.hasOwn(shape, key) && shape[key]!(inner));

const compat = object({
  developerRole: boolean,
  maxTokensField: oneOf(["max_tokens", "max_completion_tokens"]),
  reasoningParam: oneOf(REASONING_PARAMS),
  streamUsage: boolean,
  toolCallIds: oneOf(["any", "alnum9"]),
  reasoningContent: boolean,
});

const headers = record(matching(HEADER_NAME_PATTERN), headerValue);

const providerFields = object({
  api: oneOf(API_STYLES),
  baseUrl: httpUrl,
  apiKeyEnv: matching(ENV_NAME_PATTERN),
  headers,
  compat,
  idleTimeoutMs: positiveInt,
}, ["api"]);

const provider: Check = (value) =>
  providerFields(value) && (!("compat" in (value as object)) ||
    (value as { api: unknown }).api === "openai-chat");

const model = object({
  provider: matching(NAME_PATTERN),
  model: nonEmpty,
  reasoning: oneOf(REASONING_LEVELS),
  contextWindow: positiveInt,
  maxTokens: positiveInt,
  price: object({
    input: nonNegative,
    output: nonNegative,
    cacheRead: nonNegative,
    cacheWrite: nonNegative,
  }, ["input", "output"]),
}, ["provider", "model"]);

const keys: Check = (value) => nonEmpty(value) || list(nonEmpty)(value);

/** Every key but `mcpServers`: a file naming MCP servers is left to the schema. */
const plainConfig = object({
  $schema: string,
  defaultModel: nonEmpty,
  providers: record(matching(NAME_PATTERN), provider),
  models: record(matching(NAME_PATTERN), model),
  cycleModels: list(nonEmpty, 1),
  compaction: object({
    enabled: boolean,
    reserveTokens: nonNegativeInt,
    keepRecentTokens: nonNegativeInt,
    prompt: nonEmpty,
  }),
  retry: object({
    maxRetries: nonNegativeInt,
    baseDelayMs: nonNegativeInt,
    maxDelayMs: nonNegativeInt,
  }),
  keybindings: record(nonEmpty, keys),
  tools: object({
    allowedPaths: list(nonEmpty),
    bashTimeoutSeconds: positive,
    requireApproval: list(nonEmpty),
    hideEnv: list(matching(ENV_NAME_PATTERN)),
    sandbox: object({ enabled: boolean, network: boolean }, ["enabled"]),
  }),
  parallelTools: boolean,
  idleTimeoutMs: positiveInt,
  defaultThinkingLevel: oneOf(REASONING_LEVELS),
  hideThinkingBlock: boolean,
  theme: matching(NAME_PATTERN),
});

/**
 * Whether a parsed config file is certainly valid, as the schema would
 * return it. `false` means "ask the schema", not "invalid".
 *
 * @param data The file's parsed JSON.
 * @returns Whether the schema would accept it unchanged.
 */
export function isPlainConfig(data: unknown): data is ConfigFile {
  return plainConfig(data);
}
