/**
 * Tables that fit the width: columns shrink (widest first) and cells wrap;
 * when even one column per cell cannot fit, rows become "header: value"
 * lines.
 *
 * @module
 */
import type { Tokens } from "marked";
import { renderInline } from "./markdown_inline.ts";
import type { MarkdownStyle } from "./markdown_inline.ts";
import { visibleWidth } from "../text_width.ts";
import { wrapText } from "./wrap_text.ts";

type Align = Tokens.Table["align"][number];

/** Narrowest column worth drawing; below this the table degrades. */
const MIN_COLUMN = 3;

/**
 * Column widths that sum to at most `available`: natural widths when they
 * fit, otherwise every column capped at the largest cap that fits, with the
 * remainder handed to the capped columns.
 */
export function fitColumns(natural: readonly number[], available: number): number[] {
  const total = natural.reduce((sum, width) => sum + width, 0);
  if (total <= available) return [...natural];
  const sumCapped = (cap: number) => natural.reduce((sum, width) => sum + Math.min(width, cap), 0);
  let low = 0;
  let high = Math.max(...natural);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (sumCapped(mid) <= available) low = mid;
    else high = mid - 1;
  }
  const widths = natural.map((width) => Math.min(width, low));
  let spare = available - sumCapped(low);
  for (let i = 0; i < widths.length && spare > 0; i++) {
    if ((natural[i] ?? 0) > (widths[i] ?? 0)) {
      widths[i] = (widths[i] ?? 0) + 1;
      spare--;
    }
  }
  return widths;
}

function pad(text: string, width: number, align: Align): string {
  const gap = Math.max(0, width - visibleWidth(text));
  if (align === "right") return " ".repeat(gap) + text;
  if (align === "center") {
    const left = Math.floor(gap / 2);
    return " ".repeat(left) + text + " ".repeat(gap - left);
  }
  return text + " ".repeat(gap);
}

function rowLines(
  cells: readonly string[],
  widths: readonly number[],
  aligns: readonly Align[],
  border: (text: string) => string,
): string[] {
  const wrapped = widths.map((width, i) => wrapText(cells[i] ?? "", width));
  const height = Math.max(...wrapped.map((lines) => lines.length));
  const lines: string[] = [];
  for (let row = 0; row < height; row++) {
    const parts = widths.map((width, i) => pad(wrapped[i]?.[row] ?? "", width, aligns[i] ?? null));
    lines.push(border("│ ") + parts.join(border(" │ ")) + border(" │"));
  }
  return lines;
}

function ruleLine(widths: readonly number[], left: string, mid: string, right: string): string {
  return left + widths.map((width) => "─".repeat(width + 2)).join(mid) + right;
}

/** One "header: value" line group per row, for screens too narrow for columns. */
function stackedRows(
  headers: readonly string[],
  rows: readonly string[][],
  width: number,
): string[] {
  const lines: string[] = [];
  rows.forEach((row, index) => {
    if (index > 0) lines.push("");
    row.forEach((cell, column) => {
      const header = headers[column] ?? "";
      lines.push(...wrapText(header === "" ? cell : `${header}: ${cell}`, width));
    });
  });
  return lines;
}

/** Renders a GFM table within `width` columns. */
export function renderTable(token: Tokens.Table, width: number, style: MarkdownStyle): string[] {
  const { theme } = style;
  const headers = token.header.map((cell) => theme.bold(renderInline(cell.tokens, style)));
  const rows = token.rows.map((row) => row.map((cell) => renderInline(cell.tokens, style)));
  const columns = headers.length;
  const available = width - (3 * columns + 1);
  if (columns === 0 || available < MIN_COLUMN * columns) {
    return stackedRows(headers, rows, width);
  }
  const natural = headers.map((header, column) => {
    const cellWidths = rows.map((row) => maxLineWidth(row[column] ?? ""));
    return Math.max(1, maxLineWidth(header), ...cellWidths);
  });
  const widths = fitColumns(natural, available);
  const border = (text: string) => theme.fg("mdTableBorder", text);
  const lines = [border(ruleLine(widths, "┌", "┬", "┐"))];
  lines.push(...rowLines(headers, widths, token.align, border));
  lines.push(border(ruleLine(widths, "├", "┼", "┤")));
  for (const row of rows) lines.push(...rowLines(row, widths, token.align, border));
  lines.push(border(ruleLine(widths, "└", "┴", "┘")));
  return lines;
}

function maxLineWidth(text: string): number {
  return Math.max(0, ...text.split("\n").map(visibleWidth));
}
