/**
 * Tables that fit the width: columns shrink (widest first) and cells wrap;
 * when even one column per cell cannot fit, rows become "header: value"
 * lines.
 *
 * @module
 */
import type { Token, Tokens } from "marked";
import { renderInline } from "./markdown_inline.ts";
import { lexBlocks } from "./markdown_lex.ts";
import { hasContent } from "./markdown_open_block.ts";
import type { BlockContext, BlockUpdate, OpenBlock } from "./markdown_open_block.ts";
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

/** A table's rendered cells. */
export interface TableCells {
  headers: string[];
  rows: string[][];
}

/** Renders every cell's inline content (headers bold). */
export function tableCells(token: Tokens.Table, style: MarkdownStyle): TableCells {
  const { theme } = style;
  return {
    headers: token.header.map((cell) => theme.bold(renderInline(cell.tokens, style))),
    rows: token.rows.map((row) => row.map((cell) => renderInline(cell.tokens, style))),
  };
}

/** Each column's widest line over `rows` (at least `floor`). */
export function naturalWidths(
  rows: readonly (readonly string[])[],
  columns: number,
  floor: readonly number[] = [],
): number[] {
  return Array.from({ length: columns }, (_, column) => {
    let widest = floor[column] ?? 1;
    for (const row of rows) widest = Math.max(widest, maxLineWidth(row[column] ?? ""));
    return widest;
  });
}

/** Column widths for `width`, or null when the rows must stack. */
export function tableLayout(natural: readonly number[], width: number): number[] | null {
  const columns = natural.length;
  const available = width - (3 * columns + 1);
  if (columns === 0 || available < MIN_COLUMN * columns) return null;
  return fitColumns(natural, available);
}

/** How a table is drawn: column widths (null: stacked rows) and styling. */
export interface TableFrame {
  layout: number[] | null;
  headers: readonly string[];
  align: readonly Align[];
  width: number;
  border: (text: string) => string;
}

/** The rows above the body: top rule, header, middle rule (none when stacked). */
export function tableHead(frame: TableFrame): string[] {
  const { layout: widths, border } = frame;
  if (widths === null) return [];
  return [
    border(ruleLine(widths, "┌", "┬", "┐")),
    ...rowLines(frame.headers, widths, frame.align, border),
    border(ruleLine(widths, "├", "┼", "┤")),
  ];
}

/** The lines of body row `index`. */
export function tableRow(frame: TableFrame, row: readonly string[], index: number): string[] {
  if (frame.layout !== null) return rowLines(row, frame.layout, frame.align, frame.border);
  const lines = index > 0 ? [""] : [];
  row.forEach((cell, column) => {
    const header = frame.headers[column] ?? "";
    lines.push(...wrapText(header === "" ? cell : `${header}: ${cell}`, frame.width));
  });
  return lines;
}

/** The bottom rule (none when stacked). */
export function tableFoot(frame: TableFrame): string[] {
  return frame.layout === null ? [] : [frame.border(ruleLine(frame.layout, "└", "┴", "┘"))];
}

/** Renders a GFM table within `width` columns. */
export function renderTable(token: Tokens.Table, width: number, style: MarkdownStyle): string[] {
  const { headers, rows } = tableCells(token, style);
  const natural = naturalWidths(rows, headers.length, naturalWidths([headers], headers.length));
  const frame: TableFrame = {
    layout: tableLayout(natural, width),
    headers,
    align: token.align,
    width,
    border: (text) => style.theme.fg("mdTableBorder", text),
  };
  const lines = tableHead(frame);
  rows.forEach((row, index) => lines.push(...tableRow(frame, row, index)));
  lines.push(...tableFoot(frame));
  return lines;
}

function maxLineWidth(text: string): number {
  return Math.max(0, ...text.split("\n").map(visibleWidth));
}

/** Settled body rows rendered for one layout. */
interface LayoutRows {
  frame: TableFrame;
  /** Lines of the first `rows` settled rows. */
  lines: string[];
  rows: number;
}

/** Layouts whose settled rows are kept (a partial cell can widen a column and shrink back). */
const KEPT_LAYOUTS = 4;

