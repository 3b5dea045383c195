import { z } from "zod";
import {
  API_STYLES,
  type ApiStyle,
  type CompactionConfig,
  type OpenAICompat,
  REASONING_LEVELS,
  REASONING_PARAMS,
  type ReasoningLevel,
  type RetryConfig,
} from "@panto/lib";
import { didYouMean } from "../did_you_mean.ts";
import { ENV_NAME_PATTERN } from "../env.ts";
import { UsageError } from "../errors.ts";
import type { McpServerEntry, ModelPricing } from "./panto_config.ts";
import { HEADER_NAME_PATTERN, isHttpUrl, isSafeHeaderValue, NAME_PATTERN } from "./plain_config.ts";
import { redactSecrets } from "@panto/lib";

/** A provider entry as written in a config file. */
export interface ProviderEntry {
  /** Wire protocol. */
  api: ApiStyle;
  /** Base URL; the vendor's when unset. */
  baseUrl?: string;
  /** Environment variable holding the key. */
  apiKeyEnv?: string;
  /** Extra HTTP headers. */
  headers?: Record<string, string>;
  /** OpenAI-compatible server quirks. */
  compat?: OpenAICompat;
  /** Abort a response when this provider sends nothing for this long (ms). */
  idleTimeoutMs?: number;
}

/** A model entry as written in a config file. */
export interface ModelEntry {
  /** Provider name. */
  provider: string;
  /** Model name on the server. */
  model: string;
  /** Reasoning level. */
  reasoning?: ReasoningLevel;
  /** Context window in tokens. */
  contextWindow?: number;
  /** Output token limit. */
  maxTokens?: number;
  /** Prices per million tokens. */
  price?: ModelPricing;
}

/** One config file's contents, validated. */
export interface ConfigFile {
  /** Editor hint, ignored. */
  $schema?: string;
  /** Alias or `provider/model` used when none is given. */
  defaultModel?: string;
  /** Providers by name. */
  providers?: Record<string, ProviderEntry>;
  /** Models by alias. */
  models?: Record<string, ModelEntry>;
  /** The aliases ctrl+p cycles through, in order (default: all). */
  cycleModels?: string[];
  /** Compaction settings. */
  compaction?: CompactionConfig;
  /** Retry settings. */
  retry?: RetryConfig;
  /** Action → key or keys. */
  keybindings?: Record<string, string | string[]>;
  /** Built-in tool settings. */
  tools?: {
    allowedPaths?: string[];
    bashTimeoutSeconds?: number;
    requireApproval?: string[];
    hideEnv?: string[];
    sandbox?: { enabled: boolean; network?: boolean };
  };
  /** Run a message's tool calls concurrently. */
  parallelTools?: boolean;
  /** Default idle timeout of all providers (ms). */
  idleTimeoutMs?: number;
  /** MCP servers by name. */
  mcpServers?: Record<string, McpServerEntry>;
  /** Reasoning level of a model whose alias sets none. */
  defaultThinkingLevel?: ReasoningLevel;
  /** Start the chat with thinking blocks hidden. */
  hideThinkingBlock?: boolean;
  /** The interactive chat's theme: a built-in one or a file's name in a themes directory. */
  theme?: string;
}

/** An object that rejects unknown keys, naming the allowed ones (and the likely intended one). */
function strictObject<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  const allowed = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code !== "unrecognized_keys") return undefined;
      return issue.keys.map((key) => unknownKeyMessage(key, allowed)).join("; ");
    },
  });
}

function unknownKeyMessage(key: string, allowed: readonly string[]): string {
  const guess = didYouMean(key, allowed);
  const hint = guess ? ` (did you mean "${guess}"?)` : "";
  return `unknown key ${JSON.stringify(key)}${hint}; allowed keys: ${allowed.join(", ")}`;
}

const name = (what: string) =>
  z.string().regex(NAME_PATTERN, {
    error:
      `a ${what} must start with a letter or digit and contain only letters, digits, ".", "_", ":" or "-" (no "/")`,
  });

const positiveInt = () => z.number().int().positive();
const nonNegativeInt = () => z.number().int().nonnegative();
const nonNegative = () => z.number().nonnegative();

const httpUrl = z.string().refine(isHttpUrl, {
  error: "expected an http(s) URL such as https://api.example.com/v1",
});

/** RFC 9110 token characters: anything else (a space, a colon, a line break) breaks the request. */
const headerName = z.string().regex(HEADER_NAME_PATTERN, {
  error: "a header name may contain only letters, digits and !#$%&'*+-.^_`|~ (no spaces or colons)",
});

