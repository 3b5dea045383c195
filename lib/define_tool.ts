import { errorMessage } from "./error_message.ts";
import {
  type JsonSchema,
  ResultParts,
  type Tool,
  type ToolContext,
  type ToolOutput,
} from "./tool.ts";

/**
 * One problem a {@linkcode ToolArgsSchema} found in the arguments.
 *
 * @example A wrong type at `tags[1]`
 * ```ts
 * import type { ToolArgsIssue } from "@panto/lib";
 * const issue: ToolArgsIssue = { message: "expected string", path: ["tags", 1] };
 * console.assert(issue.path?.length === 2);
 * ```
 */
export interface ToolArgsIssue {
  /** What is wrong. */
  readonly message: string;
  /** Where: property names and array indexes (absent for the arguments as a whole). */
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/**
 * What validating the arguments gave: the parsed value, or the issues.
 *
 * @example Success and failure
 * ```ts
 * import type { ToolArgsResult } from "@panto/lib";
 * const ok: ToolArgsResult<{ n: number }> = { value: { n: 1 } };
 * const bad: ToolArgsResult<{ n: number }> = { issues: [{ message: "required", path: ["n"] }] };
 * console.assert(ok.issues === undefined && bad.issues !== undefined);
 * ```
 */
export type ToolArgsResult<Args> =
  | { readonly value: Args; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<ToolArgsIssue> };

/**
 * A schema for a tool's arguments that can check them and describe itself
 * as JSON Schema: the part of Standard Schema and Standard JSON Schema
 * (`~standard`) that {@linkcode defineTool} uses. Every zod 4 schema is
 * one, so the public API names no zod type.
 *
 * @example A zod schema is a ToolArgsSchema
 * ```ts
 * import type { ToolArgsSchema } from "@panto/lib";
 * import { z } from "zod";
 * const schema: ToolArgsSchema<{ path: string }> = z.object({ path: z.string() });
 * console.assert(schema["~standard"].vendor === "zod");
 * ```
 */
export interface ToolArgsSchema<Args> {
  /** The Standard Schema properties. */
  readonly "~standard": {
    /** The vendor, e.g. `"zod"`. */
    readonly vendor: string;
    /** Checks (and, for zod, parses: defaults and transforms apply) a value. */
    readonly validate: (
      value: unknown,
    ) => ToolArgsResult<Args> | Promise<ToolArgsResult<Args>>;
    /** Converts the schema to JSON Schema. */
    readonly jsonSchema: {
      /** The JSON Schema of what the schema accepts (before transforms and defaults). */
      readonly input: (options: { readonly target: "draft-2020-12" }) => Record<string, unknown>;
    };
  };
}

/**
 * What {@linkcode defineTool} needs.
 *
 * @example Options for a tool without arguments
 * ```ts
 * import { type DefineToolOptions, ResultParts } from "@panto/lib";
 * import { z } from "zod";
 * const options: DefineToolOptions<Record<string, never>> = {
 *   name: "now",
 *   description: "Current time",
 *   schema: z.object({}),
 *   execute: () => ResultParts.fromText(new Date().toISOString()),
 * };
 * console.assert(options.name === "now");
 * ```
 */
export interface DefineToolOptions<Args> {
  /** Name: 1–64 characters of `[A-Za-z0-9_-]` are sent as they are. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** The arguments: an object schema, e.g. `z.object({ ... })`. */
  schema: ToolArgsSchema<Args>;
  /** Runs the call with the arguments the schema parsed. */
  execute(args: Args, ctx: ToolContext): ToolOutput | Promise<ToolOutput>;
}

/**
 * Defines a tool from a schema (zod 4, or any Standard JSON Schema library):
 * the model is sent its JSON Schema, and `execute` receives the arguments
 * the schema parsed, typed from it (defaults and transforms applied).
 * Arguments the schema rejects become an error result naming the bad
 * fields; `execute` does not run.
 *
 * @param options Name, description, schema and the handler.
 * @returns A tool for `agent.registerTool`.
 * @throws {TypeError} When the schema is not an object schema or has no JSON Schema form.
 *
 * @example A typed tool
 * ```ts
 * import { defineTool, ResultParts } from "@panto/lib";
 * import { z } from "zod";
 * const repeat = defineTool({
 *   name: "repeat",
 *   description: "Repeat a text",
 *   schema: z.object({ text: z.string(), times: z.number().int().min(1).default(2) }),
 *   execute: ({ text, times }) => ResultParts.fromText(text.repeat(times)),
 * });
 * console.assert(repeat.decl.inputSchema.type === "object");
 * const signal = new AbortController().signal;
 * const out = await repeat.execute({ text: "ab" }, { signal, callId: "1" });
 * console.assert(Array.isArray(out) && out[0]?.type === "text" && out[0].text === "abab");
 * ```
 */
export function defineTool<Args>(options: DefineToolOptions<Args>): Tool {
  const { name, description, schema, execute } = options;
  return {
    decl: { name, description, inputSchema: inputSchemaOf(name, schema) },
    async execute(input, ctx) {
      const parsed = await schema["~standard"].validate(input);
      if (parsed.issues) return ResultParts.error(invalidArgumentsMessage(name, parsed.issues));
      return execute(parsed.value, ctx);
    },
  };
}

/** The JSON Schema providers accept: an object schema, without `$schema`. */
function inputSchemaOf(name: string, schema: ToolArgsSchema<unknown>): JsonSchema {
  let converted: Record<string, unknown>;
  try {
    // The model sends the input side: fields with defaults stay optional, transforms are not yet applied.
    converted = schema["~standard"].jsonSchema.input({ target: "draft-2020-12" });
  } catch (error) {
    throw new TypeError(
      `Tool ${JSON.stringify(name)}: its schema has no JSON Schema form (${
        errorMessage(error)
      }); use only JSON-representable types in the arguments`,
      { cause: error },
    );
  }
  const { $schema: _dialect, ...inputSchema } = converted;
  if (inputSchema.type !== "object") {
    throw new TypeError(
      `Tool ${
        JSON.stringify(name)
      }: its schema must describe an object (e.g. z.object({ ... })), ` +
        `but its JSON Schema is ${
          clip(JSON.stringify(inputSchema))
        }; wrap the arguments in an object`,
    );
  }
  return inputSchema;
}

function clip(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** Worded like the registry's JSON Schema errors: `/field: problem` for each issue. */
function invalidArgumentsMessage(name: string, issues: ReadonlyArray<ToolArgsIssue>): string {
  const details = issues.slice(0, 5).map((issue) => `${pointer(issue.path)}: ${issue.message}`);
  return `Invalid arguments for ${name}: ${
    details.join("; ")
  }. Fix them to match the tool's schema and call it again.`;
}

/** A JSON Pointer (`/tags/1`) for an issue path; `/` for the arguments as a whole. */
function pointer(path: ToolArgsIssue["path"]): string {
  if (!path || path.length === 0) return "/";
  return path
    .map((segment) => typeof segment === "object" ? segment.key : segment)
    .map((key) => `/${String(key).replaceAll("~", "~0").replaceAll("/", "~1")}`)
    .join("");
}
