/**
 * Transient UI never moves the transcript: the lines of the transcript
 * that the children below it cover while they are taller.
 *
 * @module
 */

/** What the cover needs to know of the screen. */
export interface CoverScreen {
  /** The content line on the screen's top row. */
  readonly top: number;
  /** The content line on the bottom row. */
  bottomLine(): number;
  /** What the top becomes when content line `line` is brought onto the screen. */
  topWhenShown(line: number): number;
}

/**
 * The root's first child is the transcript; what its other children
 * (editor, footer, a picker in the editor's place, a completion list) add
 * when they grow on a full screen while the transcript does not change is
 * drawn over the transcript's last rows instead of scrolling it into
 * history: those lines are _covered_ (not shown, not in history) and come
 * back, in place, when the children below shrink again, or as the
 * transcript grows (it scrolls as usual, its covered lines first).
 *
 * @example
 * ```ts ignore
 * const cover = new TranscriptCover();
 * cover.update(change, lines.length, transcriptEnd, false, screen);
 * const shown = cover.source(line); // the content line shown on `line`
 * ```
 */
export class TranscriptCover {
  /** How many of the transcript's last lines the children below it cover. */
  covered = 0;
  /** The content line where the covered lines start (the first one not shown). */
  at = 0;
  /** How many lines the root's children after the first had at the last frame. */
  #bottomLength = 0;

  /**
   * Updates the cover for content `length` lines long whose transcript ends
   * at `transcriptEnd`, and returns the first line shown that may differ
   * because of the content's change at `change` (content line) or the
   * cover's own change. `reset` drops the cover (a fresh screen, a resize).
   */
  update(
    change: number,
    length: number,
    transcriptEnd: number,
    reset: boolean,
    screen: CoverScreen,
  ): number {
    const bottom = length - transcriptEnd;
    const grown = bottom - this.#bottomLength;
    const before = { at: this.at, covered: this.covered };
    const transcriptGrown = transcriptEnd - (before.at + before.covered);
    let covered = reset ? 0 : this.covered;
    if (grown < 0) covered = Math.max(0, covered + grown);
    if (transcriptGrown > 0) covered = Math.max(0, covered - transcriptGrown);
    const transcriptKept = transcriptGrown === 0 && change >= transcriptEnd;
    if (grown > 0 && transcriptKept && !reset) {
      const overflow = length - covered - 1 - screen.bottomLine();
      // At least one row of the transcript stays in view (it is what the UI is about).
      const spare = transcriptEnd - screen.top - 1 - covered;
      covered += Math.max(0, Math.min(grown, overflow, spare));
    }
    // Only lines on screen can be covered: the ones above are history already. And a
    // screen that scrolls past covered lines would skip them: they are shown first.
    covered = Math.max(0, Math.min(covered, transcriptEnd - screen.top));
    while (covered > 0 && screen.topWhenShown(length - covered - 1) > transcriptEnd - covered) {
      covered--;
    }
    this.covered = covered;
    this.at = transcriptEnd - this.covered;
    this.#bottomLength = bottom;
    let shown = this.shown(change);
    if (before.covered > 0 || this.covered > 0) {
      if (before.at !== this.at || before.covered !== this.covered) {
        shown = Math.min(shown, before.at, this.at);
      }
    }
    return shown;
  }

  /** A function putting the cover back as it is now. */
  saved(): () => void {
    const [covered, at, bottomLength] = [this.covered, this.at, this.#bottomLength];
    return () => {
      [this.covered, this.at, this.#bottomLength] = [covered, at, bottomLength];
    };
  }

  /** Where content line `line` is shown, the cover taken out (a covered line: where the cover starts). */
  shown(line: number): number {
    return line < this.at ? line : Math.max(this.at, line - this.covered);
  }

  /** The content line shown on line `line` of the screen's lines. */
  source(line: number): number {
    return line < this.at ? line : line + this.covered;
  }

  /** Whether content line `line` is covered. */
  hides(line: number): boolean {
    return line >= this.at && line < this.at + this.covered;
  }
}
