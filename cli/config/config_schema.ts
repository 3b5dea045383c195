import { z } from "zod";
import type {
  ApiStyle,
  CompactionConfig,
  OpenAICompat,
  ReasoningLevel,
  RetryConfig,
} from "@panto/lib";
import { didYouMean } from "../shared/did_you_mean.ts";
import { UsageError } from "../shared/errors.ts";
import type { McpServerEntry, ModelSettings } from "./panto_config.ts";
import { CONFIG_SHAPE, type ObjectShape, type Shape, type StringShape } from "./config_shape.ts";
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

/** A model entry as written in a config file: its settings, less where they came from. */
export type ModelEntry = Omit<ModelSettings, "source">;

/** One config file's contents, validated (its shape is stated in config_shape.ts). */
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
function strictObject(shape: ObjectShape): z.ZodType {
  const allowed = Object.keys(shape.fields);
  const required = new Set(shape.required ?? []);
  const fields = Object.fromEntries(
    Object.entries(shape.fields).map(([key, field]) => {
      const schema = zodOf(field);
      return [key, required.has(key) ? schema : schema.exactOptional()];
    }),
  );
  const object = z.strictObject(fields, {
    error: (issue) => {
      if (issue.code !== "unrecognized_keys") return undefined;
      return issue.keys.map((key) => unknownKeyMessage(key, allowed)).join("; ");
    },
  });
  const rules = shape.rules ?? [];
  if (rules.length === 0) return object;
  return object.superRefine((value, ctx) => {
    for (const rule of rules) {
      const problem = rule(value as Record<string, unknown>);
      if (problem) {
        ctx.addIssue({ code: "custom", path: [problem.field], message: problem.message });
      }
    }
  });
}

function unknownKeyMessage(key: string, allowed: readonly string[]): string {
  const guess = didYouMean(key, allowed);
  const hint = guess ? ` (did you mean "${guess}"?)` : "";
  return `unknown key ${JSON.stringify(key)}${hint}; allowed keys: ${allowed.join(", ")}`;
}

function zodString(shape: StringShape): z.ZodType {
  let schema = z.string();
  if (shape.nonEmpty) schema = schema.min(1);
  const error = shape.error === undefined ? {} : { error: shape.error };
  if (shape.pattern) schema = schema.regex(shape.pattern, error);
  return shape.test ? schema.refine(shape.test, error) : schema;
}

/** The zod schema of a shape (config_shape.ts states each shape once). */
function zodOf(shape: Shape): z.ZodType {
  switch (shape.kind) {
    case "string":
      return zodString(shape);
    case "number": {
      const number = shape.integer ? z.number().int() : z.number();
      return shape.exclusive ? number.gt(shape.min) : number.gte(shape.min);
    }
    case "boolean":
      return z.boolean();
    case "enum":
      return z.enum(shape.values as [string, ...string[]]);
    case "list": {
      const list = z.array(zodOf(shape.item));
      return shape.min === undefined ? list : list.min(shape.min);
    }
    case "record":
      return z.record(zodString(shape.key) as z.ZodType<string>, zodOf(shape.value));
    case "either":
      return z.union(shape.options.map(zodOf), { error: shape.error });
    case "object":
      return strictObject(shape);
  }
}

const configSchema = zodOf(CONFIG_SHAPE);

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
  if (result.success) return result.data as ConfigFile;
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
