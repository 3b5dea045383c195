/**
 * The differential renderer: what the terminal shows, per content line,
 * and the frames that bring it up to date (see `docs/tui.md`, the
 * rendering model).
 *
 * @module
 */
import type { Component } from "./component.ts";
import { type Container, lastRenderChildEnds, lastRenderCut } from "./container.ts";
import { ContentLines } from "./content_lines.ts";
import {
  AUTOWRAP_OFF,
  AUTOWRAP_ON,
  CLEAR_BELOW,
  CLEAR_LINE,
  HIDE_CURSOR,
  HOME,
  SHOW_CURSOR,
  SYNC_BEGIN,
  SYNC_END,
} from "./control_sequences.ts";
import type { FullScreen } from "./full_screen.ts";
import { ImageRowCache, rowsShown } from "./image_row_cache.ts";
import { sanitizeStyled } from "./line_sanitize.ts";
import { lineUpdate } from "./line_update.ts";
import { compositeLine } from "./overlay.ts";
import type { OverlayStack, PlacedOverlay } from "./overlay_stack.ts";
import {
  blockAnchor,
  locate,
  newTop,
  reflowed,
  type ScreenView,
  topAfterResize,
} from "./relocate.ts";
import type { ScreenPosition, Terminal } from "./terminal.ts";
import { imageRemoval } from "./terminal_image.ts";
import { TranscriptCover } from "./transcript_cover.ts";

/** What a row shows when the terminal may have changed it (after a resize): always rewritten. */
const UNKNOWN_ROW = "\x00";

/** Fewest characters of unchanged lines worth moving down with insert-line rather than rewriting. */
const MIN_SHIFTED_TAIL = 16;

/** Debug counters of a {@linkcode TUI}. */
export interface RenderStats {
  /** Frames that produced output. */
  frames: number;
  /** Bytes (UTF-16 code units) handed to the terminal. */
  bytesWritten: number;
  /** Lines (re)written. */
  linesWritten: number;
  /** Lines wider than the terminal that were cut to fit (a component bug, not a crash). */
  truncatedLines: number;
  /** Changed lines that had already scrolled into scrollback, so could not be updated. */
  frozenLineEdits: number;
  /** Repaints of the whole visible screen (resize, resume, forced render, shrink of a full screen). */
  screenRepaints: number;
  /** Duration of the last frame in milliseconds (render + diff + write). */
  lastFrameMs: number;
}

/** What a frame must do beyond drawing what changed. */
export interface FrameRequest {
  /** Re-render every component. */
  invalidate: boolean;
  /** Repaint the visible screen (a forced render, a resize). */
  repaint: boolean;
  /** Paint the visible tail below what the shell wrote (after a suspend or a lent terminal). */
  resume: boolean;
  /** Scroll the rows on screen into history and draw the content on a fresh screen. */
  history: boolean;
  /** Where the terminal said the cursor is after the last resize, or null. */
  cursorReport: ScreenPosition | null;
  /** The focused component: its cursor marker places the hardware cursor. */
  focused: Component | null;
}

/** Where the screen stands, besides what each line shows. */
interface ScreenState {
  /** Whether a frame was painted. */
  painted: boolean;
  /** The size the screen was painted at. */
  width: number;
  rows: number;
  /** Content line the hardware cursor is on, and its column. */
  cursorLine: number;
  cursorCol: number;
  /**
   * The content line on the screen's top row, or a later one: lines above it
   * are the terminal's history and are never written again. After a resize
   * the terminal may show earlier lines above it; they are left alone.
   */
  top: number;
  /**
   * Rows above line `top` on the screen that show no line of the content
   * as it is now: blank rows put there so the last line stays on the
   * bottom row, or the tail of a line drawn before a resize. They leave the
   * screen first when it scrolls (into history: their text is not there yet).
   */
  lead: number;
  /** How many of the lead rows, from the top, are blank: deleted rather than scrolled into history. */
  blankLead: number;
  /**
   * Whether the row of line `top` is only a guess (a resize the terminal did
   * not report the cursor after): blank rows are then not inserted above it,
   * since rows the terminal pulled back from history could be pushed off the bottom.
   */
  rowGuessed: boolean;
  /**
   * Whether lines went to history since the screen was last fresh: the
   * screen is then all ours (content, lead rows) and the last line belongs
   * on the bottom row. A fresh screen (the first paint, a replaced
   * transcript) starts at its top, as any program's output.
   */
  filled: boolean;
  /** Whether the hardware cursor is shown (null: unknown). */
  cursorShown: boolean | null;
  /** The content lines overlays were drawn over in the last frame. */
  overlayRange: { first: number; last: number } | null;
}

