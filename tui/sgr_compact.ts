/**
 * Fewer bytes for the same look: syntax colouring and inline styles wrap
 * every token in its own foreground colour and reset, so a highlighted line
 * is mostly `ESC[39m` followed at once by the next colour, the same colour
 * again, or a colour for a single space. Those are dropped before a line is
 * written.
 *
 * @module
 */

// deno-lint-ignore no-control-regex
const SGR = /\x1b\[([0-9;]*)m/g;
/** A sequence that sets the foreground colour and nothing else. */
const FOREGROUND = /^(?:3[0-7]|9[0-7]|38;5;\d+|38;2;\d+;\d+;\d+)$/;
/** Codes a space does not show: bold, dim, italic and their ends. */
const INVISIBLE_ON_SPACES = /^(?:[123]|2[23])$/;
/** Codes that may change the foreground among others (`1;38;5;9`). */
const TOUCHES_FOREGROUND = /(?:^|;)(?:3\d|9[0-7])(?:;|$)/;
const SPACES = /^ +$/;

/**
 * `text` with redundant foreground changes removed: a colour takes effect
 * only before the next character that shows it (not before spaces, unless
 * an underline, inverse or background could show it), so a reset followed
 * by another colour, a colour set again while active, and a colour for
 * spaces between two tokens are dropped. Text, other sequences and the
 * colour each visible character is drawn in are unchanged.
 *
 * @param text A line with SGR sequences.
 * @returns The same line, shorter or equal.
 */
export function compactForeground(text: string): string {
  if (!text.includes("\x1b[")) return text;
  let out = "";
  let last = 0;
  /** Foreground the text asks for, and the one last sent: "" default, null unknown. */
  let wanted: string | null = "";
  let sent: string | null = "";
  /** Whether an attribute other than bold, dim or italic is on: spaces may then show colour. */
  let decorated = false;
  const sync = () => {
    if (wanted === sent) return;
    out += `\x1b[${wanted === "" ? "39" : wanted}m`;
    sent = wanted;
  };
  const visible = (between: string) => decorated || !SPACES.test(between);
  for (const match of text.matchAll(SGR)) {
    const between = text.slice(last, match.index);
    last = match.index + match[0].length;
    if (between !== "" && visible(between)) sync();
    out += between;
    const params = match[1]!;
    if (params === "39") wanted = "";
    else if (FOREGROUND.test(params)) wanted = params;
    else if (params === "" || params === "0") {
      out += match[0];
      wanted = sent = "";
      decorated = false;
    } else {
      sync();
      out += match[0];
      if (TOUCHES_FOREGROUND.test(params)) wanted = sent = null;
      if (!INVISIBLE_ON_SPACES.test(params)) decorated = true;
    }
  }
  // The terminal keeps the colour set at the end for what follows: it must be what was asked.
  sync();
  return out + text.slice(last);
}
