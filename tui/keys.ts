/**
 * Key decoding: one input sequence (as split by {@linkcode StdinBuffer}) in,
 * a structured {@linkcode Key} out. Covers the Kitty keyboard protocol
 * (CSI u with shifted and base-layout codepoints, event types), xterm
 * `modifyOtherKeys` (`CSI 27 ; mod ; code ~`), and the legacy xterm, rxvt,
 * SS3 and Linux-console tables.
 *
 * @module
 */

/** A decoded key press, repeat or release. */
export interface Key {
  /**
   * The key: a lower-case letter or other printable character ("a", "1",
   * "/", "é", "你"), or a name: "enter", "escape", "tab", "backspace",
   * "delete", "up", "down", "left", "right", "home", "end", "pageup",
   * "pagedown", "insert", "f1".."f12", "space".
   */
  code: string;
  /** Ctrl was held. */
  ctrl: boolean;
  /** Alt (Option, Meta) was held, or the key came with an ESC prefix. */
  alt: boolean;
  /** Shift was held (legacy terminals only report it for letters and a few keys). */
  shift: boolean;
  /** Super (Cmd, Win) was held; only the Kitty protocol reports it. */
  super: boolean;
  /** Press, auto-repeat or release; only the Kitty protocol reports repeat and release. */
  event: "press" | "repeat" | "release";
  /** The printable text this key inserts, when it inserts any. */
  text?: string;
}

const ESC = "\x1b";

/** Kitty and xterm modifier bits (the wire value is bits + 1). */
const MOD_SHIFT = 1;
const MOD_ALT = 2;
const MOD_CTRL = 4;
const MOD_SUPER = 8;

/** Codepoints the Kitty protocol and modifyOtherKeys use for named keys. */
const CODEPOINT_NAMES: ReadonlyMap<number, string> = new Map([
  [9, "tab"],
  [13, "enter"],
  [27, "escape"],
  [32, "space"],
  [127, "backspace"],
  [8, "backspace"],
  // Kitty private-use codepoints: keypad and a few functional keys.
  [57414, "enter"],
  [57417, "left"],
  [57418, "right"],
  [57419, "up"],
  [57420, "down"],
  [57421, "pageup"],
  [57422, "pagedown"],
  [57423, "home"],
  [57424, "end"],
  [57425, "insert"],
  [57426, "delete"],
]);

/** Kitty keypad digits and operators (57399..57416) map to their ASCII text. */
const KEYPAD_TEXT = "0123456789./*-+\n=,";
const KEYPAD_FIRST = 57399;

/** `CSI <n> ~` numbers (xterm, rxvt, Kitty functional keys). */
const TILDE_KEYS: ReadonlyMap<number, string> = new Map([
  [1, "home"],
  [2, "insert"],
  [3, "delete"],
  [4, "end"],
  [5, "pageup"],
  [6, "pagedown"],
  [7, "home"],
  [8, "end"],
  [11, "f1"],
  [12, "f2"],
  [13, "f3"],
  [14, "f4"],
  [15, "f5"],
  [17, "f6"],
  [18, "f7"],
  [19, "f8"],
  [20, "f9"],
  [21, "f10"],
  [23, "f11"],
  [24, "f12"],
]);

/** Final bytes of `CSI [1;mod] X` and `SS3 X` sequences. */
const LETTER_KEYS: ReadonlyMap<string, string> = new Map([
  ["A", "up"],
  ["B", "down"],
  ["C", "right"],
  ["D", "left"],
  ["H", "home"],
  ["F", "end"],
  ["P", "f1"],
  ["Q", "f2"],
  ["R", "f3"],
  ["S", "f4"],
  ["M", "enter"], // SS3 M: keypad enter
]);

/** rxvt: lower-case finals are shift+arrow (`CSI a`) or ctrl+arrow (`SS3 a`). */
const RXVT_ARROWS: ReadonlyMap<string, string> = new Map([
  ["a", "up"],
  ["b", "down"],
  ["c", "right"],
  ["d", "left"],
]);

/** Linux console F1..F5: `CSI [ A` .. `CSI [ E`. */
const LINUX_CONSOLE_F_KEYS: ReadonlyMap<string, string> = new Map([
  ["A", "f1"],
  ["B", "f2"],
  ["C", "f3"],
  ["D", "f4"],
  ["E", "f5"],
]);

