/**
 * A {@linkcode Terminal} backed by the xterm.js headless emulator, for screen
 * tests: what the engine writes is interpreted exactly as a terminal would,
 * and the screen, scrollback, cursor and cell styles can be read back.
 *
 * @module
 */
import xterm from "@xterm/headless";
import { UnicodeGraphemesAddon } from "@xterm/addon-unicode-graphemes";
import { StdinBuffer } from "../../tui/input_splitter.ts";
import type { ScreenPosition, Terminal } from "../../tui/terminal.ts";
import { type ImageSupport, NO_IMAGES } from "../../tui/image_support.ts";

const { Terminal: XtermTerminal } = xterm;

/** Styles of one screen cell. */
export interface CellStyle {
  /** The cell's characters ("" for the right half of a wide character). */
  chars: string;
  /** 0 (right half of a wide char), 1 or 2. */
  width: number;
  bold: boolean;
  italic: boolean;
  underline: boolean;
  inverse: boolean;
  /** Palette index, RGB value, or -1 for the default colour. */
  fg: number;
  /** Palette index, RGB value, or -1 for the default colour. */
  bg: number;
}

/** Options for {@linkcode VirtualTerminal}. */
export interface VirtualTerminalOptions {
  /** Scrollback rows kept by the emulator (default 10000). */
  scrollback?: number;
  /**
   * Model tmux's `scroll-on-clear` (on by default): erasing the display
   * (ED 2, or ED 0 from the top-left corner) first scrolls the screen's
   * non-blank rows into scrollback. Default false (plain xterm).
   */
  scrollOnClear?: boolean;
  /** Whether `cursorPosition()` answers, as most terminals do (default true). */
  reportsCursor?: boolean;
  /** What `imageSupport()` reports (default: no images, as xterm.js draws none). */
  imageSupport?: ImageSupport;
}

/**
 * An emulated terminal. Call `flush()` after the engine wrote something and
 * before reading the screen: xterm.js parses writes asynchronously.
 *
 * @example
 * ```ts ignore
 * const terminal = new VirtualTerminal(40, 10);
 * terminal.write("hello");
 * await terminal.flush();
 * console.assert(terminal.screenLines()[0] === "hello");
 * terminal.dispose();
 * ```
 */
export class VirtualTerminal implements Terminal {
  readonly #xterm: InstanceType<typeof XtermTerminal>;
  readonly #inputHandlers: ((sequence: string) => void)[] = [];
  readonly #resizeHandlers: (() => void)[] = [];
  readonly #restoreHandlers: (() => void)[] = [];
  readonly #input: StdinBuffer;
  #pending: Promise<void> = Promise.resolve();
  /** Everything written, in order (one entry per `write`). */
  readonly writes: string[] = [];
  /** Total UTF-16 code units written. */
  bytesWritten = 0;
  #started = false;
  readonly #reportsCursor: boolean;
  readonly #imageSupport: ImageSupport;
  /** The size as last signalled to the application (the emulator may be resized already). */
  #size: { columns: number; rows: number };

