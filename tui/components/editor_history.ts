/**
 * Submitted prompts, browsed with up/down from the editor's first/last row.
 *
 * @module
 */

/** How many prompts are remembered. */
const DEFAULT_LIMIT = 500;

/**
 * Prompt history with a saved draft: browsing away from the text being
 * written and back again returns it unchanged.
 *
 * @example
 * ```ts
 * import { PromptHistory } from "./editor_history.ts";
 * const history = new PromptHistory(["first", "second"]);
 * console.assert(history.older("draft") === "second");
 * console.assert(history.older("second") === "first");
 * console.assert(history.newer() === "second" && history.newer() === "draft");
 * ```
 */
export class PromptHistory {
  readonly #entries: string[];
  /** Index into entries while browsing; entries.length means "the draft". */
  #index: number;
  #draft = "";

  /** Creates a history holding `entries` (oldest first). */
  constructor(entries: readonly string[] = [], readonly limit: number = DEFAULT_LIMIT) {
    this.#entries = entries.slice(-limit);
    this.#index = this.#entries.length;
  }

  /** Every entry, oldest first. */
  get entries(): readonly string[] {
    return this.#entries;
  }

  /** Whether an entry (rather than the draft) is being shown. */
  get browsing(): boolean {
    return this.#index < this.#entries.length;
  }

  /** Adds a submitted prompt (skipping blanks and repeats of the newest) and stops browsing. */
  add(text: string): void {
    if (text.trim() !== "" && this.#entries.at(-1) !== text) {
      this.#entries.push(text);
      if (this.#entries.length > this.limit) this.#entries.shift();
    }
    this.reset();
  }

  /** Stops browsing (the next `older` starts from the newest entry). */
  reset(): void {
    this.#index = this.#entries.length;
    this.#draft = "";
  }

  /**
   * The next older entry, or undefined at the oldest. `current` is the
   * editor's text, saved as the draft when browsing starts.
   */
  older(current: string): string | undefined {
    if (this.#index === 0) return undefined;
    if (!this.browsing) this.#draft = current;
    this.#index--;
    return this.#entries[this.#index];
  }

  /** The next newer entry, then the draft; undefined when not browsing. */
  newer(): string | undefined {
    if (!this.browsing) return undefined;
    this.#index++;
    return this.browsing ? this.#entries[this.#index] : this.#draft;
  }
}
