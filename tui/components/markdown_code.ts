/**
 * Fenced code blocks: a border line with the language, the code coloured
 * line by line, a closing border. An open fence re-colours only its last
 * highlight chunk per delta.
 *
 * @module
 */
import type { Token, Tokens } from "marked";
import { CodeHighlighter } from "./code_highlight.ts";
import { lexBlocks } from "./markdown_lex.ts";
import type { MarkdownStyle } from "./markdown_inline.ts";
import { hasContent } from "./markdown_open_block.ts";
import type { BlockContext, BlockUpdate, OpenBlock } from "./markdown_open_block.ts";
import { breakText } from "./wrap_text.ts";

const CODE_INDENT = "  ";

function languageOf(token: Tokens.Code): string {
  return token.lang?.trim().split(/\s+/)[0] ?? "";
}

function border(text: string, width: number, style: MarkdownStyle): string[] {
  return breakText(style.theme.fg("mdCodeBlockBorder", text), width);
}

function codeRows(styledLines: readonly string[], width: number): string[] {
  const indent = width > 2 * CODE_INDENT.length ? CODE_INDENT : "";
  const rows: string[] = [];
  for (const line of styledLines) {
    for (const piece of breakText(line, width - indent.length)) rows.push(indent + piece);
  }
  return rows;
}

/** Renders a code block (fenced or indented). */
export function renderCode(token: Tokens.Code, width: number, style: MarkdownStyle): string[] {
  const language = languageOf(token);
  const lines = token.text.split("\n");
  const styled = new CodeHighlighter(language, style.theme).update(lines, lines.length).lines;
  return [
    ...border("```" + language, width, style),
    ...codeRows(styled, width),
    ...border("```", width, style),
  ];
}

/**
 * The code lines of fence content, as `marked` derives them: one trailing
 * newline is dropped, and an empty or newline-ended rest gains one.
 * `whole` marks content that starts right after the opening line.
 */
function contentLines(content: string, whole: boolean): string[] {
  if (whole && content === "") return [""];
  const body = content.endsWith("\n") ? content.slice(0, -1) : content;
  return (body === "" || body.endsWith("\n") ? body + "\n" : body).split("\n");
}

/** Where the closing fence line sits in `tail`, if there is one. */
function findClosing(tail: string, closing: RegExp): { start: number; end: number } | null {
  let start = 0;
  while (start <= tail.length) {
    const newline = tail.indexOf("\n", start);
    const end = newline === -1 ? tail.length : newline;
    if (closing.test(tail.slice(start, end))) return { start, end };
    if (newline === -1) return null;
    start = newline + 1;
  }
  return null;
}

/** An open fenced code block. */
export class OpenCode implements OpenBlock {
  #settledOffset: number;
  #settledRows: number;
  /** Whether no code line is settled yet (the content starts at the tail). */
  #whole = true;
  readonly #closing: RegExp;
  readonly #highlighter: CodeHighlighter;
  readonly #context: BlockContext;
  /** The border line with the language, until the first update returns it. */
  #header: string[] | null;

  private constructor(start: number, opener: string, token: Tokens.Code, context: BlockContext) {
    const fence = /^(`{3,}|~{3,})/.exec(opener)?.[1] ?? "```";
    this.#closing = new RegExp(`^ {0,3}${fence}${fence[0]}* *$`);
    this.#highlighter = new CodeHighlighter(languageOf(token), context.style.theme);
    this.#context = context;
    this.#settledOffset = start + opener.length;
    this.#header = border("```" + languageOf(token), context.width, context.style);
    this.#settledRows = this.#header.length;
  }

  /** An open block for a fenced code token whose opening line is complete, or null. */
  static from(token: Token, start: number, context: BlockContext): OpenCode | null {
    if (token.type !== "code") return null;
    const opener = /^(?:`{3,}|~{3,})[^\n]*\n/.exec(token.raw)?.[0];
    return opener === undefined ? null : new OpenCode(start, opener, token as Tokens.Code, context);
  }

  get settledOffset(): number {
    return this.#settledOffset;
  }

  update(tail: string): BlockUpdate {
    const { width, style } = this.#context;
    const closing = findClosing(tail, this.#closing);
    const content = closing === null ? tail : tail.slice(0, closing.start);
    const lines = contentLines(content, this.#whole);
    // Lines followed by another complete line are final, fence closed or not.
    const complete = content.split("\n").length - 1;
    const { lines: styled, settled } = this.#highlighter.update(lines, complete);
    const from = this.#header === null ? this.#settledRows : 0;
    const settledRows = codeRows(styled.slice(0, settled), width);
    const rows = [...this.#header ?? [], ...settledRows, ...codeRows(styled.slice(settled), width)];
    this.#header = null;
    rows.push(...border("```", width, style));
    const update: BlockUpdate = { from, rows };
    if (closing !== null) {
      const after = lexBlocks(tail.slice(closing.end), style.links);
      if (hasContent(after)) update.ended = { end: this.#settledOffset + closing.end, after };
    }
    if (settled > 0) {
      let offset = 0;
      for (let i = 0; i < settled; i++) offset = tail.indexOf("\n", offset) + 1;
      this.#settledOffset += offset;
      this.#settledRows += settledRows.length;
      this.#whole = false;
    }
    return update;
  }
}
