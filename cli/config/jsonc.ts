/**
 * Config files are JSONC: JSON plus `//` and `/* *\/` comments and trailing
 * commas, as editors (VS Code's settings) write them. Most files are plain
 * JSON, which `JSON.parse` reads at no cost; jsonc-parser is loaded only for
 * the others (it is CommonJS, which brings Node's module loader with it).
 *
 * @module
 */
import type { ParseError } from "jsonc-parser";

/** Where and why a config file's text is not JSONC. */
export class JsoncSyntaxError extends Error {
  /** 1-based line of the first problem. */
  readonly line: number;
  /** 1-based column of the first problem. */
  readonly column: number;

  /**
   * Creates the error.
   *
   * @param problem What is wrong, for a person (`expected "," between entries`).
   * @param line 1-based line.
   * @param column 1-based column.
   */
  constructor(problem: string, line: number, column: number) {
    super(problem);
    this.name = "JsoncSyntaxError";
    this.line = line;
    this.column = column;
  }
}

/**
 * Parses JSONC text (a leading byte-order mark is ignored).
 *
 * @param text The file's text.
 * @returns The value.
 * @throws {JsoncSyntaxError} With the line, column and problem of the first error.
 *
 * @example
 * ```ts
 * import { parseJsonc } from "./jsonc.ts";
 * const value = await parseJsonc('{\n  // mine\n  "theme": "light",\n}');
 * console.assert((value as { theme: string }).theme === "light");
 * ```
 */
export async function parseJsonc(text: string): Promise<unknown> {
  const body = text.replace(/^\uFEFF/, "");
  try {
    return JSON.parse(body);
  } catch {
    const { parse, printParseErrorCode } = await import("jsonc-parser");
    const errors: ParseError[] = [];
    const value = parse(body, errors, { allowTrailingComma: true });
    const first = errors[0];
    if (!first) return value;
    const { line, column } = lineAndColumn(body, first.offset);
    const code = printParseErrorCode(first.error);
    throw new JsoncSyntaxError(JSON_PROBLEMS[code] ?? code, line, column);
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

const JSON_PROBLEMS: Record<string, string> = {
  InvalidSymbol:
    "unexpected character (strings need double quotes; true, false and null are lowercase)",
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "expected a property name in double quotes",
  ValueExpected: "expected a value",
  ColonExpected: 'expected ":" after the property name',
  CommaExpected: 'expected "," between entries',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: "unexpected text after the end of the JSON value",
  InvalidCommentToken: "invalid comment",
  UnexpectedEndOfComment: 'unterminated comment: close it with "*/"',
  UnexpectedEndOfString: "unterminated string",
  UnexpectedEndOfNumber: "unterminated number",
  InvalidUnicode: "invalid \\u escape",
  InvalidEscapeCharacter: "invalid escape sequence",
  InvalidCharacter: "control character in a string (write it as an escape such as \\n)",
};
