/**
 * Tool schemas in the subset Gemini's function declarations accept.
 *
 * `FunctionDeclaration.parameters` is an OpenAPI 3.0 `Schema` parsed as a
 * protobuf message, not JSON Schema: a keyword it has no field for fails
 * the whole request ("Invalid JSON payload received. Unknown name
 * \"additionalProperties\" … Cannot find field"), whatever its value. Real
 * errors seen from the API (public bug reports of zed, cline, LibreChat,
 * opencode and others) also require a `type` unless `anyOf` is used, `items`
 * on every array, type-specific keywords only on their type (`items` beside
 * `anyOf` fails "field predicate failed: $type == Type.ARRAY") and string
 * values in `enum`. So schemas are rebuilt from an allowlist rather than
 * pruned: `$ref` is inlined, `allOf` merged, `oneOf` read as `anyOf`,
 * `type` lists and `null` become `nullable`, `const` becomes `enum`, and
 * constraints with no field (non-string enums, exclusive bounds) are kept
 * as close as the subset allows. The tool still validates the arguments
 * against its own schema, so what is lost here is only guidance.
 *
 * @module
 */

/** A schema as Gemini's function declarations take it (lower-case type names work). */
export interface GeminiSchema {
  /** `string`, `number`, `integer`, `boolean`, `array`, `object`; absent with `anyOf`. */
  type?: string;
  /** `enum` or `date-time` for strings, `int32`/`int64`, `float`/`double`. */
  format?: string;
  /** A short title. */
  title?: string;
  /** What the value means. */
  description?: string;
  /** The value may be null. */
  nullable?: boolean;
  /** The allowed strings. */
  enum?: string[];
  /** An object's properties. */
  properties?: Record<string, GeminiSchema>;
  /** Properties that must be present. */
  required?: string[];
  /** Fewest properties. */
  minProperties?: number;
  /** Most properties. */
  maxProperties?: number;
  /** An array's elements. */
  items?: GeminiSchema;
  /** Fewest elements. */
  minItems?: number;
  /** Most elements. */
  maxItems?: number;
  /** Shortest string. */
  minLength?: number;
  /** Longest string. */
  maxLength?: number;
  /** A regular expression the string matches. */
  pattern?: string;
  /** Smallest number. */
  minimum?: number;
  /** Largest number. */
  maximum?: number;
  /** The value matches one of these. */
  anyOf?: GeminiSchema[];
  /** The default value. */
  default?: unknown;
}

type Json = Record<string, unknown>;

const TYPES: ReadonlySet<string> = new Set([
  "string",
  "number",
  "integer",
  "boolean",
  "array",
  "object",
]);

/** Formats the API knows, per type (it rejects others). */
const FORMATS: Readonly<Record<string, ReadonlySet<string>>> = {
  string: new Set(["enum", "date-time"]),
  integer: new Set(["int32", "int64"]),
  number: new Set(["float", "double"]),
};

/** Nesting beyond this (or a recursive `$ref`) becomes a plain object: the API has limits too. */
const MAX_DEPTH = 32;

/**
 * A tool's input schema as Gemini's `FunctionDeclaration.parameters`, or
 * `undefined` for a tool without parameters (an object with no properties:
 * the declaration then leaves `parameters` out).
 *
 * @param schema The tool's JSON Schema.
 * @returns The converted schema, or `undefined`.
 *
 * @example
 * ```ts
 * import { toGeminiParameters } from "./google_schema.ts";
 * const parameters = toGeminiParameters({
 *   $schema: "https://json-schema.org/draft/2020-12/schema",
 *   type: "object",
 *   properties: { path: { type: "string" }, limit: { type: ["integer", "null"], exclusiveMinimum: 0 } },
 *   required: ["path"],
 *   additionalProperties: false,
 * });
 * console.assert(JSON.stringify(parameters) === JSON.stringify({
 *   type: "object",
 *   properties: { path: { type: "string" }, limit: { type: "integer", minimum: 1, nullable: true } },
 *   required: ["path"],
 * }));
 * console.assert(toGeminiParameters({ type: "object", properties: {} }) === undefined);
 * ```
 */
export function toGeminiParameters(schema: Json): GeminiSchema | undefined {
  const converted = new SchemaConverter(schema).convert(schema, 0, []);
  if (converted?.type === "object" && converted.properties === undefined) return undefined;
  return converted;
}

class SchemaConverter {
  readonly #root: Json;

  constructor(root: Json) {
    this.#root = root;
  }

