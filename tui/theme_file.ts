/**
 * Theme files: JSON in pi's layout (`name`, `vars`, `colors`), so a pi
 * theme loads unchanged. Every value is checked; a problem names the file,
 * the key, the bad value and the fix.
 *
 * @module
 */
import { BUILTIN_THEMES, isBuiltinTheme, type ThemePalette } from "./builtin_themes.ts";
import type { ColorValue, ThemeBackground, ThemeColor } from "./theme.ts";

/**
 * A theme file with a mistake. The message has one line per problem (at
 * most ten), each `FILE: KEY: what is wrong; the fix`.
 *
 * @example
 * ```ts
 * import { parseThemeFile, ThemeFileError } from "@panto/tui";
 * try {
 *   parseThemeFile('{"colors": {"accent": "#12345"}}', "themes/x.json");
 * } catch (error) {
 *   console.assert(error instanceof ThemeFileError);
 *   console.assert((error as Error).message.startsWith('themes/x.json: colors.accent: "#12345" is not a colour'));
 * }
 * ```
 */
export class ThemeFileError extends Error {
  /** Creates the error from its problems. */
  constructor(problems: readonly string[]) {
    super(problems.slice(0, 10).join("\n"));
    this.name = "ThemeFileError";
  }
}

const FOREGROUNDS = Object.keys(BUILTIN_THEMES.dark.colors) as ThemeColor[];
const BACKGROUNDS = Object.keys(BUILTIN_THEMES.dark.backgrounds) as ThemeBackground[];

/** pi's names for colours panto has under another name. */
const PI_NAMES: Readonly<Record<string, string>> = {
  thinkingText: "thinking",
  userMessageText: "userMessage",
  toolSuccessBg: "toolDoneBg",
  toolDiffAdded: "syntaxAddition",
  toolDiffRemoved: "syntaxDeletion",
};

/** pi colours for things panto does not draw: accepted so pi's themes load, and unused. */
const PI_UNUSED = new Set([
  "borderMuted",
  "customMessageBg",
  "customMessageText",
  "customMessageLabel",
  "toolDiffContext",
  "thinkingOff",
  "thinkingMinimal",
  "thinkingLow",
  "thinkingMedium",
  "thinkingHigh",
  "thinkingXhigh",
  "bashMode",
]);

/**
 * The colour a missing one takes from the same file, so that a theme that
 * sets only the main colours (as pi's do) is whole: tool states follow
 * success, warning and error, markdown follows the accent, rarer syntax
 * classes follow common ones. Without either, the base theme's colour.
 */
const FALLBACK: Readonly<Partial<Record<ThemeColor, ThemeColor>>> = {
  borderAccent: "accent",
  selected: "accent",
  thinking: "muted",
  userMessage: "text",
  toolTitle: "text",
  toolPending: "muted",
  toolRunning: "warning",
  toolDone: "success",
  toolError: "error",
  toolOutput: "muted",
  pasteMarker: "accent",
  mdHeading: "accent",
  mdLink: "accent",
  mdLinkUrl: "dim",
  mdCode: "accent",
  mdCodeBlock: "text",
  mdCodeBlockBorder: "border",
  mdQuote: "muted",
  mdQuoteBorder: "border",
  mdHr: "border",
  mdListBullet: "accent",
  mdTableBorder: "mdHr",
  syntaxBuiltin: "syntaxType",
  syntaxLiteral: "syntaxNumber",
  syntaxAttribute: "syntaxVariable",
  syntaxTag: "syntaxKeyword",
  syntaxMeta: "syntaxComment",
  syntaxRegexp: "syntaxString",
  syntaxAddition: "success",
  syntaxDeletion: "error",
};

const TOP_LEVEL_KEYS = ["$schema", "name", "base", "vars", "colors", "export"];

const HEX = /^#[0-9a-fA-F]{6}$/;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Reads a theme file: JSON with `colors` (colour name → value), optional
 * `vars` (name → value, for `colors` to refer to), optional `base` (the
 * built-in theme missing colours come from; `dark` by default) and, as in
 * pi's files, `name`, `$schema` and `export`, which are ignored. Background
 * colours are named with a `Bg` suffix (`selectedBg`). A value is `#rrggbb`,
 * a 256-colour index 0–255, `""` (the terminal's default) or a name from
 * `vars`. pi's colour names are accepted (`thinkingText` is `thinking`,
 * `toolSuccessBg` is `toolDoneBg`, …), and so are pi colours panto does not
 * use. A colour the file leaves out follows a related one it sets
 * (`toolDone` follows `success`), else the base theme's.
 *
 * @param text The file's text.
 * @param shown The file's name in error messages (e.g. `~/.panto/themes/nord.json`).
 * @returns Every colour of the theme.
 * @throws {ThemeFileError} Naming the file, each bad key and value, and the fix.
 *
 * @example
 * ```ts
 * import { createTheme, parseThemeFile } from "@panto/tui";
 * const palette = parseThemeFile('{"vars": {"sea": "#0088cc"}, "colors": {"accent": "sea"}}', "sea.json");
 * const theme = createTheme({ ...palette, noColor: false });
 * console.assert(theme.fg("accent", "x") === "\x1b[38;2;0;136;204mx\x1b[39m");
 * console.assert(palette.colors.mdHeading === "#0088cc"); // follows accent
 * ```
 */
