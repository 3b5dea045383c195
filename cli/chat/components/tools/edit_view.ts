/**
 * The edit tool's view: the change as a coloured unified diff with line
 * numbers, visible without expanding; only a long diff is cut, and never
 * before its first added line.
 *
 * @module
 */
import { type Theme, type ThemeColor, truncateToWidth, visibleWidth, wrapText } from "@panto/tui";
import {
  counted,
  head,
  hint,
  INDENT,
  indented,
  stringArg,
  type ToolCallState,
  type ToolRenderer,
} from "./tool_renderer.ts";

/** Diff lines a collapsed view shows at most. */
const COLLAPSED_DIFF_LINES = 16;
/** Context lines kept above the first change when a long diff is cut. */
const LEAD = 2;

/** One line of the diff: its kind, its number in the old or new file, its text. */
export interface DiffRow {
  /** `-` removed, `+` added, ` ` context, `⋮` a gap between hunks, `…` a note. */
  kind: "-" | "+" | " " | "⋮" | "…";
  /** The line's number (old file for removed and context lines, new file for added ones). */
  line: number | undefined;
  /** The line's text. */
  text: string;
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/**
 * Reads the diff of an edit result (the hunks after its first paragraph).
 *
 * @param result The edit tool's result text.
 * @returns The rows; empty when the text has no diff.
 */
export function parseEditDiff(result: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let oldLine = 0;
  let newLine = 0;
  for (const text of result.split("\n")) {
    const hunk = HUNK.exec(text);
    if (hunk) {
      if (rows.length > 0) rows.push({ kind: "⋮", line: undefined, text: "" });
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
    } else if (rows.length === 0 && oldLine === 0) {
      continue; // the summary paragraph before the first hunk
    } else if (text.startsWith("+")) {
      rows.push({ kind: "+", line: newLine++, text: text.slice(1) });
    } else if (text.startsWith("-")) {
      rows.push({ kind: "-", line: oldLine++, text: text.slice(1) });
    } else if (text.startsWith(" ")) {
      rows.push({ kind: " ", line: oldLine++, text: text.slice(1) });
      newLine++;
    } else if (text.startsWith("… (")) {
      rows.push({ kind: "…", line: undefined, text: text.slice(2) });
    }
  }
  return rows;
}

const COLORS: Readonly<Record<DiffRow["kind"], ThemeColor>> = {
  "-": "syntaxDeletion",
  "+": "syntaxAddition",
  " ": "muted",
  "⋮": "dim",
  "…": "dim",
};

/** Draws rows as `  12 - text`, long lines wrapped under their text. */
function drawRows(rows: readonly DiffRow[], width: number, theme: Theme): string[] {
  const digits = Math.max(...rows.map((row) => String(row.line ?? "").length), 1);
  const out: string[] = [];
  for (const row of rows) {
    const gutter = `${INDENT}${String(row.line ?? "").padStart(digits)} ${row.kind} `;
    const room = Math.max(1, width - visibleWidth(gutter));
    const color = COLORS[row.kind];
    wrapText(row.text, room).forEach((piece, i) => {
      const lead = i === 0 ? gutter : " ".repeat(visibleWidth(gutter));
      // A gutter wider than a very narrow terminal is cut with the rest.
      out.push(truncateToWidth(theme.fg(color, lead + piece), width, "…"));
    });
  }
  return out;
}

/**
 * The rows a collapsed view shows: from a little before the first change;
 * when the first added line lies further on, the start of the change, a
 * gap row, and the added lines.
 */
function collapsedRows(
  rows: readonly DiffRow[],
): { shown: DiffRow[]; above: number; below: number } {
  if (rows.length <= COLLAPSED_DIFF_LINES) return { shown: [...rows], above: 0, below: 0 };
  const firstChange = Math.max(0, rows.findIndex((row) => row.kind === "-" || row.kind === "+"));
  const firstAdded = rows.findIndex((row) => row.kind === "+");
  const from = Math.max(0, firstChange - LEAD);
  if (firstAdded < from + COLLAPSED_DIFF_LINES) {
    const to = Math.min(rows.length, from + COLLAPSED_DIFF_LINES);
    return { shown: rows.slice(from, to), above: from, below: rows.length - to };
  }
  const half = COLLAPSED_DIFF_LINES / 2;
  const to = Math.min(rows.length, firstAdded + half);
  const gap: DiffRow = {
    kind: "⋮",
    line: undefined,
    text: counted(firstAdded - from - half, "line"),
  };
  return {
    shown: [...rows.slice(from, from + half), gap, ...rows.slice(firstAdded, to)],
    above: from,
    below: rows.length - to,
  };
}

/** The change asked for, while the call streams or runs: old lines, then new ones (numbers unknown yet). */
function requestedChange(call: ToolCallState): DiffRow[] {
  const lines = (key: string, kind: "-" | "+"): DiffRow[] => {
    const text = stringArg(call, key);
    if (text === undefined || text === "") return [];
    return text.replace(/\n$/, "").split("\n").map((line) => ({
      kind,
      line: undefined,
      text: line,
    }));
  };
  return [...lines("oldText", "-"), ...lines("newText", "+")];
}

/** `+added -removed`: the diff's own totals when it was cut ("… (N more diff lines; +A −R lines in all)"). */
function diffCounts(rows: readonly DiffRow[]): string {
  for (const row of rows) {
    const totals = row.kind === "…" ? /\+(\d+) −(\d+) lines in all/.exec(row.text) : null;
    if (totals) return `+${totals[1]} -${totals[2]}`;
  }
  const added = rows.filter((row) => row.kind === "+").length;
  const removed = rows.filter((row) => row.kind === "-").length;
  return `+${added} -${removed}`;
}

/** The edit renderer. */
export const editView: ToolRenderer = {
  summary(call) {
    const path = stringArg(call, "path") ?? "";
    if (call.status !== "done") return path;
    const rows = parseEditDiff(call.result);
    return rows.length === 0 ? path : `${path} ${diffCounts(rows)}`;
  },
  body(call: ToolCallState, width: number, theme: Theme): string[] {
    if (call.isError) return head(indented(call.result, width, theme, "error"), call, theme, width);
    const rows = call.result === "" ? requestedChange(call) : parseEditDiff(call.result);
    if (rows.length === 0) return indented(call.result, width, theme, "muted");
    if (call.expanded) return drawRows(rows, width, theme);
    const { shown, above, below } = collapsedRows(rows);
    const out = drawRows(shown, width, theme);
    if (above > 0) out.unshift(hint(theme, `${counted(above, "line")} above`, width));
    if (below > 0) {
      out.push(hint(theme, `${counted(below, "more line")} (ctrl+o to expand)`, width));
    }
    return out;
  },
};
