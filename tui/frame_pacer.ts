/**
 * Frame pacing: requests inside the frame interval merge into one frame,
 * and what the user typed is drawn at once.
 *
 * @module
 */

/**
 * Schedules the frames of an engine. The first request after an idle
 * period draws on the next microtask; later ones within the interval are
 * merged into one frame at its end.
 *
 * @example
 * ```ts ignore
 * const pacer = new FramePacer(16, () => draw(), () => false);
 * pacer.request(); // draws on the next microtask
 * pacer.request(); // merged with it
 * ```
 */
export class FramePacer {
  readonly #minIntervalMs: number;
  readonly #draw: () => void;
  readonly #held: () => boolean;
  #scheduled = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastFrameAt = -Infinity;

  /**
   * @param minIntervalMs Minimum time between two frames.
   * @param draw Draws a frame.
   * @param held Whether frames wait for something (the cursor report after
   * a resize): a due frame is then dropped, and what ends the wait requests one.
   */
  constructor(minIntervalMs: number, draw: () => void, held: () => boolean) {
    this.#minIntervalMs = minIntervalMs;
    this.#draw = draw;
    this.#held = held;
  }

  /** Whether a frame is scheduled. */
  get scheduled(): boolean {
    return this.#scheduled;
  }

  /** Schedules a frame: on the next microtask, or at the end of the current interval. */
  request(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    const wait = this.#lastFrameAt + this.#minIntervalMs - performance.now();
    if (wait <= 0) queueMicrotask(() => this.#run());
    else this.#timer = setTimeout(() => this.#run(), wait);
  }

  /**
   * Schedules a frame for what the user typed: on the next microtask even
   * inside the frame interval, so echo never waits behind a streaming
   * answer's frame pacing (a keystroke is worth one extra frame).
   */
  soon(): void {
    this.request();
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    queueMicrotask(() => this.#run());
  }

  /** Drops the scheduled frame. */
  cancel(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#scheduled = false;
  }

  /** Records that a frame was drawn at `at` (`performance.now()`): the interval starts there. */
  drawn(at: number): void {
    this.#lastFrameAt = at;
  }

  #run(): void {
    if (!this.#scheduled) return;
    this.#scheduled = false;
    this.#timer = undefined;
    if (!this.#held()) this.#draw();
  }
}
