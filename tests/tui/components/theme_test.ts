import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { createTheme } from "../../../tui/theme.ts";

const CONFIG = fileURLToPath(new URL("../../../deno.json", import.meta.url));

Deno.test("theme: colours by name, NO_COLOR from the env lookup disables all SGR", () => {
  const colored = createTheme({ env: () => undefined });
  assert.equal(colored.colorEnabled, true);
  assert.equal(colored.fg("error", "x"), "\x1b[38;5;167mx\x1b[39m");
  assert.equal(colored.bg("selected", "x"), "\x1b[48;5;237mx\x1b[49m");
  const plain = createTheme({ env: (name) => (name === "NO_COLOR" ? "1" : undefined) });
  assert.equal(plain.colorEnabled, false);
  const styled = [
    plain.fg("accent", "a"),
    plain.bg("userMessage", "b"),
    plain.bold("c"),
    plain.dim("d"),
    plain.italic("e"),
    plain.underline("f"),
    plain.strikethrough("g"),
    plain.inverse("h"),
  ];
  assert.deepEqual(styled, ["a", "b", "c", "d", "e", "f", "g", "h"]);
  assert.equal(createTheme({ env: () => "" }).colorEnabled, true, "empty NO_COLOR is unset");
  assert.equal(createTheme({ noColor: false, env: () => "1" }).colorEnabled, true, "explicit wins");
});

Deno.test("theme: nested styles restore the outer one", () => {
  const theme = createTheme({ noColor: false });
  const nested = theme.fg("mdHeading", `a ${theme.fg("mdCode", "b")} c`);
  assert.equal(nested, "\x1b[38;5;179ma \x1b[38;5;180mb\x1b[39m\x1b[38;5;179m c\x1b[39m");
  const boldDim = theme.bold(`x${theme.dim("y")}z`);
  assert.equal(boldDim, "\x1b[1mx\x1b[2my\x1b[22m\x1b[1mz\x1b[22m");
  assert.equal(theme.bold(""), "", "empty text stays empty");
});

Deno.test("theme: overrides accept palette indices and hex; bad values say how to fix them", () => {
  const theme = createTheme({ noColor: false, colors: { accent: "#ff8800", error: 9 } });
  assert.equal(theme.fg("accent", "x"), "\x1b[38;2;255;136;0mx\x1b[39m");
  assert.equal(theme.fg("error", "x"), "\x1b[38;5;9mx\x1b[39m");
  assert.throws(() => createTheme({ noColor: false, colors: { accent: 300 } }), /0–255/);
  assert.throws(() => createTheme({ noColor: false, colors: { accent: "#abc" } }), /#rrggbb/);
});

Deno.test("theme: the default env lookup neither throws nor prompts without --allow-env", async () => {
  const themeUrl = new URL("../../../tui/theme.ts", import.meta.url).href;
  const script = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    await Deno.writeTextFile(
      script,
      `import { createTheme } from ${
        JSON.stringify(themeUrl)
      };\nconsole.log(createTheme().colorEnabled);\n`,
    );
    const command = new Deno.Command(Deno.execPath(), {
      // The checkout's config resolves the theme's npm imports.
      args: ["run", "--no-prompt", "--config", CONFIG, "--allow-read", script],
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    });
    const { code, stdout, stderr } = await command.output();
    const decoder = new TextDecoder();
    assert.equal(code, 0, decoder.decode(stderr));
    assert.equal(decoder.decode(stdout).trim(), "true", "NO_COLOR unreadable, so colour stays on");
  } finally {
    await Deno.remove(script);
  }
});

Deno.test("theme: on a 256-colour terminal hex colours become their nearest palette entry", () => {
  const colors = { accent: "#1188cc", error: 9, text: "" } as const;
  const limited = createTheme({ noColor: false, colorDepth: "256", colors });
  assert.equal(limited.fg("accent", "x"), "\x1b[38;5;38mx\x1b[39m");
  assert.equal(limited.fg("error", "x"), "\x1b[38;5;9mx\x1b[39m", "indices stay");
  assert.equal(limited.fg("text", "x"), "\x1b[39mx\x1b[39m", '"" stays the default');
  const macTerminal = createTheme({
    env: (name) => (name === "TERM_PROGRAM" ? "Apple_Terminal" : undefined),
    colors,
  });
  assert.equal(macTerminal.fg("accent", "x"), "\x1b[38;5;38mx\x1b[39m", "detected");
  const truecolor = createTheme({ env: () => undefined, colors });
  assert.equal(truecolor.fg("accent", "x"), "\x1b[38;2;17;136;204mx\x1b[39m");
});
