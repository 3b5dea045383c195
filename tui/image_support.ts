/**
 * Whether the terminal can draw images, asked of the terminal itself at
 * start-up rather than assumed from its name. Kitty graphics: a query image
 * (`a=q`) answered `OK` before the device attributes answer (DA1, which every
 * terminal sends) means yes; DA1 alone means no. iTerm2 inline images have no
 * such query: the terminal must say it is iTerm2 (or WezTerm) in
 * `TERM_PROGRAM` / `LC_TERMINAL`, and its `ReportCellSize` answer gives the
 * cell size. Inside tmux, images pass only when the pane's
 * `allow-passthrough` option is on (off by default), and then only to an
 * outer terminal the environment names; no query goes through tmux (it would
 * take the Kitty query for a title). The Linux console and dumb terminals
 * get no query at all: they would print it.
 *
 * @module
 */
import type { ImageProtocol } from "./terminal_image.ts";

/** A terminal cell's size in pixels. */
export interface CellSize {
  /** Width in pixels. */
  width: number;
  /** Height in pixels. */
  height: number;
}

/**
 * What the terminal can draw: the image protocol (null: none, images show
 * as a one-line placeholder), its cell size when it told us, and whether
 * sequences must be wrapped for tmux's passthrough.
 *
 * @example
 * ```ts
 * import type { ImageSupport } from "@panto/tui";
 * const kitty: ImageSupport = { protocol: "kitty", cellSize: { width: 10, height: 20 }, tmux: false };
 * console.assert(kitty.protocol === "kitty");
 * ```
 */
export interface ImageSupport {
  /** The protocol images are drawn with, or null to show placeholders. */
  protocol: ImageProtocol | null;
  /** Pixels per cell, or null when the terminal did not say. */
  cellSize: CellSize | null;
  /** Whether image sequences go through tmux's passthrough. */
  tmux: boolean;
}

/**
 * No images: placeholders.
 *
 * @example
 * ```ts
 * import { NO_IMAGES } from "@panto/tui";
 * console.assert(NO_IMAGES.protocol === null);
 * ```
 */
export const NO_IMAGES: ImageSupport = Object.freeze({
  protocol: null,
  cellSize: null,
  tmux: false,
});

/**
 * The environment variables that name the terminal (each as read, or
 * undefined when unset).
 *
 * @example
 * ```ts
 * import type { TerminalHints } from "@panto/tui";
 * const iterm: TerminalHints = { TERM: "xterm-256color", TERM_PROGRAM: "iTerm.app" };
 * console.assert(iterm.TERM_PROGRAM === "iTerm.app");
 * ```
 */
export interface TerminalHints {
  /** The terminal type (`linux` and `dumb` get no queries; `tmux…`/`screen…` are multiplexers). */
  TERM?: string | undefined;
  /** Set by iTerm2 (`iTerm.app`), WezTerm (`WezTerm`), tmux (`tmux`)… */
  TERM_PROGRAM?: string | undefined;
  /** Set by iTerm2 (`iTerm2`), and kept through ssh and tmux. */
  LC_TERMINAL?: string | undefined;
  /** Set by Kitty, and kept by a tmux server started in it. */
  KITTY_WINDOW_ID?: string | undefined;
  /** Set by tmux inside its panes (the server's socket). */
  TMUX?: string | undefined;
}

/** The names {@linkcode TerminalHints} reads. */
export const TERMINAL_HINT_VARIABLES: readonly (keyof TerminalHints)[] = [
  "TERM",
  "TERM_PROGRAM",
  "LC_TERMINAL",
  "KITTY_WINDOW_ID",
  "TMUX",
];

/** Options for {@linkcode ImageProbe}. */
export interface ImageProbeOptions {
  /** The environment's names for the terminal. */
  hints: TerminalHints;
  /** Inside tmux: whether the pane's `allow-passthrough` is on (default: assume off). */
  tmuxPassthrough?: () => Promise<boolean>;
  /** Give up waiting for the terminal's answers after this long (default 2000 ms). */
  timeoutMs?: number;
}

/** A query image: 1×1 RGB pixel sent directly (`a=q` only checks, stores nothing). */
const KITTY_QUERY = "\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\";
const CELL_SIZE_QUERY = "\x1b[16t";
const ITERM2_CELL_SIZE_QUERY = "\x1b]1337;ReportCellSize\x07";
// deno-lint-ignore no-control-regex
const KITTY_REPLY = /^\x1b_Gi=31;(.*)\x1b\\$/;
// deno-lint-ignore no-control-regex
const CELL_SIZE_REPLY = /^\x1b\[6;(\d+);(\d+)t$/;
const ITERM2_CELL_SIZE_REPLY =
  // deno-lint-ignore no-control-regex
  /^\x1b\]1337;ReportCellSize=([\d.]+);([\d.]+)(?:;([\d.]+))?(?:\x07|\x1b\\)$/;
