import { dirname } from "node:path";
import { UsageError } from "../errors.ts";
import { JsoncSyntaxError, parseJsonc } from "./jsonc.ts";
import { parseConfigFile } from "./parse_config_file.ts";
import { FileRefusedError, readRegularTextFile } from "./read_regular_file.ts";

/** A config key as a JSON path: `["compaction", "enabled"]`. */
export type ConfigPath = readonly (string | number)[];

/**
 * Sets one value in a JSONC config file, changing only that value's text:
 * the user's comments, key order, trailing commas and indentation stay.
 * Missing objects on the way are created, and so is the file (and its
 * directory). The result is validated with the config schema before
 * anything is written, and the file is replaced whole (a crash leaves the
 * old file or the new one, never half of one).
 *
 * @param file The config file (a symbolic link is followed: the file it names is updated).
 * @param displayPath The path shown in error messages (`~/.panto/config.json`).
 * @param path Where the value goes.
 * @param value The new value; `undefined` removes the key.
 * @returns The file's new text.
 * @throws {UsageError} When the file is not valid JSONC (line, column; it is
 *   left as it is), not a regular file of at most 1 MiB, or the value fails
 *   the schema (naming the key, what was expected and the value).
 *
 * @example
 * ```ts
 * import { writeConfigValue } from "./write_config_value.ts";
 * const dir = await Deno.makeTempDir();
 * const file = `${dir}/config.json`;
 * await Deno.writeTextFile(file, '{\n  // mine\n  "theme": "dark",\n}\n');
 * await writeConfigValue(file, "config.json", ["theme"], "light");
 * console.assert(await Deno.readTextFile(file) === '{\n  // mine\n  "theme": "light",\n}\n');
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function writeConfigValue(
  file: string,
  displayPath: string,
  path: ConfigPath,
  value: unknown,
): Promise<string> {
  const target = await Deno.realPath(file).catch(() => file);
  const before = await readConfigText(target, displayPath);
  const after = await edited(before ?? "", displayPath, path, value);
  // The same check as at start-up: a value the schema refuses never reaches the file.
  await parseConfigFile(after, displayPath);
  await replaceFile(target, after);
  return after;
}

async function readConfigText(file: string, displayPath: string): Promise<string | undefined> {
  try {
    return await readRegularTextFile(file);
  } catch (error) {
    if (!(error instanceof FileRefusedError)) throw error;
    throw new UsageError(`${displayPath} ${error.message}: the config must be a JSON file`);
  }
}

/** `text` with the value at `path` set; refuses text that is not a JSONC object. */
async function edited(
  text: string,
  displayPath: string,
  path: ConfigPath,
  value: unknown,
): Promise<string> {
  const blank = text.trim() === "";
  if (!blank) await checkObject(text, displayPath);
  const { applyEdits, modify } = await import("jsonc-parser");
  const source = blank ? "{}" : text;
  const formattingOptions = {
    ...indentation(source),
    eol: source.includes("\r\n") ? "\r\n" : "\n",
  };
  const out = applyEdits(source, modify(source, [...path], value, { formattingOptions }));
  return blank ? `${out}\n` : out;
}

async function checkObject(text: string, displayPath: string): Promise<void> {
  let data: unknown;
  try {
    data = await parseJsonc(text);
  } catch (error) {
    if (!(error instanceof JsoncSyntaxError)) throw error;
    throw new UsageError(
      `${displayPath}:${error.line}:${error.column}: invalid JSON: ${error.message}; fix it first (the file was not changed)`,
    );
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new UsageError(
      `${displayPath}: expected an object ({ … }) at the top; fix it first (the file was not changed)`,
    );
  }
}

/** The file's own indentation (its first indented line's), else two spaces. */
function indentation(text: string): { insertSpaces: boolean; tabSize: number } {
  const indent = /^[ \t]+(?=\S)/m.exec(text)?.[0];
  if (indent?.startsWith("\t")) return { insertSpaces: false, tabSize: 1 };
  return { insertSpaces: true, tabSize: indent?.length ?? 2 };
}

/** Writes a sibling temporary file, then renames it over `file`, keeping its mode. */
async function replaceFile(file: string, text: string): Promise<void> {
  await Deno.mkdir(dirname(file), { recursive: true });
  const mode = (await Deno.stat(file).catch(() => null))?.mode ?? 0o644;
  const temporary = `${file}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await Deno.writeTextFile(temporary, text, { mode: mode & 0o777 });
    await Deno.chmod(temporary, mode & 0o777);
    await Deno.rename(temporary, file);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
}
