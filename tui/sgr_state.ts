/**
 * The SGR (text style) state at the end of a text, so the renderer can
 * write a line's tail without re-sending every style change before it.
 *
 * @module
 */

/** Attributes turned on by one code and off by another. */
const FLAG_OFF: Readonly<Record<number, number>> = {
  1: 22,
  2: 22,
  3: 23,
  4: 24,
  5: 25,
  7: 27,
  8: 28,
  9: 29,
  53: 55,
};
const OFF_CODES = new Set(Object.values(FLAG_OFF));
/** Extended colour introducers (`38;5;n`, `38;2;r;g;b`…) and their reset codes. */
const COLOR_RESET: Readonly<Record<number, number>> = { 38: 39, 48: 49, 58: 59 };

// deno-lint-ignore no-control-regex
const ESCAPE = /\x1b(?:\[([0-9;]*)m)?/g;

interface Style {
  flags: Set<number>;
  /** Colour per slot (38 foreground, 48 background, 58 underline): its codes. */
  colors: Map<number, string>;
}

/**
 * One SGR sequence that recreates the style active at the end of `text`
 * ("" for the default style), or `null` when `text` holds escape
 * sequences other than SGR, or SGR codes not tracked here (callers then
 * fall back to something safe).
 *
 * @example
 * ```ts ignore
 * sgrStateAt("\x1b[1mbold \x1b[31mred\x1b[39m"); // "\x1b[1m"
 * ```
 */
export function sgrStateAt(text: string): string | null {
  const style: Style = { flags: new Set(), colors: new Map() };
  for (const match of text.matchAll(ESCAPE)) {
    if (match[1] === undefined || !apply(style, match[1])) return null;
  }
  const codes = [...style.flags, ...style.colors.values()];
  return codes.length === 0 ? "" : `\x1b[${codes.join(";")}m`;
}

/** Applies one SGR parameter list; `false` for a code it does not know. */
function apply(style: Style, params: string): boolean {
  const codes = params === "" ? [0] : params.split(";").map(Number);
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i]!;
    if (code === 0) {
      style.flags.clear();
      style.colors.clear();
    } else if (FLAG_OFF[code] !== undefined) style.flags.add(code);
    else if (OFF_CODES.has(code)) {
      for (const [on, off] of Object.entries(FLAG_OFF)) if (off === code) style.flags.delete(+on);
    } else if (COLOR_RESET[code] !== undefined) {
      const length = codes[i + 1] === 5 ? 3 : codes[i + 1] === 2 ? 5 : 0;
      if (length === 0 || i + length > codes.length) return false;
      style.colors.set(code, codes.slice(i, i + length).join(";"));
      i += length - 1;
    } else if (code === 39 || code === 49 || code === 59) style.colors.delete(code - 1);
    else if ((code >= 30 && code <= 37) || (code >= 90 && code <= 97)) {
      style.colors.set(38, String(code));
    } else if ((code >= 40 && code <= 47) || (code >= 100 && code <= 107)) {
      style.colors.set(48, String(code));
    } else return false;
  }
  return true;
}
