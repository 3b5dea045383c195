/**
 * The incremental markdown renderer behind {@linkcode Markdown}: finished
 * top-level blocks keep their rendered lines, and the last block stays open
 * (see `markdown_open_block.ts`) so that a streamed delta costs only the
 * part of that block that can still change.
 *
 * @module
 */
import type { Token, Tokens } from "marked";
import { renderBlock } from "./markdown_blocks.ts";
import { OpenCode } from "./markdown_code.ts";
import type { MarkdownStyle } from "./markdown_inline.ts";
import { definitions, lexBlocks } from "./markdown_lex.ts";
import type { Definition } from "./markdown_lex.ts";
import { OpenList } from "./markdown_list.ts";
import type {
  BlockContext,
  BlockUpdate,
  NestedDocument,
  OpenBlock,
} from "./markdown_open_block.ts";
import { OpenParagraph } from "./markdown_paragraph.ts";
import { OpenQuote } from "./markdown_quote.ts";
import { SourceText } from "./markdown_source.ts";
import { OpenTable } from "./markdown_table.ts";

/**
 * How far marked looks past a block to decide where it ends, i.e. what
 * later text can still merge into it: `none` (headings, rules, closed
 * fences), `adjacent` (the lines right after it: a paragraph ends before a
 * line that heads a table only if a delimiter row follows), `blank` (also
 * across blank lines: lists, indented code) and `title` (a link definition
 * without a title takes one from the next line, however many lines it spans).
 */
type Reach = "none" | "adjacent" | "blank" | "title";

