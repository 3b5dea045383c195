/**
 * The last block of a streamed document, kept open so that a delta costs
 * only the part of it that can still change.
 *
 * @module
 */
import type { Token } from "marked";
import type { MarkdownStyle } from "./markdown_inline.ts";

/** What an open block's update produced. */
export interface BlockUpdate {
  /** First row of the block that may differ from the last update. */
  from: number;
  /** The block's rows from `from` to its end. */
  rows: string[];
  /** Set when content follows the block: where the block ends, and the tokens after it. */
  ended?: { end: number; after: Token[] };
}

/**
 * A block that caches what cannot change any more (completed paragraph
 * segments, code chunks, list items, table rows) and renders its tail.
 */
export interface OpenBlock {
  /** Source offset `update` reads from; an edit before it needs a re-lex. */
  readonly settledOffset: number;
  /**
   * Renders the block again from `tail` (the source from
   * {@linkcode OpenBlock.settledOffset} on). Returns null when the tail no
   * longer continues this block the same way: the caller re-lexes.
   */
  update(tail: string): BlockUpdate | null;
}

/** A nested document (a block quote's content) as an open block sees it. */
export interface NestedDocument {
  /** Replaces the text from `offset` on. */
  replaceFrom(offset: number, text: string): void;
  /** Renders; the lines array is reused between renders. */
  render(width: number): readonly string[];
  /** First line that differs since the last render, or null. */
  firstLineChanged(): number | null;
}

/** What an open block needs from its document. */
export interface BlockContext {
  width: number;
  style: MarkdownStyle;
  /** A fresh nested document with the same style and links. */
  nested(): NestedDocument;
}

/** Whether any token draws something (blank-line tokens do not). */
export function hasContent(tokens: readonly Token[]): boolean {
  return tokens.some((token) => token.type !== "space");
}
