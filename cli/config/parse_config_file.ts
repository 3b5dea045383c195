import type { ParseError } from "jsonc-parser";
import { UsageError } from "../errors.ts";
import { JSONC_OPTIONS } from "./jsonc_options.ts";
import type { ConfigFile } from "./config_schema.ts";
import { isPlainConfig } from "./plain_config.ts";
import { redactSecrets } from "./redact_secrets.ts";

/**
 * Parses and validates one config file (JSONC: comments and trailing commas
 * are allowed). A plainly valid file is taken as
 * it is; any other goes to the zod schema (loaded then), which accepts it or
 * says what is wrong.
 *
 * @param text The file's text.
 * @param displayPath The path shown in error messages.
 * @returns The validated contents.
 * @throws {UsageError} Naming the file and, for invalid JSON, the line and
 *   column; for a bad field, its JSON path, what was expected and what was found.
 */
export async function parseConfigFile(text: string, displayPath: string): Promise<ConfigFile> {
  const data = await parseJson(text.replace(/^\uFEFF/, ""), displayPath);
  if (isPlainConfig(data)) return data;
  const { validateConfig } = await import("./config_schema.ts");
  return validateConfig(data, displayPath);
}

async function parseJson(text: string, displayPath: string): Promise<unknown> {
  try {
    return JSON.parse(text);
  } catch (error) {
    // The config is JSONC (comments and trailing commas, as VS Code's settings): what
    // JSON.parse refuses goes to jsonc-parser, which also says where a real error is.
    // It is loaded only here: it is CommonJS, which brings Node's module loader with it.
    const { parse, printParseErrorCode } = await import("jsonc-parser");
    const errors: ParseError[] = [];
    const value = parse(text, errors, JSONC_OPTIONS);
    const first = errors[0];
    if (!first) {
      if (value !== undefined) return value;
      throw new UsageError(
        `${displayPath}: invalid JSON: ${redactSecrets((error as Error).message)}`,
      );
    }
    const { line, column } = lineAndColumn(text, first.offset);
    const problem = JSON_PROBLEMS[printParseErrorCode(first.error)] ??
      printParseErrorCode(first.error);
    throw new UsageError(`${displayPath}:${line}:${column}: invalid JSON: ${problem}`);
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
  UnexpectedEndOfComment: "unterminated /* comment",
  UnexpectedEndOfString: "unterminated string",
  UnexpectedEndOfNumber: "unterminated number",
  InvalidUnicode: "invalid \\u escape",
  InvalidEscapeCharacter: "invalid escape sequence",
  InvalidCharacter: "control character in a string (write it as an escape such as \\n)",
};
