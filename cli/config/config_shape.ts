/**
 * The one statement of a config file's shape. Two checks are built from it:
 * the plain one every start runs (`plain_config.ts`: a yes or "ask the
 * schema", no zod), and the zod schema (`config_schema.ts`, loaded only for
 * a file the plain check does not vouch for) that accepts it or says what
 * is wrong. A new setting is added here, once; the `ConfigFile` type in
 * `config_schema.ts` documents it for the code that reads it.
 *
 * @module
 */
import { API_STYLES, REASONING_LEVELS, REASONING_PARAMS } from "@panto/lib";
import { ENV_NAME_PATTERN } from "../shared/env.ts";

/** A rule over a whole object (one field depends on another): the problem, or `undefined`. */
export type ShapeRule = (
  value: Record<string, unknown>,
) => { field: string; message: string } | undefined;

/** A string, with what it must match and the message when it does not. */
export interface StringShape {
  /** The kind. */
  kind: "string";
  /** At least one character. */
  nonEmpty?: true;
  /** A pattern it must match. */
  pattern?: RegExp;
  /** A test it must pass (beside or instead of a pattern). */
  test?: (value: string) => boolean;
  /** What to say when the pattern or the test fails. */
  error?: string;
}

/** A number: `integer` a safe integer; `min` its least value (`exclusive`: above it). */
export interface NumberShape {
  /** The kind. */
  kind: "number";
  /** A safe integer. */
  integer?: true;
  /** Its least value. */
  min: number;
  /** Whether `min` itself is refused. */
  exclusive?: true;
}

/** Any shape a value of a config file may have. */
export type Shape =
  | StringShape
  | NumberShape
  | { kind: "boolean" }
  | { kind: "enum"; values: readonly string[] }
  | { kind: "list"; item: Shape; min?: number }
  | { kind: "record"; key: StringShape; value: Shape }
  | { kind: "either"; options: readonly Shape[]; error: string }
  | ObjectShape;

/** An object with only these fields, `required` among them, and rules across fields. */
export interface ObjectShape {
  /** The kind. */
  kind: "object";
  /** Its fields. */
  fields: Readonly<Record<string, Shape>>;
  /** The fields it must have. */
  required?: readonly string[];
  /** Rules across fields. */
  rules?: readonly ShapeRule[];
}

/** Provider names and model aliases: no `/`, which separates `provider/model`. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

/** RFC 9110 token characters: anything else (a space, a colon, a line break) breaks the request. */
export const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Whether a header value is safe: a line break would let it smuggle in further headers.
 *
 * @param value The value.
 * @returns Whether it has no CR, LF or NUL.
 */
export function isSafeHeaderValue(value: string): boolean {
  return !/[\r\n\0]/.test(value);
}

/**
 * Whether `value` parses as an http: or https: URL.
 *
 * @param value The text.
 * @returns Whether it is one.
 */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

const string: StringShape = { kind: "string" };
const nonEmpty: StringShape = { kind: "string", nonEmpty: true };
const boolean: Shape = { kind: "boolean" };
const oneOf = (values: readonly string[]): Shape => ({ kind: "enum", values });
const positiveInt: NumberShape = { kind: "number", integer: true, min: 0, exclusive: true };
const nonNegativeInt: NumberShape = { kind: "number", integer: true, min: 0 };
const nonNegative: NumberShape = { kind: "number", min: 0 };
const list = (item: Shape, min?: number): Shape =>
  min === undefined ? { kind: "list", item } : { kind: "list", item, min };
const record = (key: StringShape, value: Shape): Shape => ({ kind: "record", key, value });
const object = (
  fields: Record<string, Shape>,
  required?: readonly string[],
  rules?: readonly ShapeRule[],
): ObjectShape => ({
  kind: "object",
  fields,
  ...(required ? { required } : {}),
  ...(rules ? { rules } : {}),
});

