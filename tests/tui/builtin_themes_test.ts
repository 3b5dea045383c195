/**
 * The built-in themes: complete, valid, different, and readable (enough
 * contrast between text and the backgrounds drawn behind it).
 */
import assert from "node:assert/strict";
import { BUILTIN_THEMES, isBuiltinTheme } from "../../tui/builtin_themes.ts";
import { type ColorValue, createTheme } from "../../tui/theme.ts";

/** The xterm 256-colour palette's RGB values. */
function rgb(value: ColorValue): [number, number, number] {
  if (typeof value === "string") {
    return [1, 3, 5].map((at) => Number.parseInt(value.slice(at, at + 2), 16)) as [
      number,
      number,
      number,
    ];
  }
  const basic = [
    [0, 0, 0],
    [205, 0, 0],
    [0, 205, 0],
    [205, 205, 0],
    [0, 0, 238],
    [205, 0, 205],
    [0, 205, 205],
    [229, 229, 229],
    [127, 127, 127],
    [255, 0, 0],
    [0, 255, 0],
    [255, 255, 0],
    [92, 92, 255],
    [255, 0, 255],
    [0, 255, 255],
    [255, 255, 255],
  ] as const;
  if (value < 16) return [...basic[value]!];
  if (value >= 232) return Array(3).fill(8 + 10 * (value - 232)) as [number, number, number];
  const levels = [0, 95, 135, 175, 215, 255];
  const n = value - 16;
  return [levels[Math.floor(n / 36)]!, levels[Math.floor(n / 6) % 6]!, levels[n % 6]!];
}

/** WCAG contrast ratio of two colours. */
function contrast(a: ColorValue, b: ColorValue): number {
  const luminance = (value: ColorValue) => {
    const [r, g, b] = rgb(value).map((c) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

Deno.test("built-in themes: each names every colour and background, all valid", () => {
  const names = Object.keys(BUILTIN_THEMES.dark.colors).sort();
  const backgrounds = Object.keys(BUILTIN_THEMES.dark.backgrounds).sort();
  for (const [name, palette] of Object.entries(BUILTIN_THEMES)) {
    assert.deepEqual(Object.keys(palette.colors).sort(), names, name);
    assert.deepEqual(Object.keys(palette.backgrounds).sort(), backgrounds, name);
    assert.doesNotThrow(() => createTheme({ ...palette, noColor: false }), name);
    assert.ok(isBuiltinTheme(name));
  }
  assert.ok(!isBuiltinTheme("toString"), "not an inherited property");
});

Deno.test("built-in themes: the default is dark, and the three differ", () => {
  const plainDefault = createTheme({ noColor: false });
  const dark = createTheme({ ...BUILTIN_THEMES.dark, noColor: false });
  assert.equal(plainDefault.fg("accent", "x"), dark.fg("accent", "x"));
  const accents = Object.values(BUILTIN_THEMES).map((palette) => palette.colors.accent);
  assert.equal(new Set(accents).size, 3);
});

Deno.test("built-in themes: text on the backgrounds the chat draws is readable", () => {
  // The user's messages, and a picker's highlighted row: its label, and its
  // description (secondary text, held to WCAG's lower bar for it).
  const pairs = [
    ["userMessage", "userMessage", 4.5],
    ["selected", "selected", 4.5],
    ["muted", "selected", 3],
  ] as const;
  for (const [name, palette] of Object.entries(BUILTIN_THEMES)) {
    // High contrast means WCAG's enhanced level: 7 and 4.5.
    const factor = name === "high-contrast" ? 1.5 : 1;
    for (const [fg, bg, minimum] of pairs) {
      const ratio = contrast(palette.colors[fg], palette.backgrounds[bg]);
      assert.ok(
        ratio >= minimum * factor,
        `${name}: ${fg} on ${bg}Bg has contrast ${ratio.toFixed(2)}, below ${minimum * factor}`,
      );
    }
  }
});
