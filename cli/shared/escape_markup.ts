const ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

/**
 * Text as HTML or XML character data or an attribute value: `& < > " '`
 * become entities (`&apos;` is valid in both). One pass, and none for text
 * without a special character (most names and paths).
 *
 * @param text Any text.
 * @returns The escaped text.
 *
 * @example
 * ```ts
 * import { escapeMarkup } from "./escape_markup.ts";
 * console.assert(escapeMarkup(`<a href="x">Tom's</a>`) === "&lt;a href=&quot;x&quot;&gt;Tom&apos;s&lt;/a&gt;");
 * ```
 */
export function escapeMarkup(text: string): string {
  return /[&<>"']/.test(text) ? text.replace(/[&<>"']/g, (c) => ENTITIES[c]!) : text;
}