/** A line break would let a value smuggle in further headers; the value is never echoed (it may be a key). */
const headerValue = z.string().refine(isSafeHeaderValue, {
  error: "a header value must not contain a line break (CR, LF) or NUL; the value is not shown",
});

const compatSchema = strictObject({
  developerRole: z.boolean().exactOptional(),
  maxTokensField: z.enum(["max_tokens", "max_completion_tokens"]).exactOptional(),
  reasoningParam: z.enum(REASONING_PARAMS).exactOptional(),
  streamUsage: z.boolean().exactOptional(),
  toolCallIds: z.enum(["any", "alnum9"]).exactOptional(),
  reasoningContent: z.boolean().exactOptional(),
});

const providerSchema = strictObject({
  api: z.enum(API_STYLES),
  baseUrl: httpUrl.exactOptional(),
  apiKeyEnv: z.string().regex(ENV_NAME_PATTERN, {
    error:
      "expected an environment variable name such as MY_API_KEY (the name, not the key itself)",
  }).exactOptional(),
  headers: z.record(headerName, headerValue).exactOptional(),
  compat: compatSchema.exactOptional(),
  idleTimeoutMs: positiveInt().exactOptional(),
}).superRefine((provider, ctx) => {
  if (provider.compat && provider.api !== "openai-chat") {
    ctx.addIssue({
      code: "custom",
      path: ["compat"],
      message: `compat applies to "openai-chat" providers only`,
    });
  }
});

const priceSchema = strictObject({
  input: nonNegative(),
  output: nonNegative(),
  cacheRead: nonNegative().exactOptional(),
  cacheWrite: nonNegative().exactOptional(),
});

const modelSchema = strictObject({
  provider: name("provider name"),
  model: z.string().min(1),
  reasoning: z.enum(REASONING_LEVELS).exactOptional(),
  contextWindow: positiveInt().exactOptional(),
  maxTokens: positiveInt().exactOptional(),
  price: priceSchema.exactOptional(),
});

const mcpServerSchema = strictObject({
  type: z.enum(["stdio", "http"]).exactOptional(),
  command: z.string().min(1).exactOptional(),
  args: z.array(z.string()).exactOptional(),
  env: z.record(
    z.string().regex(ENV_NAME_PATTERN, { error: "expected a variable name" }),
    z.string(),
  )
    .exactOptional(),
  cwd: z.string().min(1).exactOptional(),
  url: httpUrl.exactOptional(),
  headers: z.record(headerName, headerValue).exactOptional(),
}).superRefine((server, ctx) => {
  const type = server.type ?? (server.url !== undefined ? "http" : "stdio");
  const [needed, other] = type === "http"
    ? ["url", "command"] as const
    : ["command", "url"] as const;
  if (server[needed] === undefined) {
    ctx.addIssue({
      code: "custom",
      path: [needed],
      message: `a${type === "http" ? "n http" : " stdio"} MCP server needs "${needed}"`,
    });
  }
  if (server[other] !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: [other],
      message: `"${other}" does not apply to a${
        type === "http" ? "n http" : " stdio"
      } MCP server: give either command (stdio) or url (http)`,
    });
  }
});

const keysSchema = z.union([z.string().min(1), z.array(z.string().min(1))], {
  error: 'expected a key such as "ctrl+c" or a list of keys',
});

const configSchema = strictObject({
  $schema: z.string().exactOptional(),
  defaultModel: z.string().min(1).exactOptional(),
  providers: z.record(name("provider name"), providerSchema).exactOptional(),
  models: z.record(name("model alias"), modelSchema).exactOptional(),
  cycleModels: z.array(z.string().min(1)).min(1).exactOptional(),
  compaction: strictObject({
    enabled: z.boolean().exactOptional(),
    reserveTokens: nonNegativeInt().exactOptional(),
    keepRecentTokens: nonNegativeInt().exactOptional(),
    prompt: z.string().min(1).exactOptional(),
  }).exactOptional(),
  retry: strictObject({
    maxRetries: nonNegativeInt().exactOptional(),
    baseDelayMs: nonNegativeInt().exactOptional(),
    maxDelayMs: nonNegativeInt().exactOptional(),
  }).exactOptional(),
  keybindings: z.record(z.string().min(1), keysSchema).exactOptional(),
  tools: strictObject({
    allowedPaths: z.array(z.string().min(1)).exactOptional(),
    bashTimeoutSeconds: z.number().positive().exactOptional(),
    requireApproval: z.array(z.string().min(1)).exactOptional(),
    hideEnv: z.array(
      z.string().regex(ENV_NAME_PATTERN, {
        error: "expected the name of an environment variable, such as DB_PASSWORD",
      }),
    ).exactOptional(),
    sandbox: strictObject({
      enabled: z.boolean(),
      network: z.boolean().exactOptional(),
    }).exactOptional(),
  }).exactOptional(),
  parallelTools: z.boolean().exactOptional(),
  idleTimeoutMs: positiveInt().exactOptional(),
  mcpServers: z.record(name("MCP server name"), mcpServerSchema).exactOptional(),
  defaultThinkingLevel: z.enum(REASONING_LEVELS).exactOptional(),
  hideThinkingBlock: z.boolean().exactOptional(),
  theme: name("theme name").exactOptional(),
});

