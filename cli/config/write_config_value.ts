import type { Edit, Range } from "jsonc-parser";

type JsoncParser = typeof import("jsonc-parser");
import { dirname } from "node:path";
import { UsageError } from "../shared/errors.ts";
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
  const jsonc = await import("jsonc-parser");
  const { applyEdits, format, modify } = jsonc;
  const source = blank ? "{}" : text;
  const options = { ...indentation(source), eol: source.includes("\r\n") ? "\r\n" : "\n" };
  // modify's own formatting would re-lay out the whole line before a new key (a one-line
  // `"retry": { "maxRetries": 0 },` comes out on three): only the new text (and, for a new
  // key, the breaks on either side of it) is formatted here. modify makes one edit at most.
  const [edit] = modify(source, [...path], value, {});
  if (edit === undefined) return text;
  if (value === undefined) return applyEdits(source, removal(jsonc, source, path, edit));
  const placed = besideComment(source, edit, options.eol);
  const out = applyEdits(source, placed);
  const range = blank ? undefined : formatRange(placed, options.eol);
  const formatted = applyEdits(out, format(out, range, options));
  return blank ? `${formatted}${options.eol}` : formatted;
}

/**
 * A new key goes after the `// comment` that ends the previous key's line
 * (the comma stays before it), so the comment stays with the key it is about.
 */
function besideComment(text: string, edit: Edit, eol: string): Edit[] {
  if (edit.length !== 0 || !edit.content.startsWith(",")) return [edit];
  const comment = /^[ \t]*\/\/[^\r\n]*/.exec(text.slice(edit.offset))?.[0];
  if (comment === undefined) return [edit];
  return [
    { offset: edit.offset, length: 0, content: "," },
    { offset: edit.offset + comment.length, length: 0, content: eol + edit.content.slice(1) },
  ];
}

/** Where the new text is once `edits` are applied, with the characters (a line break) on either side of a new key. */
function formatRange(edits: readonly Edit[], eol: string): Range {
  const shift = edits.slice(0, -1).reduce((sum, edit) => sum + edit.content.length, 0);
  const last = edits.at(-1)!;
  const offset = last.offset + shift;
  if (last.length !== 0) return { offset, length: last.content.length };
  return { offset: Math.max(0, offset - 1), length: last.content.length + 1 + eol.length };
}

/**
 * A key on lines of its own goes with those lines (and its line's comment,
 * which is about it); the comma before it too when it was the last key
 * written without a trailing comma. Otherwise, jsonc-parser's `edit`.
 */
function removal(jsonc: JsoncParser, text: string, path: ConfigPath, edit: Edit): Edit[] {
  const property = jsonc.findNodeAtLocation(jsonc.parseTree(text)!, [...path])?.parent;
  const siblings = property?.parent?.children ?? [];
  if (!property || property.type !== "property") return [edit];
  const start = text.lastIndexOf("\n", property.offset - 1) + 1;
  const end = property.offset + property.length;
  const rest = /^[ \t]*(,?)[ \t]*(\/\/[^\n]*)?\n/.exec(text.slice(end));
  if (text.slice(start, property.offset).trim() !== "" || !rest) return [edit];
  const lines = { offset: start, length: end + rest[0].length - start, content: "" };
  const before = siblings[siblings.indexOf(property) - 1];
  const last = siblings.at(-1) === property && rest[1] === "";
  const comma = before && last ? /^[ \t]*,/.exec(text.slice(before.offset + before.length)) : null;
  if (!before || !comma) return [lines];
  const at = before.offset + before.length + comma[0].length - 1;
  return [{ offset: at, length: 1, content: "" }, lines];
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
