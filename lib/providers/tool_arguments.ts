// A tool call's streamed arguments, parsed with their nesting bounded.
// JSON.parse itself takes any depth, but what comes after does not: the
// next request's JSON.stringify (with a replacer), structuredClone and the
// session's schema checks recurse, and a call nested 20,000 deep overflowed
// the stack in every later request of its session.
import type { ToolUseBlock } from "../content.ts";

/** The deepest nesting of objects and arrays a tool call's arguments may have. */
const MAX_ARGUMENT_DEPTH = 100;

/**
 * Parses a tool call's arguments: the object, or `undefined` when the text
 * is not a JSON object or nests deeper than {@linkcode MAX_ARGUMENT_DEPTH}
 * (checked on the text first, so no such value is ever built).
 *
 * @example
 * ```ts
 * import { parseToolArguments } from "./tool_arguments.ts";
 * console.assert(parseToolArguments('{"a":[1]}')?.a !== undefined);
 * console.assert(parseToolArguments("[1]") === undefined);
 * console.assert(parseToolArguments(`{"a":${"[".repeat(200)}${"]".repeat(200)}}`) === undefined);
 * ```
 *
 * @param text The arguments as the model sent them.
 * @param parse The parser (`JSON.parse`, or a lenient one for a cut-off call).
 * @returns The arguments, or `undefined`.
 */
export function parseToolArguments(
  text: string,
  parse: (text: string) => unknown = JSON.parse,
): Record<string, unknown> | undefined {
  if (nestsDeeperThan(text, MAX_ARGUMENT_DEPTH)) return undefined;
  let value: unknown;
  try {
    value = parse(text);
  } catch {
    return undefined;
  }
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : undefined;
}

/**
 * The error result's text for a call whose arguments were refused for their
 * depth, or `null` for any other call.
 *
 * @example
 * ```ts
 * import { tooDeepArguments } from "./tool_arguments.ts";
 * const deep = `{"a":${"[".repeat(200)}${"]".repeat(200)}}`;
 * const call = { type: "tool_use" as const, id: "c", name: "ls", input: {}, invalidInput: deep };
 * console.assert(tooDeepArguments(call)?.includes("deeper than 100 levels"));
 * console.assert(tooDeepArguments({ ...call, invalidInput: "{" }) === null);
 * ```
 *
 * @param call A tool call as the model made it.
 * @returns What the model is told, or `null`.
 */
export function tooDeepArguments(call: ToolUseBlock): string | null {
  if (call.invalidInput === undefined) return null;
  if (!nestsDeeperThan(call.invalidInput, MAX_ARGUMENT_DEPTH)) return null;
  return `The arguments for ${call.name} are nested deeper than ${MAX_ARGUMENT_DEPTH} levels ` +
    `of objects and arrays (${call.invalidInput.length} characters), so they were not read and ` +
    `${call.name} was not run. Send the call again with arguments nested less deeply.`;
}

/**
 * Whether JSON text nests objects and arrays deeper than `limit`, read
 * without parsing (brackets inside strings do not count).
 *
 * @example
 * ```ts
 * import { nestsDeeperThan } from "./tool_arguments.ts";
 * console.assert(nestsDeeperThan("[[[]]]", 2));
 * console.assert(!nestsDeeperThan('{"a":"[[[["}', 1));
 * ```
 *
 * @param text JSON text, possibly cut off.
 * @param limit The deepest nesting allowed.
 * @returns True when some value lies deeper.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (inString) {
      if (code === BACKSLASH) at++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
