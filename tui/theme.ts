/**
 * Every colour the components use, in one place. A {@linkcode Theme} is a set
 * of named style functions (`theme.fg("accent", text)`, `theme.bold(text)`);
 * components never write SGR codes themselves. With `NO_COLOR` set the theme
 * emits no SGR at all. The colours come from a palette: a built-in one
 * (`builtin_themes.ts`) or a theme file's (`theme_file.ts`).
 *
 * @module
 */
import ansiStyles from "ansi-styles";
import { BUILTIN_THEMES } from "./builtin_themes.ts";
import { type ColorDepth, detectColorDepth } from "./color_depth.ts";
import { readVariable } from "./runtime/read_variable.ts";

/** Foreground colour names. */
export type ThemeColor =
  | "text"
  | "accent"
  | "muted"
  | "dim"
  | "success"
  | "warning"
  | "error"
  | "border"
  | "borderAccent"
  | "selected"
  | "thinking"
  | "userMessage"
  | "toolTitle"
  | "toolPending"
  | "toolRunning"
  | "toolDone"
  | "toolError"
  | "toolOutput"
  | "pasteMarker"
  | "mdHeading"
  | "mdLink"
  | "mdLinkUrl"
  | "mdCode"
  | "mdCodeBlock"
  | "mdCodeBlockBorder"
  | "mdQuote"
  | "mdQuoteBorder"
  | "mdHr"
  | "mdListBullet"
  | "mdTableBorder"
  | "syntaxKeyword"
  | "syntaxString"
  | "syntaxNumber"
  | "syntaxComment"
  | "syntaxFunction"
  | "syntaxType"
  | "syntaxVariable"
  | "syntaxBuiltin"
  | "syntaxLiteral"
  | "syntaxAttribute"
  | "syntaxTag"
  | "syntaxMeta"
  | "syntaxRegexp"
  | "syntaxOperator"
  | "syntaxPunctuation"
  | "syntaxAddition"
  | "syntaxDeletion";

/** Background colour names. */
export type ThemeBackground = "userMessage" | "selected" | "toolPending" | "toolDone" | "toolError";

/**
 * A colour: an xterm 256-colour palette index (0–255), a `#rrggbb` hex
 * string (24-bit colour), or `""` for the terminal's own default colour.
 */
export type ColorValue = number | `#${string}` | "";

/**
 * Named style functions. Styles nest: an inner style that ends restores the
 * outer one, so `theme.fg("mdHeading", "a " + theme.fg("mdCode", "b") + " c")`
 * keeps "c" in the heading colour.
 *
 * @example
 * ```ts
 * import { createTheme } from "@panto/tui";
 * const theme = createTheme({ noColor: true });
 * console.assert(theme.fg("accent", theme.bold("hi")) === "hi");
 * ```
 */
export interface Theme {
  /** Whether this theme writes SGR codes (false under `NO_COLOR`). */
  readonly colorEnabled: boolean;
  /** Colours `text` with a named foreground colour. */
  fg(color: ThemeColor, text: string): string;
  /** Gives `text` a named background colour. */
  bg(color: ThemeBackground, text: string): string;
  /** Bold text. */
  bold(text: string): string;
  /** Faint text. */
  dim(text: string): string;
  /** Italic text. */
  italic(text: string): string;
  /** Underlined text. */
  underline(text: string): string;
  /** Struck-through text. */
  strikethrough(text: string): string;
  /** Reverse video (used for the editor's cursor and selections). */
  inverse(text: string): string;
}

/** Options for {@linkcode createTheme}. */
export interface ThemeOptions {
  /**
   * Force colour off (`true`) or on (`false`). When absent the theme reads
   * `NO_COLOR` through `env`.
   */
  noColor?: boolean;
  /**
   * Reads an environment variable (`NO_COLOR`, and those
   * {@linkcode detectColorDepth} reads). Defaults to `Deno.env.get` for
   * variables whose env permission is granted, and to "unset" otherwise (so
   * creating a theme never throws or prompts).
   */
  env?: (name: string) => string | undefined;
  /**
   * Whether `#rrggbb` colours are sent as 24-bit colour or as the nearest
   * 256-colour palette entry. When absent, {@linkcode detectColorDepth}
   * decides from the environment read through `env`.
   */
  colorDepth?: ColorDepth;
  /** Foreground colours; those missing are the built-in `dark` theme's. */
  colors?: Partial<Record<ThemeColor, ColorValue>>;
  /** Background colours; those missing are the built-in `dark` theme's. */
  backgrounds?: Partial<Record<ThemeBackground, ColorValue>>;
}

