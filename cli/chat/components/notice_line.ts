/**
 * The chat's transient notice: one line, cut to the width, whose text is
 * replaced in place (a retry counting up, ctrl+t flipping), so passing
 * states never pile up in the transcript.
 *
 * @module
 */
import { type Component, type Theme, truncateToWidth } from "@panto/tui";

/** How much a notice matters: its colour. */
export type NoticeLevel = "info" | "warning" | "error";

/**
 * A notice's colouring: errors red, warnings yellow, the rest muted.
 *
 * @example
 * ```ts
 * import { createTheme } from "@panto/tui";
 * import { noticeStyle } from "./notice_line.ts";
 * console.assert(noticeStyle(createTheme({ noColor: true }), "error")("x") === "x");
 * ```
 */
export function noticeStyle(theme: Theme, level: NoticeLevel): (line: string) => string {
  const color = level === "error" ? "error" : level === "warning" ? "warning" : "muted";
  return (line) => theme.fg(color, line);
}

/**
 * One line of text, cut with "…" to the width; {@linkcode NoticeLine.setText}
 * replaces it.
 *
 * @example
 * ```ts
 * import { NoticeLine } from "./notice_line.ts";
 * const line = new NoticeLine("Retrying (1/4) in 1s: connection reset", (s) => s);
 * console.assert(line.render(12)[0] === "Retrying (1…");
 * line.setText("Thinking hidden.");
 * console.assert(line.render(40)[0] === "Thinking hidden.");
 * ```
 */
export class NoticeLine implements Component {
  #text: string;
  #style: (line: string) => string;
  #changed = true;

  /**
   * @param text The line (already stripped of terminal controls).
   * @param style Colours it.
   */
  constructor(text: string, style: (line: string) => string) {
    this.#text = text;
    this.#style = style;
  }

  /** The line as given. */
  get text(): string {
    return this.#text;
  }

  /** Replaces the line and its colour. */
  setText(text: string, style: (line: string) => string = this.#style): void {
    this.#text = text;
    this.#style = style;
    this.#changed = true;
  }

  /** The line cut to `width`. */
  render(width: number): readonly string[] {
    this.#changed = false;
    return [this.#style(truncateToWidth(this.#text.replaceAll("\n", " "), width, "…"))];
  }

  /** 0 after a change, else nothing. */
  firstLineChanged(): number | null {
    return this.#changed ? 0 : null;
  }

  /** Draws the line again next time. */
  invalidate(): void {
    this.#changed = true;
  }
}
