/**
 * A component drawn alone on the terminal's alternate screen (see
 * {@linkcode TUI.showFullScreen}): the normal screen and its history stay
 * as they were underneath, and come back untouched when it closes.
 *
 * @module
 */
import type { Component } from "./component.ts";

/** Switches to the alternate screen, saving the cursor (xterm 1049: tmux, every modern terminal). */
const ENTER_ALTERNATE = "\x1b[?1049h";
/** Back to the normal screen as it was, cursor restored. */
const LEAVE_ALTERNATE = "\x1b[?1049l";
const CLEAR_LINE = "\x1b[2K";

/** Controls a component shown with {@linkcode TUI.showFullScreen}. */
export interface FullScreenHandle {
  /** Leaves the alternate screen and gives focus back. */
  close(): void;
}

/**
 * The state of a full-screen component: what each row of the alternate
 * screen shows, so a frame rewrites only the rows that changed.
 */
export class FullScreen {
  /** The component drawn. */
  readonly component: Component;
  /** What had the focus before it. */
  readonly focusBefore: Component | null;
  /** The normal screen changed size meanwhile: it must be located and drawn again after. */
  resized = false;
  #shown: string[] = [];
  #entered = false;
  #width = -1;
  #rows = -1;

  /**
   * @param component What to draw.
   * @param focusBefore What had the focus.
   */
  constructor(component: Component, focusBefore: Component | null) {
    this.component = component;
    this.focusBefore = focusBefore;
  }

  /**
   * The bytes that bring the alternate screen up to date at `width` ×
   * `rows` (entering it on the first frame); `clean` makes a line safe to
   * print in `width` columns. Rows are addressed absolutely: nothing here
   * scrolls, so nothing reaches any history.
   */
  frame(width: number, rows: number, clean: (line: string) => string): string {
    let out = "";
    if (!this.#entered) {
      this.#entered = true;
      out += ENTER_ALTERNATE;
    }
    if (width !== this.#width || rows !== this.#rows) {
      // After a resize the terminal may have moved anything: every row is written again.
      this.#shown = [];
      this.#width = width;
      this.#rows = rows;
    }
    const lines = this.component.render(width);
    for (let row = 0; row < rows; row++) {
      const raw = lines[row];
      const text = raw === undefined ? "" : clean(raw);
      if (this.#shown[row] === text) continue;
      out += `\x1b[${row + 1};1H${CLEAR_LINE}${text}`;
      this.#shown[row] = text;
    }
    return out;
  }

  /** The bytes that leave the alternate screen ("" when it was never entered). */
  leave(): string {
    if (!this.#entered) return "";
    this.#entered = false;
    return LEAVE_ALTERNATE;
  }
}