function makeKey(code: string, mods: number, event: Key["event"] = "press"): Key {
  return {
    code,
    shift: (mods & MOD_SHIFT) !== 0,
    alt: (mods & MOD_ALT) !== 0,
    ctrl: (mods & MOD_CTRL) !== 0,
    super: (mods & MOD_SUPER) !== 0,
    event,
  };
}

function withText(key: Key, text: string): Key {
  if (key.ctrl || key.alt || key.super || key.event === "release") return key;
  return { ...key, text };
}

function isLatinLetter(char: string): boolean {
  return char.length === 1 && ((char >= "a" && char <= "z") || (char >= "A" && char <= "Z"));
}

/** ASCII letters, digits and symbols: the keys a base-layout code must not override. */
function isAsciiPrintable(codepoint: number): boolean {
  return codepoint > 32 && codepoint < 127;
}

function parseEvent(value: string | undefined): Key["event"] {
  if (value === "2") return "repeat";
  if (value === "3") return "release";
  return "press";
}

/** Wire modifier (1-based, may carry Caps/Num Lock bits) to our bit set. */
function parseModifiers(value: string | undefined): number {
  const wire = value === undefined || value === "" ? 1 : Number.parseInt(value, 10);
  // NaN and 0 are malformed; 0 - 1 would set every modifier bit.
  return wire >= 1 ? (wire - 1) & (MOD_SHIFT | MOD_ALT | MOD_CTRL | MOD_SUPER) : 0;
}

/** The text of decimal codepoints, or `undefined` when one is empty or out of range. */
function textOfCodepoints(values: readonly string[]): string | undefined {
  const codepoints = values.map((value) => Number.parseInt(value, 10));
  const valid = codepoints.every((code) => code >= 0 && code <= 0x10ffff);
  return valid ? String.fromCodePoint(...codepoints) : undefined;
}

/** A key for a printable or named codepoint (Kitty and modifyOtherKeys share this). */
function keyFromCodepoint(codepoint: number, mods: number, event: Key["event"]): Key | null {
  const named = CODEPOINT_NAMES.get(codepoint);
  if (named !== undefined) {
    const key = makeKey(named, mods, event);
    return named === "space" ? withText(key, " ") : key;
  }
  if (codepoint >= KEYPAD_FIRST && codepoint < KEYPAD_FIRST + KEYPAD_TEXT.length) {
    const text = KEYPAD_TEXT[codepoint - KEYPAD_FIRST] ?? "";
    return text === "\n"
      ? makeKey("enter", mods, event)
      : withText(makeKey(text, mods, event), text);
  }
  if (codepoint < 32 || codepoint > 0x10ffff || (codepoint >= 57344 && codepoint <= 63743)) {
    return null; // other control codes and private-use keys (media, modifiers alone)
  }
  const char = String.fromCodePoint(codepoint);
  if (isLatinLetter(char)) {
    const lower = char.toLowerCase();
    const shifted = char !== lower;
    const key = makeKey(lower, shifted ? mods | MOD_SHIFT : mods, event);
    return withText(key, key.shift ? lower.toUpperCase() : lower);
  }
  const lower = char.toLowerCase();
  return withText(
    makeKey(lower, mods, event),
    (mods & MOD_SHIFT) !== 0 ? char.toUpperCase() : char,
  );
}

/**
 * Kitty `CSI code[:shifted[:base]] [; mods[:event] [; text]] u`.
 * A non-Latin primary codepoint (Cyrillic, Greek…) with modifiers falls back to
 * the base-layout key so Ctrl+С works as Ctrl+C; a Latin or ASCII primary
 * (Dvorak, Colemak) is authoritative.
 */
