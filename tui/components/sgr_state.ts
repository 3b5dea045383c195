/**
 * Tracks which SGR attributes and OSC 8 hyperlink are active at a point in a
 * styled string, so a wrapped line can switch them off at its end and the next
 * line can reopen the same styles (every line stays self-contained).
 *
 * @module
 */

const ESC = "\x1b";
const BEL = "\x07";

/** Attribute codes that `22`, `23`… switch off. */
const ATTRIBUTE_OFF: Readonly<Record<number, readonly number[]>> = {
  22: [1, 2],
  23: [3],
  24: [4],
  25: [5, 6],
  27: [7],
  28: [8],
  29: [9],
};

/** The code that switches each attribute off (bold and faint share 22). */
const OFF_CODE: Readonly<Record<number, number>> = Object.fromEntries(
  Object.entries(ATTRIBUTE_OFF).flatMap(([off, on]) => on.map((code) => [code, Number(off)])),
);

/** Active styles at a point in a string. */
export class SgrState {
  #foreground = "";
  #background = "";
  #attributes = new Set<number>();
  #hyperlink = "";

  /** Applies one escape sequence (SGR or OSC 8); others are ignored. */
  apply(sequence: string): void {
    if (sequence.startsWith(`${ESC}[`) && sequence.endsWith("m")) {
      this.#applySgr(sequence.slice(2, -1));
    } else if (sequence.startsWith(`${ESC}]8;`)) {
      const terminator = sequence.endsWith(BEL) ? 1 : 2;
      const body = sequence.slice(4, -terminator);
      const url = body.slice(body.indexOf(";") + 1);
      this.#hyperlink = url === "" ? "" : sequence;
    }
  }

  /** Whether any style or hyperlink is active. */
  get active(): boolean {
    return this.#foreground !== "" || this.#background !== "" || this.#attributes.size > 0 ||
      this.#hyperlink !== "";
  }

  /** Sequence that turns the active styles on (empty when none). */
  open(): string {
    const params = [...this.#attributes];
    const codes: string[] = params.map(String);
    if (this.#foreground !== "") codes.push(this.#foreground);
    if (this.#background !== "") codes.push(this.#background);
    const sgr = codes.length > 0 ? `${ESC}[${codes.join(";")}m` : "";
    return sgr + this.#hyperlink;
  }

  /**
   * Sequences that turn off exactly the active styles (empty when none): not
   * a full reset, so a style the caller wraps around the line (a background
   * band) survives, and one sequence per attribute, so a theme's nesting
   * (which reopens its style after its own off code) still sees it.
   */
  close(): string {
    const offCodes = new Set<number>();
    for (const attribute of this.#attributes) offCodes.add(OFF_CODE[attribute] ?? 0);
    if (this.#foreground !== "") offCodes.add(39);
    if (this.#background !== "") offCodes.add(49);
    const sgr = [...offCodes].map((code) => `${ESC}[${code}m`).join("");
    return sgr + (this.#hyperlink !== "" ? `${ESC}]8;;${BEL}` : "");
  }

  #applySgr(paramText: string): void {
    const params = paramText === "" ? ["0"] : paramText.split(";");
    for (let i = 0; i < params.length; i++) {
      const param = params[i] ?? "";
      if (param.includes(":")) {
        this.#applyColonColor(param);
        continue;
      }
      const code = Number.parseInt(param === "" ? "0" : param, 10);
      if (code === 38 || code === 48) {
        const mode = params[i + 1];
        const length = mode === "5" ? 2 : mode === "2" ? 4 : 0;
        const color = params.slice(i, i + 1 + length).join(";");
        if (code === 38) this.#foreground = color;
        else this.#background = color;
        i += length;
      } else {
        this.#applyCode(code, param);
      }
    }
  }

  /** `38:5:n` / `38:2::r:g:b` forms. */
  #applyColonColor(param: string): void {
    if (param.startsWith("38")) this.#foreground = param;
    else if (param.startsWith("48")) this.#background = param;
  }

  #applyCode(code: number, param: string): void {
    if (code === 0) {
      this.#foreground = "";
      this.#background = "";
      this.#attributes.clear();
    } else if (code >= 1 && code <= 9) {
      this.#attributes.add(code);
    } else if (ATTRIBUTE_OFF[code] !== undefined) {
      for (const off of ATTRIBUTE_OFF[code]) this.#attributes.delete(off);
    } else if ((code >= 30 && code <= 37) || (code >= 90 && code <= 97)) {
      this.#foreground = param;
    } else if (code === 39) {
      this.#foreground = "";
    } else if ((code >= 40 && code <= 47) || (code >= 100 && code <= 107)) {
      this.#background = param;
    } else if (code === 49) {
      this.#background = "";
    }
  }
}

/**
 * End index (exclusive) of the escape sequence starting at `start` (which
 * must hold ESC): CSI, OSC and APC/DCS/PM strings, or ESC plus one character.
 */
export function escapeEnd(text: string, start: number): number {
  const kind = text[start + 1];
  if (kind === "[") {
    let i = start + 2;
    while (i < text.length) {
      const code = text.charCodeAt(i);
      if (code >= 0x40 && code <= 0x7e) return i + 1;
      i++;
    }
    return text.length;
  }
  if (kind === "]" || kind === "_" || kind === "P" || kind === "^") {
    for (let i = start + 2; i < text.length; i++) {
      if (text[i] === BEL) return i + 1;
      if (text[i] === ESC && text[i + 1] === "\\") return i + 2;
    }
    return text.length;
  }
  return Math.min(start + 2, text.length);
}
