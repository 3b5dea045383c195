/**
 * The prompts waiting while a turn runs, shown above the editor.
 *
 * @module
 */
import { CachedComponent, defaultTheme, type Theme, truncateToWidth } from "@panto/tui";

/** What waits: steering (for the running turn) and follow-ups (after it). */
export interface PendingPrompts {
  /** Delivered at the running turn's next tool boundary. */
  steering: readonly string[];
  /** Sent once the turn ends. */
  followUp: readonly string[];
}

/**
 * One line per queued prompt (`steer › text` or `follow-up › text`, cut to
 * the width) and a key hint; nothing when the queue is empty.
 *
 * @example
 * ```ts
 * import { createTheme } from "@panto/tui";
 * import { PendingQueue } from "./pending_queue.ts";
 * const pending = new PendingQueue(createTheme({ noColor: true }));
 * pending.update({ steering: ["look at tests too"], followUp: [] });
 * console.assert(pending.render(60)[0] === "steer › look at tests too");
 * ```
 */
export class PendingQueue extends CachedComponent {
  #prompts: PendingPrompts = { steering: [], followUp: [] };
  readonly #theme: Theme;

  /** Creates an empty queue view. */
  constructor(theme: Theme = defaultTheme()) {
    super();
    this.#theme = theme;
  }

  /** Shows these prompts instead. */
  update(prompts: PendingPrompts): void {
    this.#prompts = { steering: [...prompts.steering], followUp: [...prompts.followUp] };
    this.changed();
  }

  /** Builds the lines for `width` (see {@linkcode CachedComponent}). */
  protected build(width: number): string[] {
    const theme = this.#theme;
    const { steering, followUp } = this.#prompts;
    const line = (label: string, text: string) =>
      truncateToWidth(theme.fg("accent", `${label} › `) + oneLine(text), width, "…");
    const lines = [
      ...steering.map((text) => line("steer", text)),
      ...followUp.map((text) => line("follow-up", text)),
    ];
    if (lines.length === 0) return [];
    lines.push(
      truncateToWidth(theme.fg("dim", "alt+up edits the last · esc puts them back"), width, "…"),
    );
    return lines;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
