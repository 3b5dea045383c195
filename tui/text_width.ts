/**
 * Terminal column arithmetic for styled text: widths, truncation and column
 * slices that skip ANSI escape sequences and never split a grapheme cluster.
 * Widths come from `string-width`, which agrees with xterm's
 * `unicode-graphemes` policy (CJK and emoji are two columns, ZWJ sequences,
 * flags and skin tones are one cluster). A tab is {@linkcode TAB_WIDTH}
 * columns, the spaces {@linkcode expandTabs} (and so the renderer) turns it into.
 *
 * @module
 */
import stringWidth from "string-width";

/** CSI, OSC/APC/DCS/PM/SOS strings (BEL or ST terminated) and two-byte escapes. */
// deno-lint-ignore no-control-regex
const ANSI_PATTERN = /\x1b(?:\[[0-?]*[ -/]*[@-~]|[\]_P^X][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])/g;
const PLAIN_ASCII = /^[\x20-\x7e]*$/;
/** Printable ASCII and box drawing: characters `string-width` counts one column each. */
const ONE_COLUMN_EACH = /^[\x20-\x7e\u2500-\u257f]*$/;
/** An SGR sequence that resets every attribute. */
// deno-lint-ignore no-control-regex
const SGR_RESET_PATTERN = /^\x1b\[0*m$/;
// deno-lint-ignore no-control-regex
const SGR_PATTERN = /^\x1b\[[\d;:]*m$/;

/** Appended where styled text is cut, so the style never bleeds past it. */
export const SGR_RESET = "\x1b[0m";

/** Columns a tab occupies: it is drawn as this many spaces, not moved to a tab stop. */
export const TAB_WIDTH = 3;
const TAB_SPACES = " ".repeat(TAB_WIDTH);

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const graphemeWidths = new Map<string, number>();
const GRAPHEME_CACHE_LIMIT = 4096;

/**
 * Terminal cell width of one grapheme cluster (0, 1 or 2), consistent with
 * `string-width`; memoized, since non-ASCII clusters repeat a lot.
 *
 * @example
 * ```ts
 * import { graphemeWidth } from "./text_width.ts";
 * console.assert(graphemeWidth("a") === 1 && graphemeWidth("界") === 2);
 * ```
 *
 * @param grapheme One grapheme cluster, without escape sequences.
 * @returns Its width in columns.
 */
export function graphemeWidth(grapheme: string): number {
  if (grapheme.length === 1) {
    const code = grapheme.charCodeAt(0);
    if (code >= 0x20 && code < 0x7f) return 1;
    if (grapheme === "\t") return TAB_WIDTH;
  }
  let width = graphemeWidths.get(grapheme);
  if (width === undefined) {
    width = stringWidth(grapheme);
    if (graphemeWidths.size >= GRAPHEME_CACHE_LIMIT) graphemeWidths.clear();
    graphemeWidths.set(grapheme, width);
  }
  return width;
}

/** One piece of styled text: either an escape sequence or plain text. */
interface Token {
  escape: boolean;
  value: string;
}

function* tokens(text: string): Generator<Token> {
  let position = 0;
  for (const match of text.matchAll(ANSI_PATTERN)) {
    if (match.index > position) yield { escape: false, value: text.slice(position, match.index) };
    yield { escape: true, value: match[0] };
    position = match.index + match[0].length;
  }
  if (position < text.length) yield { escape: false, value: text.slice(position) };
}

/**
 * The number of terminal columns `text` occupies, ignoring escape sequences.
 *
 * @example
 * ```ts
 * import { visibleWidth } from "@panto/tui";
 * console.assert(visibleWidth("\x1b[1mhi\x1b[0m") === 2);
 * console.assert(visibleWidth("你好") === 4);
 * console.assert(visibleWidth("👨‍👩‍👧") === 2);
 * console.assert(visibleWidth("ab\tcd") === 7); // a tab is drawn as 3 spaces
 * ```
 */
export function visibleWidth(text: string): number {
  if (PLAIN_ASCII.test(text)) return text.length;
  let width = 0;
  for (const token of tokens(text)) {
    if (token.escape) continue;
    // Table borders and styled ASCII are most of what is measured: one column per unit.
    if (ONE_COLUMN_EACH.test(token.value)) width += token.value.length;
    else width += stringWidth(token.value) + TAB_WIDTH * tabCount(token.value);
  }
  return width;
}

function tabCount(text: string): number {
  let count = 0;
  for (let at = text.indexOf("\t"); at !== -1; at = text.indexOf("\t", at + 1)) count++;
  return count;
}

/**
 * Replaces each tab in the printable text with {@linkcode TAB_WIDTH} spaces,
 * leaving escape sequences byte for byte (a tab inside an OSC 8 link's URL
 * stays a tab).
 *
 * @example
 * ```ts
 * import { expandTabs } from "./text_width.ts";
 * console.assert(expandTabs("a\tb") === "a   b");
 * console.assert(expandTabs("\x1b]0;x\ty\x07") === "\x1b]0;x\ty\x07");
 * ```
 */
export function expandTabs(text: string): string {
  if (!text.includes("\t")) return text;
  let out = "";
  for (const token of tokens(text)) {
    out += token.escape ? token.value : token.value.replaceAll("\t", TAB_SPACES);
  }
  return out;
}

/**
 * `text` without its escape sequences: what the terminal shows.
 *
 * @example
 * ```ts
 * import { stripEscapes } from "./text_width.ts";
 * console.assert(stripEscapes("\x1b[1mhi\x1b[22m there") === "hi there");
 * ```
 */
export function stripEscapes(text: string): string {
  return text.replace(ANSI_PATTERN, "");
}

/**
 * Cuts `text` to at most `maxWidth` columns, keeping escape sequences and
 * whole grapheme clusters, and appending `ellipsis` when something was cut.
 * A cut styled line ends with an SGR reset.
 *
 * @example
 * ```ts
 * import { truncateToWidth, visibleWidth } from "@panto/tui";
 * console.assert(truncateToWidth("hello world", 8, "…") === "hello w…");
 * console.assert(visibleWidth(truncateToWidth("你好世界", 5)) === 4);
 * ```
 */
export function truncateToWidth(text: string, maxWidth: number, ellipsis = ""): string {
  if (visibleWidth(text) <= maxWidth) return text;
  const ellipsisWidth = visibleWidth(ellipsis);
  const budget = Math.max(0, maxWidth - ellipsisWidth);
  let out = "";
  let width = 0;
  let styled = false;
  outer: for (const token of tokens(text)) {
    if (token.escape) {
      out += token.value;
      styled = true;
      continue;
    }
    for (const { segment } of segmenter.segment(token.value)) {
      const w = graphemeWidth(segment);
      if (width + w > budget) break outer;
      out += segment;
      width += w;
    }
  }
  const tail = ellipsisWidth <= maxWidth ? ellipsis : "";
  return styled ? `${out}${SGR_RESET}${tail}` : out + tail;
}

/**
 * The columns `[start, end)` of `text`, as text that can be printed on its
 * own: the SGR state active at `start` is re-emitted first, and a wide
 * cluster cut by either edge becomes spaces. The result is at most
 * `end - start` columns wide (less when `text` is shorter).
 *
 * @example
 * ```ts
 * import { sliceColumns } from "@panto/tui";
 * console.assert(sliceColumns("abcdef", 2, 4) === "cd");
 * console.assert(sliceColumns("你好", 1, 3) === "  "); // both clusters cut
 * ```
 */
export function sliceColumns(text: string, start: number, end: number): string {
  if (PLAIN_ASCII.test(text)) return text.slice(start, end);
  let out = "";
  let pendingStyle = "";
  let column = 0;
  outer: for (const token of tokens(text)) {
    if (token.escape) {
      if (column < start) {
        // Only SGR state carries into the slice; a reset clears what came before.
        if (SGR_RESET_PATTERN.test(token.value)) pendingStyle = "";
        else if (SGR_PATTERN.test(token.value)) pendingStyle += token.value;
      } else out += token.value;
      continue;
    }
    for (const { segment } of segmenter.segment(token.value)) {
      if (column >= end) break outer;
      const w = graphemeWidth(segment);
      const next = column + w;
      if (next > start) {
        const whole = column >= start && next <= end;
        out += whole ? segment : " ".repeat(Math.min(next, end) - Math.max(column, start));
      }
      column = next;
    }
  }
  return pendingStyle + out;
}