/**
 * An open table: body rows before the last are settled, and their cells
 * kept. Column widths depend on every row, so settled rows are reused only
 * while the layout is unchanged; when a row changes a width, the settled
 * rows are rendered for the new layout once, and kept for the last few
 * layouts (a half-streamed `**bold` cell widens its column until it closes).
 */
export class OpenTable implements OpenBlock {
  /** The header and delimiter lines: the tail is lexed after them. */
  readonly #head: string;
  #settledOffset: number;
  /** Rendered cells of the settled body rows. */
  readonly #cells: string[][] = [];
  /** Column widths of the header and the settled rows. */
  #natural: number[] | null = null;
  /** Settled rows per layout key; the current layout was used last. */
  readonly #layouts = new Map<string, LayoutRows>();
  #current: string | null = null;
  readonly #context: BlockContext;

  private constructor(head: string, start: number, context: BlockContext) {
    this.#head = head;
    this.#settledOffset = start + head.length;
    this.#context = context;
  }

  /** An open block for a table whose delimiter line is complete, or null. */
  static from(token: Token, start: number, context: BlockContext): OpenTable | null {
    if (token.type !== "table") return null;
    const head = /^[^\n]*\n[^\n]*\n/.exec(token.raw)?.[0];
    return head === undefined ? null : new OpenTable(head, start, context);
  }

  get settledOffset(): number {
    return this.#settledOffset;
  }

  update(tail: string): BlockUpdate | null {
    const { style } = this.#context;
    const tokens = lexBlocks(this.#head + tail, style.links);
    const table = tokens[0] as Tokens.Table | undefined;
    if (table?.type !== "table" || !table.raw.startsWith(this.#head)) return null;
    const { headers, rows } = tableCells(table, style);
    this.#natural ??= naturalWidths([headers], headers.length);
    const layout = tableLayout(
      naturalWidths(rows, headers.length, this.#natural),
      this.#context.width,
    );
    const key = layout === null ? "stacked" : layout.join(",");
    const settled = this.#settledFor(key, layout, headers, table.align);
    const relayout = key !== this.#current;
    this.#current = key;
    const head = tableHead(settled.frame);
    const lines = relayout ? [...head, ...settled.lines] : [];
    const from = relayout ? 0 : head.length + settled.lines.length;
    let offset = 0;
    rows.forEach((row, i) => {
      const rowLines = tableRow(settled.frame, row, this.#cells.length);
      lines.push(...rowLines);
      if (i === rows.length - 1) return;
      offset = tail.indexOf("\n", offset) + 1;
      this.#cells.push(row);
      settled.lines.push(...rowLines);
      settled.rows++;
    });
    lines.push(...tableFoot(settled.frame));
    const update: BlockUpdate = { from, rows: lines };
    const after = tokens.slice(1);
    if (hasContent(after)) {
      update.ended = { end: this.#settledOffset + table.raw.length - this.#head.length, after };
    }
    this.#natural = naturalWidths(rows.slice(0, -1), headers.length, this.#natural);
    this.#settledOffset += offset;
    return update;
  }

  /** The settled rows rendered for layout `key` (rendering those not yet rendered for it). */
  #settledFor(
    key: string,
    layout: number[] | null,
    headers: readonly string[],
    align: readonly Align[],
  ): LayoutRows {
    const { width, style } = this.#context;
    let entry = this.#layouts.get(key);
    if (entry === undefined) {
      const border = (text: string) => style.theme.fg("mdTableBorder", text);
      entry = { frame: { layout, headers, align, width, border }, lines: [], rows: 0 };
      if (this.#layouts.size >= KEPT_LAYOUTS) {
        const oldest = this.#layouts.keys().next().value;
        if (oldest !== undefined) this.#layouts.delete(oldest);
      }
    }
    this.#layouts.delete(key);
    this.#layouts.set(key, entry);
    for (; entry.rows < this.#cells.length; entry.rows++) {
      entry.lines.push(...tableRow(entry.frame, this.#cells[entry.rows] ?? [], entry.rows));
    }
    return entry;
  }
}