  /** Creates a `columns`×`rows` emulator. */
  constructor(columns: number, rows: number, options: VirtualTerminalOptions = {}) {
    this.#xterm = new XtermTerminal({
      cols: columns,
      rows,
      scrollback: options.scrollback ?? 10_000,
      allowProposedApi: true,
      scrollOnEraseInDisplay: options.scrollOnClear ?? false,
    });
    if (options.scrollOnClear) this.#scrollOnClearFromHome();
    this.#size = { columns, rows };
    this.#reportsCursor = options.reportsCursor ?? true;
    this.#imageSupport = options.imageSupport ?? NO_IMAGES;
    // The graphemes addon makes xterm measure clusters like string-width does.
    const graphemes = new UnicodeGraphemesAddon();
    this.#xterm.loadAddon(graphemes);
    this.#xterm.unicode.activeVersion = "15-graphemes";
    this.#input = new StdinBuffer((sequence) => {
      for (const handler of this.#inputHandlers) handler(sequence);
    });
  }

  /** Width in columns, as last signalled. */
  get columns(): number {
    return this.#size.columns;
  }

  /** Height in rows, as last signalled. */
  get rows(): number {
    return this.#size.rows;
  }

  /** Whether `start` was called and `stop` was not. */
  get started(): boolean {
    return this.#started;
  }

  /** Feeds `data` to the emulator (asynchronously; see {@linkcode VirtualTerminal.flush}). */
  write(data: string): void {
    this.writes.push(data);
    this.bytesWritten += data.length;
    const previous = this.#pending;
    this.#pending = new Promise((resolve) => {
      this.#xterm.write(data, () => previous.then(resolve));
    });
  }

  /**
   * Where the cursor is once every write so far is processed, as a
   * terminal answers DSR 6 (`null` with `reportsCursor: false`).
   */
  async cursorPosition(): Promise<ScreenPosition | null> {
    await this.flush();
    if (!this.#reportsCursor) return null;
    return { row: this.#xterm.buffer.active.cursorY, col: this.#xterm.buffer.active.cursorX };
  }

  /**
   * Calls `handler` for each OSC `ident` sequence the emulator processes,
   * with its data and the buffer row (scrollback included) the cursor is on.
   */
  onOsc(ident: number, handler: (data: string, row: number) => void): void {
    this.#xterm.parser.registerOscHandler(ident, (data) => {
      const buffer = this.#xterm.buffer.active;
      handler(data, buffer.baseY + buffer.cursorY);
      return true;
    });
  }

  /** What images the terminal is said to draw (see {@linkcode VirtualTerminalOptions.imageSupport}). */
  imageSupport(): Promise<ImageSupport> {
    return Promise.resolve(this.#imageSupport);
  }

  /** Registers an input handler. */
  onInput(handler: (sequence: string) => void): void {
    this.#inputHandlers.push(handler);
  }

  /** Registers a resize handler. */
  onResize(handler: () => void): void {
    this.#resizeHandlers.push(handler);
  }

  /** Registers a handler run by `stop()` before it returns. */
  onBeforeRestore(handler: () => void): void {
    this.#restoreHandlers.push(handler);
  }

  /** Marks the terminal started. */
  start(): void {
    this.#started = true;
  }

  /** Runs the before-restore handlers and marks the terminal stopped. */
  stop(): void {
    if (!this.#started) return;
    for (const handler of this.#restoreHandlers) handler();
    this.#started = false;
    this.#input.dispose();
  }

  /** Waits until the emulator has processed every write so far. */
  async flush(): Promise<void> {
    await this.#pending;
  }

  /** Types `data` as if from the keyboard (split into sequences like real stdin). */
  feed(data: string): void {
    this.#input.process(data);
  }

  /** Delivers a pending partial sequence now (what the ESC timeout would do). */
  flushInput(): void {
    this.#input.flush();
  }

  /** Resizes the emulator (it reflows) and notifies resize handlers. */
  resize(columns: number, rows: number): void {
    this.#xterm.resize(columns, rows);
    this.#size = { columns, rows };
    for (const handler of this.#resizeHandlers) handler();
  }

  /**
   * Resizes the emulator (it reflows) without notifying anyone yet: the
   * resize signal is still on its way, as when a busy process has not
   * handled its SIGWINCH. Call it after `flush()`: writes not processed yet
   * would be applied at the new size. `refreshSize()` or `resize()` notifies.
   */
  resizeUnsignalled(columns: number, rows: number): void {
    this.#xterm.resize(columns, rows);
  }

  /** Notifies the resize handlers if the emulator's size is not the one last signalled. */
  refreshSize(): boolean {
    if (this.#xterm.cols === this.#size.columns && this.#xterm.rows === this.#size.rows) {
      return false;
    }
    this.#size = { columns: this.#xterm.cols, rows: this.#xterm.rows };
    for (const handler of this.#resizeHandlers) handler();
    return true;
  }

  /** The visible rows, right-trimmed. */
  screenLines(): string[] {
    const buffer = this.#xterm.buffer.active;
    return this.#range(buffer.baseY, buffer.baseY + this.#xterm.rows);
  }

  /** The rows that scrolled above the screen, oldest first, right-trimmed. */
  scrollbackLines(): string[] {
    return this.#range(0, this.#xterm.buffer.active.baseY);
  }

  /** Scrollback followed by the screen. */
  allLines(): string[] {
    return this.#range(0, this.#xterm.buffer.active.length);
  }

  /**
   * Scrollback followed by the screen, rows the emulator split at a
   * narrower width joined back into the lines they were (as tmux's
   * `capture-pane -J`).
   */
  joinedLines(): string[] {
    const buffer = this.#xterm.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < buffer.length; y++) {
      const line = buffer.getLine(y);
      const text = line?.translateToString(true) ?? "";
      if (line?.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
      else lines.push(text);
    }
    return lines.map((line) => line.trimEnd());
  }

  /** Cursor position on the screen (0-based). */
  cursor(): { x: number; y: number } {
    const buffer = this.#xterm.buffer.active;
    return { x: buffer.cursorX, y: buffer.cursorY };
  }

  /** Whether the application left the cursor visible (DECTCEM). */
  get cursorVisible(): boolean {
    // Not in the public typings; the headless core tracks it.
    // deno-lint-ignore no-explicit-any
    const core = (this.#xterm as any)._core;
    return core?.coreService?.isCursorHidden === false;
  }

  /** Styles of the cell at screen column `x`, row `y`. */
  cell(x: number, y: number): CellStyle {
    const buffer = this.#xterm.buffer.active;
    const cell = buffer.getLine(buffer.baseY + y)?.getCell(x);
    if (cell === undefined) {
      throw new Error(
        `No cell at x=${x}, y=${y} on a ${this.#xterm.cols}x${this.#xterm.rows} screen`,
      );
    }
    return {
      chars: cell.getChars(),
      width: cell.getWidth(),
      bold: cell.isBold() !== 0,
      italic: cell.isItalic() !== 0,
      underline: cell.isUnderline() !== 0,
      inverse: cell.isInverse() !== 0,
      fg: cell.isFgDefault() ? -1 : cell.getFgColor(),
      bg: cell.isBgDefault() ? -1 : cell.getBgColor(),
    };
  }

  /** Releases the emulator and the input timer. */
  dispose(): void {
    this.#input.dispose();
    this.#xterm.dispose();
  }

  /** ED 0 at the top-left corner scrolls the screen into history, as ED 2 does (tmux). */
  #scrollOnClearFromHome(): void {
    // The scroll itself is not in the public API; the headless core has it.
    // deno-lint-ignore no-explicit-any
    const core = (this.#xterm as any)._core;
    this.#xterm.parser.registerCsiHandler({ final: "J" }, (params) => {
      const buffer = this.#xterm.buffer.active;
      if ((params[0] ?? 0) !== 0 || buffer.cursorX !== 0 || buffer.cursorY !== 0) return false;
      let last = this.#xterm.rows - 1;
      while (
        last >= 0 && (buffer.getLine(buffer.baseY + last)?.translateToString(true) ?? "") === ""
      ) {
        last--;
      }
      for (; last >= 0; last--) core._bufferService.scroll(core._inputHandler._eraseAttrData());
      return false; // the default handler then erases the (now blank) screen
    });
  }

  #range(from: number, to: number): string[] {
    const buffer = this.#xterm.buffer.active;
    const lines: string[] = [];
    for (let y = from; y < to; y++) {
      lines.push((buffer.getLine(y)?.translateToString(true) ?? "").trimEnd());
    }
    return lines;
  }
}
