/**
 * A piece of the screen. Components are line producers: structured data in,
 * lines out. The engine diffs lines against the previous frame.
 *
 * @example A static component
 * ```ts
 * import type { Component } from "@panto/tui";
 * const hello: Component = {
 *   render: (width) => ["hello".slice(0, width)],
 *   firstLineChanged: () => null,
 *   invalidate: () => {},
 * };
 * console.assert(hello.render(3)[0] === "hel");
 * ```
 */
export interface Component {
  /**
   * Lines for this width. Each line's visible width must be at most
   * `width` (the engine truncates over-wide lines and counts them).
   */
  render(width: number): readonly string[];
  /**
   * The lowest local line index that may differ from the last `render`
   * output, or `null` when nothing changed. Returning 0 is always correct;
   * a tighter answer lets the engine reuse cached lines above it.
   */
  firstLineChanged(): number | null;
  /** Drops cached render state (theme or width change); the next render is full. */
  invalidate(): void;
  /** Receives raw input when focused. */
  handleInput?(data: string): void;
  /** Set by the engine on focus changes; a focused component emits {@linkcode CURSOR_MARKER}. */
  focused?: boolean;
  /** Opt into key-release events (Kitty protocol). */
  wantsKeyRelease?: boolean;
}

/**
 * Zero-width marker a focused component puts where the hardware cursor
 * belongs (for IMEs). The engine strips it and moves the cursor there.
 */
export const CURSOR_MARKER = "\x1b_panto:c\x07";
