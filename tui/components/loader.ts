/**
 * A spinner with elapsed time while the model works.
 *
 * @module
 */
import { truncateToWidth } from "../text_width.ts";
import { defaultTheme } from "../theme.ts";
import type { Theme } from "../theme.ts";
import { CachedComponent } from "./cached_component.ts";
import { formatDuration } from "./format_duration.ts";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"] as const;

/** Options for {@linkcode Loader}. */
export interface LoaderOptions {
  /** Colours; defaults to {@linkcode defaultTheme}. */
  theme?: Theme;
  /** Text beside the spinner (default "Working…"). */
  message?: string;
  /** Show the "esc to cancel" hint (default true). */
  cancelHint?: boolean;
  /** Clock in milliseconds (default `Date.now`); tests pass a fake. */
  now?: () => number;
  /** Called after each automatic tick so the host draws a frame. */
  requestRender?: () => void;
  /** Milliseconds between automatic ticks (default 80). */
  intervalMs?: number;
}

/**
 * "⠋ Working… 12s · esc to cancel". Advance it with `tick()` yourself, or
 * `start()` a timer that ticks and calls `requestRender`; `stop()` (or
 * `using`) clears the timer.
 *
 * @example
 * ```ts
 * import { createTheme, Loader } from "@panto/tui";
 * let now = 0;
 * const loader = new Loader({ theme: createTheme({ noColor: true }), now: () => now });
 * now = 3_000;
 * loader.tick();
 * console.assert(loader.render(80)[0] === "⠙ Working… 3s · esc to cancel");
 * ```
 */
export class Loader extends CachedComponent implements Disposable {
  readonly #theme: Theme;
  readonly #now: () => number;
  readonly #options: LoaderOptions;
  #message: string;
  #started: number;
  #frame = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  /** Creates a loader; its clock starts now. */
  constructor(options: LoaderOptions = {}) {
    super();
    this.#options = options;
    this.#theme = options.theme ?? defaultTheme();
    this.#now = options.now ?? Date.now;
    this.#message = options.message ?? "Working…";
    this.#started = this.#now();
  }

  /** Whether the automatic timer runs. */
  get running(): boolean {
    return this.#timer !== undefined;
  }

  /** Changes the message. */
  setMessage(message: string): void {
    this.#message = message;
    this.changed();
  }

  /** Advances the spinner one frame and refreshes the elapsed time. */
  tick(): void {
    this.#frame = (this.#frame + 1) % FRAMES.length;
    this.changed();
  }

  /** Starts ticking every `intervalMs`, asking the host to render each time. */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      this.tick();
      this.#options.requestRender?.();
    }, this.#options.intervalMs ?? 80);
  }

  /** Stops the timer (safe to call twice). */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Stops the timer. */
  [Symbol.dispose](): void {
    this.stop();
  }

  /** Builds the lines for `width` (see {@linkcode CachedComponent}). */
  protected build(width: number): string[] {
    const theme = this.#theme;
    const elapsed = formatDuration(this.#now() - this.#started);
    const hint = this.#options.cancelHint === false ? "" : " · esc to cancel";
    const line = theme.fg("accent", FRAMES[this.#frame] ?? "") + " " + this.#message + " " +
      theme.fg("dim", elapsed + hint);
    return [truncateToWidth(line, width, "…")];
  }
}
