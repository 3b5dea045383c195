/**
 * The editor's autocomplete hook: a provider looks at the text and cursor
 * and offers replacements (slash commands, `@file` paths…).
 *
 * @module
 */

/** One suggestion. */
export interface AutocompleteItem {
  /** Text that replaces the range `[from, cursor)` when accepted. */
  value: string;
  /** What the list shows (defaults to `value`). */
  label?: string;
  /** Dimmed text after the label. */
  description?: string;
}

/** Suggestions for the text before the cursor. */
export interface AutocompleteSuggestions {
  /** The choices, best first. */
  items: readonly AutocompleteItem[];
  /** Offset in the full text where the replaced range starts (it ends at the cursor). */
  from: number;
}

/** What the editor asks a provider. */
export interface AutocompleteRequest {
  /** The editor's full text (lines joined with `\n`). */
  text: string;
  /** Cursor offset in `text`. */
  cursor: number;
  /** True when the user pressed tab (complete even where nothing triggers). */
  force: boolean;
}

/**
 * Supplies suggestions; called after every edit and on tab. Return `null`
 * (or no items) for none. A promise is fine: stale answers (the text moved
 * on) are dropped.
 *
 * @example
 * ```ts
 * import type { AutocompleteProvider } from "@panto/tui";
 * const commands = ["/model", "/quit"];
 * const slash: AutocompleteProvider = {
 *   suggest: ({ text, cursor }) =>
 *     text.startsWith("/") && !text.slice(0, cursor).includes(" ")
 *       ? { from: 0, items: commands.filter((c) => c.startsWith(text.slice(0, cursor))).map((value) => ({ value })) }
 *       : null,
 * };
 * ```
 */
export interface AutocompleteProvider {
  /** Suggestions for this text and cursor. */
  suggest(
    request: AutocompleteRequest,
  ): AutocompleteSuggestions | null | Promise<AutocompleteSuggestions | null>;
}
