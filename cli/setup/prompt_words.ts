/**
 * The prompts of the command line's words, as pi reads them: each word is
 * a prompt of its own, sent in turn once the one before it is answered
 * (`panto -p "read main.ts" "now list its exports"`); `@path` words attach
 * their files to the first prompt, before its text.
 *
 * @example
 * ```ts
 * import { promptsFromWords } from "./prompt_words.ts";
 * const prompts = promptsFromWords(["@main.ts", "what does it do?", "and its tests?"]);
 * console.assert(prompts.length === 2);
 * console.assert(prompts[0] === "@main.ts what does it do?");
 * console.assert(prompts[1] === "and its tests?");
 * console.assert(promptsFromWords([]).length === 0);
 * ```
 *
 * @param words The positional words, in order.
 * @returns The prompts, in order (none for no words).
 */
export function promptsFromWords(words: readonly string[]): string[] {
  const files = words.filter((word) => word.startsWith("@"));
  const [first = "", ...rest] = words.filter((word) => !word.startsWith("@"));
  return [[...files, first].join(" "), ...rest].map((prompt) => prompt.trim()).filter(Boolean);
}
