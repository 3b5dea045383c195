/**
 * Changing one setting of the user's `config.json` the way a person would:
 * the rest of the file (comments, order, layout) stays as it was.
 *
 * @module
 */
import { join } from "node:path";
import type { ParseError } from "jsonc-parser";
import { CliError, UsageError } from "../errors.ts";
import { displayPath } from "./load_config.ts";
import {
  FileRefusedError,
  MAX_SETTINGS_FILE_BYTES,
  readRegularTextFile,
} from "./read_regular_file.ts";

/**
 * Sets the top-level `key` of `$PANTO_HOME/config.json` to `value`, keeping
 * the file's comments, key order and indentation (a missing file is
 * created). The file is replaced atomically and keeps its mode (0600 when new).
 *
 * @param pantoHome panto's home directory.
 * @param key The setting (e.g. `theme`).
 * @param value Its new value (JSON).
 * @param home `HOME`, to show the path as `~/…`.
 * @returns The file as shown to the user.
 * @throws {UsageError} When the file is not valid JSON (with comments) or
 *   not a regular file of at most 1 MiB.
 * @throws {CliError} When it cannot be written.
 *
 * @example
 * ```ts
 * import { saveUserSetting } from "./save_setting.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/config.json`, '{\n  // mine\n  "defaultModel": "fast"\n}\n');
 * await saveUserSetting(dir, "theme", "light", undefined);
 * const text = await Deno.readTextFile(`${dir}/config.json`);
 * console.assert(text.includes("// mine") && text.includes('"theme": "light"'));
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function saveUserSetting(
  pantoHome: string,
  key: string,
  value: unknown,
  home: string | undefined,
): Promise<string> {
  const path = join(pantoHome, "config.json");
  const shown = displayPath(path, home);
  const text = await readConfigText(path, shown) ?? "{}\n";
  // Loaded on first use: a start never needs it (see tests/cli/print_imports_test.ts).
  const { applyEdits, modify, parse, printParseErrorCode } = await import("jsonc-parser");
  const errors: ParseError[] = [];
  parse(text, errors, { allowTrailingComma: true });
  const [first] = errors;
  if (first !== undefined) {
    throw new UsageError(
      `${shown} is not valid JSON (${
        printParseErrorCode(first.error)
      } at offset ${first.offset}): fix it, or set ${JSON.stringify(key)} in it by hand`,
    );
  }
  const edits = modify(text, [key], value, { formattingOptions: formattingOf(text) });
  await replaceFile(path, shown, applyEdits(text, edits));
  return shown;
}

async function readConfigText(path: string, shown: string): Promise<string | undefined> {
  try {
    return await readRegularTextFile(path, MAX_SETTINGS_FILE_BYTES);
  } catch (error) {
    if (error instanceof FileRefusedError) {
      throw new UsageError(
        `${shown} ${error.message}: the config must be a JSON file of at most 1 MiB`,
      );
    }
    throw new CliError(`Could not read ${shown}: ${(error as Error).message}`);
  }
}

/** The file's own indentation (a tab, or the first indent's spaces), so an added line matches. */
function formattingOf(text: string): { insertSpaces: boolean; tabSize: number; eol: string } {
  const indent = /^[ \t]+(?=\S)/m.exec(text)?.[0] ?? "  ";
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  return indent.startsWith("\t")
    ? { insertSpaces: false, tabSize: 1, eol }
    : { insertSpaces: true, tabSize: indent.length, eol };
}

/** Writes a temporary file beside `path`, with `path`'s mode, and renames it over `path`. */
async function replaceFile(path: string, shown: string, text: string): Promise<void> {
  const mode = await Deno.stat(path).then((info) => info.mode ?? 0o600, () => 0o600);
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    await Deno.mkdir(join(path, ".."), { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(temporary, text, { mode });
    await Deno.chmod(temporary, mode & 0o777);
    await Deno.rename(temporary, path);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw new CliError(`Could not save ${shown}: ${(error as Error).message}`);
  }
}
