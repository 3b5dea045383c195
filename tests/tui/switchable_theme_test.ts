import assert from "node:assert/strict";
import { BUILTIN_THEMES } from "../../tui/builtin_themes.ts";
import { SwitchableTheme } from "../../tui/switchable_theme.ts";
import { createTheme } from "../../tui/theme.ts";
import { Text } from "../../tui/components/text.ts";

Deno.test("switchable theme: components holding it draw the new colours once invalidated", () => {
  const dark = createTheme({ noColor: false });
  const light = createTheme({ ...BUILTIN_THEMES.light, noColor: false });
  const theme = new SwitchableTheme(dark);
  const text = new Text("hello", { style: (line) => theme.fg("accent", line) });
  assert.deepEqual(text.render(20), [dark.fg("accent", "hello")]);
  theme.set(light);
  assert.equal(theme.current, light);
  text.invalidate();
  assert.deepEqual(text.render(20), [light.fg("accent", "hello")]);
  assert.equal(theme.bg("selected", "x"), light.bg("selected", "x"));
  assert.equal(theme.bold("x"), "\x1b[1mx\x1b[22m");
});

Deno.test("switchable theme: colour is off when the theme it holds has none", () => {
  const theme = new SwitchableTheme(createTheme({ noColor: true }));
  assert.equal(theme.colorEnabled, false);
  assert.equal(theme.fg("accent", "x"), "x");
  theme.set(createTheme({ ...BUILTIN_THEMES["high-contrast"], noColor: false }));
  assert.equal(theme.colorEnabled, true);
});
