import type { ImageSupport } from "./image_support.ts";

/**
 * The terminal the engine draws on: a byte sink with a size, plus input
 * and resize notifications. {@linkcode ProcessTerminal} is the real one;
 * tests use an emulator-backed implementation.
 *
 * @example A terminal that drops output (e.g. for benchmarks)
 * ```ts
 * import type { Terminal } from "@panto/tui";
 * const sink: Terminal = {
 *   columns: 80,
 *   rows: 24,
 *   write: () => {},
 *   onInput: () => {},
 *   onResize: () => {},
 *   start: () => {},
 *   stop: () => {},
 * };
 * console.assert(sink.columns === 80);
 * ```
 */
export interface Terminal {
  /** Width in columns. */
  readonly columns: number;
  /** Height in rows. */
  readonly rows: number;
  /** Writes raw bytes (text and escape sequences). The engine writes one string per frame. */
  write(data: string): void;
  /**
   * Registers a handler for input. Each call receives exactly one key
   * sequence, or one whole bracketed paste (`ESC[200~…ESC[201~`).
   */
  onInput(handler: (sequence: string) => void): void;
  /** Registers a handler called after the size changed (or the screen must be repainted). */
  onResize(handler: () => void): void;
  /**
   * Registers a handler that runs on every exit path just before the
   * terminal modes are restored (stop, suspend, fatal signal, uncaught
   * error), so the engine can park the cursor below its content.
   */
  onBeforeRestore?(handler: () => void): void;
  /**
   * Asks the terminal where its cursor is (DSR 6). Resolves with the
   * 0-based position, or `null` when no answer came in time. The engine
   * asks after a resize, to find its lines where the terminal moved them.
   */
  cursorPosition?(): Promise<ScreenPosition | null>;
  /**
   * Reads the size now instead of waiting for the resize signal: when it
   * changed, updates `columns` and `rows`, runs the resize handlers and
   * returns `true`. The engine asks before each frame, because a frame
   * drawn for the old size that reaches a resized terminal lands on other
   * rows than the engine counts (see docs/tui.md, resize and forced repaint).
   */
  refreshSize?(): boolean;
  /**
   * What images the terminal can draw, once it answered the start-up
   * queries. Without this method: none (placeholders).
   */
  imageSupport?(): Promise<ImageSupport>;
  /** Enters raw mode and enables the input protocols. */
  start(): void;
  /** Restores everything `start` changed. Safe to call twice. */
  stop(): void;
  /**
   * Restores the terminal and stops the process's job (job control); it
   * repaints on resume. Returns `false` when the process could not be
   * stopped (no job control) and the terminal is still in use.
   */
  suspend?(): boolean;
  /**
   * Hands the terminal to another program (an editor) while `run` runs:
   * restores the terminal, stops reading input, then takes both back.
   */
  runOutside?<T>(run: () => Promise<T>): Promise<T>;
}

/**
 * A 0-based position on the screen, as {@linkcode Terminal.cursorPosition}
 * reports the cursor's.
 *
 * @example
 * ```ts
 * import type { ScreenPosition } from "@panto/tui";
 * const topLeft: ScreenPosition = { row: 0, col: 0 };
 * console.assert(topLeft.row === 0);
 * ```
 */
export interface ScreenPosition {
  /** Screen row, 0 at the top. */
  row: number;
  /** Column, 0 at the left. */
  col: number;
}
