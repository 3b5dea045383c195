/**
 * The built-in themes: `dark` (the default), `light` and `high-contrast`,
 * each a full {@linkcode ThemePalette} in xterm 256-colour indices, which
 * every colour terminal shows alike.
 *
 * @module
 */
import type { ColorValue, ThemeBackground, ThemeColor } from "./theme.ts";

/** Every colour of a theme: all foreground and all background names. */
export interface ThemePalette {
  /** Foreground colours by name. */
  readonly colors: Readonly<Record<ThemeColor, ColorValue>>;
  /** Background colours by name. */
  readonly backgrounds: Readonly<Record<ThemeBackground, ColorValue>>;
}

/** The names of the built-in themes. */
export type BuiltinThemeName = "dark" | "light" | "high-contrast";

const DARK: ThemePalette = {
  colors: {
    text: 252,
    accent: 39,
    muted: 246,
    dim: 242,
    success: 71,
    warning: 179,
    error: 167,
    border: 240,
    borderAccent: 39,
    selected: 81,
    thinking: 245,
    userMessage: 252,
    toolTitle: 252,
    toolPending: 244,
    toolRunning: 179,
    toolDone: 71,
    toolError: 167,
    toolOutput: 249,
    pasteMarker: 141,
    mdHeading: 179,
    mdLink: 75,
    mdLinkUrl: 242,
    mdCode: 180,
    mdCodeBlock: 250,
    mdCodeBlockBorder: 240,
    mdQuote: 248,
    mdQuoteBorder: 240,
    mdHr: 240,
    mdListBullet: 39,
    mdTableBorder: 240,
    syntaxKeyword: 176,
    syntaxString: 114,
    syntaxNumber: 215,
    syntaxComment: 242,
    syntaxFunction: 75,
    syntaxType: 180,
    syntaxVariable: 204,
    syntaxBuiltin: 73,
    syntaxLiteral: 215,
    syntaxAttribute: 180,
    syntaxTag: 204,
    syntaxMeta: 247,
    syntaxRegexp: 73,
    syntaxOperator: 250,
    syntaxPunctuation: 250,
    syntaxAddition: 114,
    syntaxDeletion: 204,
  },
  backgrounds: { userMessage: 236, selected: 237, toolPending: 235, toolDone: 235, toolError: 52 },
};

/** Darker, less saturated colours that read on a white or pale background. */
const LIGHT: ThemePalette = {
  colors: {
    text: 235,
    accent: 25,
    muted: 242,
    dim: 246,
    success: 28,
    warning: 130,
    error: 160,
    border: 250,
    borderAccent: 25,
    selected: 25,
    thinking: 244,
    userMessage: 235,
    toolTitle: 235,
    toolPending: 244,
    toolRunning: 130,
    toolDone: 28,
    toolError: 160,
    toolOutput: 238,
    pasteMarker: 91,
    mdHeading: 130,
    mdLink: 25,
    mdLinkUrl: 246,
    mdCode: 94,
    mdCodeBlock: 237,
    mdCodeBlockBorder: 250,
    mdQuote: 240,
    mdQuoteBorder: 250,
    mdHr: 250,
    mdListBullet: 25,
    mdTableBorder: 250,
    syntaxKeyword: 90,
    syntaxString: 28,
    syntaxNumber: 130,
    syntaxComment: 245,
    syntaxFunction: 25,
    syntaxType: 94,
    syntaxVariable: 124,
    syntaxBuiltin: 30,
    syntaxLiteral: 130,
    syntaxAttribute: 94,
    syntaxTag: 124,
    syntaxMeta: 243,
    syntaxRegexp: 30,
    syntaxOperator: 238,
    syntaxPunctuation: 238,
    syntaxAddition: 28,
    syntaxDeletion: 160,
  },
  backgrounds: { userMessage: 254, selected: 253, toolPending: 255, toolDone: 255, toolError: 224 },
};

/**
 * White text and the 16 bright ANSI colours on black: the most contrast a
 * dark terminal gives, for low vision or a washed-out screen.
 */
const HIGH_CONTRAST: ThemePalette = {
  colors: {
    text: 15,
    accent: 14,
    muted: 252,
    dim: 250,
    success: 10,
    warning: 11,
    error: 9,
    border: 15,
    borderAccent: 14,
    selected: 11,
    thinking: 252,
    userMessage: 15,
    toolTitle: 15,
    toolPending: 252,
    toolRunning: 11,
    toolDone: 10,
    toolError: 9,
    toolOutput: 15,
    pasteMarker: 13,
    mdHeading: 11,
    mdLink: 14,
    mdLinkUrl: 252,
    mdCode: 11,
    mdCodeBlock: 15,
    mdCodeBlockBorder: 15,
    mdQuote: 15,
    mdQuoteBorder: 15,
    mdHr: 15,
    mdListBullet: 14,
    mdTableBorder: 15,
    syntaxKeyword: 13,
    syntaxString: 10,
    syntaxNumber: 11,
    syntaxComment: 252,
    syntaxFunction: 14,
    syntaxType: 11,
    syntaxVariable: 15,
    syntaxBuiltin: 14,
    syntaxLiteral: 11,
    syntaxAttribute: 11,
    syntaxTag: 13,
    syntaxMeta: 252,
    syntaxRegexp: 10,
    syntaxOperator: 15,
    syntaxPunctuation: 15,
    syntaxAddition: 10,
    syntaxDeletion: 9,
  },
  backgrounds: { userMessage: 236, selected: 19, toolPending: 0, toolDone: 0, toolError: 52 },
};

/**
 * The built-in themes by name. `dark` is the default.
 *
 * @example
 * ```ts
 * import { BUILTIN_THEMES, createTheme } from "@panto/tui";
 * const light = createTheme({ ...BUILTIN_THEMES.light, noColor: false });
 * console.assert(light.fg("accent", "x") === "\x1b[38;5;25mx\x1b[39m");
 * ```
 */
export const BUILTIN_THEMES: Readonly<Record<BuiltinThemeName, ThemePalette>> = {
  dark: DARK,
  light: LIGHT,
  "high-contrast": HIGH_CONTRAST,
};

/**
 * Whether `name` is a built-in theme's.
 *
 * @example
 * ```ts
 * import { isBuiltinTheme } from "@panto/tui";
 * console.assert(isBuiltinTheme("light") && !isBuiltinTheme("nord"));
 * ```
 */
export function isBuiltinTheme(name: string): name is BuiltinThemeName {
  return Object.hasOwn(BUILTIN_THEMES, name);
}
