/**
 * A provider stream's JSON objects as the assemblers read them: any field
 * may be missing or of another type, so each is checked where it is used.
 *
 * @module
 */
import { ProviderError } from "../errors.ts";
import { hostOf } from "./error_classification.ts";

/** A JSON object from the wire, its fields unchecked. */
export type WireObject = Record<string, unknown>;

/** How much of a payload that is not JSON its error quotes. */
const QUOTE_CHARS = 200;

/**
 * Whether a value is a JSON object (not an array, not null).
 *
 * @param value Anything parsed from the wire.
 * @returns True for an object.
 *
 * @example
 * ```ts
 * import { isObject } from "./wire_object.ts";
 * console.assert(isObject({ a: 1 }) && !isObject([1]) && !isObject(null));
 * ```
 */
export function isObject(value: unknown): value is WireObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A value as an object: an object as it is, anything else as `{}` (its
 * fields then read as missing, which each reader handles).
 *
 * @param value Anything parsed from the wire.
 * @returns The object, or `{}`.
 *
 * @example
 * ```ts
 * import { asObject } from "./wire_object.ts";
 * console.assert(asObject("text").type === undefined && asObject({ type: "ping" }).type === "ping");
 * ```
 */
export function asObject(value: unknown): WireObject {
  return isObject(value) ? value : {};
}

/**
 * Parses one event's or chunk's data.
 *
 * @param data The data as received.
 * @param url The request's URL (its host names the sender).
 * @param what What the data is, for the message (`a chunk`, `a "ping" event`).
 * @returns The object (`{}` for JSON that is no object).
 * @throws {ProviderError} `stream`, quoting the data (cut at 200 characters), when it is not JSON.
 *
 * @example
 * ```ts
 * import { parseWireObject } from "./wire_object.ts";
 * console.assert(parseWireObject('{"type":"ping"}', "https://api.example.com/v1", "an event").type === "ping");
 * ```
 */
export function parseWireObject(data: string, url: string, what: string): WireObject {
  try {
    return asObject(JSON.parse(data));
  } catch (cause) {
    const quote = data.length > QUOTE_CHARS ? `${data.slice(0, QUOTE_CHARS)}…` : data;
    throw new ProviderError("stream", `${hostOf(url)} sent ${what} that is not JSON: ${quote}`, {
      cause,
    });
  }
}
