import { UsageError } from "../shared/errors.ts";
import type { ConfigFile } from "./config_schema.ts";
import { JsoncSyntaxError, parseJsonc } from "./jsonc.ts";
import { isPlainConfig } from "./plain_config.ts";

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
  const data = await parseJson(text, displayPath);
  if (isPlainConfig(data)) return data;
  const { validateConfig } = await import("./config_schema.ts");
  return validateConfig(data, displayPath);
}

async function parseJson(text: string, displayPath: string): Promise<unknown> {
  try {
    return await parseJsonc(text);
  } catch (error) {
    if (!(error instanceof JsoncSyntaxError)) throw error;
    throw new UsageError(
      `${displayPath}:${error.line}:${error.column}: invalid JSON: ${error.message}`,
    );
  }
}
