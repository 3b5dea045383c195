/**
 * Terminal safety for untrusted text (model output, tool output, error
 * bodies, stored sessions): escape sequences and control characters are
 * removed before the text reaches the terminal, so it cannot set the window
 * title, clear the screen, write the clipboard or move the cursor.
 *
 * Hand-written rather than `strip-ansi`: that leaves DCS/APC/PM/SOS payloads
 * and bare C0/C1 controls in place.
 *
 * @module
 */

/** Characters that end an OSC/DCS/SOS/PM/APC string early (a terminal leaves the string on them). */
const STRING_BREAK = String.raw`\x18\x1a\x1b\x80-\x9f`;
/** Introducers of OSC, DCS, SOS, PM and APC strings (7- and 8-bit). */
const STRING_START = String.raw`(?:\x1b[\]PX^_]|[\x90\x98\x9d-\x9f])`;
/** A string's payload: anything up to its terminator or a control that cuts it short. */
const STRING_BODY = String.raw`[^\x07${STRING_BREAK}]*`;
/** An OSC, DCS, SOS, PM or APC string: introducer, payload, terminator. */
const CONTROL_STRING = String.raw`${STRING_START}${STRING_BODY}` +
  String.raw`(?:\x07|\x1b\\|\x9c|(?=[${STRING_BREAK}]))`;
/** A CSI sequence: 7-bit `ESC [` or 8-bit 0x9b, parameters, intermediates, final byte. */
const CSI = String.raw`(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]`;
/** Any other escape: ESC, intermediates, final byte (also the introducer of a string left open). */
const ESCAPE = String.raw`\x1b[\x20-\x2f]*[\x30-\x7e]`;
/** Controls left once the sequences are gone: C0 except tab and newline, DEL, C1. */
const CONTROL = String.raw`[\x00-\x08\x0b-\x1f\x7f-\x9f]`;

/** One pass over the text: `\r\n?` becomes a newline, every other match goes. */
const UNSAFE = new RegExp(`${CONTROL_STRING}|${CSI}|${ESCAPE}|\\r\\n?|${CONTROL}`, "g");

/** Each control character on its own. */
const CONTROL_CHARS = new RegExp(CONTROL, "g");

/**
 * Sequences still open at the end of a streamed chunk (their rest may come
 * in the next one): escapes and CSIs without their final byte, a lone `\r`,
 * and strings without their terminator — with what follows them, since the
 * control that ends a string may itself open a sequence.
 */
const OPEN_AT_END = new RegExp(
  String.raw`(?:(?:${STRING_START}${STRING_BODY})+)?` +
    String.raw`(?:\x1b[\x20-\x2f]*|(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*|\r)?$`,
);

/** The longest open sequence held back while streaming; past it the text is let through. */
const MAX_HELD = 1024;

/**
 * Removes every escape sequence and control character a terminal would act
 * on, keeping newlines and tabs: CSI (`ESC [` and 8-bit 0x9b), OSC (`ESC ]`
 * and 0x9d, ended by BEL or ST), DCS/SOS/PM/APC strings, other `ESC`
 * sequences, the remaining C0 controls, DEL and the C1 range 0x80–0x9f.
 * `\r\n` becomes `\n` and a lone `\r` (a progress-bar redraw) becomes `\n`,
 * so each redraw stays readable on its own line. A string sequence left open
 * loses only its introducer; the rest shows as plain text.
 *
 * One regular-expression pass; text without controls is returned as is.
 *
 * @param text Untrusted text.
 * @returns The text with nothing a terminal would interpret but `\n` and `\t`.
 *
 * @example
 * ```ts
 * import { sanitizeTerminalText } from "@panto/tui";
 * const hostile = "\x1b]0;pwned\x07done\x1b[2J \x1b[31mred\x1b[0m\r\n";
 * console.assert(sanitizeTerminalText(hostile) === "done red\n");
 * ```
 */
export function sanitizeTerminalText(text: string): string {
  return text.replace(UNSAFE, (match) => (match.charCodeAt(0) === 0x0d ? "\n" : ""));
}

/**
 * Shows control characters as visible escapes (`\x1b`, `\x9b`, `\x7f`),
 * keeping newlines and tabs, for messages such as provider errors whose
 * bytes a reader may need to see rather than have removed.
 *
 * @param text Untrusted text.
 * @returns The text with each control but `\n` and `\t` written as `\xHH`.
 *
 * @example
 * ```ts
 * import { escapeTerminalText } from "@panto/tui";
 * console.assert(escapeTerminalText("bad\x1b]0;x\x07") === "bad\\x1b]0;x\\x07");
 * ```
 */
export function escapeTerminalText(text: string): string {
  return text.replace(
    CONTROL_CHARS,
    (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
}

/**
 * {@linkcode sanitizeTerminalText} for text that arrives in pieces: a
 * sequence split across chunks (`"\x1b"` ending one, `"]0;title\x07"`
 * starting the next) is held back until it is complete, so none of it shows.
 * An open string sequence longer than 1024 characters is let through
 * (its introducer removed) rather than hiding the text after it.
 *
 * @example
 * ```ts
 * import { TerminalTextSanitizer } from "@panto/tui";
 * const sanitizer = new TerminalTextSanitizer();
 * const shown = sanitizer.push("hi \x1b") + sanitizer.push("]0;title\x07there") + sanitizer.flush();
 * console.assert(shown === "hi there");
 * ```
 */
export class TerminalTextSanitizer {
  #held = "";

  /**
   * Takes the next chunk.
   *
   * @param chunk The next piece of the text.
   * @returns What can be shown now.
   */
  push(chunk: string): string {
    const text = this.#held + chunk;
    // Only the tail can be held, so only the tail is searched (which keeps the search short).
    const from = Math.max(0, text.length - MAX_HELD);
    const open = OPEN_AT_END.exec(text.slice(from));
    const cut = open ? from + open.index : text.length;
    this.#held = text.slice(cut);
    return sanitizeTerminalText(text.slice(0, cut));
  }

  /**
   * Ends the text: a sequence still open is treated as {@linkcode sanitizeTerminalText} would.
   *
   * @returns What was held back, sanitized.
   */
  flush(): string {
    const rest = sanitizeTerminalText(this.#held);
    this.#held = "";
    return rest;
  }
}
