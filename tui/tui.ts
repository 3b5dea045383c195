/**
 * The engine's public face: a root {@linkcode Container} drawn on a
 * terminal, with focus, input dispatch, overlays, the full screen, and the
 * terminal lent out or suspended. The drawing itself is the
 * {@linkcode ScreenRenderer}'s; see `docs/tui.md` for the rendering model.
 *
 * @module
 */
import type { Component } from "./component.ts";
import { Container } from "./container.ts";
import { FramePacer } from "./frame_pacer.ts";
import { FullScreen, type FullScreenHandle } from "./full_screen.ts";
import { Keybindings } from "./keybindings.ts";
import { parseKey } from "./keys.ts";
import type { OverlayOptions } from "./overlay.ts";
import { type OverlayHandle, OverlayStack } from "./overlay_stack.ts";
import { type RenderStats, ScreenRenderer } from "./screen_renderer.ts";
import type { ScreenPosition, Terminal } from "./terminal.ts";

export type { OverlayHandle } from "./overlay_stack.ts";
export type { RenderStats } from "./screen_renderer.ts";

/** Options for {@linkcode TUI}. */
export interface TuiOptions {
  /** Key bindings (the engine uses "tui.suspend"). Default: {@linkcode Keybindings} defaults. */
  keybindings?: Keybindings;
  /** Minimum time between two frames; requests inside it are merged (default 16 ms, what a 60 Hz display shows). */
  minFrameIntervalMs?: number;
  /**
   * How long the size must stay the same after a resize before the screen
   * is repainted (default 0: at once). A window dragged wider resizes the
   * terminal many times in a row; a repaint written for one size that
   * reaches the terminal after the next resize lands on other rows than
   * counted, so a real terminal is better served by waiting for the last.
   */
  resizeSettleMs?: number;
}

/**
 * An input hook: return `true` to consume the input so the focused
 * component does not see it.
 */
export type InputHook = (sequence: string) => boolean | void;

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

  readonly #inputHooks: InputHook[] = [];
  readonly #overlays: OverlayStack;
  readonly #renderer: ScreenRenderer;
  readonly #pacer: FramePacer;
  readonly #resizeSettleMs: number;
  /** The wait for the size to settle after a resize, while it runs. */
  #settling: ReturnType<typeof setTimeout> | undefined;
  #focused: Component | null = null;
  #started = false;

  // What the next frame must do.
  #invalidateNext = false;
  #repaintNext = false;
  #resumeNext = false;
  #historyNext = false;
  /** The terminal is lent to another program (`runOutside`): no frame may be written into its screen. */
  #lent = false;
  /** The last cursor-position query after a resize (0: none), while it is unanswered. */
  #cursorQuery = 0;
  #awaitingCursor = false;
  /** Where the terminal said the cursor is after the last resize, until a frame uses it. */
  #cursorReport: ScreenPosition | null = null;
  /** A component shown alone on the alternate screen: no frame touches the normal one meanwhile. */
  #fullScreen: FullScreen | null = null;

  /** Creates an engine drawing on `terminal`. Nothing is written until {@linkcode TUI.start}. */
  constructor(terminal: Terminal, options: TuiOptions = {}) {
    super();
    this.terminal = terminal;
    this.keybindings = options.keybindings ?? new Keybindings();
    this.#resizeSettleMs = options.resizeSettleMs ?? 0;
    this.#overlays = new OverlayStack(this);
    this.#renderer = new ScreenRenderer(this, terminal, this.stats, this.#overlays);
    this.#pacer = new FramePacer(
      options.minFrameIntervalMs ?? 16,
      () => this.renderNow(),
      () => this.#awaitingCursor,
    );
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
    return this.#renderer.top;
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
    if (this.#pacer.scheduled) this.renderNow();
    this.#pacer.cancel();
    clearTimeout(this.#settling);
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
    return this.#overlays.show(component, options);
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
    if (this.#started) this.#pacer.request();
  }

  /** Renders a frame now (cancelling a scheduled one). For tests, benchmarks and shutdown. */
  renderNow(): void {
    this.#pacer.cancel();
    if (!this.#started || this.#lent) return;
    const startedAt = performance.now();
    if (this.#fullScreen !== null) this.#renderer.fullScreenFrame(this.#fullScreen);
    else if (!this.#frame()) return;
    const flushed = this.#renderer.flush();
    const now = performance.now();
    this.#pacer.drawn(now);
    if (flushed) this.stats.lastFrameMs = now - startedAt;
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
    // The shell's prompt takes the place of our rows.
    this.#renderer.clearScreen();
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
    this.#renderer.clearScreen();
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
   * Asked once the size has stayed the same for the settle time: no frame
   * is drawn meanwhile.
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
    if (ask === undefined || !this.#renderer.painted || this.#resumeNext) {
      return this.requestRender();
    }
    const query = ++this.#cursorQuery;
    this.#awaitingCursor = true;
    const answered = (position: ScreenPosition | null) => {
      if (query !== this.#cursorQuery) return; // a newer resize asked again, or a frame went on
      this.#awaitingCursor = false;
      this.#cursorReport = position;
      this.requestRender();
    };
    const settled = () => {
      this.#settling = undefined;
      if (query !== this.#cursorQuery) return;
      // Resized again: `refreshSize` ran this handler again, which asks in its turn.
      if (this.terminal.refreshSize?.() === true) return;
      ask().then(answered, () => answered(null));
    };
    clearTimeout(this.#settling);
    if (this.#resizeSettleMs > 0) this.#settling = setTimeout(settled, this.#resizeSettleMs);
    else settled();
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

  /** Schedules a frame for what the user typed, at once (see {@linkcode FramePacer.soon}). */
  #renderSoon(): void {
    if (this.#started) this.#pacer.soon();
  }

  /** Back to the normal screen as it was; the next frame draws what changed meanwhile. */
  #closeFullScreen(): void {
    const shown = this.#fullScreen;
    if (shown === null) return;
    this.#fullScreen = null;
    this.#renderer.leaveFullScreen(shown);
    if (this.#focused === shown.component) this.setFocus(shown.focusBefore);
    if (!this.#started) return; // shutting down: the cursor is parked next
    if (shown.resized) this.#resized();
    else this.requestRender();
  }

  /**
   * Draws a frame of the normal screen; `false` when the terminal turned
   * out resized (its signal not handled yet) before it was written. A frame
   * drawn for the old size would land on the resized screen, where its moves
   * and line feeds reach other rows than counted (a copy of a row in
   * history, a row cut): it is dropped, and the resize's repaint comes next.
   */
  #frame(): boolean {
    if (this.terminal.refreshSize?.() === true) return false;
    const again = this.#renderer.frame({
      invalidate: this.#invalidateNext,
      repaint: this.#repaintNext,
      resume: this.#resumeNext,
      history: this.#historyNext,
      cursorReport: this.#cursorReport,
      focused: this.#focused,
    });
    // Rendering takes a while on a busy machine: the terminal may have been resized meanwhile.
    if (this.terminal.refreshSize?.() === true) {
      this.#renderer.discard();
      return false;
    }
    this.#invalidateNext = false;
    this.#repaintNext = false;
    this.#resumeNext = false;
    this.#historyNext = false;
    // A report is only true until we write; a late answer would be stale.
    this.#cursorReport = null;
    this.#awaitingCursor = false;
    this.#cursorQuery++;
    if (again) this.requestRender();
    return true;
  }

  /** Leaves the cursor at column 0 of the line below the content, visible. */
  #parkCursor(): void {
    this.#closeFullScreen();
    this.#renderer.park();
  }
}