  /** Converts one schema node; `undefined` for `false` (nothing is allowed). */
  convert(node: unknown, depth: number, refs: readonly string[]): GeminiSchema | undefined {
    if (node === false) return undefined;
    if (!isObject(node)) return { type: "string" }; // `true`: anything goes
    if (depth > MAX_DEPTH) return describe({ type: "object" }, node);
    if (typeof node.$ref === "string") return this.#reference(node, depth, refs);
    if (Array.isArray(node.allOf)) {
      const { allOf, ...rest } = node;
      const parts = allOf.map((part) => this.#resolved(part, refs));
      return this.convert(mergeSchemas([rest, ...parts]), depth, refs);
    }
    const typeList = Array.isArray(node.type) ? node.type : [node.type];
    const types = typeList.filter((type): type is string => TYPES.has(type as string));
    const nullable = node.nullable === true || typeList.includes("null");
    const union = Array.isArray(node.anyOf) ? node.anyOf : node.oneOf;
    // With a type of its own, a union only adds constraints to that type: the type wins.
    if (Array.isArray(union) && types.length === 0 && !hasTypedKeywords(node)) {
      return this.#union(node, union, nullable, depth, refs);
    }
    if (types.length > 1) {
      const anyOf = types.map((type) =>
        this.#typed({ ...node, description: undefined, title: undefined }, type, depth, refs)
      );
      return withNullable(describe({ anyOf }, node), nullable);
    }
    const type = types[0] ?? inferType(node);
    return withNullable(describe(this.#typed(node, type, depth, refs), node), nullable);
  }

  #reference(node: Json, depth: number, refs: readonly string[]): GeminiSchema | undefined {
    const ref = node.$ref as string;
    const target = refs.includes(ref) ? undefined : resolvePointer(this.#root, ref);
    const { $ref: _, ...siblings } = node;
    if (target === undefined) return describe({ type: "object" }, node); // recursive or unknown
    // Keywords beside `$ref` (a description, say) refine the target.
    const merged = isObject(target) ? { ...target, ...siblings } : target;
    return this.convert(merged, depth + 1, [...refs, ref]);
  }

  /** A `$ref` part of an `allOf`, resolved once so its keywords can be merged. */
  #resolved(part: unknown, refs: readonly string[]): unknown {
    if (!isObject(part) || typeof part.$ref !== "string" || refs.includes(part.$ref)) return part;
    const target = resolvePointer(this.#root, part.$ref);
    const { $ref: _, ...siblings } = part;
    return isObject(target) ? { ...target, ...siblings } : part;
  }

  #union(
    node: Json,
    union: unknown[],
    nullable: boolean,
    depth: number,
    refs: readonly string[],
  ): GeminiSchema | undefined {
    const isNull = (branch: unknown) => isObject(branch) && branch.type === "null";
    const branches = union.filter((branch) => branch !== false && !isNull(branch));
    const orNull = nullable || branches.length < union.filter((b) => b !== false).length;
    const { anyOf: _a, oneOf: _o, ...rest } = node;
    if (branches.length === 1) {
      // One real branch: it is the schema (nullable when the others were null).
      const only = this.convert(branches[0], depth + 1, refs);
      if (only === undefined) return undefined;
      return withNullable({ ...only, ...describe({}, rest) }, orNull);
    }
    const anyOf = branches
      .map((branch) => this.convert(branch, depth + 1, refs))
      .filter((branch): branch is GeminiSchema => branch !== undefined);
    if (anyOf.length === 0) return withNullable(describe({ type: "string" }, rest), orNull);
    return withNullable(describe({ anyOf }, rest), orNull);
  }

  /** The keywords that belong to `type`. */
  #typed(node: Json, type: string, depth: number, refs: readonly string[]): GeminiSchema {
    const out: GeminiSchema = { type };
    const format = typeof node.format === "string" ? node.format : undefined;
    if (format !== undefined && FORMATS[type]?.has(format)) out.format = format;
    const choices = choicesOf(node);
    switch (type) {
      case "string": {
        const strings = choices?.filter((value): value is string => typeof value === "string");
        if (strings !== undefined && strings.length > 0) out.enum = strings;
        copyCounts(node, out, ["minLength", "maxLength"]);
        if (typeof node.pattern === "string") out.pattern = node.pattern;
        break;
      }
      case "integer":
      case "number":
        copyBounds(node, out, type === "integer");
        break;
      case "array": {
        const items = Array.isArray(node.prefixItems) && node.items === undefined
          ? { anyOf: node.prefixItems }
          : node.items;
        out.items = (items === undefined ? undefined : this.convert(items, depth + 1, refs)) ??
          { type: "string" }; // the API requires items on every array
        copyCounts(node, out, ["minItems", "maxItems"]);
        break;
      }
      case "object": {
        const properties: Record<string, GeminiSchema> = {};
        if (isObject(node.properties)) {
          for (const [name, value] of Object.entries(node.properties)) {
            const converted = this.convert(value, depth + 1, refs);
            if (converted !== undefined) properties[name] = converted;
          }
        }
        // An empty `properties` map is rejected: a free-form object has none.
        if (Object.keys(properties).length > 0) {
          out.properties = properties;
          const required = Array.isArray(node.required)
            ? node.required.filter((name): name is string =>
              typeof name === "string" && Object.hasOwn(properties, name)
            )
            : [];
          if (required.length > 0) out.required = [...new Set(required)];
        }
        copyCounts(node, out, ["minProperties", "maxProperties"]);
        break;
      }
    }
    // Non-string choices have no field: they are told in words.
    if (
      choices !== undefined && (type !== "string" || choices.some((v) => typeof v !== "string"))
    ) {
      const listed = choices.filter((value) => type !== "string" || typeof value !== "string");
      if (listed.length > 0) {
        out.description = `One of: ${listed.map((value) => JSON.stringify(value)).join(", ")}.`;
      }
    }
    if (node.default !== undefined) out.default = node.default;
    return out;
  }
}

/** `enum`, or `const` as a one-value enum; `null` values are left to `nullable`. */
function choicesOf(node: Json): unknown[] | undefined {
  const values = Array.isArray(node.enum)
    ? node.enum
    : node.const !== undefined
    ? [node.const]
    : undefined;
  return values?.filter((value) => value !== null);
}

/** Whether the node has keywords that imply a type of its own beside a union. */
function hasTypedKeywords(node: Json): boolean {
  return node.properties !== undefined || node.items !== undefined;
}

/** The type of a node that names none (or only `null`), from its keywords; `string` when nothing tells. */
function inferType(node: Json): string {
  if (node.properties !== undefined || node.additionalProperties !== undefined) return "object";
  if (node.items !== undefined || node.prefixItems !== undefined) return "array";
  const choices = choicesOf(node);
  if (choices !== undefined && choices.length > 0) {
    if (choices.every((value) => typeof value === "boolean")) return "boolean";
    if (choices.every((value) => Number.isInteger(value))) return "integer";
    if (choices.every((value) => typeof value === "number")) return "number";
    return "string";
  }
  if (typeof node.minimum === "number" || typeof node.maximum === "number") return "number";
  return "string"; // also for `{type: "null"}` alone, which becomes a nullable string
}

/** Title and description of the source node, joined with any note already on `out`. */
function describe(out: GeminiSchema, node: Json): GeminiSchema {
  if (typeof node.title === "string" && node.title !== "") out.title = node.title;
  const description = [node.description, out.description]
    .filter((text): text is string => typeof text === "string" && text !== "")
    .join(" ");
  if (description !== "") out.description = description;
  return out;
}

function withNullable(out: GeminiSchema, nullable: boolean): GeminiSchema {
  if (nullable) out.nullable = true;
  return out;
}

type CountKey =
  | "minLength"
  | "maxLength"
  | "minItems"
  | "maxItems"
  | "minProperties"
  | "maxProperties";

function copyCounts(node: Json, out: GeminiSchema, keys: readonly CountKey[]): void {
  for (const key of keys) {
    const value = node[key];
    if (typeof value === "number" && Number.isInteger(value) && value >= 0) out[key] = value;
  }
}

/**
 * `minimum`/`maximum`, with exclusive bounds (which have no field) made
 * inclusive: one step inside for integers, the bound itself for numbers.
 */
function copyBounds(node: Json, out: GeminiSchema, integer: boolean): void {
  const step = integer ? 1 : 0;
  const bound = (inclusive: unknown, exclusive: unknown, sign: 1 | -1): number | undefined => {
    if (typeof exclusive === "number") return exclusive + sign * step; // draft 6 and later
    if (typeof inclusive !== "number") return undefined;
    return exclusive === true ? inclusive + sign * step : inclusive; // draft 4
  };
  const minimum = bound(node.minimum, node.exclusiveMinimum, 1);
  const maximum = bound(node.maximum, node.exclusiveMaximum, -1);
  if (minimum !== undefined) out.minimum = minimum;
  if (maximum !== undefined) out.maximum = maximum;
}

/** `allOf` parts merged into one schema: properties and `required` joined, else the first value wins. */
function mergeSchemas(parts: readonly unknown[]): Json {
  const merged: Json = {};
  const properties: Json = {};
  const required: unknown[] = [];
  for (const part of parts) {
    if (!isObject(part)) continue;
    for (const [key, value] of Object.entries(part)) {
      if (key === "properties" && isObject(value)) Object.assign(properties, value);
      else if (key === "required" && Array.isArray(value)) required.push(...value);
      else if (!(key in merged)) merged[key] = value;
    }
  }
  if (Object.keys(properties).length > 0) merged.properties = properties;
  if (required.length > 0) merged.required = required;
  return merged;
}

/** A local JSON pointer (`#/$defs/Name`), or `undefined` for one that is not local or not found. */
function resolvePointer(root: Json, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (!isObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
