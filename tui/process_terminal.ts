/**
 * The real terminal: the process's stdin/stdout in raw mode.
 *
 * @module
 */
import { ImageProbe, type ImageSupport } from "./image_support.ts";
import { StdinBuffer } from "./input_splitter.ts";
import { KeyboardNegotiator } from "./kitty.ts";
import type { ScreenPosition, Terminal } from "./terminal.ts";
import { type ConsoleSize, consoleSize } from "./runtime/console_size.ts";
import { setRawMode } from "./runtime/raw_mode.ts";
import {
  exitProcess,
  onFatalError,
  onSignal,
  SIGNAL_NUMBERS,
  stopJob,
  type TerminalSignal,
} from "./runtime/signals.ts";
import { readStdin } from "./runtime/stdin.ts";
import { terminalHints, tmuxPassthrough } from "./runtime/terminal_env.ts";
import { writeStdout } from "./runtime/stdout.ts";

const BRACKETED_PASTE_ON = "\x1b[?2004h";
const BRACKETED_PASTE_OFF = "\x1b[?2004l";
const SHOW_CURSOR = "\x1b[?25h";
/** The engine turns auto-wrap off while it draws. */
const AUTOWRAP_ON = "\x1b[?7h";
/** Asks for the cursor position (DSR 6); the answer is `CSI row ; col R`. */
const CURSOR_QUERY = "\x1b[6n";
// deno-lint-ignore no-control-regex
const CURSOR_REPORT = /^\x1b\[(\d+);(\d+)R$/;
/** How long to wait for a cursor report (a terminal that does not answer). */
const CURSOR_REPORT_TIMEOUT_MS = 250;
/** Ends a synchronized update, in case we are interrupted between frames. */
const SYNC_END = "\x1b[?2026l";

/**
 * The operating-system side of {@linkcode ProcessTerminal}; the default
 * uses Deno, tests substitute a fake to observe every exit path.
 */
export interface TerminalIo {
  /** Raw mode on or off. */
  setRaw(enabled: boolean): void;
  /** The current terminal size. */
  size(): ConsoleSize;
  /** Writes all of `data`. */
  write(data: string): void;
  /** Starts the single stdin reader (awaiting `beforeRead` before each read); returns its stopper. */
  readInput(onData: (text: string) => void, beforeRead?: () => Promise<void>): () => Promise<void>;
  /** Adds a signal listener; returns its remover. */
  onSignal(signal: TerminalSignal, handler: () => void): () => void;
  /** Adds an uncaught-error hook; returns its remover. */
  onFatalError(handler: () => void): () => void;
  /** Stops the process's job until SIGCONT; `false` (nothing done) without job control. */
  stopJob(): boolean;
  /** Exits the process. */
  exit(code: number): void;
}

/** The Deno-backed {@linkcode TerminalIo}. */
export const DENO_TERMINAL_IO: TerminalIo = {
  setRaw: setRawMode,
  size: consoleSize,
  write: writeStdout,
  readInput: readStdin,
  onSignal,
  onFatalError,
  stopJob,
  exit: exitProcess,
};

/** Options for {@linkcode ProcessTerminal}. */
export interface ProcessTerminalOptions {
  /** The OS side (default: Deno's stdin/stdout/signals). */
  io?: TerminalIo;
  /** Lone-ESC delay of the input splitter (default 40 ms). */
  escapeTimeoutMs?: number;
  /** Wait for a keyboard protocol answer before falling back to modifyOtherKeys (default 150 ms). */
  keyboardFallbackMs?: number;
  /**
   * Restore the terminal and exit 128+n on SIGTERM, SIGHUP and SIGINT
   * (default true). Pass false when the app handles them (to save its work
   * first): it must then call `stop()` before it exits.
   */
  exitOnSignals?: boolean;
  /**
   * Finds out whether images can be drawn (default: a probe of the
   * environment's terminal, see {@linkcode ImageProbe}). Its queries go out
   * on `start()`, just before the keyboard negotiator's device attributes
   * query, whose answer ends both.
   */
  imageProbe?: ImageProbe;
}

const FATAL_SIGNALS: readonly TerminalSignal[] = ["SIGTERM", "SIGHUP", "SIGINT"];

/**
 * A {@linkcode Terminal} on the process's stdin/stdout: raw mode, one
 * long-lived stdin reader, bracketed paste, Kitty keyboard protocol with a
 * modifyOtherKeys fallback, SIGWINCH resizes, job control (`suspend()`,
 * repaint on SIGCONT), and restoration on every exit path: `stop()`,
 * SIGTERM/SIGHUP/SIGINT (then exit 128+n, unless the app handles them) and
 * uncaught errors.
 *
 * @example
 * ```ts ignore
 * import { ProcessTerminal, TUI } from "@panto/tui";
 * const tui = new TUI(new ProcessTerminal());
 * tui.start();
 * ```
 */
export class ProcessTerminal implements Terminal {
  readonly #io: TerminalIo;
  readonly #inputHandlers: ((sequence: string) => void)[] = [];
  readonly #resizeHandlers: (() => void)[] = [];
  readonly #restoreHandlers: (() => void)[] = [];
  readonly #buffer: StdinBuffer;
  readonly #negotiator: KeyboardNegotiator;
  readonly #imageProbe: ImageProbe;
  readonly #exitOnSignals: boolean;
  #size: ConsoleSize;
  #active = false;
  #cleanups: (() => void)[] = [];
  #stopReading: (() => Promise<void>) | undefined;
  /** Resolved while input is read; pending while another program has the terminal. */
  #inputGate: Promise<void> = Promise.resolve();
  #cursorWaiters: ((position: ScreenPosition | null) => void)[] = [];
  /** `refreshSize()` saw a change first: the SIGWINCH announcing it brings nothing new. */
  #signalDue = false;

  /** Creates the terminal; nothing changes until {@linkcode ProcessTerminal.start}. */
  constructor(options: ProcessTerminalOptions = {}) {
    this.#io = options.io ?? DENO_TERMINAL_IO;
    this.#exitOnSignals = options.exitOnSignals ?? true;
    this.#size = this.#io.size();
    const escapeOptions = options.escapeTimeoutMs === undefined
      ? {}
      : { escapeTimeoutMs: options.escapeTimeoutMs };
    this.#buffer = new StdinBuffer((sequence) => this.#dispatch(sequence), escapeOptions);
    const fallbackOptions = options.keyboardFallbackMs === undefined
      ? {}
      : { fallbackMs: options.keyboardFallbackMs };
    this.#negotiator = new KeyboardNegotiator((data) => this.#io.write(data), fallbackOptions);
    this.#imageProbe = options.imageProbe ??
      new ImageProbe({ hints: terminalHints(), tmuxPassthrough });
  }

  /** Width in columns (updated on SIGWINCH). */
  get columns(): number {
    return this.#size.columns;
  }

  /** Height in rows (updated on SIGWINCH). */
  get rows(): number {
    return this.#size.rows;
  }

  /** The keyboard protocol negotiated so far. */
  get keyboardProtocol(): KeyboardNegotiator["protocol"] {
    return this.#negotiator.protocol;
  }

  /**
   * What the terminal can draw: resolves once it answered the start-up
   * queries (or did not in time; then, or when never started: no images).
   */
  imageSupport(): Promise<ImageSupport> {
    return this.#imageProbe.result;
  }

  /** Writes `data` to stdout. */
  write(data: string): void {
    this.#io.write(data);
  }

  /** Registers an input handler (one sequence or paste per call). */
  onInput(handler: (sequence: string) => void): void {
    this.#inputHandlers.push(handler);
  }

  /** Registers a resize handler (also called after resuming from a suspend). */
  onResize(handler: () => void): void {
    this.#resizeHandlers.push(handler);
  }

  /** Registers a handler run just before the terminal is restored, on every exit path. */
  onBeforeRestore(handler: () => void): void {
    this.#restoreHandlers.push(handler);
  }

  /** Enters raw mode, enables paste and keyboard protocols, starts reading and listening. */
  start(): void {
    if (this.#active) return;
    this.#enterModes();
    this.#stopReading = this.#io.readInput(
      (text) => this.#buffer.process(text),
      () => this.#inputGate,
    );
    this.#cleanups = [
      this.#io.onSignal("SIGWINCH", () => this.#resizeSignalled()),
      this.#io.onSignal("SIGCONT", () => this.#resume()),
      ...(this.#exitOnSignals ? FATAL_SIGNALS : []).map((signal) =>
        this.#io.onSignal(signal, () => {
          this.#restore();
          this.#io.exit(128 + SIGNAL_NUMBERS[signal]);
        })
      ),
      this.#io.onFatalError(() => this.#restore()),
    ];
  }

  /** Restores the terminal and stops reading input. Safe to call twice. */
  stop(): void {
    for (const answer of [...this.#cursorWaiters]) answer(null);
    this.#restore();
    for (const cleanup of this.#cleanups) cleanup();
    this.#cleanups = [];
    this.#buffer.dispose();
    this.#negotiator.dispose();
    this.#imageProbe.dispose();
    const stopReading = this.#stopReading;
    this.#stopReading = undefined;
    // Cancelling resolves asynchronously; nothing depends on its completion.
    stopReading?.().catch(() => {});
  }

  /**
   * Restores the terminal and stops the process's job (with `deno task`
   * and its shell, so the shell gets its prompt back); re-enters raw mode
   * and repaints on SIGCONT. Returns `false` when there is no job control
   * (nothing stopped; the terminal is back in raw mode at once).
   */
  suspend(): boolean {
    if (!this.#active) return false;
    this.#restore();
    if (this.#io.stopJob()) return true;
    this.#resume();
    return false;
  }

  /**
   * Hands the terminal to another program while `run` runs (an editor that
   * inherits stdin): the read already waiting is answered by a cursor
   * report so that it takes none of the program's keys, no other read
   * starts, and the terminal is restored; afterwards raw mode, the
   * protocols and reading come back.
   */
  async runOutside<T>(run: () => Promise<T>): Promise<T> {
    if (!this.#active) return await run();
    const gate = Promise.withResolvers<void>();
    this.#inputGate = gate.promise;
    await this.cursorPosition();
    this.#restore();
    try {
      return await run();
    } finally {
      this.#inputGate = Promise.resolve();
      gate.resolve();
      this.#resume();
    }
  }

  /**
   * Asks where the cursor is (DSR 6): resolves with the 0-based position
   * from the terminal's report, or `null` after 250 ms without one. While a
   * question is open, a report is taken as its answer, not as a key.
   */
  cursorPosition(): Promise<ScreenPosition | null> {
    if (!this.#active) return Promise.resolve(null);
    return new Promise((resolve) => {
      const answer = (position: ScreenPosition | null) => {
        clearTimeout(timer);
        this.#cursorWaiters = this.#cursorWaiters.filter((waiter) => waiter !== answer);
        resolve(position);
      };
      const timer = setTimeout(() => answer(null), CURSOR_REPORT_TIMEOUT_MS);
      this.#cursorWaiters.push(answer);
      this.#io.write(CURSOR_QUERY);
    });
  }

  #enterModes(): void {
    this.#io.setRaw(true);
    this.#active = true;
    this.#io.write(BRACKETED_PASTE_ON + this.#imageProbe.start());
    this.#negotiator.start();
  }

  #resume(): void {
    if (this.#active || this.#stopReading === undefined) return;
    this.#io.setRaw(true);
    this.#active = true;
    this.#io.write(BRACKETED_PASTE_ON);
    this.#negotiator.resume();
    // The shell may have changed the screen and the size while we were stopped.
    this.#setSize(this.#io.size());
  }

  #restore(): void {
    if (!this.#active) return;
    this.#active = false;
    // A negotiation still pending must not switch modes on in a restored terminal.
    this.#negotiator.dispose();
    for (const handler of this.#restoreHandlers) handler();
    this.#io.write(
      SYNC_END + this.#negotiator.restoreSequence() + BRACKETED_PASTE_OFF + AUTOWRAP_ON +
        SHOW_CURSOR,
    );
    this.#io.setRaw(false);
  }

  /**
   * Reads the size now; when it changed (the SIGWINCH is still to come),
   * updates it, runs the resize handlers and returns `true`.
   */
  refreshSize(): boolean {
    const size = this.#io.size();
    if (this.#isCurrent(size)) return false;
    this.#signalDue = true;
    this.#setSize(size);
    return true;
  }

  #resizeSignalled(): void {
    const size = this.#io.size();
    const due = this.#signalDue;
    this.#signalDue = false;
    if (due && this.#isCurrent(size)) return;
    this.#setSize(size);
  }

  #isCurrent(size: ConsoleSize): boolean {
    return size.columns === this.#size.columns && size.rows === this.#size.rows;
  }

  #setSize(size: ConsoleSize): void {
    this.#size = size;
    for (const handler of this.#resizeHandlers) handler();
  }

  #dispatch(sequence: string): void {
    if (this.#imageProbe.handle(sequence)) return;
    if (this.#negotiator.handle(sequence)) return;
    const report = this.#cursorWaiters.length > 0 ? CURSOR_REPORT.exec(sequence) : null;
    if (report !== null) {
      const position = { row: Number(report[1]) - 1, col: Number(report[2]) - 1 };
      for (const answer of [...this.#cursorWaiters]) answer(position);
      return;
    }
    for (const handler of this.#inputHandlers) handler(sequence);
  }
}
