/**
 * Splits raw terminal input, which arrives in arbitrary chunks, into single
 * sequences: one key (plain character, control byte, CSI, SS3, meta ESC+key),
 * one terminal report (OSC, DCS, APC, mouse), or one whole bracketed paste.
 *
 * @module
 */

const ESC = "\x1b";
/** Bracketed paste start marker; a paste sequence begins with it. */
export const PASTE_START = "\x1b[200~";
/** Bracketed paste end marker; a paste sequence ends with it. */
export const PASTE_END = "\x1b[201~";

/** Options for {@linkcode StdinBuffer}. */
export interface StdinBufferOptions {
  /**
   * How long an incomplete escape sequence (typically a lone ESC key press)
   * waits for more bytes before it is delivered as is. Default 40 ms.
   */
  escapeTimeoutMs?: number;
}

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Length of a string-terminated sequence (OSC, DCS, APC, PM, SOS) at `start`, or -1. */
function stringSequenceEnd(data: string, start: number): number {
  for (let i = start + 2; i < data.length; i++) {
    const char = data[i];
    if (char === "\x07") return i + 1;
    if (char === ESC) return data[i + 1] === undefined ? -1 : data[i + 1] === "\\" ? i + 2 : i;
  }
  return -1;
}

/** End of a CSI sequence at `start`, or -1 while incomplete. */
function csiEnd(data: string, start: number): number {
  if (data[start + 2] === "M") {
    // X10 mouse: ESC [ M followed by three raw bytes.
    return data.length >= start + 6 ? start + 6 : -1;
  }
  for (let i = start + 2; i < data.length; i++) {
    const code = data.charCodeAt(i);
    if (code >= 0x40 && code <= 0x7e) return i + 1;
    // Parameter and intermediate bytes continue the sequence; anything else
    // ends a malformed one just before it.
    if (code < 0x20 || code > 0x3f) return i;
  }
  return -1;
}

/** End (exclusive) of the escape sequence starting at `start`, or -1 while incomplete. */
function escapeEnd(data: string, start: number): number {
  const next = data[start + 1];
  if (next === undefined) return -1;
  switch (next) {
    case "[":
      return data.length === start + 2 ? -1 : csiEnd(data, start);
    case "]":
    case "P":
    case "_":
    case "^":
    case "X":
      return stringSequenceEnd(data, start);
    case "O":
      return data.length >= start + 3 ? start + 3 : -1;
    case ESC:
      // ESC ESC [A and friends: a meta-prefixed sequence (alt+up on rxvt), or alt+escape
      // (delivered by the timeout). -1 only ever means "cut short", so keep waiting.
      return escapeEnd(data, start + 1);
    default: {
      const code = data.codePointAt(start + 1) ?? 0;
      return start + 1 + (code > 0xffff ? 2 : 1);
    }
  }
}

/**
 * Buffers raw input and calls `onSequence` once per complete sequence. A
 * lone ESC (or a sequence cut short) is delivered after the escape timeout;
 * a bracketed paste is delivered as one sequence however it was chunked.
 *
 * @example
 * ```ts
 * import { StdinBuffer } from "@panto/tui";
 * const seen: string[] = [];
 * const buffer = new StdinBuffer((sequence) => seen.push(sequence));
 * buffer.process("a\x1b[A\x1b[20");
 * buffer.process("0~hi\x1b[201~");
 * buffer.dispose();
 * console.assert(seen.length === 3 && seen[2] === "\x1b[200~hi\x1b[201~");
 * ```
 */
export class StdinBuffer {
  #pending = "";
  #inPaste = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #onSequence: (sequence: string) => void;
  readonly #escapeTimeoutMs: number;

  /** Creates a buffer delivering each complete sequence to `onSequence`. */
  constructor(onSequence: (sequence: string) => void, options: StdinBufferOptions = {}) {
    this.#onSequence = onSequence;
    this.#escapeTimeoutMs = options.escapeTimeoutMs ?? 40;
  }

  /** Input still waiting for the rest of its sequence. */
  get pending(): string {
    return this.#pending;
  }

  /** Feeds one chunk of decoded input. */
  process(chunk: string): void {
    this.#clearTimer();
    this.#pending += chunk;
    this.#drain();
    if (this.#pending !== "" && !this.#inPaste) {
      this.#timer = setTimeout(() => this.flush(), this.#escapeTimeoutMs);
    }
  }

  /** Delivers whatever is pending as one sequence (the escape timeout does this). */
  flush(): void {
    this.#clearTimer();
    if (this.#pending === "" || this.#inPaste) return;
    const rest = this.#pending;
    this.#pending = "";
    this.#onSequence(rest);
  }

  /** Drops pending input and stops the timer. */
  dispose(): void {
    this.#clearTimer();
    this.#pending = "";
    this.#inPaste = false;
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #drain(): void {
    let data = this.#pending;
    let position = 0;
    while (position < data.length) {
      if (this.#inPaste) {
        const end = data.indexOf(PASTE_END, position);
        if (end === -1) break;
        this.#inPaste = false;
        this.#onSequence(PASTE_START + data.slice(position, end) + PASTE_END);
        position = end + PASTE_END.length;
        continue;
      }
      const end = this.#sequenceEnd(data, position);
      if (end === -1) break;
      const sequence = data.slice(position, end);
      position = end;
      if (sequence === PASTE_START) {
        this.#inPaste = true;
        // Keep the paste body separate from what was already consumed.
        data = data.slice(position);
        position = 0;
        continue;
      }
      this.#emitText(sequence);
    }
    this.#pending = data.slice(position);
  }

  /** End of the sequence at `position`: an escape sequence, a control byte, or a text run. */
  #sequenceEnd(data: string, position: number): number {
    const code = data.charCodeAt(position);
    if (code === 0x1b) return escapeEnd(data, position);
    if (code < 0x20 || code === 0x7f) return position + 1;
    let end = position + 1;
    while (end < data.length) {
      const next = data.charCodeAt(end);
      if (next < 0x20 || next === 0x7f) break;
      end++;
    }
    return end;
  }

  /** Delivers a text run one grapheme at a time; other sequences whole. */
  #emitText(sequence: string): void {
    const first = sequence.charCodeAt(0);
    if (sequence.length === 1 || first < 0x20 || first === 0x7f) {
      this.#onSequence(sequence);
      return;
    }
    for (const { segment } of segmenter.segment(sequence)) this.#onSequence(segment);
  }
}

/**
 * The pasted text if `sequence` is a bracketed paste, else `null`.
 *
 * @example
 * ```ts
 * import { pastedText } from "@panto/tui";
 * console.assert(pastedText("\x1b[200~a\nb\x1b[201~") === "a\nb");
 * console.assert(pastedText("a") === null);
 * ```
 */
export function pastedText(sequence: string): string | null {
  if (!sequence.startsWith(PASTE_START) || !sequence.endsWith(PASTE_END)) return null;
  return sequence.slice(PASTE_START.length, sequence.length - PASTE_END.length);
}
