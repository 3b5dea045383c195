/**
 * Making a component's line safe to draw: control bytes and cut-off
 * escape sequences dropped, the cursor marker taken out, the line cut to
 * the terminal's width.
 *
 * @module
 */
import { CURSOR_MARKER } from "./component.ts";
import { compactForeground } from "./sgr_compact.ts";
import { expandTabs, SGR_RESET, truncateToWidth, visibleWidth } from "./text_width.ts";

/** A line of printable ASCII only: drawn as is, one column per character. */
export const PLAIN_ASCII = /^[\x20-\x7e]*$/;

/**
 * An escape sequence, complete or cut short (CSI, OSC/APC/DCS… strings,
 * two-byte), or a control byte outside one. String bodies hold no control
 * bytes but tabs, so a BEL ends the string it terminates instead of being stripped.
 */
const ESCAPE_OR_CONTROL =
  // deno-lint-ignore no-control-regex
  /\x1b(?:\[[0-?]*[ -/]*[@-~]?|[\]_P^X][^\x00-\x08\x0a-\x1f\x7f]*(?:\x07|\x1b\\)?|[@-Z\\-_]?)|[\x00-\x1a\x1c-\x1f\x7f]/g;

/**
 * Drops control bytes (they would move the cursor) and escape sequences
 * that were cut short (they would swallow the text after them); keeps
 * complete escape sequences, BEL-terminated ones included.
 *
 * @example
 * ```ts ignore
 * dropControls("a\x07b\x1b[31mc\x1b["); // "ab\x1b[31mc"
 * ```
 */
export function dropControls(text: string): string {
  return text.replace(ESCAPE_OR_CONTROL, (sequence) => {
    if (sequence[0] !== "\x1b") return "";
    const introducer = sequence[1];
    if (introducer === undefined) return "";
    if (introducer === "[") return /[@-~]$/.test(sequence.slice(2)) ? sequence : "";
    if ("]_P^X".includes(introducer)) {
      return sequence.endsWith("\x07") || sequence.endsWith("\x1b\\") ? sequence : "";
    }
    return sequence;
  });
}

/** A styled line as drawn: escapes checked, cut to the width, and where its cursor marker was. */
export interface SanitizedLine {
  /** The line to write. */
  text: string;
  /** Column of the cursor marker, or null. */
  marker: number | null;
  /** Whether it was wider than the terminal and cut. */
  truncated: boolean;
}

/**
 * Sanitizes a line that is not plain ASCII for a terminal `width` columns wide.
 *
 * @example
 * ```ts ignore
 * sanitizeStyled("\x1b[1mwide line\x1b[0m", 4).text; // "\x1b[1mwide\x1b[0m"
 * ```
 */
export function sanitizeStyled(line: string, width: number): SanitizedLine {
  // The marker is measured after tabs are expanded, so a tab before it counts.
  let text = dropControls(expandTabs(line));
  const at = text.indexOf(CURSOR_MARKER);
  const marker = at === -1 ? null : visibleWidth(text.slice(0, at));
  if (at !== -1) text = text.replaceAll(CURSOR_MARKER, "");
  const truncated = visibleWidth(text) > width;
  if (truncated) text = truncateToWidth(text, width);
  if (!text.includes("\x1b")) text = trimSpaces(text);
  else text = compactForeground(text.endsWith(SGR_RESET) ? text : text + SGR_RESET);
  return { text, marker, truncated };
}

/**
 * Drops trailing spaces of an unstyled line: invisible, but terminals
 * disagree on whether they count when a narrower screen splits the line
 * (tmux does not count them), and the engine must know how many rows each
 * line became.
 *
 * @example
 * ```ts ignore
 * trimSpaces("done   "); // "done"
 * ```
 */
export function trimSpaces(line: string): string {
  return line.endsWith(" ") ? line.replace(/ +$/, "") : line;
}
