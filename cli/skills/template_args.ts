/**
 * Splits a command's argument text into words as a shell would for simple
 * quoting (pi's `parseCommandArgs`): spaces and tabs separate words, and
 * single or double quotes group a word (without escapes); an empty word is dropped.
 *
 * @param text The text after the command name.
 * @returns The words.
 *
 * @example
 * ```ts
 * import { splitCommandArgs } from "./template_args.ts";
 * console.assert(splitCommandArgs(`Button "click handler"`).join("|") === "Button|click handler");
 * ```
 */
export function splitCommandArgs(text: string): string[] {
  const args: string[] = [];
  let current = "";
  let quote: string | null = null;
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = null;
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === " " || char === "\t") {
      if (current) args.push(current);
      current = "";
    } else current += char;
  }
  if (current) args.push(current);
  return args;
}

/**
 * Every placeholder, matched in one pass so that an argument's own text is
 * never substituted again: `${N:-default}`, `${@:N}` / `${@:N:L}`,
 * `$ARGUMENTS`, `$@`, `$N`.
 */
const PLACEHOLDER = /\$\{(\d+):-([^}]*)\}|\$\{@:(\d+)(?::(\d+))?\}|\$ARGUMENTS|\$@|\$(\d+)/g;

/**
 * Fills a prompt template's placeholders with the arguments, as pi does:
 * `$1`, `$2`… a positional argument (empty when missing); `$@` and
 * `$ARGUMENTS` all of them joined by spaces; `${@:N}` those from the Nth
 * on and `${@:N:L}` L of them from the Nth (1-based, bash style). panto
 * adds `${N:-default}`: the Nth argument, or the default when it is
 * missing or empty (bash's form; pi leaves such text as it is).
 *
 * @param template The template's body.
 * @param args The arguments.
 * @returns The prompt.
 *
 * @example
 * ```ts
 * import { substituteArgs } from "./template_args.ts";
 * console.assert(substituteArgs("Make $1 with ${@:2}", ["Button", "a", "b"]) === "Make Button with a b");
 * console.assert(substituteArgs("Lang: ${2:-TypeScript}", ["x"]) === "Lang: TypeScript");
 * ```
 */
export function substituteArgs(template: string, args: readonly string[]): string {
  const all = args.join(" ");
  return template.replace(
    PLACEHOLDER,
    (match, defaultIndex, fallback, sliceStart, sliceLength, index) => {
      if (defaultIndex !== undefined) return args[Number(defaultIndex) - 1] || fallback;
      if (sliceStart !== undefined) {
        // `${@:0}` means from the first, as in bash.
        const start = Math.max(0, Number(sliceStart) - 1);
        const end = sliceLength === undefined ? undefined : start + Number(sliceLength);
        return args.slice(start, end).join(" ");
      }
      if (index !== undefined) return args[Number(index) - 1] ?? "";
      return match === "$@" || match === "$ARGUMENTS" ? all : match;
    },
  );
}