const name = (what: string): StringShape => ({
  kind: "string",
  pattern: NAME_PATTERN,
  error:
    `a ${what} must start with a letter or digit and contain only letters, digits, ".", "_", ":" or "-" (no "/")`,
});
const envName = (error: string): StringShape => ({
  kind: "string",
  pattern: ENV_NAME_PATTERN,
  error,
});
const httpUrl: StringShape = {
  kind: "string",
  test: isHttpUrl,
  error: "expected an http(s) URL such as https://api.example.com/v1",
};
const headers = record(
  {
    kind: "string",
    pattern: HEADER_NAME_PATTERN,
    error:
      "a header name may contain only letters, digits and !#$%&'*+-.^_`|~ (no spaces or colons)",
  },
  // The value is never echoed: it may be a key.
  {
    kind: "string",
    test: isSafeHeaderValue,
    error: "a header value must not contain a line break (CR, LF) or NUL; the value is not shown",
  },
);

const compatOnlyForOpenAIChat: ShapeRule = (provider) =>
  "compat" in provider && provider.api !== "openai-chat"
    ? { field: "compat", message: `compat applies to "openai-chat" providers only` }
    : undefined;

const provider = object(
  {
    api: oneOf(API_STYLES),
    baseUrl: httpUrl,
    apiKeyEnv: envName(
      "expected an environment variable name such as MY_API_KEY (the name, not the key itself)",
    ),
    headers,
    compat: object({
      developerRole: boolean,
      maxTokensField: oneOf(["max_tokens", "max_completion_tokens"]),
      reasoningParam: oneOf(REASONING_PARAMS),
      streamUsage: boolean,
      toolCallIds: oneOf(["any", "alnum9"]),
      reasoningContent: boolean,
    }),
    idleTimeoutMs: positiveInt,
  },
  ["api"],
  [compatOnlyForOpenAIChat],
);

const model = object({
  provider: name("provider name"),
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

/** An http server needs `url`, a stdio one `command`, and neither takes the other. */
const mcpTransport: ShapeRule = (server) => {
  const type = server.type ?? (server.url !== undefined ? "http" : "stdio");
  const kind = type === "http" ? "an http" : "a stdio";
  const [needed, other] = type === "http" ? ["url", "command"] : ["command", "url"];
  if (server[needed] === undefined) {
    return { field: needed, message: `${kind} MCP server needs "${needed}"` };
  }
  if (server[other] === undefined) return undefined;
  return {
    field: other,
    message:
      `"${other}" does not apply to ${kind} MCP server: give either command (stdio) or url (http)`,
  };
};

const mcpServer = object(
  {
    type: oneOf(["stdio", "http"]),
    command: nonEmpty,
    args: list(string),
    env: record(envName("expected a variable name"), string),
    cwd: nonEmpty,
    url: httpUrl,
    headers,
  },
  [],
  [mcpTransport],
);

/** The shape of one config file (`$PANTO_HOME/config.json`, `.panto/config.json`). */
export const CONFIG_SHAPE: ObjectShape = object({
  $schema: string,
  defaultModel: nonEmpty,
  providers: record(name("provider name"), provider),
  models: record(name("model alias"), model),
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
  keybindings: record(nonEmpty, {
    kind: "either",
    options: [nonEmpty, list(nonEmpty)],
    error: 'expected a key such as "ctrl+c" or a list of keys',
  }),
  tools: object({
    allowedPaths: list(nonEmpty),
    bashTimeoutSeconds: { kind: "number", min: 0, exclusive: true },
    requireApproval: list(nonEmpty),
    hideEnv: list(envName("expected the name of an environment variable, such as DB_PASSWORD")),
    sandbox: object({ enabled: boolean, network: boolean }, ["enabled"]),
  }),
  parallelTools: boolean,
  idleTimeoutMs: positiveInt,
  mcpServers: record(name("MCP server name"), mcpServer),
  defaultThinkingLevel: oneOf(REASONING_LEVELS),
  hideThinkingBlock: boolean,
  theme: name("theme name"),
});