// deno-lint-ignore no-control-regex
const DA1_REPLY = /^\x1b\[\?[\d;]*c$/;

/**
 * Finds out what the terminal can draw. `start()` returns the queries to
 * write, which must be followed by a primary device attributes query
 * (`CSI c`; {@linkcode ProcessTerminal} shares the keyboard negotiator's).
 * `handle()` takes each input sequence and consumes the answers (a DA1
 * answer is only noted: it is the negotiator's too). `result` resolves once
 * the DA1 answer came (the terminal answers in order, so every answer it
 * had is in), or after the timeout.
 *
 * @example A terminal that speaks Kitty graphics
 * ```ts
 * import { ImageProbe } from "@panto/tui";
 * const probe = new ImageProbe({ hints: { TERM: "xterm-kitty" } });
 * const queries = probe.start(); // written to the terminal, then "\x1b[c"
 * console.assert(queries.includes("a=q"));
 * probe.handle("\x1b_Gi=31;OK\x1b\\");
 * probe.handle("\x1b[6;20;10t");
 * probe.handle("\x1b[?62;c");
 * const support = await probe.result;
 * console.assert(support.protocol === "kitty" && support.cellSize?.height === 20);
 * ```
 */
export class ImageProbe {
  readonly #hints: TerminalHints;
  readonly #tmuxPassthrough: () => Promise<boolean>;
  readonly #timeoutMs: number;
  readonly #done = Promise.withResolvers<ImageSupport>();
  #started = false;
  #finished = false;
  #kitty = false;
  #cellSize: CellSize | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #answered = Promise.withResolvers<void>();

  /** Creates a probe; nothing is asked until {@linkcode ImageProbe.start}. */
  constructor(options: ImageProbeOptions) {
    this.#hints = options.hints;
    this.#tmuxPassthrough = options.tmuxPassthrough ?? (() => Promise.resolve(false));
    this.#timeoutMs = options.timeoutMs ?? 2000;
  }

  /** What the terminal can draw, once known. */
  get result(): Promise<ImageSupport> {
    return this.#done.promise;
  }

  /**
   * Starts the probe; returns the queries to write ("" when the terminal
   * must not be asked: the result is then known without an answer).
   */
  start(): string {
    if (this.#started) return "";
    this.#started = true;
    const term = this.#hints.TERM ?? "";
    if (term === "" || term === "dumb" || term === "linux") {
      this.#finish(NO_IMAGES);
      return "";
    }
    this.#timer = setTimeout(() => this.#answered.resolve(), this.#timeoutMs);
    if (inTmux(this.#hints)) {
      void this.#decideInTmux();
      return CELL_SIZE_QUERY;
    }
    void this.#answered.promise.then(() => this.#finish(this.#direct()));
    return KITTY_QUERY + CELL_SIZE_QUERY + (iterm2Named(this.#hints) ? ITERM2_CELL_SIZE_QUERY : "");
  }

  /**
   * Consumes an answer to the queries, even one that comes too late to
   * count (it is no key); `false` for other input (DA1 answers included).
   */
  handle(sequence: string): boolean {
    if (!this.#started) return false;
    if (DA1_REPLY.test(sequence)) {
      this.#answered.resolve();
      return false;
    }
    const kitty = KITTY_REPLY.exec(sequence);
    if (kitty !== null) {
      this.#kitty = kitty[1] === "OK";
      return true;
    }
    const cell = CELL_SIZE_REPLY.exec(sequence);
    if (cell !== null) {
      this.#cellSize = cellSize(Number(cell[2]), Number(cell[1]));
      return true;
    }
    const iterm = ITERM2_CELL_SIZE_REPLY.exec(sequence);
    if (iterm === null) return false;
    const scale = Number(iterm[3] ?? 1);
    this.#cellSize ??= cellSize(Number(iterm[2]) * scale, Number(iterm[1]) * scale);
    return true;
  }

  /** Stops waiting: the result is what was answered so far. */
  dispose(): void {
    this.#answered.resolve();
    if (!this.#started) this.#finish(NO_IMAGES);
  }

  /** Outside tmux: Kitty if it answered OK, else iTerm2 when the terminal says it is one. */
  #direct(): ImageSupport {
    const protocol = this.#kitty ? "kitty" : iterm2Named(this.#hints) ? "iterm2" : null;
    return protocol === null ? NO_IMAGES : { protocol, cellSize: this.#cellSize, tmux: false };
  }

  async #decideInTmux(): Promise<void> {
    const named = this.#hints.KITTY_WINDOW_ID
      ? "kitty"
      : this.#hints.LC_TERMINAL === "iTerm2"
      ? "iterm2"
      : null;
    // Without a terminal that names itself, tmux's answer could change nothing: do not ask.
    const passthrough = named !== null && await this.#tmuxPassthrough().catch(() => false);
    await this.#answered.promise;
    const protocol = passthrough ? named : null;
    this.#finish(
      protocol === null ? NO_IMAGES : { protocol, cellSize: this.#cellSize, tmux: true },
    );
  }

  #finish(support: ImageSupport): void {
    if (this.#finished) return;
    this.#finished = true;
    clearTimeout(this.#timer);
    this.#done.resolve(support);
  }
}

function inTmux(hints: TerminalHints): boolean {
  const term = hints.TERM ?? "";
  return Boolean(hints.TMUX) || term.startsWith("tmux") || term.startsWith("screen");
}

/** Whether the environment names a terminal that draws iTerm2 inline images. */
function iterm2Named(hints: TerminalHints): boolean {
  return hints.TERM_PROGRAM === "iTerm.app" || hints.TERM_PROGRAM === "WezTerm" ||
    hints.LC_TERMINAL === "iTerm2";
}

function cellSize(width: number, height: number): CellSize | null {
  return width > 0 && height > 0 ? { width, height } : null;
}
