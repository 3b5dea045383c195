// A config file is validated by the zod schema in config_schema.ts, whose
// modules cost every start about 8 MiB and 10 ms. Most files are plainly
// valid: this check, built without zod from the same shape
// (config_shape.ts), recognizes them, and whatever it does not vouch for (a
// doubtful value, a mistake) goes to the schema, which accepts it or says
// what is wrong. It may leave a valid file to the schema, never pass one the
// schema rejects: a property test (tests/cli/config/plain_config_test.ts) holds the
// two together.
import type { ConfigFile } from "./config_schema.ts";
import { CONFIG_SHAPE, type Shape, type StringShape } from "./config_shape.ts";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isString(shape: StringShape, value: unknown): boolean {
  return typeof value === "string" && (!shape.nonEmpty || value.length > 0) &&
    (!shape.pattern || shape.pattern.test(value)) && (!shape.test || shape.test(value));
}

/** Whether `value` has `shape`, as the schema would return it unchanged. */
function fits(shape: Shape, value: unknown): boolean {
  switch (shape.kind) {
    case "string":
      return isString(shape, value);
    case "number":
      return typeof value === "number" &&
        (shape.integer ? Number.isSafeInteger(value) : Number.isFinite(value)) &&
        (shape.exclusive ? value > shape.min : value >= shape.min);
    case "boolean":
      return typeof value === "boolean";
    case "enum":
      return shape.values.includes(value as string);
    case "list":
      return Array.isArray(value) && value.length >= (shape.min ?? 0) &&
        value.every((item) => fits(shape.item, item));
    case "record":
      // An own `__proto__` key is lost in the schema's copy: left to the schema.
      return isObject(value) &&
        Object.entries(value).every(([key, inner]) =>
          key !== "__proto__" && isString(shape.key, key) && fits(shape.value, inner)
        );
    case "either":
      return shape.options.some((option) => fits(option, value));
    case "object":
      return isObject(value) &&
        (shape.required ?? []).every((key) => Object.hasOwn(value, key)) &&
        Object.entries(value).every(([key, inner]) =>
          Object.hasOwn(shape.fields, key) && fits(shape.fields[key]!, inner)
        ) && (shape.rules ?? []).every((rule) => rule(value) === undefined);
  }
}

/**
 * Whether a parsed config file is certainly valid, as the schema would
 * return it. `false` means "ask the schema", not "invalid".
 *
 * @param data The file's parsed JSON.
 * @returns Whether the schema would accept it unchanged.
 */
export function isPlainConfig(data: unknown): data is ConfigFile {
  return fits(CONFIG_SHAPE, data);
}
