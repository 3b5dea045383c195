/**
 * An open block quote: its content, with the `>` markers stripped, is a
 * nested document with open blocks of its own, so a long quoted paragraph
 * or code block streams as cheaply as an unquoted one.
 *
 * @module
 */
import type { Token } from "marked";
import { lexBlocks } from "./markdown_lex.ts";
import { hasContent } from "./markdown_open_block.ts";
import type {
  BlockContext,
  BlockUpdate,
  NestedDocument,
  OpenBlock,
} from "./markdown_open_block.ts";

const MARKER = /^ {0,3}>[ \t]?/;
const BLANK = /^[ \t]*$/;

/** An open block quote whose lines all start with `>` (no lazy continuation lines). */
export class OpenQuote implements OpenBlock {
  #settledOffset: number;
  /** Length of the nested text taken from settled lines. */
  #settledLength = 0;
  readonly #nested: NestedDocument;
  readonly #context: BlockContext;

  private constructor(start: number, context: BlockContext) {
    this.#settledOffset = start;
    this.#context = context;
    this.#nested = context.nested();
  }

  /** An open block for a quote without lazy lines, or null. */
  static from(token: Token, start: number, context: BlockContext): OpenQuote | null {
    if (token.type !== "blockquote") return null;
    const lazy = token.raw.replace(/\n+$/, "").split("\n").some((line) => !MARKER.test(line));
    return lazy ? null : new OpenQuote(start, context);
  }

  get settledOffset(): number {
    return this.#settledOffset;
  }

  update(tail: string): BlockUpdate | null {
    const lines = tail.split("\n");
    const content: string[] = [];
    let ended: { end: number; after: Token[] } | undefined;
    let offset = 0;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] ?? "";
      const marker = MARKER.exec(line);
      const last = i === lines.length - 1;
      if (marker !== null) {
        content.push(line.slice(marker[0].length));
      } else if (last && line === "") {
        break;
      } else if (!last && BLANK.test(line) && content.length > 0) {
        const after = lexBlocks(tail.slice(offset - 1), this.#context.style.links);
        if (hasContent(after)) ended = { end: this.#settledOffset + offset - 1, after };
        break;
      } else {
        return null;
      }
      offset += line.length + 1;
    }
    return this.#render(content, tail, ended);
  }

  #render(
    content: readonly string[],
    tail: string,
    ended: { end: number; after: Token[] } | undefined,
  ): BlockUpdate {
    const { width, style } = this.#context;
    this.#nested.replaceFrom(this.#settledLength, content.join("\n"));
    const bar = width > 2 ? style.theme.fg("mdQuoteBorder", "│ ") : "";
    const from = this.#nested.firstLineChanged() ?? Number.POSITIVE_INFINITY;
    const inner = this.#nested.render(width - (bar === "" ? 0 : 2));
    const rows: string[] = [];
    for (let i = Math.min(from, inner.length); i < inner.length; i++) {
      rows.push(bar + style.theme.italic(style.theme.fg("mdQuote", inner[i] ?? "")));
    }
    const update: BlockUpdate = { from: Math.min(from, inner.length), rows };
    if (ended !== undefined) update.ended = ended;
    this.#settle(content, tail);
    return update;
  }

  /** Settles every content line but the last: they are complete and cannot change. */
  #settle(content: readonly string[], tail: string): void {
    let offset = 0;
    for (let i = 0; i < content.length - 1; i++) {
      offset = tail.indexOf("\n", offset) + 1;
      this.#settledLength += (content[i] ?? "").length + 1;
    }
    this.#settledOffset += offset;
  }
}
