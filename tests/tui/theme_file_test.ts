/**
 * Theme files: pi's themes load as they are and equal their hand conversion
 * to panto's names; missing colours follow related ones or the base theme;
 * every mistake names the file, the key, the value and the fix.
 */
import assert from "node:assert/strict";
import { BUILTIN_THEMES } from "../../tui/builtin_themes.ts";
import { createTheme } from "../../tui/theme.ts";
import { parseThemeFile, ThemeFileError } from "../../tui/theme_file.ts";

const FIXTURES = new URL("../fixtures/themes/", import.meta.url);

function fixture(name: string): Promise<string> {
  return Deno.readTextFile(new URL(name, FIXTURES));
}

/** The message of the error parsing `json` throws. */
function problems(json: unknown, shown = "themes/x.json"): string {
  const text = typeof json === "string" ? json : JSON.stringify(json);
  try {
    parseThemeFile(text, shown);
  } catch (error) {
    assert.ok(error instanceof ThemeFileError, String(error));
    return error.message;
  }
  assert.fail(`${text} was accepted`);
}

Deno.test("theme file: pi's dark theme loads unchanged, its names mapped to panto's", async () => {
  const palette = parseThemeFile(await fixture("pi_dark.json"), "pi_dark.json");
  assert.equal(palette.colors.accent, "#8abeb7", "colors.accent names the var accent");
  assert.equal(palette.colors.thinking, "#808080", "thinkingText");
  assert.equal(palette.colors.userMessage, "", "userMessageText: the terminal's default");
  assert.equal(palette.colors.syntaxAddition, "#b5bd68", "toolDiffAdded");
  assert.equal(palette.colors.syntaxDeletion, "#cc6666", "toolDiffRemoved");
  assert.equal(palette.backgrounds.toolDone, "#283228", "toolSuccessBg");
  assert.equal(palette.backgrounds.userMessage, "#343541");
  assert.equal(palette.colors.toolDone, "#b5bd68", "not in pi: follows success");
  assert.equal(palette.colors.syntaxBuiltin, "#4EC9B0", "not in pi: follows syntaxType");
  const theme = createTheme({ ...palette, noColor: false });
  assert.equal(theme.fg("text", "x"), "\x1b[39mx\x1b[39m", '"" is the default colour');
  assert.equal(theme.fg("accent", "x"), "\x1b[38;2;138;190;183mx\x1b[39m");
});

Deno.test("theme file: pi's dark theme and its hand conversion give the same colours", async () => {
  const original = parseThemeFile(await fixture("pi_dark.json"), "pi_dark.json");
  const converted = parseThemeFile(await fixture("pi_dark_converted.json"), "converted.json");
  assert.deepEqual(converted, original);
  assert.notDeepEqual(original, BUILTIN_THEMES.dark);
});

Deno.test("theme file: pi's light theme loads unchanged", async () => {
  const palette = parseThemeFile(await fixture("pi_light.json"), "pi_light.json");
  assert.notEqual(palette.colors.accent, BUILTIN_THEMES.dark.colors.accent);
  assert.doesNotThrow(() => createTheme({ ...palette, noColor: false }));
});

Deno.test("theme file: missing colours follow related ones, then the base theme", () => {
  const sea = parseThemeFile('{"colors": {"accent": 33}}', "sea.json");
  assert.equal(sea.colors.mdHeading, 33);
  assert.equal(sea.colors.mdListBullet, 33);
  assert.equal(sea.colors.text, BUILTIN_THEMES.dark.colors.text, "base: dark by default");
  const pale = parseThemeFile('{"base": "light", "colors": {"mdHr": 100}}', "pale.json");
  assert.equal(pale.colors.mdTableBorder, 100, "follows mdHr, which follows border");
  assert.equal(pale.colors.mdHeading, BUILTIN_THEMES.light.colors.mdHeading);
  assert.deepEqual(pale.backgrounds, BUILTIN_THEMES.light.backgrounds);
  assert.deepEqual(parseThemeFile("{}", "empty.json"), BUILTIN_THEMES.dark);
});

Deno.test("theme file: a panto name wins over pi's name for the same colour", () => {
  const both = { colors: { thinking: 1, thinkingText: 2, toolSuccessBg: 3, toolDoneBg: 4 } };
  const palette = parseThemeFile(JSON.stringify(both), "both.json");
  assert.equal(palette.colors.thinking, 1);
  assert.equal(palette.backgrounds.toolDone, 4);
});

Deno.test("theme file: vars may name vars", () => {
  const text = JSON.stringify({ vars: { a: "b", b: "#010203" }, colors: { accent: "a" } });
  assert.equal(parseThemeFile(text, "v.json").colors.accent, "#010203");
});

Deno.test("theme file: a bad colour names the file, key and value, and the forms to use", () => {
  assert.equal(
    problems({ vars: { primary: 1 }, colors: { accent: "#12345" } }),
    'themes/x.json: colors.accent: "#12345" is not a colour; use "#rrggbb", a 256-colour index 0-255, "" (the terminal\'s default) or a name from vars (primary)',
  );
  assert.match(problems({ colors: { error: 256 } }), /^themes\/x\.json: colors\.error: 256 is not/);
  assert.match(problems({ colors: { error: 1.5 } }), /colors\.error: 1\.5 is not a colour/);
  assert.match(
    problems({ colors: { error: "red" } }),
    /"red" is not a colour.*a name defined in "vars"/,
  );
  assert.match(problems({ vars: { sea: "#ggg000" } }), /^themes\/x\.json: vars\.sea: "#ggg000"/);
});

Deno.test("theme file: unknown keys, bad sections, loops and bad JSON are each explained", () => {
  assert.match(
    problems({ colors: { acent: 1 } }),
    /^themes\/x\.json: colors\.acent: not a theme colour; the colours are text, accent, .*selectedBg/,
  );
  assert.match(problems({ colours: {} }), /unknown key "colours"; a theme has .*colors/);
  assert.match(
    problems({ base: "solarized" }),
    /base: "solarized" is not a built-in theme; use one of "dark", "light", "high-contrast"/,
  );
  assert.match(
    problems({ colors: [] }),
    /colors: expected an object of colour name → colour, got a list/,
  );
  assert.match(problems({ vars: { a: "b", b: "a" } }), /vars\.a: a → b → a is a loop/);
  assert.match(problems({ name: 3 }), /name: expected a string, got 3/);
  assert.match(problems("[1]"), /expected a JSON object with "colors", got a list/);
  assert.match(
    problems("{colors:"),
    /^themes\/x\.json: not valid JSON \(.*\); a theme is a JSON object/,
  );
});

Deno.test("theme file: every problem is listed, one per line, up to ten", () => {
  const colors = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`bad${i}`, 1]));
  const message = problems({ colors, base: "x" });
  const lines = message.split("\n");
  assert.equal(lines.length, 10);
  assert.ok(lines.every((line) => line.startsWith("themes/x.json: ")));
});