export function parseThemeFile(text: string, shown: string): ThemePalette {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ThemeFileError([
      `${shown}: not valid JSON (${
        (error as Error).message
      }); a theme is a JSON object such as {"colors": {"accent": "#00aaff"}}`,
    ]);
  }
  const problems: string[] = [];
  const palette = readTheme(data, (problem) => problems.push(`${shown}: ${problem}`));
  if (problems.length > 0) throw new ThemeFileError(problems);
  return palette;
}

type Report = (problem: string) => void;

function readTheme(data: unknown, report: Report): ThemePalette {
  if (!isObject(data)) {
    report(`expected a JSON object with "colors", got ${describe(data)}`);
    return BUILTIN_THEMES.dark;
  }
  for (const key of Object.keys(data)) {
    if (!TOP_LEVEL_KEYS.includes(key)) {
      report(`unknown key ${JSON.stringify(key)}; a theme has ${TOP_LEVEL_KEYS.join(", ")}`);
    }
  }
  if ("name" in data && typeof data.name !== "string") {
    report(`name: expected a string, got ${describe(data.name)}`);
  }
  const base = readBase(data.base, report);
  const vars = readVars(data.vars, report);
  const own = readColors(data.colors, vars, report);
  return {
    colors: Object.fromEntries(
      FOREGROUNDS.map((name) => [name, ownOrFallback(name, own) ?? base.colors[name]]),
    ) as Record<ThemeColor, ColorValue>,
    backgrounds: Object.fromEntries(
      BACKGROUNDS.map((name) => [name, own.get(`${name}Bg`) ?? base.backgrounds[name]]),
    ) as Record<ThemeBackground, ColorValue>,
  };
}

function ownOrFallback(name: ThemeColor, own: Map<string, ColorValue>): ColorValue | undefined {
  for (let at: ThemeColor | undefined = name; at !== undefined; at = FALLBACK[at]) {
    const value = own.get(at);
    if (value !== undefined) return value;
  }
  return undefined;
}

function readBase(value: unknown, report: Report): ThemePalette {
  if (value === undefined) return BUILTIN_THEMES.dark;
  if (typeof value === "string" && isBuiltinTheme(value)) return BUILTIN_THEMES[value];
  report(
    `base: ${describe(value)} is not a built-in theme; use one of ${
      Object.keys(BUILTIN_THEMES).map((name) => JSON.stringify(name)).join(", ")
    }`,
  );
  return BUILTIN_THEMES.dark;
}

/** `vars` with each value resolved to a colour (a var may name another var). */
function readVars(value: unknown, report: Report): Map<string, ColorValue> {
  const vars = new Map<string, ColorValue>();
  if (value === undefined) return vars;
  if (!isObject(value)) {
    report(`vars: expected an object of name → colour, got ${describe(value)}`);
    return vars;
  }
  for (const name of Object.keys(value)) {
    const resolved = resolveVar(value, [name]);
    if (typeof resolved === "object") vars.set(name, resolved.colour);
    // A var naming a bad var is reported once, at the bad one.
    else if (resolved !== "") report(resolved);
  }
  return vars;
}

/**
 * The colour at the end of the chain of var names `path`, or the problem
 * with it (`""` when the problem belongs to another var).
 */
function resolveVar(vars: Json, path: readonly string[]): { colour: ColorValue } | string {
  const name = path.at(-1)!;
  const raw = vars[name];
  const colour = literalColour(raw);
  if (colour !== undefined) return { colour };
  if (typeof raw !== "string" || raw === "" || !Object.hasOwn(vars, raw)) {
    return path.length === 1 ? notAColour(`vars.${name}`, raw, Object.keys(vars)) : "";
  }
  if (path.includes(raw)) {
    return `vars.${path[0]}: ${[...path, raw].join(" → ")} is a loop; give one of them a colour`;
  }
  return resolveVar(vars, [...path, raw]);
}

/** The file's own colours, by panto name (backgrounds as `nameBg`). */
function readColors(
  value: unknown,
  vars: Map<string, ColorValue>,
  report: Report,
): Map<string, ColorValue> {
  const own = new Map<string, ColorValue>();
  if (value === undefined) return own;
  if (!isObject(value)) {
    report(`colors: expected an object of colour name → colour, got ${describe(value)}`);
    return own;
  }
  const known = new Set<string>([...FOREGROUNDS, ...BACKGROUNDS.map((name) => `${name}Bg`)]);
  for (const [key, raw] of Object.entries(value)) {
    const name = PI_NAMES[key] ?? key;
    if (!known.has(name) && !PI_UNUSED.has(key)) {
      report(
        `colors.${key}: not a theme colour; the colours are ${[...known].join(", ")}`,
      );
      continue;
    }
    const colour = literalColour(raw) ?? (typeof raw === "string" ? vars.get(raw) : undefined);
    if (colour === undefined) {
      report(notAColour(`colors.${key}`, raw, [...vars.keys()]));
      continue;
    }
    // A panto name wins over pi's name for the same colour.
    if (name === key || !own.has(name)) own.set(name, colour);
  }
  return own;
}

function literalColour(raw: unknown): ColorValue | undefined {
  if (typeof raw === "number") {
    return Number.isInteger(raw) && raw >= 0 && raw <= 255 ? raw : undefined;
  }
  if (raw === "") return "";
  if (typeof raw === "string" && HEX.test(raw)) return raw as `#${string}`;
  return undefined;
}

function notAColour(where: string, raw: unknown, varNames: readonly string[]): string {
  const vars = varNames.length > 0
    ? `a name from vars (${varNames.join(", ")})`
    : 'a name defined in "vars"';
  return `${where}: ${
    describe(raw)
  } is not a colour; use "#rrggbb", a 256-colour index 0-255, "" (the terminal's default) or ${vars}`;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
