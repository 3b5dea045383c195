/**
 * The engine: a scrollback-preserving differential line renderer. See
 * `docs/tui.md` for the rendering model.
 *
 * @module
 */
import { type Component, CURSOR_MARKER } from "./component.ts";
import { Container, lastRenderChildEnds, lastRenderCut } from "./container.ts";
import { FullScreen, type FullScreenHandle } from "./full_screen.ts";
import { Keybindings } from "./keybindings.ts";
import { parseKey } from "./keys.ts";
import { compositeLine, layoutOverlay, type OverlayOptions, overlayWidth } from "./overlay.ts";
import { compactForeground } from "./sgr_compact.ts";
import { sgrStateAt } from "./sgr_state.ts";
import { imageRemoval, type ImageRow, parseImageRow } from "./terminal_image.ts";
import type { ScreenPosition, Terminal } from "./terminal.ts";
import {
  expandTabs,
  SGR_RESET,
  sliceColumns,
  stripEscapes,
  truncateToWidth,
  visibleWidth,
} from "./text_width.ts";

const SYNC_BEGIN = "\x1b[?2026h";
const SYNC_END = "\x1b[?2026l";
const HIDE_CURSOR = "\x1b[?25l";
const SHOW_CURSOR = "\x1b[?25h";
const CLEAR_LINE = "\x1b[2K";
const CLEAR_TO_LINE_END = "\x1b[K";
const CLEAR_BELOW = "\x1b[J";
/** Moves the cursor to the top-left corner (only a move: erasing from there would push to history). */
const HOME = "\x1b[H";
/** What a row shows when the terminal may have changed it (after a resize): always rewritten. */
const UNKNOWN_ROW = "\x00";
/**
 * Auto-wrap is off while we own the screen: if a terminal measures a
 * cluster wider than we do (some draw ZWJ emoji as several glyphs), the
 * line is clipped at the edge instead of wrapping and shifting every row.
 */
const AUTOWRAP_OFF = "\x1b[?7l";
const AUTOWRAP_ON = "\x1b[?7h";
const PLAIN_ASCII = /^[\x20-\x7e]*$/;
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
 */