const CSI = "\x1b[";

function colorParams(value: ColorValue, layer: 38 | 48, depth: ColorDepth): string {
  // 39 and 49 select the terminal's default foreground and background.
  if (value === "") return String(layer + 1);
  if (typeof value === "number") {
    if (!Number.isInteger(value) || value < 0 || value > 255) {
      throw new RangeError(
        `Theme colour ${value} is not a 256-colour palette index; use an integer 0–255 or "#rrggbb"`,
      );
    }
    return `${layer};5;${value}`;
  }
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(value);
  if (match === null) {
    throw new RangeError(`Theme colour "${value}" is not "#rrggbb" hex; write e.g. "#ff8800"`);
  }
  if (depth === "256") return `${layer};5;${ansiStyles.hexToAnsi256(value)}`;
  const [r, g, b] = match.slice(1).map((hex) => Number.parseInt(hex, 16));
  return `${layer};2;${r};${g};${b}`;
}

/**
 * Wraps `text` in an SGR pair. Occurrences of `close` inside `text` (an inner
 * style ending) are followed by `open` again so the outer style survives.
 */
function wrap(open: string, close: string, text: string): string {
  if (text === "") return "";
  return open + text.replaceAll(close, close + open) + close;
}

function readNoColor(env: (name: string) => string | undefined): boolean {
  const value = env("NO_COLOR");
  return value !== undefined && value !== "";
}

function identity(text: string): string {
  return text;
}

function plainTheme(): Theme {
  return {
    colorEnabled: false,
    fg: (_color, text) => text,
    bg: (_color, text) => text,
    bold: identity,
    dim: identity,
    italic: identity,
    underline: identity,
    strikethrough: identity,
    inverse: identity,
  };
}

/** The SGR sequence that starts each named colour. */
function openers(
  colors: Readonly<Record<string, ColorValue>>,
  open: (value: ColorValue) => string,
): Map<string, string> {
  return new Map(Object.entries(colors).map(([name, value]) => [name, open(value)]));
}

function styler(on: number, off: number): (text: string) => string {
  const open = `${CSI}${on}m`;
  const close = `${CSI}${off}m`;
  return (text) => wrap(open, close, text);
}

/**
 * Builds a theme. Colour is on unless `noColor` is true or (when `noColor` is
 * absent) the `NO_COLOR` environment variable is set and non-empty. On a
 * 256-colour terminal `#rrggbb` colours become their nearest palette entry.
 *
 * @example
 * ```ts
 * import { createTheme } from "@panto/tui";
 * const theme = createTheme({ env: () => undefined });
 * console.assert(theme.fg("error", "x") === "\x1b[38;5;167mx\x1b[39m");
 * ```
 */
export function createTheme(options: ThemeOptions = {}): Theme {
  const env = options.env ?? readVariable;
  const noColor = options.noColor ?? readNoColor(env);
  if (noColor) return plainTheme();
  const depth = options.colorDepth ?? detectColorDepth(env);
  const opener = (layer: 38 | 48) => (value: ColorValue) =>
    `${CSI}${colorParams(value, layer, depth)}m`;
  const fgOpen = openers({ ...BUILTIN_THEMES.dark.colors, ...options.colors }, opener(38));
  const bgOpen = openers(
    { ...BUILTIN_THEMES.dark.backgrounds, ...options.backgrounds },
    opener(48),
  );
  return {
    colorEnabled: true,
    fg: (color, text) => wrap(fgOpen.get(color) ?? "", `${CSI}39m`, text),
    bg: (color, text) => wrap(bgOpen.get(color) ?? "", `${CSI}49m`, text),
    bold: styler(1, 22),
    dim: styler(2, 22),
    italic: styler(3, 23),
    underline: styler(4, 24),
    strikethrough: styler(9, 29),
    inverse: styler(7, 27),
  };
}

let sharedDefault: Theme | undefined;

/**
 * The process-wide default theme, created on first use (reads `NO_COLOR`
 * when env permission allows). Components use it when given no theme.
 *
 * @example
 * ```ts
 * import { defaultTheme } from "@panto/tui";
 * console.assert(defaultTheme().bold("x").includes("x"));
 * ```
 */
export function defaultTheme(): Theme {
  sharedDefault ??= createTheme();
  return sharedDefault;
}