const FENCE_OPENER = /^ {0,3}(?:`{3,}|~{3,})/;

function reachOf(token: Token): Reach {
  switch (token.type) {
    case "space":
    case "heading":
    case "hr":
      return "none";
    case "code":
      return FENCE_OPENER.test(token.raw) ? "none" : "blank";
    case "list":
      return "blank";
    case "def":
      return (token as Tokens.Def).title ? "adjacent" : "title";
    default:
      return "adjacent";
  }
}

/**
 * A first line that ends the paragraph above it whatever follows: a quote,
 * a heading or a list item with text (not `- |`, which may be a table's
 * delimiter row under the paragraph's last line).
 */
const ENDS_PARAGRAPH = /^ {0,3}(?:>|#{1,6}[ \t]|(?:[*+]|1[.)])[ \t]+[^ \t\n]|-[ \t]+[^ \t\n|:-])/;
/** A first line after blank lines that no list or indented code above can take in. */
const ENDS_LIST = /^(?:[^\s*+\-\d]|[*+-][^ \t\n]|\d{1,9}[^\d.)\n]|\d{10})/;
/** A first line that may be the title of a link definition above. */
const TITLE_START = /^[ \t]*["'(]/;
/** The start of a title that may span blank lines. */
const QUOTED_TITLE_START = /^[ \t]*["(]/;
/** Characters of a block's first line the patterns above look at. */
const LOOKED_AT = 16;

/** A finished top-level block. */
interface ClosedBlock {
  start: number;
  end: number;
  /** Token type. */
  type: string;
  reach: Reach;
  /** Whether the block may use a reference link (holds a `]`). */
  refers: boolean;
  /** Line count before the block (and its separator line). */
  top: number;
  /** Link reference definitions in the block. */
  definitions: Definition[];
}

/** The last content block. */
interface OpenEntry {
  start: number;
  /** Token type. */
  type: string;
  reach: Reach;
  /** Line count before the block (and its separator line). */
  top: number;
  /** Incremental renderer, or null: re-lexed from `start` on every change. */
  block: OpenBlock | null;
  /** Link reference definitions in the block when it opened. */
  definitions: Definition[];
  /** Whether the block's text held a `]:` (a link definition, maybe) when it was lexed. */
  defines: boolean;
}

function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let i = 0;
  while (i < limit && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function openBlock(token: Token, start: number, context: BlockContext): OpenBlock | null {
  return OpenParagraph.from(token, start, context) ?? OpenCode.from(token, start, context) ??
    OpenList.from(token, start, context) ?? OpenTable.from(token, start, context) ??
    OpenQuote.from(token, start, context);
}

/**
 * What a block's rendering depends on: its source, and for a paragraph its
 * text too (marked may lex the same lines as one paragraph or as a
 * paragraph that took in an indented line as code, depending on what follows).
 */
function cacheKey(token: Token): string {
  return token.type === "paragraph"
    ? `${token.raw}\u0000${(token as Tokens.Paragraph).text}`
    : token.raw;
}

/** A markdown source rendered incrementally; the lines array is updated in place. */
export class MarkdownDocument implements NestedDocument {
  readonly #source = new SourceText();
  readonly #style: MarkdownStyle;
  #closed: ClosedBlock[] = [];
  #open: OpenEntry | null = null;
  readonly #lines: string[] = [];
  #width = -1;
  /** Lowest source offset changed since the last update, or Infinity. */
  #changedAt = 0;
  /** Lowest line changed since the last render, or null. */
  #cut: number | null = null;
  /** Rendered lines by block source, for the current width. */
  readonly #rendered = new Map<string, readonly string[]>();

  /** A closed definition whose title may still span the blocks below it (see `#close`). */
  #quotedTitle: number | null = null;
  /** Where the last two lines started when the blocks were last brought up to date. */
  #checkedLines = 0;

  /** Whether this document owns `style.links` (a nested one shares its parent's). */
  readonly #ownsLinks: boolean;

  /** Renders with `style`, whose `links` collects the definitions of a top-level document. */
  constructor(style: MarkdownStyle, nested = false) {
    this.#style = style;
    this.#ownsLinks = !nested;
  }

  /** The source. */
  get text(): string {
    return this.#source.toString();
  }

  /** Replaces the source; a shared prefix with the old source stays cached. */
  setText(text: string): void {
    const previous = this.#source.toString();
    if (text === previous) return;
    this.#markChanged(commonPrefixLength(previous, text));
    this.#source.set(text);
  }

  /** Appends a streamed delta. */
  append(delta: string): void {
    if (delta === "") return;
    this.#markChanged(this.#source.length);
    this.#source.append(delta);
  }

  /** Replaces the source from `offset` on. */
  replaceFrom(offset: number, text: string): void {
    this.#markChanged(offset);
    this.#source.replaceFrom(offset, text);
  }

  /** Lines for `width` (the same array every time, updated in place). */
  render(width: number): readonly string[] {
    this.#refresh(width);
    this.#cut = null;
    return this.#lines;
  }

  /** First line that differs from the last render, or null. */
  firstLineChanged(): number | null {
    if (this.#width === -1) return 0;
    this.#refresh(this.#width);
    return this.#cut;
  }

  /** Forgets rendered lines (e.g. after a theme change). */
  invalidate(): void {
    this.#width = -1;
  }

  #markChanged(offset: number): void {
    this.#changedAt = Math.min(this.#changedAt, offset);
  }

  #noteCut(line: number): void {
    this.#cut = Math.min(this.#cut ?? line, line);
  }

  #refresh(width: number): void {
    if (width !== this.#width) {
      this.#width = width;
      this.#rendered.clear();
      this.#relex(0);
    }
    if (this.#changedAt !== Number.POSITIVE_INFINITY) this.#update();
    this.#checkedLines = this.#source.lastTwoLinesStart;
  }

  /**
   * Brings the blocks up to date with the source changed from `#changedAt`
   * on. marked resolves a reference link with a definition anywhere in the
   * document, so when the definitions change, the blocks that may use one
   * are rendered again.
   */
  #update(): void {
    const links = this.#linksKey();
    this.#updateBlocks();
    if (this.#linksKey() === links) return;
    const first = this.#closed.findIndex((block) => block.refers);
    if (first !== -1) this.#relex(first);
  }

  #linksKey(): string {
    return this.#ownsLinks ? JSON.stringify(this.#style.links) : "";
  }

  #updateBlocks(): void {
    const unsettled = this.#unsettled();
    if (unsettled !== null || this.#openMayDefine()) {
      this.#relex(Math.min(unsettled ?? Number.POSITIVE_INFINITY, this.#firstAffected()));
      return;
    }
    const block = this.#open?.block ?? null;
    if (block !== null && this.#changedAt >= block.settledOffset) {
      const update = block.update(this.#source.from(block.settledOffset));
      if (update !== null) {
        this.#changedAt = Number.POSITIVE_INFINITY;
        this.#apply(update);
        return;
      }
    }
    this.#relex(this.#firstAffected());
  }

  /**
   * The first closed block that text still to come could merge with, or
   * null. marked decides where a block ends by looking at the lines after
   * it, and a line still streaming can change its mind: `alpha`, `2. alpha`,
   * `-` lexes as a paragraph and two lists (the last two lines could head a
   * table), `alpha`, `2. alpha`, `- alpha` as one paragraph and a list. A
   * boundary is settled once two complete lines followed it when the blocks
   * were last lexed, or once the line after it started in a way that
   * settles it (see the patterns above); until then the blocks around it are
   * re-lexed on every change.
   */
  #unsettled(): number | null {
    const open = this.#open;
    if (open === null) return null;
    // Lines a delta added at once were never checked: boundaries young before it still are.
    const young = Math.min(this.#checkedLines, this.#source.lastTwoLinesStart);
    let next = open.start;
    let adjacent = true;
    let found = this.#quotedTitle;
    for (let i = this.#closed.length - 1; i >= 0; i--) {
      const block = this.#closed[i]!;
      if (block.type === "space") {
        adjacent = false;
        continue;
      }
      if (this.#mayMerge(block, next, adjacent, next >= young)) found = Math.min(found ?? i, i);
      if (block.start < young) return found;
      next = block.start;
      adjacent = true;
    }
    return found;
  }

  /** Whether `block` may still take in text from the content block starting at `next`. */
  #mayMerge(block: ClosedBlock, next: number, adjacent: boolean, young: boolean): boolean {
    if (block.reach === "none" || (!young && block.reach !== "title")) return false;
    // The line as it was lexed: a start that settles the boundary now may not have then, and
    // the block above may have been lexed differently (marked looks ahead inside it too).
    const line = this.#source.slice(next, Math.min(next + LOOKED_AT, this.#changedAt));
    if (block.reach === "blank" && !adjacent) return young && !ENDS_LIST.test(line);
    if (!adjacent) return false;
    if (block.reach === "title" && TITLE_START.test(line)) return true;
    return young && !(block.type === "paragraph" && ENDS_PARAGRAPH.test(line));
  }

  /**
   * Index of the first block to re-lex (the open block is `#closed.length`).
   * Blocks before it that could absorb what follows are included: a block
   * right above (lazy continuation lines, a setext underline) and a list
   * across blank lines (blank lines do not end a list).
   */
  #firstAffected(): number {
    if (this.#open === null) return 0;
    const touched = this.#closed.findIndex((block) => block.end > this.#changedAt);
    let index = touched === -1 ? this.#closed.length : touched;
    for (;;) {
      const above = this.#closed[index - 1];
      if (above === undefined) return index;
      if (above.type !== "space") {
        index--;
        continue;
      }
      let previous = index - 2;
      while (this.#closed[previous]?.type === "space") previous--;
      if (this.#closed[previous]?.type !== "list") return index;
      index = previous;
    }
  }

  /**
   * Whether the open block is a list or quote that holds, or just received,
   * the `]:` of a link definition: its definitions reach the document only
   * when it is lexed as a whole.
   */
  #openMayDefine(): boolean {
    const open = this.#open;
    if (open === null || (open.type !== "list" && open.type !== "blockquote")) return false;
    if (open.defines) return true;
    const from = Math.max(0, this.#changedAt - 1);
    return this.#source.slice(from, this.#source.length).includes("]:");
  }

  /** Re-lexes from block `index` to the end. */
  #relex(index: number): void {
    const from = this.#closed[index] ?? this.#open;
    const start = index === 0 ? 0 : from?.start ?? 0;
    const top = index === 0 ? 0 : from?.top ?? 0;
    this.#closed.length = Math.min(index, this.#closed.length);
    if ((this.#quotedTitle ?? -1) >= this.#closed.length) this.#quotedTitle = null;
    this.#open = null;
    this.#changedAt = Number.POSITIVE_INFINITY;
    this.#resetLinks();
    const tokens = lexBlocks(this.#source.from(start), this.#style.links);
    this.#rewriteFrom(top, () => {
      this.#lines.length = top;
      this.#add(tokens, start);
    });
  }

  /**
   * Link definitions are those of the closed blocks (the first of a label
   * wins, as in marked); blocks being added contribute theirs in `#add`.
   * A half-streamed definition thus never outlives its text. A nested
   * document only reads its parent's.
   */
  #resetLinks(): void {
    if (!this.#ownsLinks) return;
    const links = this.#style.links;
    for (const key of Object.keys(links)) delete links[key];
    for (const block of this.#closed) this.#define(block.definitions);
  }

  #define(found: readonly Definition[]): void {
    if (!this.#ownsLinks) return;
    for (const [label, target] of found) this.#style.links[label] ??= target;
  }

  /** Runs `rewrite` (which changes lines from `from` on) and notes the first line it changed. */
  #rewriteFrom(from: number, rewrite: () => void): void {
    const previous = this.#lines.slice(from);
    const cut = this.#cut;
    rewrite();
    this.#cut = cut;
    const lines = this.#lines;
    let same = 0;
    while (same < previous.length && previous[same] === lines[from + same]) same++;
    if (same < previous.length || lines.length !== from + same) this.#noteCut(from + same);
  }

  /** Appends blocks for `tokens` (starting at `offset`); the last content block stays open. */
  #add(tokens: readonly Token[], offset: number): void {
    this.#define(definitions(tokens));
    let last = tokens.length - 1;
    while (last >= 0 && tokens[last]?.type === "space") last--;
    let start = offset;
    for (let i = 0; i <= last; i++) {
      const token = tokens[i]!;
      if (i === last) this.#openAt(token, start);
      else this.#closeAt(token, start);
      start += token.raw.length;
    }
    const block = this.#open?.block ?? null;
    if (block !== null) this.#source.settle(block.settledOffset);
  }

  /**
   * Adds a finished block. A definition without a title right above a
   * block that starts with `"` or `(` may take a title spanning any number
   * of lines and blocks (blank lines included): it stays unsettled.
   */
  #close(block: ClosedBlock): void {
    const above = this.#closed.at(-1);
    const titled = above?.reach === "title" && above.end === block.start &&
      QUOTED_TITLE_START.test(this.#source.slice(block.start, block.start + LOOKED_AT));
    if (titled && this.#quotedTitle === null) this.#quotedTitle = this.#closed.length - 1;
    this.#closed.push(block);
  }

  #closeAt(token: Token, start: number): void {
    const top = this.#lines.length;
    this.#close({
      start,
      end: start + token.raw.length,
      top,
      type: token.type,
      reach: reachOf(token),
      refers: token.raw.includes("]"),
      definitions: definitions([token]),
    });
    this.#push(this.#cachedRender(token));
  }

  #openAt(token: Token, start: number): void {
    const top = this.#lines.length;
    const context: BlockContext = {
      width: this.#width,
      style: this.#style,
      nested: () => new MarkdownDocument(this.#style, true),
    };
    const block = openBlock(token, start, context);
    const first = block?.update(this.#source.from(block.settledOffset)) ?? null;
    const entry = {
      start,
      top,
      type: token.type,
      reach: reachOf(token),
      defines: token.raw.includes("]:"),
    };
    if (block === null || first === null || first.ended !== undefined) {
      this.#open = { ...entry, block: null, definitions: definitions([token]) };
      this.#push(this.#cachedRender(token));
      return;
    }
    this.#open = { ...entry, block, definitions: definitions([token]) };
    this.#push(first.rows);
  }

  #push(rows: readonly string[]): void {
    if (rows.length === 0) return;
    this.#noteCut(this.#lines.length);
    if (this.#lines.length > 0) this.#lines.push("");
    for (const row of rows) this.#lines.push(row);
  }

  /** Writes the open block's new rows; closes it when content follows. */
  #apply(update: BlockUpdate): void {
    const open = this.#open!;
    const total = update.from + update.rows.length;
    const rowStart = open.top > 0 && total > 0 ? open.top + 1 : open.top;
    const at = rowStart + update.from;
    const separatorAdded = rowStart > open.top && this.#lines.length <= open.top;
    if (update.ended === undefined && !separatorAdded && total > 0) {
      this.#overwrite(at, update.rows);
    } else {
      this.#replaceOpen(update, rowStart, at, separatorAdded);
    }
    const block = this.#open?.block ?? null;
    if (block !== null) this.#source.settle(block.settledOffset);
  }

  /** Writes `rows` from line `at` on (the end of the lines), noting the first that differs. */
  #overwrite(at: number, rows: readonly string[]): void {
    const lines = this.#lines;
    const length = lines.length;
    let same = 0;
    while (same < rows.length && lines[at + same] === rows[same]) same++;
    for (let i = same; i < rows.length; i++) lines[at + i] = rows[i]!;
    lines.length = at + rows.length;
    if (same < rows.length || length !== lines.length) this.#noteCut(Math.min(at + same, length));
  }

  /** The open block's rows when its separator appears or it ends (rare: compares a snapshot). */
  #replaceOpen(update: BlockUpdate, rowStart: number, at: number, separatorAdded: boolean): void {
    const open = this.#open!;
    const total = update.from + update.rows.length;
    this.#rewriteFrom(separatorAdded ? open.top : Math.min(at, this.#lines.length), () => {
      const lines = this.#lines;
      if (rowStart > open.top) lines[open.top] = "";
      lines.length = at;
      for (const row of update.rows) lines.push(row);
      if (total === 0) lines.length = open.top;
      if (update.ended === undefined) return;
      this.#close({
        start: open.start,
        end: update.ended.end,
        top: open.top,
        type: open.type,
        reach: open.reach,
        refers: this.#source.slice(open.start, update.ended.end).includes("]"),
        definitions: open.definitions,
      });
      this.#open = null;
      this.#add(update.ended.after, update.ended.end);
    });
  }

  /**
   * A closed block's lines, reused from an earlier render of the same source
   * (a block moved by an edit above it). Reference-style links make a block
   * depend on definitions elsewhere, so the cache is bypassed once any exist.
   */
  #cachedRender(token: Token): readonly string[] {
    const cacheable = Object.keys(this.#style.links).length === 0;
    const key = cacheKey(token);
    const cached = cacheable ? this.#rendered.get(key) : undefined;
    if (cached !== undefined) return cached;
    const lines = renderBlock(token, this.#width, this.#style);
    if (!cacheable) return lines;
    if (this.#rendered.size > 2 * this.#closed.length + 16) this.#rendered.clear();
    this.#rendered.set(key, lines);
    return lines;
  }
}
