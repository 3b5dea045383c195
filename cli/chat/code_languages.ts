/**
 * The languages of the fenced code blocks in a conversation, loaded before
 * it is drawn: the terminal UI imports a highlight.js language the first
 * time it is asked for, and a block drawn before its language is there
 * stays plain once it has scrolled into the terminal's history.
 *
 * @module
 */
import type { Message } from "@panto/lib";
import { loadLanguages } from "@panto/tui";

/** An opening fence's info word (CommonMark: up to three spaces, then ``` or ~~~). */
const FENCE_LANGUAGE = /^ {0,3}(?:`{3,}|~{3,})[ \t]*([^\s`~]+)/gm;

/**
 * The info words of the code fences in the assistant's texts and thinking.
 *
 * @example
 * ```ts
 * import { codeLanguages } from "./code_languages.ts";
 * const text = "~~~py\nx = 1\n~~~";
 * const languages = codeLanguages([
 *   { role: "assistant", content: [{ type: "text", text }], timestamp: "2026-01-01T00:00:00Z" },
 * ]);
 * console.assert(languages.has("py"));
 * ```
 */
export function codeLanguages(messages: readonly Message[]): Set<string> {
  const languages = new Set<string>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) {
      const text = block.type === "text"
        ? block.text
        : block.type === "thinking"
        ? block.thinking
        : "";
      for (const match of text.matchAll(FENCE_LANGUAGE)) languages.add(match[1]!);
    }
  }
  return languages;
}

/**
 * Runs `draw` once the code languages of `messages` are loaded: at once when
 * they are already (or there are none), else a few milliseconds on.
 *
 * @example
 * ```ts
 * import { drawWithLanguages } from "./code_languages.ts";
 * let drawn = false;
 * drawWithLanguages([], () => drawn = true);
 * console.assert(drawn);
 * ```
 */
export function drawWithLanguages(messages: readonly Message[], draw: () => void): void {
  const loading = loadLanguages(codeLanguages(messages));
  if (loading === undefined) draw();
  // A language that fails to load is drawn plain, as an unknown one is.
  else void loading.catch(() => {}).then(draw);
}