function parseKittyCsiU(params: string): Key | null {
  const [keyPart = "", modPart = "", textPart] = params.split(";");
  const [codeStr = "", shiftedStr = "", baseStr = ""] = keyPart.split(":");
  const [modStr, eventStr] = modPart.split(":");
  const primary = Number.parseInt(codeStr, 10);
  if (Number.isNaN(primary)) return null;
  const mods = parseModifiers(modStr);
  const event = parseEvent(eventStr);
  const base = Number.parseInt(baseStr, 10);
  const useBase = !Number.isNaN(base) && !isAsciiPrintable(primary) && primary >= 128 &&
    (mods & (MOD_CTRL | MOD_ALT | MOD_SUPER)) !== 0;
  const key = keyFromCodepoint(useBase ? base : primary, mods, event);
  if (key === null) return null;
  if (key.text === undefined) return key;
  const shifted = (mods & MOD_SHIFT) !== 0 ? textOfCodepoints([shiftedStr]) : undefined;
  const text = shifted ??
    (textPart === undefined ? undefined : textOfCodepoints(textPart.split(":")));
  return text === undefined ? key : { ...key, text };
}

/** Any `CSI … final` sequence (`body` excludes `ESC [`). */
function parseCsi(body: string): Key | null {
  const final = body.at(-1) ?? "";
  const params = body.slice(0, -1);
  if (final === "u" && /^[\d:;]+$/.test(params)) return parseKittyCsiU(params);
  if (final === "Z" && params === "") return makeKey("tab", MOD_SHIFT);
  if (final === "~") return parseTilde(params);
  if (final === "$" || final === "^" || final === "@") return parseRxvtTilde(params, final);
  if (params.startsWith("[")) {
    const code = LINUX_CONSOLE_F_KEYS.get(final);
    return code !== undefined && params === "[" ? makeKey(code, 0) : null;
  }
  const rxvt = RXVT_ARROWS.get(final);
  if (rxvt !== undefined && params === "") return makeKey(rxvt, MOD_SHIFT);
  const letter = LETTER_KEYS.get(final);
  if (letter === undefined || final === "M") return null;
  // `CSI A`, `CSI 1;5A`, Kitty `CSI 1;5:3A`
  const match = /^(?:1?;(\d*)(?::(\d))?)?$/.exec(params);
  if (match === null) return null;
  return makeKey(letter, parseModifiers(match[1]), parseEvent(match[2]));
}

function parseTilde(params: string): Key | null {
  const mok = /^27;(\d+);(\d+)$/.exec(params);
  if (mok !== null) {
    // xterm modifyOtherKeys: CSI 27 ; mod ; code ~
    return keyFromCodepoint(Number(mok[2]), parseModifiers(mok[1]), "press");
  }
  const match = /^(\d+)(?:;(\d*)(?::(\d))?)?$/.exec(params);
  if (match === null) return null;
  const code = TILDE_KEYS.get(Number(match[1]));
  if (code === undefined) return null;
  return makeKey(code, parseModifiers(match[2]), parseEvent(match[3]));
}

/** rxvt `CSI 3$` (shift+delete), `CSI 3^` (ctrl+delete), `CSI 3@` (ctrl+shift). */
function parseRxvtTilde(params: string, final: string): Key | null {
  const code = TILDE_KEYS.get(Number(params));
  if (code === undefined || !/^\d+$/.test(params)) return null;
  const mods = final === "$" ? MOD_SHIFT : final === "^" ? MOD_CTRL : MOD_CTRL | MOD_SHIFT;
  return makeKey(code, mods);
}

/** `SS3 X`: application-mode arrows, F1-F4, keypad enter; rxvt ctrl+arrows. */
function parseSs3(final: string): Key | null {
  const rxvt = RXVT_ARROWS.get(final);
  if (rxvt !== undefined) return makeKey(rxvt, MOD_CTRL);
  const code = LETTER_KEYS.get(final);
  return code === undefined ? null : makeKey(code, 0);
}

/** A single byte or grapheme outside escape sequences. */
function parsePlain(data: string): Key | null {
  const byte = data.codePointAt(0) ?? 0;
  if (data.length === 1 && byte < 32) return parseControlByte(byte);
  if (data === "\x7f") return makeKey("backspace", 0);
  if (data === " ") return withText(makeKey("space", 0), " ");
  if (data.length === 1 && isLatinLetter(data)) {
    const lower = data.toLowerCase();
    return withText(makeKey(lower, lower === data ? 0 : MOD_SHIFT), data);
  }
  if (byte < 32 || byte === 0x7f || !isSingleGrapheme(data)) return null;
  return withText(makeKey(data.toLowerCase(), 0), data);
}