/**
 * Validates one config file's parsed JSON against the schema.
 *
 * @param data The parsed JSON.
 * @param displayPath The path shown in error messages.
 * @returns The validated contents.
 * @throws {UsageError} Naming the file and, for each bad field (up to ten),
 *   its JSON path, what was expected and what was found.
 */
export function validateConfig(data: unknown, displayPath: string): ConfigFile {
  const result = configSchema.safeParse(data, { reportInput: true });
  if (result.success) return result.data;
  const problems = result.error.issues.slice(0, 10).map((issue) =>
    `${displayPath}: ${redactSecrets(describeIssue(issue))}`
  );
  throw new UsageError(problems.join("\n"));
}

/**
 * One validation problem for a person: where, what was expected, what was
 * found — `models.sonnet.reasoning: expected one of "off", "low", got "max"`.
 *
 * @param issue A zod issue.
 * @returns The sentence.
 */
export function describeIssue(issue: z.core.$ZodIssue): string {
  const where = formatPath(issue.path);
  return where ? `${where}: ${describeProblem(issue)}` : describeProblem(issue);
}

/** Fields whose bad values are likely secrets (a key pasted where its variable's name belongs, header values): never echoed. */
const SECRET_FIELDS = new Set<PropertyKey>(["apiKeyEnv", "headers", "env"]);

function describeProblem(issue: z.core.$ZodIssue): string {
  const secret = issue.path.some((segment) => SECRET_FIELDS.has(segment));
  const got = "input" in issue && !secret ? `, got ${describeValue(issue.input)}` : "";
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return `missing; expected ${typeName(issue.expected)}`;
      return `expected ${typeName(issue.expected)}${got}`;
    case "invalid_value": {
      const values = issue.values.map((v) => JSON.stringify(v)).join(", ");
      const expected = `expected ${issue.values.length === 1 ? "" : "one of "}${values}`;
      return issue.input === undefined ? `missing; ${expected}` : `${expected}${got}`;
    }
    case "too_small":
      return `expected ${
        boundText(issue.origin, issue.minimum, issue.inclusive ?? true, "small")
      }${got}`;
    case "too_big":
      return `expected ${
        boundText(issue.origin, issue.maximum, issue.inclusive ?? true, "big")
      }${got}`;
    case "invalid_key":
      return `invalid name ${describeValue(issue.input)}: ${
        issue.issues[0]?.message ?? issue.message
      }`;
    case "unrecognized_keys":
      return issue.message;
    default:
      return `${issue.message}${got}`;
  }
}

function boundText(
  origin: string,
  bound: number | bigint,
  inclusive: boolean,
  side: "small" | "big",
): string {
  if (origin === "string") {
    return side === "small" ? "a non-empty string" : `at most ${bound} characters`;
  }
  if (origin === "array") return `${side === "small" ? "at least" : "at most"} ${bound} entries`;
  const op = side === "small" ? (inclusive ? ">=" : ">") : (inclusive ? "<=" : "<");
  return `a number ${op} ${bound}`;
}

function typeName(expected: string): string {
  const names: Record<string, string> = {
    int: "an integer",
    object: "an object",
    array: "a list",
    string: "a string",
    number: "a number",
    boolean: "true or false",
  };
  return names[expected] ?? expected;
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  if (typeof value === "string" && value.length > 60) {
    return `${JSON.stringify(value.slice(0, 60))}…`;
  }
  return JSON.stringify(value) ?? String(value);
}

/** `models.sonnet.reasoning`, `providers["my provider"].api`, `tools.allowedPaths[0]`. */
function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (typeof segment === "string" && /^[A-Za-z_$][\w$-]*$/.test(segment)) {
      out += out ? `.${segment}` : segment;
    } else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}