function dropControls(text: string): string {
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
interface SanitizedLine {
  text: string;
  /** Column of the cursor marker, or null. */
  marker: number | null;
  truncated: boolean;
}

/** How many sanitized styled lines a renderer remembers (a few screens' worth). */
const SANITIZED_CACHE_LINES = 512;

/** Sanitizes a line that is not plain ASCII for a terminal `width` columns wide. */
function sanitizeStyled(line: string, width: number): SanitizedLine {
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
 * Whether all the rows of the image whose image row is content line `line`
 * are on screen when the first line shown is `top`: an image row drawn
 * otherwise would move up into history and draw over other rows.
 */
function rowsShown(line: number, image: ImageRow, top: number): boolean {
  return line - image.above >= top;
}

/** How many image rows a renderer remembers parsed (a few screens' worth of images). */
const IMAGE_ROW_CACHE = 64;

/** Fewest characters of unchanged lines worth moving down with insert-line rather than rewriting. */
const MIN_SHIFTED_TAIL = 16;

/** Shortest prefix worth keeping: below it, rewriting the line is as cheap. */
const MIN_KEPT_PREFIX = 8;
const NON_ASCII = /[\u007f-\uffff]/;

/**
 * Whether a UTF-16 unit is a character every terminal draws one column
 * wide: ASCII, or box drawing (table borders and rules; a terminal set to
 * draw ambiguous-width characters wide could not fit our tables anyway).
 */
function surelyNarrow(code: number): boolean {
  return code < 0x7f || (code >= 0x2500 && code <= 0x257f);
}

/**
 * The bytes that turn the row showing `previous` into `text`, with the
 * cursor at column 0 of that row: only the part after their common prefix
 * when that saves bytes (streaming appends to the last line, a table row
 * fills its cells), else the whole line. The kept prefix holds only
 * {@linkcode surelyNarrow} characters, because terminals disagree on the
 * width of some clusters (ZWJ emoji) and a wrong column would corrupt the
 * row; a full rewrite from column 0 is immune to that.
 */
function lineUpdate(previous: string, text: string, width: number): string {
  // A blank row (inserted, or cleared before) needs no clearing.
  if (previous === "") return text;
  const shared = Math.min(previous.length, text.length);
  let cut = 0;
  while (
    cut < shared && previous.charCodeAt(cut) === text.charCodeAt(cut) &&
    surelyNarrow(text.charCodeAt(cut))
  ) {
    cut++;
  }
  // A combining mark after the cut belongs to the cluster of the character before it.
  if (cut > 0 && cut < text.length && !surelyNarrow(text.charCodeAt(cut))) cut--;
  const escape = text.lastIndexOf("\x1b", cut - 1);
  if (escape !== -1 && !completeEscapeBefore(text, escape, cut)) cut = escape;
  if (cut < MIN_KEPT_PREFIX) return covers(text, previous) ? text : CLEAR_LINE + text;
  const column = visibleWidth(text.slice(0, cut));
  // Styles active at the cut must be re-applied: the terminal's state is reset between lines.
  const style = escape === -1 ? "" : sgrStateAt(text.slice(0, cut));
  const tail = style === null
    ? sliceColumns(text, column, Infinity)
    // The colour active at the cut is often replaced at once by the next token's.
    : style === ""
    ? text.slice(cut)
    : compactForeground(style + text.slice(cut));
  const newWidth = visibleWidth(text);
  // Erase what the old line had beyond the new one (never at the last column: in the
  // pending-wrap state that would erase the last character).
  const mayBeShorter = NON_ASCII.test(previous) || visibleWidth(previous) > newWidth;
  const erase = mayBeShorter && newWidth < width ? CLEAR_TO_LINE_END : "";
  return `\x1b[${column + 1}G${tail}${erase}`;
}

/**
 * Whether writing `text` from column 0 hides every character of
 * `previous`, so the row needs no clearing first: both ASCII (their widths
 * are certain) and `text` at least as wide.
 */
function covers(text: string, previous: string): boolean {
  return !NON_ASCII.test(previous) && !NON_ASCII.test(text) &&
    visibleWidth(text) >= visibleWidth(previous);
}

/**
 * Drops trailing spaces of an unstyled line: invisible, but terminals
 * disagree on whether they count when a narrower screen splits the line
 * (tmux does not count them), and the engine must know how many rows each
 * line became.
 */
function trimSpaces(line: string): string {
  return line.endsWith(" ") ? line.replace(/ +$/, "") : line;
}

/** Whether the escape sequence starting at `start` ends at or before `end`. */
function completeEscapeBefore(text: string, start: number, end: number): boolean {
  if (text[start + 1] !== "[") return false;
  for (let i = start + 2; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x40 && code <= 0x7e) return true;
  }
  return false;
}

/** Whether a drawn line shows nothing (a blank line between blocks). */
function blank(text: string): boolean {
  return stripEscapes(text).trim() === "";
}

/** The lines in `[from, to)` that start a block: not blank, after a blank line. */
function blockStarts(text: (line: number) => string, from: number, to: number): number[] {
  const starts: number[] = [];
  for (let line = Math.max(1, from); line < to; line++) {
    if (blank(text(line - 1)) && !blank(text(line))) starts.push(line);
  }
  return starts;
}

/** The words of the block starting at `start` (up to the next blank line or `end`), whatever their wrapping. */
function blockWords(text: (line: number) => string, start: number, end: number): string {
  const words: string[] = [];
  for (let line = start; line < end && !blank(text(line)); line++) {
    words.push(stripEscapes(text(line)).trim());
  }
  return words.join(" ").split(/\s+/).join(" ");
}

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

/** Options for {@linkcode TUI}. */
export interface TuiOptions {
  /** Key bindings (the engine uses "tui.suspend"). Default: {@linkcode Keybindings} defaults. */
  keybindings?: Keybindings;
  /** Minimum time between two frames; requests inside it are merged (default 16 ms, what a 60 Hz display shows). */
  minFrameIntervalMs?: number;
}

/**
 * An input hook: return `true` to consume the input so the focused
 * component does not see it.
 */
export type InputHook = (sequence: string) => boolean | void;

/** Controls a shown overlay. */
export interface OverlayHandle {
  /** Removes the overlay and gives focus back. */
  close(): void;
  /** Hides or re-shows the overlay; hiding gives focus back, showing takes it. */
  setHidden(hidden: boolean): void;
  /** Whether the overlay is hidden. */
  readonly hidden: boolean;
}

interface OverlayEntry {
  component: Component;
  options: OverlayOptions;
  hidden: boolean;
  focusBefore: Component | null;
}

/** An overlay placed for the current frame. */
interface PlacedOverlay {
  entry: OverlayEntry;
  lines: string[];
  firstLine: number;
  col: number;
  width: number;
  marker: { line: number; col: number } | null;
}

/**
 * The terminal UI engine. It is the root {@linkcode Container}: add
 * components with `addChild`, then `start()`. Each frame renders the
 * components that changed, diffs against what the terminal shows, and
 * writes the difference in one synchronized write. It never clears
 * scrollback: lines that scrolled above the screen are left as they are.
 * The alternate screen is used only for a component shown there on request
 * ({@linkcode TUI.showFullScreen}).
 *
 * @example
 * ```ts
 * import { type Component, type Terminal, TUI } from "@panto/tui";
 * let output = "";
 * const terminal: Terminal = {
 *   columns: 20,
 *   rows: 5,
 *   write: (data) => output += data,
 *   onInput: () => {},
 *   onResize: () => {},
 *   start: () => {},
 *   stop: () => {},
 * };
 * const hello: Component = {
 *   render: () => ["hello"],
 *   firstLineChanged: () => null,
 *   invalidate: () => {},
 * };
 * const tui = new TUI(terminal);
 * tui.addChild(hello);
 * tui.start();
 * tui.renderNow();
 * tui.stop();
 * console.assert(output.includes("hello"));
 * ```
 */
export class TUI extends Container {
  /** The terminal drawn on. */
  readonly terminal: Terminal;
  /** Key bindings used by the engine and available to components. */
  readonly keybindings: Keybindings;
  /** Debug counters. */
  readonly stats: RenderStats = {
    frames: 0,
    bytesWritten: 0,
    linesWritten: 0,
    truncatedLines: 0,
    frozenLineEdits: 0,
    screenRepaints: 0,
    lastFrameMs: 0,
  };

  readonly #minFrameIntervalMs: number;
  readonly #inputHooks: InputHook[] = [];
  #overlays: OverlayEntry[] = [];
  /** Closed overlays, so a focus chain through them can be followed. */
  #closedOverlays = new WeakMap<Component, OverlayEntry>();
  #focused: Component | null = null;
  #started = false;

  // Scheduling.
  #scheduled = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastFrameAt = -Infinity;
  #invalidateNext = false;
  #repaintNext = false;
  #resumeNext = false;
  /** The terminal is lent to another program (`runOutside`): no frame may be written into its screen. */
  #lent = false;
  #historyNext = false;

  // What the terminal shows. Indices are content lines (line 0 = first line we drew).
  #raw: string[] = [];
  #base: string[] = [];
  #screen: string[] = [];
  #markers = new Map<number, number>();
  /** Recent styled lines, sanitized for the current width: a line that only moved is not measured again. */
  readonly #sanitized = new Map<string, SanitizedLine>();
  /** Recent image rows, parsed. */
  readonly #imageRows = new Map<string, ImageRow>();
  #painted = false;
  #width = 0;
  #rows = 0;
  /** Content line the hardware cursor is on, and its column. */
  #cursorLine = 0;
  #cursorCol = 0;
  /** The last cursor-position query after a resize (0: none), while it is unanswered. */
  #cursorQuery = 0;
  #awaitingCursor = false;
  /** Where the terminal said the cursor is after the last resize, until a frame uses it. */
  #cursorReport: ScreenPosition | null = null;
  /**
   * The content line on the screen's top row, or a later one: lines above it
   * are the terminal's history and are never written again. After a resize
   * the terminal may show earlier lines above it; they are left alone.
   */
  #top = 0;
  /**
   * Rows above line `#top` on the screen that show no line of the content
   * as it is now: blank rows put there so the last line stays on the
   * bottom row, or the tail of a line drawn before a resize. They leave the
   * screen first when it scrolls (into history: their text is not there yet).
   */
  #lead = 0;
  /** How many of the lead rows, from the top, are blank: deleted rather than scrolled into history. */
  #blankLead = 0;
  /**
   * Whether the row of line `#top` is only a guess (a resize the terminal did
   * not report the cursor after): blank rows are then not inserted above it,
   * since rows the terminal pulled back from history could be pushed off the bottom.
   */
  #rowGuessed = false;
  /**
   * Whether lines went to history since the screen was last fresh: the
   * screen is then all ours (content, lead rows) and the last line belongs
   * on the bottom row. A fresh screen (the first paint, a replaced
   * transcript) starts at its top, as any program's output.
   */
  #filled = false;
  /** How many of the transcript's last lines the children below it cover (see `#shownChange`). */
  #covered = 0;
  /** The content line where the covered lines start (the first one not shown). */
  #coverAt = 0;
  /** How many lines the root's children after the first had at the last frame. */
  #bottomLength = 0;
  #cursorShown: boolean | null = null;
  #overlayRange: { first: number; last: number } | null = null;
  /** A component shown alone on the alternate screen: no frame touches the normal one meanwhile. */
  #fullScreen: FullScreen | null = null;
  #out = "";

  /** Creates an engine drawing on `terminal`. Nothing is written until {@linkcode TUI.start}. */
  constructor(terminal: Terminal, options: TuiOptions = {}) {
    super();
    this.terminal = terminal;
    this.keybindings = options.keybindings ?? new Keybindings();
    this.#minFrameIntervalMs = options.minFrameIntervalMs ?? 16;
    terminal.onInput((sequence) => this.#handleInput(sequence));
    terminal.onResize(() => this.#resized());
    terminal.onBeforeRestore?.(() => this.#parkCursor());
  }

  /** The focused component (the top overlay while one is shown), or `null`. */
  get focusedComponent(): Component | null {
    return this.#focused;
  }

  /**
   * The content line on the screen's top row: lines before it are in the
   * terminal's history, where a change to them is no longer shown.
   */
  get firstLineOnScreen(): number {
    return this.#top;
  }

  /** Starts the terminal and schedules the first frame. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.terminal.start();
    this.requestRender();
  }

  /**
   * Draws any pending frame, leaves the cursor on the line below the
   * content, and restores the terminal.
   */
  stop(): void {
    if (!this.#started) return;
    if (this.#scheduled) this.renderNow();
    this.#cancelSchedule();
    this.#started = false;
    if (this.terminal.onBeforeRestore === undefined) this.#parkCursor();
    this.terminal.stop();
  }

  /** Gives `component` the input focus (`null` for none) and updates `focused` flags. */
  setFocus(component: Component | null): void {
    if (component === this.#focused) return;
    if (this.#focused !== null) {
      this.#focused.focused = false;
      this.#focused.invalidate();
    }
    this.#focused = component;
    if (component !== null) {
      component.focused = true;
      component.invalidate();
    }
    this.requestRender();
  }

  /**
   * Registers a hook that sees every input before the focused component
   * (for application keys such as ctrl+c). Returns a remover.
   */
  onInput(hook: InputHook): () => void {
    this.#inputHooks.push(hook);
    return () => {
      const at = this.#inputHooks.indexOf(hook);
      if (at !== -1) this.#inputHooks.splice(at, 1);
    };
  }

  /**
   * Shows `component` over the content, focused, until the handle closes
   * it. Overlays stack: the last shown is drawn on top and gets the input.
   */
  showOverlay(component: Component, options: OverlayOptions = {}): OverlayHandle {
    const entry: OverlayEntry = { component, options, hidden: false, focusBefore: this.#focused };
    this.#overlays.push(entry);
    this.setFocus(component);
    const handle: OverlayHandle = {
      close: () => this.#closeOverlay(entry),
      setHidden: (hidden) => this.#setOverlayHidden(entry, hidden),
      get hidden() {
        return entry.hidden;
      },
    };
    return handle;
  }

  /**
   * Shows `component` alone on the terminal's alternate screen, focused,
   * until the handle closes it: its `render` gives the rows top to bottom
   * (more than the screen's height are cut). Meanwhile nothing is drawn on
   * the normal screen, so its rows and history are exactly as they were when
   * it comes back; what changed underneath is drawn then. Showing another
   * closes this one.
   *
   * @example
   * ```ts ignore
   * const viewer = tui.showFullScreen(new Pager({ content, rows: () => tui.terminal.rows, onClose: () => viewer.close() }));
   * ```
   */
  showFullScreen(component: Component): FullScreenHandle {
    this.#closeFullScreen();
    const shown = new FullScreen(component, this.#focused);
    this.#fullScreen = shown;
    this.setFocus(component);
    return {
      close: () => {
        if (this.#fullScreen === shown) this.#closeFullScreen();
      },
    };
  }

  /**
   * Schedules a frame. The first request after an idle period renders on
   * the next microtask; later ones within the frame interval are merged.
   * `force` re-renders every component and repaints the visible screen.
   */
  requestRender(force = false): void {
    if (force) {
      this.#invalidateNext = true;
      this.#repaintNext = true;
    }
    if (!this.#started || this.#scheduled) return;
    this.#scheduled = true;
    const wait = this.#lastFrameAt + this.#minFrameIntervalMs - performance.now();
    if (wait <= 0) queueMicrotask(() => this.#runScheduled());
    else this.#timer = setTimeout(() => this.#runScheduled(), wait);
  }

  /** Renders a frame now (cancelling a scheduled one). For tests, benchmarks and shutdown. */
  renderNow(): void {
    this.#cancelSchedule();
    if (!this.#started || this.#lent) return;
    const startedAt = performance.now();
    if (this.#fullScreen !== null) this.#fullScreenFrame(this.#fullScreen);
    else this.#frame();
    const flushed = this.#flush();
    this.#lastFrameAt = performance.now();
    if (flushed) this.stats.lastFrameMs = this.#lastFrameAt - startedAt;
  }

  /**
   * Declares that the content was replaced (a new session): on the next
   * frame the rows on screen scroll into the terminal's history, each once,
   * instead of being overwritten in place, and the new content is drawn
   * below them.
   *
   * @example
   * ```ts ignore
   * transcript.clear();
   * tui.keepScreenInHistory();
   * ```
   */
  keepScreenInHistory(): void {
    this.#historyNext = true;
    this.requestRender();
  }

  /**
   * Suspends the process (ctrl+z), when the terminal supports job control:
   * clears the rows we drew on screen and leaves the cursor where they
   * started, for the shell; the visible tail is drawn again on resume.
   */
  suspend(): void {
    if (this.terminal.suspend === undefined) return;
    if (this.#painted) {
      // Our rows on screen are cleared (not pushed into history), so the tail painted
      // again after `fg` is the only copy of them; the shell's prompt takes their place.
      this.#eraseFrom(this.#top);
      this.#screen.length = Math.min(this.#screen.length, this.#top);
    }
    this.#resumeNext = true;
    if (this.terminal.suspend()) return;
    // Not stopped (no job control): draw the screen again.
    this.#resumeNext = false;
    this.requestRender(true);
  }

  /**
   * Lends the terminal to another program while `run` runs (an editor, for
   * ctrl+g): as for a suspend, our rows on screen are cleared and the
   * visible tail is drawn again afterwards. Meanwhile no frame is drawn
   * (what changes shows in the repaint after): it would land in the other
   * program's screen. With a terminal that cannot lend itself (a virtual
   * one), `run` just runs.
   */
  async runOutside<T>(run: () => Promise<T>): Promise<T> {
    const outside = this.terminal.runOutside?.bind(this.terminal);
    if (outside === undefined) return await run();
    if (this.#painted) {
      this.#eraseFrom(this.#top);
      this.#screen.length = Math.min(this.#screen.length, this.#top);
    }
    this.#resumeNext = true;
    this.#lent = true;
    try {
      return await outside(run);
    } finally {
      this.#lent = false;
      this.requestRender(true);
    }
  }

  /**
   * After a resize, asks the terminal where the cursor is (when it can
   * say) before repainting: the terminal has moved rows between the screen
   * and its history, and the answer tells exactly where our lines went.
   */
  #resized(): void {
    if (this.#fullScreen !== null) {
      // Located when the normal screen is back: the terminal would answer for this one.
      this.#fullScreen.resized = true;
      return this.requestRender();
    }
    this.#repaintNext = true;
    this.#cursorReport = null;
    const ask = this.terminal.cursorPosition?.bind(this.terminal);
    // A resume paints below the shell's lines: no need to find ours.
    if (ask === undefined || !this.#painted || this.#resumeNext) return this.requestRender();
    const query = ++this.#cursorQuery;
    this.#awaitingCursor = true;
    const answered = (position: ScreenPosition | null) => {
      if (query !== this.#cursorQuery) return; // a newer resize asked again, or a frame went on
      this.#awaitingCursor = false;
      this.#cursorReport = position;
      this.requestRender();
    };
    ask().then(answered, () => answered(null));
  }

  #runScheduled(): void {
    if (!this.#scheduled) return;
    if (this.#awaitingCursor) {
      // The answer schedules the frame.
      this.#scheduled = false;
      this.#timer = undefined;
      return;
    }
    this.#scheduled = false;
    this.#timer = undefined;
    this.renderNow();
  }

  #cancelSchedule(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#scheduled = false;
  }

  #handleInput(sequence: string): void {
    if (!this.#started) return;
    for (const hook of [...this.#inputHooks]) {
      if (hook(sequence) === true) {
        this.#renderSoon();
        return;
      }
    }
    const canSuspend = this.terminal.suspend !== undefined && this.#fullScreen === null;
    if (this.keybindings.matches(sequence, "tui.suspend") && canSuspend) {
      this.suspend();
      return;
    }
    const target = this.#focused;
    if (target?.handleInput === undefined) return;
    if (parseKey(sequence)?.event === "release" && target.wantsKeyRelease !== true) return;
    target.handleInput(sequence);
    this.#renderSoon();
  }

  /**
   * Schedules a frame for what the user typed: on the next microtask even
   * inside the frame interval, so echo never waits behind a streaming
   * answer's frame pacing (a keystroke is worth one extra frame).
   */
  #renderSoon(): void {
    this.requestRender();
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    queueMicrotask(() => this.#runScheduled());
  }

  #closeOverlay(entry: OverlayEntry): void {
    const at = this.#overlays.indexOf(entry);
    if (at === -1) return;
    this.#overlays.splice(at, 1);
    this.#closedOverlays.set(entry.component, entry);
    this.#refocusAfter(entry);
  }

  #setOverlayHidden(entry: OverlayEntry, hidden: boolean): void {
    if (entry.hidden === hidden || !this.#overlays.includes(entry)) return;
    entry.hidden = hidden;
    if (hidden) this.#refocusAfter(entry);
    else {
      // Shown again, it goes back on top: the focused overlay must be the visible one.
      this.#overlays.splice(this.#overlays.indexOf(entry), 1);
      this.#overlays.push(entry);
      entry.focusBefore = this.#focused;
      this.setFocus(entry.component);
    }
  }

  /** After `entry` went away: focus the top visible overlay, else what `entry` had taken focus from. */
  #refocusAfter(entry: OverlayEntry): void {
    if (this.#focused === entry.component) {
      const top = this.#overlays.findLast((other) => !other.hidden);
      this.setFocus(top?.component ?? this.#focusBefore(entry));
    }
    this.requestRender();
  }

  /** What `entry` took focus from, skipping overlays that are closed or hidden since. */
  #focusBefore(entry: OverlayEntry): Component | null {
    let candidate = entry.focusBefore;
    const seen = new Set<Component>();
    while (candidate !== null && !seen.has(candidate)) {
      seen.add(candidate);
      const owner = this.#overlays.find((other) => other.component === candidate) ??
        this.#closedOverlays.get(candidate);
      if (owner === undefined || (!owner.hidden && this.#overlays.includes(owner))) {
        return candidate;
      }
      candidate = owner.focusBefore;
    }
    return candidate;
  }

  // ---------------------------------------------------------------- frame

  #fullScreenFrame(shown: FullScreen): void {
    this.#out += shown.frame(
      this.terminal.columns,
      this.terminal.rows,
      (line) => sanitizeStyled(line, this.terminal.columns).text,
    );
    if (this.#cursorShown !== false) this.#out += HIDE_CURSOR;
    this.#cursorShown = false;
  }

  /** Back to the normal screen as it was; the next frame draws what changed meanwhile. */
  #closeFullScreen(): void {
    const shown = this.#fullScreen;
    if (shown === null) return;
    this.#fullScreen = null;
    this.#out += shown.leave();
    // The terminal restored the cursor, not whether it was shown.
    this.#cursorShown = null;
    this.#flush();
    if (this.#focused === shown.component) this.setFocus(shown.focusBefore);
    if (!this.#started) return; // shutting down: the cursor is parked next
    if (shown.resized) this.#resized();
    else this.requestRender();
  }

  #frame(): void {
    const width = this.terminal.columns;
    const rows = this.terminal.rows;
    const previous = { columns: this.#width, rows: this.#rows };
    const resized = this.#painted && (width !== this.#width || rows !== this.#rows);
    if (this.#invalidateNext) this.invalidate();
    if (width !== this.#width) {
      // Truncation depends on the width.
      this.#raw.length = 0;
      this.#sanitized.clear();
    }
    const childEnds = lastRenderChildEnds(this).map((end) => this.#shownEnd(end));
    this.#width = width;
    this.#rows = rows;
    const lines = this.render(width);
    const firstBaseChange = this.#shownChange(
      this.#updateBase(lines, lastRenderCut(this)),
      lines.length,
      // The terminal moves rows on a resize: covered lines are shown again, where they go.
      this.#historyNext || !this.#painted || this.#resumeNext || resized,
    );
    const shownLength = lines.length - this.#covered;
    const overlayTop = this.#viewportTop(shownLength);
    const overlays = this.#placeOverlays(overlayTop);
    const length = Math.max(shownLength, ...overlays.map((o) => o.firstLine + o.lines.length));
    const composed = (line: number) => this.#compose(line, overlays);

    if (!this.#painted || this.#resumeNext) {
      this.#freshPaint(length, composed, this.#painted);
    } else if (this.#historyNext) {
      this.#moveScreenToHistory(length, composed, childEnds);
    } else if (resized || this.#repaintNext) {
      this.#repaintScreen(length, composed, previous);
    } else {
      const start = this.#diffStart(firstBaseChange, overlays, length);
      if (overlays.length === 0 && this.#overlayRange === null) {
        this.#shiftTail(length, composed, start);
      }
      this.#update(length, composed, start);
    }
    this.#anchorBottom(length, composed);
    this.#invalidateNext = false;
    this.#repaintNext = false;
    this.#resumeNext = false;
    this.#historyNext = false;
    this.#painted = true;
    // A report is only true until we write; a late answer would be stale.
    this.#cursorReport = null;
    this.#awaitingCursor = false;
    this.#cursorQuery++;
    this.#overlayRange = overlays.length === 0 ? null : {
      first: Math.min(...overlays.map((o) => o.firstLine)),
      last: Math.max(...overlays.map((o) => o.firstLine + o.lines.length)),
    };
    this.#placeCursor(this.#cursorTarget(overlays));
    // Overlays sit on the screen: if the screen moved under them, place them again.
    if (overlays.length > 0 && overlayTop !== this.#viewportTop(shownLength)) {
      this.requestRender();
    }
  }

  /**
   * Transient UI never moves the transcript. The root's first child is the
   * transcript; what its other children (editor, footer, a picker in the
   * editor's place, a completion list) add when they grow on a full screen
   * while the transcript does not change is drawn over the transcript's
   * last rows instead of scrolling it into history: those lines are
   * _covered_ (not shown, not in history) and come back, in place, when the
   * children below shrink again, or as the transcript grows (it scrolls as
   * usual, its covered lines first). Updates the cover for content `length`
   * lines long and returns the first line shown that may differ because of
   * the content's change at `change` (content line) or the cover's own
   * change. `reset` drops the cover (a fresh screen, a resize).
   */
  #shownChange(change: number, length: number, reset: boolean): number {
    const ends = lastRenderChildEnds(this);
    const transcriptEnd = ends.length > 1 ? ends[0]! : length;
    const bottom = length - transcriptEnd;
    const grown = bottom - this.#bottomLength;
    const before = { at: this.#coverAt, covered: this.#covered };
    const transcriptGrown = transcriptEnd - (before.at + before.covered);
    let covered = reset ? 0 : this.#covered;
    if (grown < 0) covered = Math.max(0, covered + grown);
    if (transcriptGrown > 0) covered = Math.max(0, covered - transcriptGrown);
    const transcriptKept = transcriptGrown === 0 && change >= transcriptEnd;
    if (grown > 0 && transcriptKept && !reset) {
      const overflow = length - covered - 1 - this.#bottomLine();
      // At least one row of the transcript stays in view (it is what the UI is about).
      const spare = transcriptEnd - this.#top - 1 - covered;
      covered += Math.max(0, Math.min(grown, overflow, spare));
    }
    // Only lines on screen can be covered: the ones above are history already. And a
    // screen that scrolls past covered lines would skip them: they are shown first.
    covered = Math.max(0, Math.min(covered, transcriptEnd - this.#top));
    while (covered > 0 && this.#topWhenShown(length - covered - 1) > transcriptEnd - covered) {
      covered--;
    }
    this.#covered = covered;
    this.#coverAt = transcriptEnd - this.#covered;
    this.#bottomLength = bottom;
    let shown = change < this.#coverAt ? change : Math.max(this.#coverAt, change - this.#covered);
    if (before.covered > 0 || this.#covered > 0) {
      if (before.at !== this.#coverAt || before.covered !== this.#covered) {
        shown = Math.min(shown, before.at, this.#coverAt);
      }
    }
    return shown;
  }

  /** Where content line `end` (a child's end at the last frame) was shown, the cover taken out. */
  #shownEnd(end: number): number {
    return end <= this.#coverAt ? end : Math.max(this.#coverAt, end - this.#covered);
  }

  /** The content line overlays take as the screen's top row, for content `length` lines long. */
  #viewportTop(length: number): number {
    return Math.max(this.#top - this.#lead, length - this.#rows);
  }

  /** Copies the new raw lines from the container's cut and sanitizes changed ones. */
  #updateBase(lines: readonly string[], cut: number): number {
    let firstChange = lines.length < this.#raw.length ? lines.length : Infinity;
    for (let i = Math.min(cut, this.#raw.length); i < lines.length; i++) {
      const line = lines[i]!;
      if (line === this.#raw[i] && i < this.#raw.length) continue;
      if (firstChange > i) firstChange = i;
      this.#raw[i] = line;
      this.#base[i] = this.#sanitize(i, line);
    }
    this.#raw.length = lines.length;
    this.#base.length = lines.length;
    for (const line of this.#markers.keys()) {
      if (line >= lines.length) this.#markers.delete(line);
    }
    return firstChange;
  }

  /** Strips the cursor marker (remembering its column), control characters and excess width. */
  #sanitize(index: number, line: string): string {
    if (PLAIN_ASCII.test(line)) {
      this.#markers.delete(index);
      if (line.length <= this.#width) return trimSpaces(line);
      this.stats.truncatedLines++;
      return trimSpaces(line.slice(0, this.#width));
    }
    if (this.#imageRow(line) !== null) {
      // Drawn as is: its sequences are checked, and it takes no columns.
      this.#markers.delete(index);
      return line;
    }
    // Lines below a growing block move down a row at a time: each would be measured again.
    let sanitized = this.#sanitized.get(line);
    if (sanitized === undefined) {
      sanitized = sanitizeStyled(line, this.#width);
      if (this.#sanitized.size >= SANITIZED_CACHE_LINES) {
        this.#sanitized.delete(this.#sanitized.keys().next().value!);
      }
      this.#sanitized.set(line, sanitized);
    }
    if (sanitized.truncated) this.stats.truncatedLines++;
    if (sanitized.marker === null) this.#markers.delete(index);
    else this.#markers.set(index, sanitized.marker);
    return sanitized.text;
  }

  /** Places the overlays on the screen whose top row shows content line `viewportTop`. */
  #placeOverlays(viewportTop: number): PlacedOverlay[] {
    const placed: PlacedOverlay[] = [];
    for (const entry of this.#overlays) {
      if (entry.hidden) continue;
      const width = overlayWidth(entry.options, this.#width);
      const rendered = entry.component.render(width);
      const rect = layoutOverlay(entry.options, rendered.length, this.#width, this.#rows);
      let marker: PlacedOverlay["marker"] = null;
      const lines = rendered.slice(0, rect.height).map((raw, index) => {
        const line = dropControls(expandTabs(raw));
        const at = line.indexOf(CURSOR_MARKER);
        if (at === -1) return line;
        marker = {
          line: viewportTop + rect.row + index,
          col: rect.col + visibleWidth(line.slice(0, at)),
        };
        return line.replaceAll(CURSOR_MARKER, "");
      });
      placed.push({
        entry,
        lines,
        firstLine: viewportTop + rect.row,
        col: rect.col,
        width: rect.width,
        marker,
      });
    }
    return placed;
  }

  #compose(line: number, overlays: readonly PlacedOverlay[]): string {
    let text = this.#base[line < this.#coverAt ? line : line + this.#covered] ?? "";
    // An image under an overlay would cover it (Kitty) or be cut into: hidden meanwhile.
    if (overlays.length > 0 && this.#imageUnder(line, text, overlays)) text = "";
    for (const overlay of overlays) {
      const row = line - overlay.firstLine;
      if (row < 0 || row >= overlay.lines.length) continue;
      text = compositeLine(text, overlay.lines[row]!, overlay.col, overlay.width, this.#width);
    }
    return text;
  }

  /** Whether `text`, content line `line`, is an image row whose image an overlay covers. */
  #imageUnder(line: number, text: string, overlays: readonly PlacedOverlay[]): boolean {
    const image = this.#imageRow(text);
    if (image === null) return false;
    return overlays.some((o) =>
      o.firstLine <= line && o.firstLine + o.lines.length > line - image.above
    );
  }

  /** The image row `text` is, or null (see {@linkcode parseImageRow}); remembered, they are long. */
  #imageRow(text: string): ImageRow | null {
    // Every image row ends by restoring the cursor: other lines are told apart at once.
    if (!text.endsWith("\x1b8")) return null;
    const known = this.#imageRows.get(text);
    if (known !== undefined) return known;
    const row = parseImageRow(text);
    if (row === null) return null;
    if (this.#imageRows.size >= IMAGE_ROW_CACHE) {
      this.#imageRows.delete(this.#imageRows.keys().next().value!);
    }
    this.#imageRows.set(text, row);
    return row;
  }

  /**
   * Removes the images drawn by image rows on screen from content line
   * `first` on, unless `kept(line)`: a Kitty image stays through text
   * written over it, so it is deleted; an iTerm2 image is cells, so its rows
   * are cleared. Either way its rows then show blank lines. Runs before any
   * line is written, so it never clears a row written in the same frame.
   */
  #removeImages(first: number, kept: (line: number) => boolean): void {
    for (let line = Math.max(first, this.#top); line < this.#screen.length; line++) {
      const image = this.#imageRow(this.#screen[line]!);
      if (image === null || kept(line)) continue;
      this.#out += imageRemoval(image);
      if (image.kittyId === null) {
        for (let row = Math.max(this.#top, line - image.above); row <= line; row++) {
          this.#moveTo(row);
          this.#out += CLEAR_LINE;
        }
      }
      this.#screen[line] = "";
    }
  }

  /** The columns a line on screen takes (an image row takes none). */
  #shownWidth(text: string): number {
    return this.#imageRow(text) === null ? visibleWidth(text) : 0;
  }

  /** The first content line that may need rewriting. */
  #diffStart(firstBaseChange: number, overlays: readonly PlacedOverlay[], length: number): number {
    let start = firstBaseChange;
    if (this.#overlayRange !== null) start = Math.min(start, this.#overlayRange.first);
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
    if (grown <= 0 || grown >= this.#rows) return;
    const top = this.#topWhenShown(length - 1);
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
    if (this.#screen.slice(tailStart, old).some((text) => this.#imageRow(text) !== null)) return;
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
    if (start >= this.#top) return this.#diff(length, composed, start);
    const changed = this.#firstDifference(length, composed, start);
    if (changed >= this.#top) return this.#diff(length, composed, changed);
    // A change in lines that are already history (ctrl+o on a tool call that scrolled
    // away). History keeps the old version; the screen goes on from where the lines it
    // shows went in the new content.
    for (let line = changed; line < Math.min(this.#top, length); line++) {
      if (composed(line) !== this.#screen[line]) this.stats.frozenLineEdits++;
    }
    const top = this.#newTop(length, composed, changed, this.#top) ??
      this.#afterHistory(length, composed, changed, this.#top) ?? changed;
    this.#remap(top, composed, (line) => this.#screen[line]);
    this.#diff(length, composed, this.#top);
  }

  /**
   * The new content line to show first after a change above the screen's
   * first line `top`: where the first line on screen that still exists
   * went (moved by as many lines as the content grew or shrank above it,
   * or found by its text and the rows after it), preceded by any new lines
   * between it and the last line in history. Lines before that are history
   * already. `null` when no line on screen is left.
   */
  #newTop(
    length: number,
    composed: (line: number) => string,
    changed: number,
    top: number,
  ): number | null {
    const end = Math.min(this.#screen.length, top + this.#rows - this.#lead);
    const shifted = top + length - this.#screen.length;
    const matches = (from: number, to: number) => {
      let count = 0;
      for (let row = 0; from + row < end && to + row < length; row++) {
        if (composed(to + row) === this.#screen[from + row]) count++;
      }
      return count;
    };
    if (shifted >= changed && matches(top, shifted) === end - top) return shifted;
    const places = new Map<string, number[]>();
    for (let line = changed; line < length; line++) {
      const text = composed(line);
      const seen = places.get(text);
      if (seen === undefined) places.set(text, [line]);
      else seen.push(line);
    }
    for (let line = top; line < end; line++) {
      // Repeated lines (a table's wrapped rows, blank lines) match in many places: the
      // best supported place wins, and among equals the one nearest where the line
      // would be had only the end grown. Picking a far one would skip every line between.
      const expected = line + length - this.#screen.length;
      let best = -1;
      let bestCount = 0;
      for (const place of places.get(this.#screen[line]!) ?? []) {
        const count = matches(line, place);
        const nearer = Math.abs(place - expected) < Math.abs(best - expected);
        if (count > bestCount || (count === bestCount && nearer)) {
          [best, bestCount] = [place, count];
        }
      }
      if (best === -1) continue;
      // The lines just above the surviving one are shown too, up to its old row (less
      // what grew between: it may have pushed the line down), unless history has them
      // already (a collapse): those would be copies. Blank lines are everywhere, so they
      // neither stop nor count.
      const history = new Set(this.#screen.slice(changed, top).filter((text) => text !== ""));
      const grown = Math.max(0, length - this.#screen.length);
      const lowest = Math.max(changed, best - (line - top) - grown);
      let start = best;
      while (start > lowest && !history.has(composed(start - 1))) start--;
      return start;
    }
    return null;
  }

  /**
   * When no line on screen is left after a change above it: the line after
   * the last one whose text is in history since the change (so none is
   * shown twice); `null` when none is.
   */
  #afterHistory(
    length: number,
    composed: (line: number) => string,
    changed: number,
    top: number,
  ): number | null {
    const history = new Set(this.#screen.slice(changed, top).filter((line) => line !== ""));
    for (let line = length - 1; line >= changed; line--) {
      if (history.has(composed(line))) return line + 1;
    }
    return null;
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
      if (line < this.#top) {
        // Already in scrollback: the terminal's copy stays as it was.
        this.stats.frozenLineEdits++;
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
    const image = this.#imageRow(text);
    if (image !== null) this.#out += CLEAR_LINE + (rowsShown(line, image, this.#top) ? text : "");
    else if (previous === undefined) this.#out += text;
    else if (previous === UNKNOWN_ROW) this.#out += CLEAR_LINE + text;
    else this.#out += lineUpdate(previous, text, this.#width);
    this.#screen[line] = text;
    this.stats.linesWritten++;
  }

  /**
   * Clears the rows of content lines from `line` on. Never erases the
   * display from the screen's top-left corner: tmux (scroll-on-clear) and
   * other terminals push the whole screen into history when that happens.
   */
  #eraseFrom(line: number): void {
    const first = Math.max(line, this.#top);
    if (first >= this.#screen.length) return;
    this.#removeImages(first, () => false);
    this.#moveTo(first);
    if (first === this.#top) {
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
    if (tailOnly) this.stats.screenRepaints++;
    const first = tailOnly ? Math.max(0, length - this.#rows) : 0;
    this.#screen = [];
    for (let line = 0; line < length; line++) this.#screen[line] = composed(line);
    const painted = this.#screen.slice(first).map((text, at) => {
      const image = this.#imageRow(text);
      const line = first + at;
      return image === null || rowsShown(line, image, Math.max(first, line - this.#rows + 1))
        ? text
        : "";
    });
    this.#out += AUTOWRAP_OFF + painted.join("\r\n");
    this.stats.linesWritten += length - first;
    this.#cursorLine = Math.max(0, length - 1);
    this.#top = Math.max(0, length - this.#rows);
    this.#lead = 0;
    this.#blankLead = 0;
    this.#rowGuessed = false;
    this.#filled = this.#top > 0;
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
  ): void {
    this.stats.screenRepaints++;
    // Every row is written again: the images on screen are drawn again where they now go.
    for (const text of this.#screen.slice(this.#top)) {
      const image = this.#imageRow(text);
      if (image !== null) this.#out += imageRemoval(image);
    }
    const oldLength = this.#screen.length;
    const report = this.#cursorReport;
    const located = report === null ? null : this.#locate(report);
    const resized = previous.rows !== this.#rows || previous.columns !== this.#width;
    const oldTop = located?.line ?? (resized ? this.#topAfterResize() : this.#top);
    const kept = this.#firstDifference(length, composed, 0);
    let top = oldTop;
    if (kept < oldTop) {
      // Lines above the screen changed (or re-wrapped to the new width): find where the
      // lines on screen went, else estimate where the first line not in history went.
      top = this.#newTop(length, composed, kept, oldTop) ??
        this.#afterHistory(length, composed, kept, oldTop) ??
        (previous.columns === this.#width
          ? kept
          : kept + Math.round((oldTop - kept) * (length - kept) / Math.max(1, oldLength - kept)));
    }
    let rowOfTop = 0;
    let first = oldTop;
    const reflowed = located === null && this.#reflowed(previous.columns);
    const anchor = located === null || previous.columns === this.#width
      ? null
      : this.#blockAnchor(located, length, composed, previous.columns);
    if (anchor !== null) {
      // The rows above the first block that starts on screen keep the old lines, as the
      // terminal re-wrapped them (their text is in no other row); the block and what
      // follows are drawn at the new width.
      [first, top, rowOfTop] = [anchor.oldLine, anchor.line, anchor.row];
      this.#out += `\x1b[${rowOfTop + 1};1H`;
      this.#cursorLine = first;
    } else if (located !== null) {
      // The rows above hold the end of a split line or lines pulled back from history.
      rowOfTop = located.row;
      this.#out += `\x1b[${rowOfTop + 1};1H`;
      this.#cursorLine = oldTop;
    } else if (reflowed) {
      // Rows above the cursor hold split lines: cursor moves relative to it would be off.
      // Paint from the top-left corner instead (a cursor move, not an erase).
      this.#out += HOME;
      this.#cursorLine = oldTop;
    }
    if (located !== null || reflowed) {
      [this.#lead, this.#blankLead, this.#rowGuessed] = [rowOfTop, 0, false];
    } else if (resized) {
      // Painted relative to a cursor the terminal moved without saying where: rows are a
      // guess until a frame paints from a known row.
      [this.#lead, this.#blankLead, this.#rowGuessed] = [0, 0, true];
    } // else a forced repaint: nothing moved, the rows above the first line stay as they are.
    this.#top = first;
    this.#remap(top, composed, () => UNKNOWN_ROW, this.#rows - this.#lead);
    this.#diff(length, composed, this.#top);
  }

  /**
   * After a width change, the first block (lines after a blank one: a
   * paragraph, a message) that starts on screen, found again in the new
   * content: the old line it started on (its row from the cursor report)
   * and the new line it starts on. Found by the block's words, which do
   * not depend on the width, and checked against the blocks after it; the
   * best supported place wins. `null` when no block starts on screen or
   * none is found.
   */
  #blockAnchor(
    located: { line: number; row: number },
    length: number,
    composed: (line: number) => string,
    oldColumns: number,
  ): { oldLine: number; line: number; row: number } | null {
    const old = (line: number) => this.#screen[line] ?? "";
    const oldStarts = blockStarts(old, located.line, this.#screen.length);
    // The lines on screen fill at most this many lines at the new width (and fewer at a wider one).
    const span = (this.#screen.length - located.line + this.#rows) *
      (Math.ceil(oldColumns / this.#width) + 1);
    const newStarts = blockStarts(composed, Math.max(0, length - span), length);
    const oldWords = oldStarts.map((start) => blockWords(old, start, this.#screen.length));
    const newWords = newStarts.map((start) => blockWords(composed, start, length));
    let row = located.row;
    let line = located.line;
    for (const [at, oldStart] of oldStarts.entries()) {
      for (; line < oldStart; line++) row += this.#rowsAt(old(line));
      if (row >= this.#rows) return null;
      let best: { line: number; support: number } | null = null;
      for (const [index, newStart] of newStarts.entries()) {
        let support = 0;
        while (
          at + support < oldWords.length && index + support < newWords.length &&
          oldWords[at + support] === newWords[index + support]
        ) {
          support++;
        }
        if (support > 0 && (best === null || support >= best.support)) {
          best = { line: newStart, support };
        }
      }
      if (best !== null) return { oldLine: oldStart, line: best.line, row };
    }
    return null;
  }

  /** How many rows the terminal splits a line drawn on screen into at the current width. */
  #rowsAt(text: string): number {
    return Math.max(1, Math.ceil(this.#shownWidth(text) / this.#width));
  }

  /**
   * An upper bound of the content line on the screen's top row after a
   * resize: the lines on screen, re-measured at the new width, stacked up
   * from the bottom row down to the cursor, which the terminal keeps on
   * screen (a terminal that kept rows below them shows fewer).
   */
  #topAfterResize(): number {
    let top = Math.max(this.#screen.length, this.#cursorLine + 1);
    let used = 0;
    while (top > this.#top) {
      const rows = this.#rowsAt(this.#screen[top - 1] ?? "");
      if (used + rows > this.#rows) break;
      used += rows;
      top--;
    }
    return Math.min(this.#cursorLine, top);
  }

  /**
   * The first content line wholly on screen (not above our old top row) and
   * its row, from the cursor's row as the terminal reports it: the lines
   * above the cursor's, each as many rows as the terminal splits it into at
   * the new width, stacked up.
   */
  #locate(report: ScreenPosition): { line: number; row: number } {
    const rowsOf = (line: number) => this.#rowsAt(this.#screen[line] ?? "");
    let line = this.#cursorLine;
    // On a split line the cursor is in the part holding its column.
    let row = report.row - Math.min(rowsOf(line) - 1, Math.floor(this.#cursorCol / this.#width));
    // Above our top row the terminal shows history (pulled back on a taller screen), which
    // may differ from our lines there: those rows are left alone.
    while (line > this.#top && rowsOf(line - 1) <= row) {
      row -= rowsOf(line - 1);
      line--;
    }
    return { line, row: Math.max(0, row) };
  }

  /** Whether the terminal split some line on screen when it got narrower than `columns`. */
  #reflowed(columns: number): boolean {
    if (this.#width >= columns) return false;
    return this.#screen.slice(this.#top).some((line) => this.#shownWidth(line) > this.#width);
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
    rowCount = Math.min(this.#screen.length - this.#top, this.#rows - this.#lead),
  ): void {
    const rows: string[] = [];
    for (let row = 0; row < rowCount; row++) rows.push(shown(this.#top + row) ?? UNKNOWN_ROW);
    this.#cursorLine += top - this.#top;
    this.#screen.length = top;
    for (let line = 0; line < top; line++) this.#screen[line] = composed(line);
    this.#screen.push(...rows);
    this.#top = top;
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
    if (end > this.#top || this.#lead > 0) {
      // The cursor ends on the bottom row, so the rows are known again.
      this.#moveTo(Math.max(end, this.#top) - 1 + this.#rows);
      this.#rowGuessed = false;
    }
    this.#filled = false;
    const blank = this.#top;
    this.#remap(0, composed, (line) => line >= blank ? "" : undefined);
    this.#diff(length, composed, this.#top);
  }

  /** Moves the cursor to column 0 of content line `target`; rows below the screen scroll it. */
  #moveTo(target: number): void {
    // Blank rows put at the top are deleted, not scrolled: history gets no blank lines from them.
    const blank = Math.min(this.#blankLead, target - this.#bottomLine());
    if (blank > 0) {
      this.#toRowZero(`\x1b[${blank}M`);
      this.#lead -= blank;
      this.#blankLead -= blank;
      this.#cursorLine = this.#top - this.#lead;
    }
    const from = this.#cursorLine;
    if (target < from) this.#out += `\x1b[${from - target}A\r`;
    // Line feeds, not cursor-down: at the bottom they scroll, so a row always exists.
    else if (target > from) this.#out += "\r\n".repeat(target - from);
    else this.#out += "\r";
    this.#cursorLine = target;
    this.#cursorCol = 0;
    const top = this.#topWhenShown(target);
    if (target > this.#bottomLine()) this.#filled = true;
    this.#lead = Math.max(0, this.#lead - Math.max(0, target - this.#bottomLine()));
    this.#blankLead = Math.min(this.#blankLead, this.#lead);
    this.#top = top;
  }

  /** Moves the cursor to column 0 of the screen's top row and writes `sequence` there. */
  #toRowZero(sequence: string): void {
    const up = this.#cursorLine - (this.#top - this.#lead);
    this.#out += (up > 0 ? `\x1b[${up}A` : "") + "\r" + sequence;
    this.#cursorLine = this.#top - this.#lead;
    this.#cursorCol = 0;
  }

  /** The content line on the bottom row (counting lead rows above `#top`). */
  #bottomLine(): number {
    return this.#top - this.#lead + this.#rows - 1;
  }

  /** What `#top` becomes when content line `line` is brought onto the screen (the screen scrolls). */
  #topWhenShown(line: number): number {
    const scrolled = Math.max(0, line - this.#bottomLine());
    return this.#top + Math.max(0, scrolled - this.#lead);
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
    if (!this.#filled || this.#rowGuessed || this.#screen.length <= this.#top) return;
    const gap = this.#bottomLine() - (this.#screen.length - 1);
    if (gap <= 0) return;
    this.#removeImages(this.#top, () => false);
    const cursorLine = this.#cursorLine;
    this.#toRowZero(`\x1b[${gap}L`);
    this.#lead += gap;
    this.#blankLead += gap;
    this.#cursorLine = this.#top - this.#lead;
    this.#diff(length, composed, this.#top);
    // Back to the line it was on: one left on a blank row would be taken for a line's
    // after the next resize.
    if (this.#cursorLine < this.#top) {
      this.#moveTo(Math.min(Math.max(cursorLine, this.#top), this.#screen.length - 1));
    }
  }

  #cursorTarget(overlays: readonly PlacedOverlay[]): { line: number; col: number } | null {
    const focusedOverlay = overlays.findLast((o) => o.entry.component === this.#focused);
    if (focusedOverlay !== undefined) return focusedOverlay.marker;
    if (overlays.length > 0 || this.#markers.size === 0) return null;
    const line = Math.max(...this.#markers.keys());
    if (line >= this.#coverAt && line < this.#coverAt + this.#covered) return null;
    return {
      line: line < this.#coverAt ? line : line - this.#covered,
      col: this.#markers.get(line)!,
    };
  }

  /** Shows the hardware cursor at the marker (for IMEs), or hides it. */
  #placeCursor(target: { line: number; col: number } | null): void {
    const visible = target !== null && target.line >= this.#top &&
      target.line < this.#screen.length;
    if (visible) {
      if (target.line !== this.#cursorLine || this.#out !== "" || this.#cursorShown !== true) {
        this.#moveTo(target.line);
        this.#out += `\x1b[${target.col + 1}G`;
        this.#cursorCol = target.col;
      }
    } else if (this.#out !== "") {
      this.#out += "\r";
      this.#cursorCol = 0;
    }
    if (visible !== this.#cursorShown) {
      this.#out += visible ? SHOW_CURSOR : HIDE_CURSOR;
      this.#cursorShown = visible;
    }
  }

  /** Leaves the cursor at column 0 of the line below the content, visible. */
  #parkCursor(): void {
    this.#closeFullScreen();
    if (!this.#painted) return;
    this.#moveTo(this.#screen.length);
    this.#out += AUTOWRAP_ON + SHOW_CURSOR;
    this.#cursorShown = true;
    this.#flush();
  }

  #flush(): boolean {
    if (this.#out === "") return false;
    const frame = SYNC_BEGIN + this.#out + SYNC_END;
    this.#out = "";
    this.stats.frames++;
    this.stats.bytesWritten += frame.length;
    this.terminal.write(frame);
    return true;
  }
}
