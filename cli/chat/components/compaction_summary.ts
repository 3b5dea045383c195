/**
 * Shown when the conversation was compacted to fit the context window.
 *
 * @module
 */
import { CachedComponent, defaultTheme, type Theme, truncateToWidth, wrapText } from "@panto/tui";
import { formatTokens } from "./format_tokens.ts";

/**
 * What a compaction summary shows (the data of the `compaction` UI event).
 *
 * @example
 * ```ts
 * import type { CompactionData } from "@panto/cli";
 * const data: CompactionData = { summary: "Fixed the parser.", tokensBefore: 180_000 };
 * console.assert(data.tokensAfter === undefined);
 * ```
 */
export interface CompactionData {
  /** The summary that replaced the older messages. */
  summary: string;
  /** Context size before compaction, when known. */
  tokensBefore?: number;
  /** Context size after compaction, when known. */
  tokensAfter?: number;
}

const INDENT = "  ";

/**
 * A header line ("⟳ Context compacted: 150k → 12k tokens") and, when
 * expanded, the summary text.
 *
 * @example
 * ```ts
 * import { createTheme } from "@panto/tui";
 * import { CompactionSummary } from "./compaction_summary.ts";
 * const summary = new CompactionSummary({ summary: "Fixed the parser.", tokensBefore: 150_000 }, createTheme({ noColor: true }));
 * console.assert(summary.render(80)[0] === "⟳ Context compacted from 150k tokens (ctrl+o to expand)");
 * ```
 */
export class CompactionSummary extends CachedComponent {
  readonly #data: CompactionData;
  readonly #theme: Theme;
  #expanded = false;

  /** Creates the summary (collapsed). */
  constructor(data: CompactionData, theme: Theme = defaultTheme()) {
    super();
    this.#data = data;
    this.#theme = theme;
  }

  /** Whether the summary text is shown. */
  get expanded(): boolean {
    return this.#expanded;
  }

  /** Shows or hides the summary text. */
  setExpanded(expanded: boolean): void {
    if (expanded !== this.#expanded) this.changed();
    this.#expanded = expanded;
  }

  /** Builds the lines for `width` (see {@linkcode CachedComponent}). */
  protected build(width: number): string[] {
    const theme = this.#theme;
    const { tokensBefore, tokensAfter, summary } = this.#data;
    let title = "⟳ Context compacted";
    if (tokensBefore !== undefined) title += ` from ${formatTokens(tokensBefore)}`;
    if (tokensAfter !== undefined) title += ` to ${formatTokens(tokensAfter)}`;
    if (tokensBefore !== undefined || tokensAfter !== undefined) title += " tokens";
    const hint = this.#expanded ? "" : theme.fg("dim", " (ctrl+o to expand)");
    const lines = [truncateToWidth(theme.fg("accent", title) + hint, width, "…")];
    if (!this.#expanded) return lines;
    const body = wrapText(theme.fg("muted", summary), Math.max(1, width - INDENT.length));
    return [...lines, ...body.map((line) => (width > INDENT.length ? INDENT + line : line))];
  }
}
