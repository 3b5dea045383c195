/**
 * How a config file is read: JSON with `//` and `/* *\/` comments and
 * trailing commas, as VS Code reads its settings (jsonc-parser's options).
 *
 * @example
 * ```ts
 * import { parse } from "jsonc-parser";
 * import { JSONC_OPTIONS } from "./jsonc_options.ts";
 * const value = parse('{ // the default\n "defaultModel": "sonnet", }', [], JSONC_OPTIONS);
 * console.assert(value.defaultModel === "sonnet");
 * ```
 */
export const JSONC_OPTIONS = { allowTrailingComma: true, disallowComments: false } as const;
