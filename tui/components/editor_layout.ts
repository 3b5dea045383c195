/**
 * Lays the editor's logical lines out as screen rows (word wrap at unit
 * boundaries) and maps the cursor to a row and column and back.
 *
 * @module
 */
import { graphemeWidth } from "../text_width.ts";
import type { CursorPosition, EditorBuffer, TextUnit } from "./editor_buffer.ts";
import { isSpaceUnit } from "./editor_buffer.ts";

/** One screen row: a slice `[start, end)` of logical line `line`. */
export interface Row {
  line: number;
  start: number;
  end: number;
  /** Whether this is the last row of its logical line. */
  last: boolean;
}

/** Rows plus where the cursor sits among them. */
export interface Layout {
  rows: Row[];
  cursorRow: number;
  cursorX: number;
}

function unitWidth(unit: TextUnit): number {
  return unit.marker ? unit.text.length : graphemeWidth(unit.text);
}

/** Rows for one logical line: break after the last space that fits, else mid-word. */
function lineRows(line: number, units: readonly TextUnit[], width: number, length: number): Row[] {
  const rows: Row[] = [];
  let rowStart = 0;
  let rowWidth = 0;
  let breakAt = -1;
  let widthAfterBreak = 0;
  for (const unit of units) {
    const w = unitWidth(unit);
    if (rowWidth + w > width && rowWidth > 0 && breakAt > rowStart) {
      rows.push({ line, start: rowStart, end: breakAt, last: false });
      rowStart = breakAt;
      rowWidth = widthAfterBreak;
      breakAt = -1;
      widthAfterBreak = 0;
    }
    // The word carried to the new row may still leave no room (a wide
    // character after it): break the word before this unit.
    if (rowWidth + w > width && rowWidth > 0) {
      rows.push({ line, start: rowStart, end: unit.start, last: false });
      rowStart = unit.start;
      rowWidth = 0;
      breakAt = -1;
      widthAfterBreak = 0;
    }
    rowWidth += w;
    if (isSpaceUnit(unit)) {
      breakAt = unit.end;
      widthAfterBreak = 0;
    } else {
      widthAfterBreak += w;
    }
  }
  rows.push({ line, start: rowStart, end: length, last: true });
  return rows;
}

/** Visible width of the units of `text` between two offsets. */
export function columnsBetween(
  buffer: EditorBuffer,
  text: string,
  from: number,
  to: number,
): number {
  let columns = 0;
  for (const unit of buffer.units(text)) {
    if (unit.start >= to) break;
    if (unit.start >= from) columns += unitWidth(unit);
  }
  return columns;
}

/**
 * Lays out every line for `width` columns. When the cursor sits at the end
 * of a row that is exactly full, an empty row is added for it so the cursor
 * block never pushes a line past the width.
 */
export function layout(buffer: EditorBuffer, width: number): Layout {
  const rows: Row[] = [];
  let cursorRow = 0;
  let cursorX = 0;
  const { cursor } = buffer;
  buffer.lines.forEach((text, line) => {
    const lineLayout = lineRows(line, buffer.units(text), width, text.length);
    if (line === cursor.line) {
      const index = lineLayout.findIndex((row) =>
        cursor.col >= row.start && (cursor.col < row.end || row.last)
      );
      const row = lineLayout[index] as Row;
      cursorRow = rows.length + index;
      cursorX = columnsBetween(buffer, text, row.start, cursor.col);
      if (row.last && cursorX >= width) {
        lineLayout.push({ line, start: text.length, end: text.length, last: true });
        row.last = false;
        cursorRow++;
        cursorX = 0;
      }
    }
    rows.push(...lineLayout);
  });
  return { rows, cursorRow, cursorX };
}

/**
 * The position on `row` closest to screen column `x` without passing it.
 * On a row that continues on the next one, the row's end is excluded (the
 * cursor there would be drawn at the next row's start).
 */
export function positionAtColumn(buffer: EditorBuffer, row: Row, x: number): CursorPosition {
  const text = buffer.lineText(row.line);
  let columns = 0;
  let col = row.start;
  for (const unit of buffer.units(text)) {
    if (unit.start < row.start) continue;
    if (unit.end > row.end) break;
    const w = unitWidth(unit);
    if (columns + w > x) break;
    if (!row.last && unit.end === row.end) break;
    columns += w;
    col = unit.end;
  }
  return { line: row.line, col };
}
