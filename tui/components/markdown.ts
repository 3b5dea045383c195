/**
 * The markdown component: renders with the `marked` lexer and keeps finished
 * top-level blocks cached, so a streamed answer re-lexes and re-renders only
 * its open (last) block per delta.
 *
 * @module
 */
import { getDefaults, Lexer, Tokenizer } from "marked";
import type { Links, Token, Tokens } from "marked";
import type { Component } from "../component.ts";
import { defaultTheme } from "../theme.ts";
import type { Theme } from "../theme.ts";
import { renderBlock } from "./markdown_blocks.ts";
import type { MarkdownStyle } from "./markdown_inline.ts";

/** Options for {@linkcode Markdown}. */
export interface MarkdownOptions {
  /** Colours; defaults to {@linkcode defaultTheme}. */
  theme?: Theme;
  /** Style for plain text runs (thinking passes dim italic). */
  textStyle?: (text: string) => string;
  /** Emit OSC 8 hyperlinks around link text (default false). */
  hyperlinks?: boolean;
}

/**
 * Strikethrough only with `~~`: models write "~5 minutes" and a lone tilde
 * would otherwise strike through everything up to the next one.
 */
class StrictStrikethroughTokenizer extends Tokenizer {
  override del(src: string, maskedSrc: string, prevChar?: string): Tokens.Del | undefined {
    if (!src.startsWith("~~")) return undefined;
    const token = super.del(src, maskedSrc, prevChar);
    return token !== undefined && token.raw.endsWith("~~") ? token : undefined;
  }
}

function lex(source: string, links: Links): Token[] & { links: Links } {
  const lexer = new Lexer({ ...getDefaults(), tokenizer: new StrictStrikethroughTokenizer() });
  Object.assign(lexer.tokens.links, links);
  return lexer.lex(source);
}

/** A top-level block and where its source sits in the full text. */
interface Block {
  token: Token;
  start: number;
  end: number;
}

function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let i = 0;
  while (i < limit && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * Markdown text as a component. Feed it with {@linkcode Markdown.setText}
 * or {@linkcode Markdown.append}; blocks are separated by one blank line.
 *
 * @example
 * ```ts
 * import { createTheme, Markdown } from "@panto/tui";
 * const md = new Markdown("# Title\n\nSome **bold** text", { theme: createTheme({ noColor: true }) });
 * console.assert(md.render(40).join("\n") === "# Title\n\nSome bold text");
 * md.append(" and more");
 * console.assert(md.firstLineChanged() === 1); // the paragraph, from its separator line
 * ```
 */
export class Markdown implements Component {
  #source = "";
  #blocks: Block[] = [];
  #links: Links = {};
  /** Lowest source offset changed since the last lex, or Infinity. */
  #changedAt = 0;
  #width = -1;
  #lines: string[] = [];
  /** Line index where each block's output (with its separator) starts. */
  #blockLineStart: number[] = [];
  /** Rendered lines by block source, for the current width. */
  readonly #rendered = new Map<string, readonly string[]>();
  readonly #style: MarkdownStyle;

  /** Creates a renderer for `text`. */
  constructor(text = "", options: MarkdownOptions = {}) {
    this.#style = {
      theme: options.theme ?? defaultTheme(),
      text: options.textStyle ?? ((value) => value),
      hyperlinks: options.hyperlinks ?? false,
    };
    this.#source = text.replaceAll("\r", "");
  }

  /** The markdown source. */
  get text(): string {
    return this.#source;
  }

  /** Replaces the source; a shared prefix with the old source stays cached. */
  setText(text: string): void {
    const next = text.replaceAll("\r", "");
    if (next === this.#source) return;
    this.#markChanged(commonPrefixLength(this.#source, next));
    this.#source = next;
  }

  /** Appends a streamed delta. */
  append(delta: string): void {
    if (delta === "") return;
    this.#markChanged(this.#source.length);
    this.#source += delta.replaceAll("\r", "");
  }

  /** Lines for `width`; only blocks at or after the first change are rebuilt. */
  render(width: number): readonly string[] {
    const widthChanged = width !== this.#width;
    const keep = this.#changedAt === Infinity ? this.#blocks.length : this.#relex();
    const first = widthChanged ? 0 : keep;
    if (!widthChanged && first >= this.#blocks.length && this.#blockLineStart.length === first) {
      return this.#lines;
    }
    if (widthChanged) this.#rendered.clear();
    const lines = this.#lines.slice(0, this.#lineStart(first));
    const starts = this.#blockLineStart.slice(0, first);
    for (let i = first; i < this.#blocks.length; i++) {
      starts.push(lines.length);
      const blockLines = this.#renderBlock(this.#blocks[i], width);
      if (blockLines.length === 0) continue;
      if (lines.length > 0) lines.push("");
      for (const line of blockLines) lines.push(line);
    }
    this.#width = width;
    this.#lines = lines;
    this.#blockLineStart = starts;
    return lines;
  }

  /** First line that differs from the last render, or null. */
  firstLineChanged(): number | null {
    if (this.#width === -1) return 0;
    if (this.#changedAt === Infinity) return null;
    return this.#lineStart(this.#firstAffectedBlock());
  }

  /** Forgets rendered lines (e.g. after a theme change). */
  invalidate(): void {
    this.#width = -1;
  }

  /**
   * A block's lines, reused from an earlier render of the same source
   * (a block re-lexed but unchanged, or one moved by an edit above it).
   * Reference-style links make a block depend on definitions elsewhere, so
   * the cache is bypassed once any definition exists.
   */
  #renderBlock(block: Block | undefined, width: number): readonly string[] {
    if (block === undefined) return [];
    const cacheable = Object.keys(this.#links).length === 0;
    const cached = cacheable ? this.#rendered.get(block.token.raw) : undefined;
    if (cached !== undefined) return cached;
    const lines = renderBlock(block.token, width, this.#style);
    if (!cacheable) return lines;
    if (this.#rendered.size > 2 * this.#blocks.length + 16) this.#rendered.clear();
    this.#rendered.set(block.token.raw, lines);
    return lines;
  }

  #markChanged(offset: number): void {
    this.#changedAt = Math.min(this.#changedAt, offset);
  }

  #lineStart(blockIndex: number): number {
    return this.#blockLineStart[blockIndex] ?? this.#lines.length;
  }

  /**
   * The first block that must be re-lexed: the first one touching the
   * change, and never later than the last non-blank block (appending can
   * still extend it: a list item, a paragraph, an open fence).
   */
  #firstAffectedBlock(): number {
    let lastContent = this.#blocks.length - 1;
    while (lastContent > 0 && this.#blocks[lastContent]?.token.type === "space") lastContent--;
    const touched = this.#blocks.findIndex((block) => block.end > this.#changedAt);
    const first = touched === -1 ? this.#blocks.length : touched;
    return Math.max(0, Math.min(first, lastContent));
  }

  /** Re-lexes from the first affected block; returns how many blocks were kept. */
  #relex(): number {
    const keep = this.#firstAffectedBlock();
    const start = this.#blocks[keep]?.start ?? 0;
    if (start === 0) this.#links = {};
    const tokens = lex(this.#source.slice(start), this.#links);
    Object.assign(this.#links, tokens.links);
    const blocks = this.#blocks.slice(0, keep);
    let offset = start;
    for (const token of tokens) {
      blocks.push({ token, start: offset, end: offset + token.raw.length });
      offset += token.raw.length;
    }
    this.#blocks = blocks;
    this.#changedAt = Infinity;
    return keep;
  }
}
