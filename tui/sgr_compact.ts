/**
 * Fewer bytes for the same look: syntax colouring and inline styles wrap
 * every token in its own foreground colour and reset, so a highlighted line
 * is mostly `ESC[39m` followed at once by the next colour, or the same
 * colour again. Those are dropped before a line is written.
 *
 * @module
 */

// deno-lint-ignore no-control-regex
const SGR = /\x1b\[([0-9;]*)m/g;
/** A sequence that sets the foreground colour and nothing else. */
const FOREGROUND = /^(?:3[0-7]|9[0-7]|38;5;\d+|38;2;\d+;\d+;\d+)$/;
const FOREGROUND_RESET = "\x1b[39m";

/**
 * `text` with redundant foreground changes removed: a foreground reset
 * followed directly by another foreground colour (or by a full reset), and
 * a colour set again while it is still active. Text, other sequences and
 * the colour each character is drawn in are unchanged.
 *
 * @param text A line with SGR sequences.
 * @returns The same line, shorter or equal.
 */
export function compactForeground(text: string): string {
  if (!text.includes(FOREGROUND_RESET)) return text;
  let out = "";
  let last = 0;
  /** The active foreground's parameters: "" the default, null unknown (a compound sequence). */
  let active: string | null = "";
  let resetPending = false;
  for (const match of text.matchAll(SGR)) {
    const between = text.slice(last, match.index);
    last = match.index + match[0].length;
    if (between !== "" && resetPending) {
      out += FOREGROUND_RESET;
      active = "";
      resetPending = false;
    }
    out += between;
    const params = match[1]!;
    if (params === "39") {
      resetPending = active !== "";
    } else if (FOREGROUND.test(params)) {
      // A reset right before a new colour changes nothing; nor does the active colour again.
      resetPending = false;
      if (params !== active) {
        out += match[0];
        active = params;
      }
    } else if (params === "" || params === "0") {
      resetPending = false;
      out += match[0];
      active = "";
    } else {
      if (resetPending) {
        out += FOREGROUND_RESET;
        active = "";
        resetPending = false;
      }
      out += match[0];
      // Bold, background and the like leave the foreground alone; a compound one is not tracked.
      if (/(?:^|;)(?:3\d|9[0-7])(?:;|$)/.test(params)) active = null;
    }
  }
  return (resetPending ? out + FOREGROUND_RESET : out) + text.slice(last);
}