function parseControlByte(byte: number): Key | null {
  switch (byte) {
    case 0:
      return makeKey("space", MOD_CTRL);
    case 8:
      return makeKey("backspace", 0); // some terminals (tmux) send BS for backspace
    case 9:
      return makeKey("tab", 0);
    case 13:
      return makeKey("enter", 0);
    case 27:
      return makeKey("escape", 0);
    case 28:
      return makeKey("\\", MOD_CTRL);
    case 29:
      return makeKey("]", MOD_CTRL);
    case 30:
      return makeKey("^", MOD_CTRL);
    case 31:
      return makeKey("_", MOD_CTRL);
    default:
      return makeKey(String.fromCharCode(byte + 96), MOD_CTRL);
  }
}

/**
 * Decodes one input sequence into a {@linkcode Key}, or `null` when it is not
 * a key (a paste, a mouse report, a terminal response, an unknown sequence).
 *
 * @example
 * ```ts
 * import { parseKey } from "@panto/tui";
 * console.assert(parseKey("\x03")?.code === "c" && parseKey("\x03")?.ctrl);
 * console.assert(parseKey("\x1b[1089::99;5u")?.code === "c"); // Ctrl+С, Cyrillic layout
 * console.assert(parseKey("\x1b[27;2;13~")?.shift); // shift+enter, modifyOtherKeys
 * ```
 */
export function parseKey(data: string): Key | null {
  if (data === "") return null;
  if (!data.startsWith(ESC)) return parsePlain(data);
  if (data === ESC) return makeKey("escape", 0);
  if (data.startsWith(`${ESC}[`)) {
    const body = data.slice(2);
    if (body.startsWith("<") || body.startsWith("M") || body.startsWith("?")) return null;
    if (body.startsWith("200~") || body.startsWith("201~")) return null;
    return body === "" ? withAlt(makeKey("[", 0)) : parseCsi(body);
  }
  if (data.startsWith(`${ESC}O`) && data.length === 3) return parseSs3(data[2] ?? "");
  // ESC prefix = alt (meta) on legacy terminals: ESC a, ESC ESC, ESC \x7f, ESC ESC [A…
  const rest = data.slice(1);
  if (!rest.startsWith(ESC) && !isSingleGrapheme(rest)) return null; // OSC, DCS, APC, garbage
  const inner = parseKey(rest);
  return inner === null ? null : withAlt(inner);
}

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

function isSingleGrapheme(text: string): boolean {
  if (text.length === 1) return true;
  const iterator = segmenter.segment(text)[Symbol.iterator]();
  return iterator.next().done === false && iterator.next().done === true;
}

function withAlt(key: Key): Key {
  const { text: _text, ...rest } = key;
  return { ...rest, alt: true };
}

/** A parsed key spec such as "ctrl+shift+p": a key code and the modifiers it requires. */
export interface KeySpec {
  code: string;
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
  super: boolean;
}

const CODE_ALIASES: Readonly<Record<string, string>> = {
  esc: "escape",
  return: "enter",
  del: "delete",
  ins: "insert",
  pgup: "pageup",
  pgdown: "pagedown",
  arrowup: "up",
  arrowdown: "down",
  arrowleft: "left",
  arrowright: "right",
  plus: "+",
  minus: "-",
};

const specCache = new Map<string, KeySpec>();

/**
 * Parses "ctrl+shift+p", "alt+enter", "escape" or "+" into a spec.
 * Throws on an unknown modifier, since a typo in a binding should be loud.
 *
 * @example
 * ```ts
 * import { parseKeySpec } from "./keys.ts";
 * console.assert(parseKeySpec("ctrl+Esc").code === "escape");
 * ```
 */
