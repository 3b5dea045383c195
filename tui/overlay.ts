/**
 * Overlay geometry and compositing: where a modal component sits on the
 * visible screen, and how its lines are painted over the base lines.
 *
 * @module
 */
import { SGR_RESET, sliceColumns, truncateToWidth, visibleWidth } from "./text_width.ts";

/** Where an overlay is placed on the screen. */
export type OverlayAnchor =
  | "center"
  | "top"
  | "bottom"
  | "left"
  | "right"
  | "top-left"
  | "top-right"
  | "bottom-left"
  | "bottom-right";

/** A size in cells, or a percentage of the screen ("50%"). */
export type OverlaySize = number | `${number}%`;

/** Placement options for {@linkcode TUI.showOverlay}. */
export interface OverlayOptions {
  /** Anchor on the screen (default "center"). */
  anchor?: OverlayAnchor;
  /** Width (default: the screen width minus horizontal margins, at most 80). */
  width?: OverlaySize;
  /** Maximum height; extra lines are cut (default: the screen height minus vertical margins). */
  maxHeight?: OverlaySize;
  /** Distance kept from the screen edges: one number for all sides, or per side. */
  margin?: number | { top?: number; right?: number; bottom?: number; left?: number };
}

/** A resolved overlay rectangle, in screen cells. */
export interface OverlayRect {
  /** Screen row of the first overlay line. */
  row: number;
  /** Screen column of the left edge. */
  col: number;
  /** Width in columns. */
  width: number;
  /** Height in rows. */
  height: number;
}

function resolveSize(size: OverlaySize, total: number): number {
  if (typeof size === "number") return Math.floor(size);
  const percent = Number.parseFloat(size);
  if (Number.isNaN(percent)) {
    throw new Error(
      `Invalid overlay size "${size}": use a number of cells or a percentage like "50%"`,
    );
  }
  return Math.floor((total * percent) / 100);
}

function resolveMargin(margin: OverlayOptions["margin"]) {
  if (typeof margin === "number" || margin === undefined) {
    const all = margin ?? 0;
    return { top: all, right: all, bottom: all, left: all };
  }
  return {
    top: margin.top ?? 0,
    right: margin.right ?? 0,
    bottom: margin.bottom ?? 0,
    left: margin.left ?? 0,
  };
}

/**
 * The overlay's width in columns for a screen `columns` wide, before its
 * height is known (the component renders at this width).
 *
 * @example
 * ```ts
 * import { overlayWidth } from "./overlay.ts";
 * console.assert(overlayWidth({ width: "50%" }, 100) === 50);
 * ```
 */
export function overlayWidth(options: OverlayOptions, columns: number): number {
  const margin = resolveMargin(options.margin);
  const available = Math.max(1, columns - margin.left - margin.right);
  const wanted = options.width === undefined
    ? Math.min(80, available)
    : resolveSize(options.width, columns);
  return Math.max(1, Math.min(wanted, available));
}

/**
 * Places an overlay with `lineCount` lines on a `columns`×`rows` screen.
 *
 * @example
 * ```ts
 * import { layoutOverlay } from "./overlay.ts";
 * const rect = layoutOverlay({ anchor: "bottom-right", width: 10, margin: 1 }, 5, 80, 24);
 * console.assert(rect.row === 18 && rect.col === 69 && rect.height === 5);
 * ```
 */
export function layoutOverlay(
  options: OverlayOptions,
  lineCount: number,
  columns: number,
  rows: number,
): OverlayRect {
  const margin = resolveMargin(options.margin);
  const width = overlayWidth(options, columns);
  const availableRows = Math.max(1, rows - margin.top - margin.bottom);
  const maxHeight = options.maxHeight === undefined
    ? availableRows
    : Math.min(availableRows, resolveSize(options.maxHeight, rows));
  const height = Math.max(0, Math.min(lineCount, maxHeight));
  const anchor = options.anchor ?? "center";
  const vertical = anchor.startsWith("top")
    ? "start"
    : anchor.startsWith("bottom")
    ? "end"
    : "middle";
  const horizontal = anchor.endsWith("left")
    ? "start"
    : anchor.endsWith("right")
    ? "end"
    : "middle";
  // Margins larger than the screen must not push the overlay off it.
  return {
    row: Math.min(place(vertical, margin.top, rows - margin.bottom, height), rows - height),
    col: Math.min(place(horizontal, margin.left, columns - margin.right, width), columns - width),
    width,
    height,
  };
}

function place(where: "start" | "middle" | "end", low: number, high: number, size: number): number {
  if (where === "start") return Math.max(0, low);
  if (where === "end") return Math.max(0, high - size);
  return Math.max(0, low + Math.floor((high - low - size) / 2));
}

/**
 * Paints `overlayLine` over `baseLine` at column `col`, `width` columns
 * wide, keeping the base text on both sides with its styles. The result is
 * at most `totalWidth` columns wide and ends with an SGR reset when styled.
 *
 * @example
 * ```ts
 * import { compositeLine } from "./overlay.ts";
 * console.assert(compositeLine("abcdefgh", "XY", 2, 3, 8) === "ab\x1b[0mXY \x1b[0mfgh");
 * ```
 */
export function compositeLine(
  baseLine: string,
  overlayLine: string,
  col: number,
  width: number,
  totalWidth: number,
): string {
  const left = sliceColumns(baseLine, 0, col);
  const leftPad = " ".repeat(Math.max(0, col - visibleWidth(left)));
  const middle = truncateToWidth(overlayLine, width);
  const middlePad = " ".repeat(Math.max(0, width - visibleWidth(middle)));
  const right = sliceColumns(baseLine, col + width, totalWidth);
  const tail = right.includes("\x1b") ? SGR_RESET : "";
  return `${left}${leftPad}${SGR_RESET}${middle}${middlePad}${SGR_RESET}${right}${tail}`;
}
