/**
 * Block-level markdown (headings, paragraphs, code, lists, quotes, tables,
 * rules) to lines no wider than the width.
 *
 * @module
 */
import type { MarkedToken, Token, Tokens } from "marked";
import { renderCode } from "./markdown_code.ts";
import { decodeEntities, renderInline } from "./markdown_inline.ts";
import type { MarkdownStyle } from "./markdown_inline.ts";
import { renderTable } from "./markdown_table.ts";
import { visibleWidth } from "../text_width.ts";
import { paragraphRows } from "./markdown_paragraph.ts";
import { wrapText } from "./wrap_text.ts";

const BULLETS = ["•", "◦", "▪"] as const;

function renderHeading(token: Tokens.Heading, width: number, style: MarkdownStyle): string[] {
  const { theme } = style;
  const text = `${"#".repeat(token.depth)} ${renderInline(token.tokens, style)}`;
  const styled = theme.bold(theme.fg("mdHeading", text));
  return wrapText(token.depth === 1 ? theme.underline(styled) : styled, width);
}

function listMarker(list: ListShape, index: number, depth: number): string {
  if (list.ordered) return `${(list.start === "" ? 1 : list.start) + index}.`;
  return BULLETS[Math.min(depth, BULLETS.length - 1)] ?? "•";
}

function renderListItem(
  item: Tokens.ListItem,
  marker: string,
  width: number,
  depth: number,
  style: MarkdownStyle,
): string[] {
  const { theme } = style;
  const checkbox = item.task ? (item.checked ? "[x] " : "[ ] ") : "";
  const prefix = `${marker} ${checkbox}`;
  const prefixWidth = visibleWidth(prefix);
  const hanging = prefixWidth < width ? prefixWidth : 0;
  const content = item.tokens.filter((token) => token.type !== "checkbox");
  const body = renderBlocks(content, width - hanging, style, item.loose, depth + 1);
  if (body.length === 0) body.push("");
  const firstPrefix = theme.fg("mdListBullet", prefix);
  if (hanging === 0) return [...wrapText(firstPrefix, width), ...body];
  return body.map((line, i) => (i === 0 ? firstPrefix : " ".repeat(hanging)) + line);
}

/** What numbering and spacing of a list's items depend on. */
export interface ListShape {
  ordered: boolean;
  start: number | "";
  loose: boolean;
}

/** The rows of item `index` of a list (with the blank line before it, in a loose list). */
export function listItemRows(
  list: ListShape,
  item: Tokens.ListItem,
  index: number,
  width: number,
  style: MarkdownStyle,
  depth: number,
): string[] {
  const rows = renderListItem(item, listMarker(list, index, depth), width, depth, style);
  return index > 0 && list.loose ? ["", ...rows] : rows;
}

function renderList(
  token: Tokens.List,
  width: number,
  style: MarkdownStyle,
  depth: number,
): string[] {
  return token.items.flatMap((item, index) =>
    listItemRows(token, item, index, width, style, depth)
  );
}

function renderQuote(token: Tokens.Blockquote, width: number, style: MarkdownStyle): string[] {
  const { theme } = style;
  const barWidth = width > 2 ? 2 : 0;
  const inner = renderBlocks(token.tokens, width - barWidth, style, true, 0);
  const bar = barWidth > 0 ? theme.fg("mdQuoteBorder", "│ ") : "";
  return inner.map((line) => bar + theme.italic(theme.fg("mdQuote", line)));
}

/**
 * Renders one block token. `depth` is the list nesting depth (for bullets).
 * Tokens that draw nothing (link definitions, blank space) give no lines.
 */
export function renderBlock(
  token: Token,
  width: number,
  style: MarkdownStyle,
  depth = 0,
): string[] {
  const block = token as MarkedToken;
  switch (block.type) {
    case "space":
    case "def":
      return [];
    case "heading":
      return renderHeading(block, width, style);
    case "paragraph":
      return paragraphRows(block.text, width, style);
    case "text":
      return wrapText(
        block.tokens !== undefined
          ? renderInline(block.tokens, style)
          : style.text(decodeEntities(block.text)),
        width,
      );
    case "code":
      return renderCode(block, width, style);
    case "list":
      return renderList(block, width, style, depth);
    case "blockquote":
      return renderQuote(block, width, style);
    case "table":
      return renderTable(block, width, style);
    case "hr":
      return [style.theme.fg("mdHr", "─".repeat(Math.max(1, width)))];
    case "html":
      return block.text.trim() === ""
        ? []
        : wrapText(style.theme.fg("muted", block.text.trimEnd()), width);
    default:
      return wrapText(style.text(decodeEntities(block.raw.trimEnd())), width);
  }
}

/**
 * Renders a sequence of blocks; with `separate`, a blank line goes between
 * consecutive blocks that draw something.
 */
export function renderBlocks(
  tokens: readonly Token[],
  width: number,
  style: MarkdownStyle,
  separate: boolean,
  depth: number,
): string[] {
  const lines: string[] = [];
  for (const token of tokens) {
    const blockLines = renderBlock(token, width, style, depth);
    if (blockLines.length === 0) continue;
    if (separate && lines.length > 0) lines.push("");
    lines.push(...blockLines);
  }
  return lines;
}