export function parseKeySpec(spec: string): KeySpec {
  const cached = specCache.get(spec);
  if (cached !== undefined) return cached;
  const lowered = spec.toLowerCase();
  const parts = lowered.endsWith("++")
    ? [...lowered.slice(0, -2).split("+"), "+"]
    : lowered.split("+");
  const last = parts.pop() ?? "";
  const code = CODE_ALIASES[last] ?? (last === " " ? "space" : last);
  const result: KeySpec = { code, ctrl: false, alt: false, shift: false, super: false };
  for (const mod of parts) {
    if (mod === "ctrl" || mod === "control") result.ctrl = true;
    else if (mod === "alt" || mod === "meta" || mod === "option") result.alt = true;
    else if (mod === "shift") result.shift = true;
    else if (mod === "super" || mod === "cmd") result.super = true;
    else {
      throw new Error(
        `Unknown modifier "${mod}" in key spec "${spec}"; use ctrl, alt, shift or super joined by "+"`,
      );
    }
  }
  if (code === "") throw new Error(`Key spec "${spec}" names no key; write e.g. "ctrl+c"`);
  specCache.set(spec, result);
  return result;
}

/**
 * Legacy encodings that are ambiguous and so decode to another key: the spec
 * on the left also matches these raw bytes.
 */
const LEGACY_ALIASES: Readonly<Record<string, readonly string[]>> = {
  "shift+enter": ["\n", `${ESC}\r`],
  "ctrl+enter": ["\n"],
  "ctrl+h": ["\x08"],
  "ctrl+backspace": ["\x08"],
  "ctrl+i": ["\t"],
  "ctrl+m": ["\r"],
  "ctrl+[": [ESC],
  // US layouts put - and _ on one key, and ctrl sends 0x1f for both.
  "ctrl+-": ["\x1f"],
};

/**
 * Whether `data` is a legacy alias of `wanted`: one of its raw bytes, or,
 * for an alt spec, ESC followed by a single-byte alias of the spec without
 * alt (legacy terminals send alt as an ESC prefix, so ESC BS is ctrl+alt+h).
 */
function matchesLegacyAlias(data: string, wanted: KeySpec): boolean {
  if (LEGACY_ALIASES[specKey(wanted)]?.includes(data) === true) return true;
  if (!wanted.alt || data.length !== 2 || data[0] !== ESC) return false;
  const withoutAlt = specKey({ ...wanted, alt: false });
  return LEGACY_ALIASES[withoutAlt]?.includes(data.slice(1)) ?? false;
}

function specKey(spec: KeySpec): string {
  return [
    spec.ctrl ? "ctrl+" : "",
    spec.alt ? "alt+" : "",
    spec.shift ? "shift+" : "",
    spec.super ? "super+" : "",
    spec.code,
  ].join("");
}

/**
 * Whether `data` (one input sequence) is the key described by `spec` —
 * modifiers joined by "+" then a key code, e.g. "ctrl+shift+p", "alt+enter",
 * "shift+enter", "escape", "pageup". Only press and repeat events match;
 * releases never do. A bare printable spec such as "?" also matches when
 * the key inserts that text (so "?" matches shift+/ as well).
 *
 * @example
 * ```ts
 * import { matchesKey } from "@panto/tui";
 * console.assert(matchesKey("\x03", "ctrl+c"));
 * console.assert(matchesKey("\x1b[13;2u", "shift+enter"));
 * console.assert(!matchesKey("\x1b[99;5:3u", "ctrl+c")); // a release
 * ```
 */
export function matchesKey(data: string, spec: string): boolean {
  const wanted = parseKeySpec(spec);
  const key = parseKey(data);
  if (key !== null && key.event !== "release") {
    if (
      key.code === wanted.code && key.ctrl === wanted.ctrl && key.alt === wanted.alt &&
      key.shift === wanted.shift && key.super === wanted.super
    ) return true;
    const bare = !wanted.ctrl && !wanted.alt && !wanted.shift && !wanted.super;
    if (bare && wanted.code.length > 0 && key.text === wanted.code && !isLatinLetter(key.text)) {
      return true;
    }
  }
  return matchesLegacyAlias(data, wanted);
}

/**
 * Formats a key as a canonical spec string ("ctrl+alt+shift+super+code"), the
 * form {@linkcode matchesKey} accepts.
 *
 * @example
 * ```ts
 * import { formatKey, parseKey } from "@panto/tui";
 * console.assert(formatKey(parseKey("\x1b[1;5A")!) === "ctrl+up");
 * ```
 */
export function formatKey(key: Key): string {
  return specKey(key);
}