/**
 * Keeps what the terminal shows and writes the difference: each frame
 * renders the root, diffs against the screen, and writes the bytes in one
 * synchronized write. It never clears scrollback.
 *
 * @example
 * ```ts ignore
 * const renderer = new ScreenRenderer(root, terminal, stats, overlays);
 * renderer.frame({ invalidate: false, repaint: false, resume: false, history: false, cursorReport: null, focused: null });
 * renderer.flush();
 * ```
 */
export class ScreenRenderer {
  readonly #root: Container;
  readonly #terminal: Terminal;
  readonly #stats: RenderStats;
  readonly #overlays: OverlayStack;
  readonly #images = new ImageRowCache();
  /** The content's lines as drawn. */
  readonly #content: ContentLines;
  readonly #cover = new TranscriptCover();

  // What the terminal shows. Indices are content lines (line 0 = first line we drew).
  #screen: string[] = [];
  /** Where the screen stands (see {@linkcode ScreenState}). */
  #s: ScreenState = {
    painted: false,
    width: 0,
    rows: 0,
    cursorLine: 0,
    cursorCol: 0,
    top: 0,
    lead: 0,
    blankLead: 0,
    rowGuessed: false,
    filled: false,
    cursorShown: null,
    overlayRange: null,
  };
  #out = "";
  /** What the terminal showed before the frame being drawn: a frame not written goes back to it. */
  #before: (() => void) | null = null;

  /**
   * @param root The container rendered.
   * @param terminal The terminal drawn on.
   * @param stats Counters updated as frames are written.
   * @param overlays The overlays drawn over the content.
   */
  constructor(root: Container, terminal: Terminal, stats: RenderStats, overlays: OverlayStack) {
    this.#root = root;
    this.#terminal = terminal;
    this.#stats = stats;
    this.#overlays = overlays;
    this.#content = new ContentLines(this.#images, stats);
  }

  /** Whether a frame was painted. */
  get painted(): boolean {
    return this.#s.painted;
  }

  /** The content line on the screen's top row (lines before it are history). */
  get top(): number {
    return this.#s.top;
  }

  /**
   * Draws a frame into the pending output. Returns whether the overlays
   * must be placed again (the screen moved under them).
   */
  frame(request: FrameRequest): boolean {
    this.#before = this.#saved();
    const width = this.#terminal.columns;
    const rows = this.#terminal.rows;
    const previous = { columns: this.#s.width, rows: this.#s.rows };
    const resized = this.#s.painted && (width !== this.#s.width || rows !== this.#s.rows);
    if (request.invalidate) this.#root.invalidate();
    this.#content.setWidth(width);
    const childEnds = lastRenderChildEnds(this.#root).map((end) => this.#cover.shown(end));
    this.#s.width = width;
    this.#s.rows = rows;
    const lines = this.#root.render(width);
    const ends = lastRenderChildEnds(this.#root);
    const firstBaseChange = this.#cover.update(
      this.#content.update(lines, lastRenderCut(this.#root)),
      lines.length,
      ends.length > 1 ? ends[0]! : lines.length,
      // The terminal moves rows on a resize: covered lines are shown again, where they go.
      request.history || !this.#s.painted || request.resume || resized,
      this,
    );
    const shownLength = lines.length - this.#cover.covered;
    const overlayTop = this.#viewportTop(shownLength);
    const overlays = this.#overlays.place(overlayTop, this.#s.width, this.#s.rows);
    const length = Math.max(shownLength, ...overlays.map((o) => o.firstLine + o.lines.length));
    const composed = (line: number) => this.#compose(line, overlays);

    if (!this.#s.painted || request.resume) {
      this.#freshPaint(length, composed, this.#s.painted);
    } else if (request.history) {
      this.#moveScreenToHistory(length, composed, childEnds);
    } else if (resized || request.repaint) {
      this.#repaintScreen(length, composed, previous, request.cursorReport);
    } else {
      const start = this.#diffStart(firstBaseChange, overlays, length);
      if (overlays.length === 0 && this.#s.overlayRange === null) {
        this.#shiftTail(length, composed, start);
      }
      this.#update(length, composed, start);
    }
    this.#anchorBottom(length, composed);
    this.#s.painted = true;
    this.#s.overlayRange = overlays.length === 0 ? null : {
      first: Math.min(...overlays.map((o) => o.firstLine)),
      last: Math.max(...overlays.map((o) => o.firstLine + o.lines.length)),
    };
    this.#placeCursor(this.#cursorTarget(overlays, request.focused));
    // Overlays sit on the screen: if the screen moved under them, place them again.
    return overlays.length > 0 && overlayTop !== this.#viewportTop(shownLength);
  }

  /**
   * Drops the frame drawn since the last {@linkcode ScreenRenderer.frame}
   * without writing it: what the terminal shows is as before it. The next
   * frame must repaint (it compares every line with the screen).
   */
  discard(): void {
    this.#before?.();
    this.#out = "";
  }

  /** Draws a frame of the component shown on the alternate screen. */
  fullScreenFrame(shown: FullScreen): void {
    const width = this.#terminal.columns;
    this.#out += shown.frame(
      width,
      this.#terminal.rows,
      (line) => sanitizeStyled(line, width).text,
    );
    if (this.#s.cursorShown !== false) this.#out += HIDE_CURSOR;
    this.#s.cursorShown = false;
  }

  /** Leaves the alternate screen: the normal one is back as it was. */
  leaveFullScreen(shown: FullScreen): void {
    this.#out += shown.leave();
    // The terminal restored the cursor, not whether it was shown.
    this.#s.cursorShown = null;
    this.flush();
  }

  /**
   * Clears our rows on screen (not pushed into history) before another
   * program takes the terminal: the tail painted again afterwards is the
   * only copy of them.
   */
  clearScreen(): void {
    if (!this.#s.painted) return;
    this.#eraseFrom(this.#s.top);
    this.#screen.length = Math.min(this.#screen.length, this.#s.top);
  }

  /** Leaves the cursor at column 0 of the line below the content, visible. */
  park(): void {
    if (!this.#s.painted) return;
    this.#moveTo(this.#screen.length);
    this.#out += AUTOWRAP_ON + SHOW_CURSOR;
    this.#s.cursorShown = true;
    this.flush();
  }

  /** Writes the pending output in one synchronized write; returns whether there was any. */
  flush(): boolean {
    if (this.#out === "") return false;
    const frame = SYNC_BEGIN + this.#out + SYNC_END;
    this.#out = "";
    this.#stats.frames++;
    this.#stats.bytesWritten += frame.length;
    this.#terminal.write(frame);
    return true;
  }

  /** The content line on the bottom row (counting lead rows above `top`). */
  bottomLine(): number {
    return this.#s.top - this.#s.lead + this.#s.rows - 1;
  }

  /** What `top` becomes when content line `line` is brought onto the screen (the screen scrolls). */
  topWhenShown(line: number): number {
    const scrolled = Math.max(0, line - this.bottomLine());
    return this.#s.top + Math.max(0, scrolled - this.#s.lead);
  }

  /** A function putting the screen's state back as it is now. */
  #saved(): () => void {
    const [screen, state, cover] = [[...this.#screen], { ...this.#s }, this.#cover.saved()];
    return () => {
      [this.#screen, this.#s] = [screen, state];
      cover();
    };
  }

  /** The screen as the relocating searches see it. */
  #view(): ScreenView {
    return {
      screen: this.#screen,
      top: this.#s.top,
      lead: this.#s.lead,
      rows: this.#s.rows,
      width: this.#s.width,
      cursorLine: this.#s.cursorLine,
      cursorCol: this.#s.cursorCol,
      rowsAt: (text) => Math.max(1, Math.ceil(this.#images.width(text) / this.#s.width)),
    };
  }

  /** The content line overlays take as the screen's top row, for content `length` lines long. */
  #viewportTop(length: number): number {
    return Math.max(this.#s.top - this.#s.lead, length - this.#s.rows);
  }

  #compose(line: number, overlays: readonly PlacedOverlay[]): string {
    let text = this.#content.drawn[this.#cover.source(line)] ?? "";
    // An image under an overlay would cover it (Kitty) or be cut into: hidden meanwhile.
    if (overlays.length > 0 && this.#imageUnder(line, text, overlays)) text = "";
    for (const overlay of overlays) {
      const row = line - overlay.firstLine;
      if (row < 0 || row >= overlay.lines.length) continue;
      text = compositeLine(text, overlay.lines[row]!, overlay.col, overlay.width, this.#s.width);
    }
    return text;
  }

  /** Whether `text`, content line `line`, is an image row whose image an overlay covers. */
  #imageUnder(line: number, text: string, overlays: readonly PlacedOverlay[]): boolean {
    const image = this.#images.parse(text);
    if (image === null) return false;
    return overlays.some((o) =>
      o.firstLine <= line && o.firstLine + o.lines.length > line - image.above
    );
  }

  /**
   * Removes the images drawn by image rows on screen from content line
   * `first` on, unless `kept(line)`: a Kitty image stays through text
   * written over it, so it is deleted; an iTerm2 image is cells, so its rows
   * are cleared. Either way its rows then show blank lines. Runs before any
   * line is written, so it never clears a row written in the same frame.
   */
  #removeImages(first: number, kept: (line: number) => boolean): void {
    for (let line = Math.max(first, this.#s.top); line < this.#screen.length; line++) {
      const image = this.#images.parse(this.#screen[line]!);
      if (image === null || kept(line)) continue;
      this.#out += imageRemoval(image);
      if (image.kittyId === null) {
        for (let row = Math.max(this.#s.top, line - image.above); row <= line; row++) {
          this.#moveTo(row);
          this.#out += CLEAR_LINE;
        }
      }
      this.#screen[line] = "";
    }
  }

  /** The first content line that may need rewriting. */
  #diffStart(firstBaseChange: number, overlays: readonly PlacedOverlay[], length: number): number {
    let start = firstBaseChange;
    if (this.#s.overlayRange !== null) start = Math.min(start, this.#s.overlayRange.first);
    for (const overlay of overlays) start = Math.min(start, overlay.firstLine);
    if (length !== this.#screen.length) start = Math.min(start, length, this.#screen.length);
    return start;
  }

  /** The first line at or after `start` that differs from what the terminal shows. */
  #firstDifference(length: number, composed: (line: number) => string, start: number): number {
    const shared = Math.min(length, this.#screen.length);
    let line = start;
    while (line < shared && composed(line) === this.#screen[line]) line++;
    return line;
  }

  /**
   * When the content grew above lines that did not change (an answer
   * streaming above the editor and footer), moves those lines down with
   * insert-line (`CSI n L`) instead of rewriting them: the screen first
   * scrolls by what the content grew beyond it (line feeds, so the top rows
   * go to history as usual), then blank rows are inserted where the new
   * lines go, pushing the unchanged tail down. Only when every changed line
   * stays on screen (one scrolled away first would reach history stale) and
   * the tail is on screen after the scroll.
   */
  #shiftTail(length: number, composed: (line: number) => string, start: number): void {
    const old = this.#screen.length;
    const grown = length - old;
    if (grown <= 0 || grown >= this.#s.rows) return;
    const top = this.topWhenShown(length - 1);
    if (start < top) return;
    const lowest = Math.max(start, top);
    let tailStart = old;
    let saved = 0;
    while (tailStart > lowest && composed(tailStart - 1 + grown) === this.#screen[tailStart - 1]) {
      tailStart--;
      saved += this.#screen[tailStart]!.length;
    }
    if (saved < MIN_SHIFTED_TAIL) return;
    // Whether a terminal moves images with inserted lines varies: images are drawn again instead.
    if (this.#screen.slice(tailStart, old).some((text) => this.#images.parse(text) !== null)) {
      return;
    }
    this.#moveTo(length - 1);
    this.#moveTo(tailStart);
    this.#out += `\x1b[${grown}L`;
    const tail = this.#screen.slice(tailStart, old);
    this.#screen.fill("", tailStart, old);
    this.#screen.push(...Array<string>(grown).fill(""));
    this.#screen.splice(tailStart + grown, tail.length, ...tail);
  }

  /** An ordinary frame: rewrite what changed on screen. */
  #update(length: number, composed: (line: number) => string, start: number): void {
    if (start >= this.#s.top) return this.#diff(length, composed, start);
    const changed = this.#firstDifference(length, composed, start);
    if (changed >= this.#s.top) return this.#diff(length, composed, changed);
    // A change in lines that are already history (ctrl+o on a tool call that scrolled
    // away). History keeps the old version; the screen goes on from where the lines it
    // shows went in the new content.
    for (let line = changed; line < Math.min(this.#s.top, length); line++) {
      if (composed(line) !== this.#screen[line]) this.#stats.frozenLineEdits++;
    }
    const top = newTop(this.#view(), length, composed, changed, this.#s.top) ?? changed;
    this.#remap(top, composed, (line) => this.#screen[line]);
    this.#diff(length, composed, this.#s.top);
  }

  /**
   * Rewrites the changed lines from `start`: frozen ones (already history)
   * are only recorded, the ones on screen are updated in place, new ones
   * are added below (scrolling the screen), and rows of lines that went
   * away are cleared.
   */
  #diff(length: number, composed: (line: number) => string, start: number): void {
    this.#removeImages(start, (line) => line < length && composed(line) === this.#screen[line]);
    for (let line = start; line < length; line++) {
      const text = composed(line);
      if (text === this.#screen[line] && line < this.#screen.length) continue;
      if (line < this.#s.top) {
        // Already in scrollback: the terminal's copy stays as it was.
        this.#stats.frozenLineEdits++;
        this.#screen[line] = text;
        continue;
      }
      this.#writeLine(line, text);
    }
    if (length < this.#screen.length) this.#eraseFrom(length);
    this.#screen.length = length;
  }

  #writeLine(line: number, text: string): void {
    const previous = line < this.#screen.length ? this.#screen[line] : undefined;
    this.#moveTo(line);
    const image = this.#images.parse(text);
    if (image !== null) this.#out += CLEAR_LINE + (rowsShown(line, image, this.#s.top) ? text : "");
    else if (previous === undefined) this.#out += text;
    else if (previous === UNKNOWN_ROW) this.#out += CLEAR_LINE + text;
    else this.#out += lineUpdate(previous, text, this.#s.width);
    this.#screen[line] = text;
    this.#stats.linesWritten++;
  }

  /**
   * Clears the rows of content lines from `line` on. Never erases the
   * display from the screen's top-left corner: tmux (scroll-on-clear) and
   * other terminals push the whole screen into history when that happens.
   */
  #eraseFrom(line: number): void {
    const first = Math.max(line, this.#s.top);
    if (first >= this.#screen.length) return;
    this.#removeImages(first, () => false);
    this.#moveTo(first);
    if (first === this.#s.top) {
      this.#out += CLEAR_LINE;
      if (first + 1 >= this.#screen.length) return;
      this.#moveTo(first + 1);
    }
    this.#out += CLEAR_BELOW;
  }

  /**
   * Paints from the cursor position: all lines on the first frame, or the
   * visible tail after a resume (the shell wrote below our last frame).
   */
  #freshPaint(length: number, composed: (line: number) => string, tailOnly: boolean): void {
    if (tailOnly) this.#stats.screenRepaints++;
    const first = tailOnly ? Math.max(0, length - this.#s.rows) : 0;
    this.#screen = [];
    for (let line = 0; line < length; line++) this.#screen[line] = composed(line);
    const painted = this.#screen.slice(first).map((text, at) => {
      const image = this.#images.parse(text);
      const line = first + at;
      return image === null || rowsShown(line, image, Math.max(first, line - this.#s.rows + 1))
        ? text
        : "";
    });
    this.#out += AUTOWRAP_OFF + painted.join("\r\n");
    this.#stats.linesWritten += length - first;
    this.#s.cursorLine = Math.max(0, length - 1);
    this.#s.top = Math.max(0, length - this.#s.rows);
    this.#s.lead = 0;
    this.#s.blankLead = 0;
    this.#s.rowGuessed = false;
    this.#s.filled = this.#s.top > 0;
  }

  /**
   * Repaints the screen in place after a resize or a forced render: every
   * row is overwritten, none is pushed into history. On a resize the
   * terminal has moved rows itself: a shorter screen drops rows below the
   * cursor and then from the top, a narrower one splits long lines (more
   * rows, the top ones go to history), a taller one may pull rows back from
   * history. We assume the most rows left at the top, so every line we paint
   * is on screen and none of them is already in history.
   */
  #repaintScreen(
    length: number,
    composed: (line: number) => string,
    previous: { columns: number; rows: number },
    report: ScreenPosition | null,
  ): void {
    this.#stats.screenRepaints++;
    // Every row is written again: the images on screen are drawn again where they now go.
    for (const text of this.#screen.slice(this.#s.top)) {
      const image = this.#images.parse(text);
      if (image !== null) this.#out += imageRemoval(image);
    }
    const oldLength = this.#screen.length;
    const view = this.#view();
    const located = report === null ? null : locate(view, report);
    const resized = previous.rows !== this.#s.rows || previous.columns !== this.#s.width;
    const oldTop = located?.line ?? (resized ? topAfterResize(view) : this.#s.top);
    const kept = this.#firstDifference(length, composed, 0);
    let top = oldTop;
    if (kept < oldTop) {
      // Lines above the screen changed (or re-wrapped to the new width): find where the
      // lines on screen went, else estimate where the first line not in history went.
      top = newTop(view, length, composed, kept, oldTop) ??
        (previous.columns === this.#s.width
          ? kept
          : kept + Math.round((oldTop - kept) * (length - kept) / Math.max(1, oldLength - kept)));
    }
    let rowOfTop = 0;
    let first = oldTop;
    const split = located === null && reflowed(view, previous.columns);
    const anchor = located === null || previous.columns === this.#s.width
      ? null
      : blockAnchor(view, located, length, composed, previous.columns);
    if (anchor !== null) {
      // The rows above the first block that starts on screen keep the old lines, as the
      // terminal re-wrapped them (their text is in no other row); the block and what
      // follows are drawn at the new width.
      [first, top, rowOfTop] = [anchor.oldLine, anchor.line, anchor.row];
      this.#out += `\x1b[${rowOfTop + 1};1H`;
      this.#s.cursorLine = first;
    } else if (located !== null) {
      // The rows above hold the end of a split line or lines pulled back from history.
      rowOfTop = located.row;
      this.#out += `\x1b[${rowOfTop + 1};1H`;
      this.#s.cursorLine = oldTop;
    } else if (split) {
      // Rows above the cursor hold split lines: cursor moves relative to it would be off.
      // Paint from the top-left corner instead (a cursor move, not an erase).
      this.#out += HOME;
      this.#s.cursorLine = oldTop;
    }
    if (located !== null || split) {
      [this.#s.lead, this.#s.blankLead, this.#s.rowGuessed] = [rowOfTop, 0, false];
    } else if (resized) {
      // Painted relative to a cursor the terminal moved without saying where: rows are a
      // guess until a frame paints from a known row.
      [this.#s.lead, this.#s.blankLead, this.#s.rowGuessed] = [0, 0, true];
    } // else a forced repaint: nothing moved, the rows above the first line stay as they are.
    this.#s.top = first;
    this.#remap(top, composed, () => UNKNOWN_ROW, this.#s.rows - this.#s.lead);
    this.#diff(length, composed, this.#s.top);
  }

  /**
   * Renumbers the screen so that its top row shows content line `top`:
   * each row keeps what it shows (`shown(old line)`), lines above become
   * frozen history, and the cursor stays on its row. `rowCount` rows are
   * known to exist below the top.
   */
  #remap(
    top: number,
    composed: (line: number) => string,
    shown: (line: number) => string | undefined,
    rowCount = Math.min(this.#screen.length - this.#s.top, this.#s.rows - this.#s.lead),
  ): void {
    const rows: string[] = [];
    for (let row = 0; row < rowCount; row++) rows.push(shown(this.#s.top + row) ?? UNKNOWN_ROW);
    this.#s.cursorLine += top - this.#s.top;
    this.#screen.length = top;
    for (let line = 0; line < top; line++) this.#screen[line] = composed(line);
    this.#screen.push(...rows);
    this.#s.top = top;
  }

  /**
   * The content was replaced (a new session): the old lines of the child
   * holding the first change (the transcript) scroll into history, each
   * once, instead of being overwritten; the children after it (editor,
   * footer) are erased and drawn again rather than kept as copies. The new
   * content is drawn whole on a fresh screen, as a new program's would be.
   * `childEnds` are where the children's lines ended in the old frame.
   */
  #moveScreenToHistory(
    length: number,
    composed: (line: number) => string,
    childEnds: readonly number[],
  ): void {
    const changed = this.#firstDifference(length, composed, 0);
    const end = Math.min(
      childEnds.find((childEnd) => childEnd > changed) ?? this.#screen.length,
      this.#screen.length,
    );
    this.#eraseFrom(end);
    // Rows above the first line on screen (blank, or old lines a resize left) go too.
    if (end > this.#s.top || this.#s.lead > 0) {
      // The cursor ends on the bottom row, so the rows are known again.
      this.#moveTo(Math.max(end, this.#s.top) - 1 + this.#s.rows);
      this.#s.rowGuessed = false;
    }
    this.#s.filled = false;
    const blank = this.#s.top;
    this.#remap(0, composed, (line) => line >= blank ? "" : undefined);
    this.#diff(length, composed, this.#s.top);
  }

  /** Moves the cursor to column 0 of content line `target`; rows below the screen scroll it. */
  #moveTo(target: number): void {
    // Blank rows put at the top are deleted, not scrolled: history gets no blank lines from them.
    const blank = Math.min(this.#s.blankLead, target - this.bottomLine());
    if (blank > 0) {
      this.#toRowZero(`\x1b[${blank}M`);
      this.#s.lead -= blank;
      this.#s.blankLead -= blank;
      this.#s.cursorLine = this.#s.top - this.#s.lead;
    }
    const from = this.#s.cursorLine;
    if (target < from) this.#out += `\x1b[${from - target}A\r`;
    // Line feeds, not cursor-down: at the bottom they scroll, so a row always exists.
    else if (target > from) this.#out += "\r\n".repeat(target - from);
    else this.#out += "\r";
    this.#s.cursorLine = target;
    this.#s.cursorCol = 0;
    const top = this.topWhenShown(target);
    if (target > this.bottomLine()) this.#s.filled = true;
    this.#s.lead = Math.max(0, this.#s.lead - Math.max(0, target - this.bottomLine()));
    this.#s.blankLead = Math.min(this.#s.blankLead, this.#s.lead);
    this.#s.top = top;
  }

  /** Moves the cursor to column 0 of the screen's top row and writes `sequence` there. */
  #toRowZero(sequence: string): void {
    const up = this.#s.cursorLine - (this.#s.top - this.#s.lead);
    this.#out += (up > 0 ? `\x1b[${up}A` : "") + "\r" + sequence;
    this.#s.cursorLine = this.#s.top - this.#s.lead;
    this.#s.cursorCol = 0;
  }

  /**
   * Keeps the last line on the bottom row once the content fills the
   * screen: when it ends higher (lines went away, a wider screen holds
   * them in fewer rows), blank rows are inserted at the top (`CSI n L`;
   * the blank rows at the bottom drop off) rather than lines already in
   * history shown again. Images on screen are drawn again where they go.
   */
  #anchorBottom(length: number, composed: (line: number) => string): void {
    // Nothing of the content on screen: nothing to keep on the bottom row.
    if (!this.#s.filled || this.#s.rowGuessed || this.#screen.length <= this.#s.top) return;
    const gap = this.bottomLine() - (this.#screen.length - 1);
    if (gap <= 0) return;
    this.#removeImages(this.#s.top, () => false);
    const cursorLine = this.#s.cursorLine;
    this.#toRowZero(`\x1b[${gap}L`);
    this.#s.lead += gap;
    this.#s.blankLead += gap;
    this.#s.cursorLine = this.#s.top - this.#s.lead;
    this.#diff(length, composed, this.#s.top);
    // Back to the line it was on: one left on a blank row would be taken for a line's
    // after the next resize.
    if (this.#s.cursorLine < this.#s.top) {
      this.#moveTo(Math.min(Math.max(cursorLine, this.#s.top), this.#screen.length - 1));
    }
  }

  #cursorTarget(
    overlays: readonly PlacedOverlay[],
    focused: Component | null,
  ): { line: number; col: number } | null {
    const focusedOverlay = overlays.findLast((o) => o.component === focused);
    if (focusedOverlay !== undefined) return focusedOverlay.marker;
    const markers = this.#content.markers;
    if (overlays.length > 0 || markers.size === 0) return null;
    const line = Math.max(...markers.keys());
    if (this.#cover.hides(line)) return null;
    return { line: this.#cover.shown(line), col: markers.get(line)! };
  }

  /** Shows the hardware cursor at the marker (for IMEs), or hides it. */
  #placeCursor(target: { line: number; col: number } | null): void {
    const visible = target !== null && target.line >= this.#s.top &&
      target.line < this.#screen.length;
    if (visible) {
      if (target.line !== this.#s.cursorLine || this.#out !== "" || this.#s.cursorShown !== true) {
        this.#moveTo(target.line);
        this.#out += `\x1b[${target.col + 1}G`;
        this.#s.cursorCol = target.col;
      }
    } else if (this.#out !== "") {
      this.#out += "\r";
      this.#s.cursorCol = 0;
    }
    if (visible !== this.#s.cursorShown) {
      this.#out += visible ? SHOW_CURSOR : HIDE_CURSOR;
      this.#s.cursorShown = visible;
    }
  }
}
