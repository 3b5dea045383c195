/**
 * Keyboard protocol negotiation. We ask for the Kitty keyboard protocol
 * (`CSI ? u`) followed by a primary device attributes query (`CSI c`),
 * which every terminal answers. A Kitty answer pushes our flags; a DA1
 * answer without it, or silence for the fallback delay, switches to xterm
 * `modifyOtherKeys` mode 2 instead (tmux answers DA1 but not Kitty).
 *
 * @module
 */

/** Which enhanced keyboard protocol is active. */
export type KeyboardProtocol = "pending" | "kitty" | "modifyOtherKeys";

/** Flags we push: 1 disambiguate + 2 event types + 4 alternate keys. */
export const KITTY_FLAGS = 1 | 2 | 4;
const KITTY_QUERY = "\x1b[?u";
const DA1_QUERY = "\x1b[c";
const KITTY_PUSH = `\x1b[>${KITTY_FLAGS}u`;
/** Pops the Kitty flags we pushed. */
export const KITTY_POP = "\x1b[<u";
/** Enables xterm modifyOtherKeys mode 2. */
export const MODIFY_OTHER_KEYS_ON = "\x1b[>4;2m";
/** Resets xterm modifyOtherKeys. */
export const MODIFY_OTHER_KEYS_OFF = "\x1b[>4;0m";

/** Matches after the leading ESC. */
const KITTY_REPLY = /^\[\?\d+u$/;
const DA1_REPLY = /^\[\?[\d;]*c$/;

function isReply(sequence: string, pattern: RegExp): boolean {
  return sequence.startsWith("\x1b") && pattern.test(sequence.slice(1));
}

/** Options for {@linkcode KeyboardNegotiator}. */
export interface KeyboardNegotiatorOptions {
  /** Give up waiting for any answer after this long and use modifyOtherKeys. Default 150 ms. */
  fallbackMs?: number;
}

/**
 * Drives the negotiation: `start()` sends the queries, `handle()` consumes
 * the answers from the input stream, `restoreSequence()` undoes whatever was
 * enabled.
 *
 * @example
 * ```ts
 * import { KeyboardNegotiator } from "@panto/tui";
 * let sent = "";
 * const negotiator = new KeyboardNegotiator((data) => sent += data);
 * negotiator.start();
 * console.assert(negotiator.handle("\x1b[?0u")); // the terminal speaks Kitty
 * console.assert(negotiator.protocol === "kitty" && sent.endsWith("\x1b[>7u"));
 * negotiator.dispose();
 * ```
 */
export class KeyboardNegotiator {
  #protocol: KeyboardProtocol = "pending";
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #write: (data: string) => void;
  readonly #fallbackMs: number;

  /** Creates a negotiator that writes queries and mode changes with `write`. */
  constructor(write: (data: string) => void, options: KeyboardNegotiatorOptions = {}) {
    this.#write = write;
    this.#fallbackMs = options.fallbackMs ?? 150;
  }

  /** The protocol in use so far. */
  get protocol(): KeyboardProtocol {
    return this.#protocol;
  }

  /** Sends the queries and arms the fallback timer. */
  start(): void {
    this.#protocol = "pending";
    this.#write(KITTY_QUERY + DA1_QUERY);
    this.#clearTimer();
    this.#timer = setTimeout(() => this.#fallBack(), this.#fallbackMs);
  }

  /** Re-enables the negotiated protocol (after a suspend), or restarts negotiation. */
  resume(): void {
    if (this.#protocol === "kitty") this.#write(KITTY_PUSH);
    else if (this.#protocol === "modifyOtherKeys") this.#write(MODIFY_OTHER_KEYS_ON);
    else this.start();
  }

  /** Consumes a negotiation answer; returns `false` for any other input. */
  handle(sequence: string): boolean {
    if (isReply(sequence, KITTY_REPLY)) {
      if (this.#protocol === "pending") {
        this.#clearTimer();
        this.#protocol = "kitty";
        this.#write(KITTY_PUSH);
      }
      return true;
    }
    if (isReply(sequence, DA1_REPLY)) {
      // The Kitty answer comes before DA1 when supported, so DA1 first means no Kitty.
      if (this.#protocol === "pending") this.#fallBack();
      return true;
    }
    return false;
  }

  /** The bytes that undo the enabled protocol ("" when none is enabled). */
  restoreSequence(): string {
    if (this.#protocol === "kitty") return KITTY_POP;
    if (this.#protocol === "modifyOtherKeys") return MODIFY_OTHER_KEYS_OFF;
    return "";
  }

  /** Stops the fallback timer. */
  dispose(): void {
    this.#clearTimer();
  }

  #fallBack(): void {
    this.#clearTimer();
    if (this.#protocol !== "pending") return;
    this.#protocol = "modifyOtherKeys";
    this.#write(MODIFY_OTHER_KEYS_ON);
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
