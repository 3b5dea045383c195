/**
 * Themes in a real pty (tmux), read with `capture-pane -e` so the colours
 * themselves are checked: /theme recolours the whole chat (the welcome
 * above the picker included) as the selection moves, esc puts the theme
 * back, enter keeps it and saves it in config.json with the user's comments
 * intact; NO_COLOR keeps every theme colourless; under the installed
 * command, a theme file in $PANTO_HOME/themes is used and listed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "jsonc-parser";
import { withChatPane } from "../../support/chat_pane.ts";
import { withInstalledPanto } from "../../support/installed_panto.ts";
import { shellQuote, tmuxAvailable, type TmuxSession } from "../../support/tmux.ts";

if (!tmuxAvailable) {
  console.log("skipped: theme_tmux_test needs tmux on PATH (apt-get install -y tmux)");
}

/** The screen with its SGR codes. */
function coloured(tmux: TmuxSession): Promise<string> {
  return tmux.tmux("capture-pane", "-p", "-e", "-t", "0");
}

/** Waits until the coloured screen passes `check`; the screen. */
async function waitForColours(
  tmux: TmuxSession,
  what: string,
  check: (screen: string) => boolean,
): Promise<string> {
  const deadline = Date.now() + 20_000;
  let screen = "";
  while (Date.now() < deadline) {
    screen = await coloured(tmux);
    if (check(screen)) return screen;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Timed out waiting for ${what}; the screen:\n${JSON.stringify(screen)}`);
}

/** The welcome's title in `dark`'s accent (palette 39) or `light`'s (25). */
const DARK_TITLE = "\x1b[38;5;39mpanto";
const LIGHT_TITLE = "\x1b[38;5;25mpanto";

/** The user's config, as a person writes it: comments and their own layout. */
function commentedConfig(generated: string): string {
  const { providers, models } = JSON.parse(generated);
  return [
    "// My panto settings.",
    "{",
    '  "defaultModel": "fast", // the quick one',
    `  "providers": ${JSON.stringify(providers)},`,
    "  /* models I use */",
    `  "models": ${JSON.stringify(models)},`,
    '  "retry": { "maxRetries": 0 }',
    "}",
    "",
  ].join("\n");
}

Deno.test({
  name:
    "tmux: /theme recolours the chat as the selection moves; esc restores it; enter keeps and saves it, comments intact",
  ignore: !tmuxAvailable,
  fn: () =>
    withChatPane({ env: { NO_COLOR: "" } }, async ({ tmux, home }) => {
      await tmux.waitFor(/fast/);
      const configPath = join(home, "config.json");
      const original = commentedConfig(await Deno.readTextFile(configPath));
      await Deno.writeTextFile(configPath, original);
      await waitForColours(tmux, "the dark theme", (s) => s.includes(DARK_TITLE));

      await tmux.type("/theme");
      await tmux.keys("Enter");
      await tmux.waitFor(/╭─ Theme/);
      const listed = (await tmux.screen()).join("\n");
      assert.match(listed, /› dark +built in/);
      assert.match(listed, /light +built in/);
      assert.match(listed, /high-contrast +built in/);

      await tmux.keys("Down");
      const light = await waitForColours(
        tmux,
        "the light theme's colours",
        (s) => s.includes(LIGHT_TITLE) && !s.includes(DARK_TITLE),
      );
      assert.match((await tmux.screen()).join("\n"), /╭─ Theme/, "the picker stays open");
      assert.ok(light.includes("\x1b[48;5;253m› \x1b[1mlight"), "light's selection background");

      await tmux.keys("Escape");
      await waitForColours(tmux, "dark again after esc", (s) => s.includes(DARK_TITLE));
      assert.doesNotMatch(await coloured(tmux), /38;5;25m/);
      assert.equal(await Deno.readTextFile(configPath), original, "esc saves nothing");

      await tmux.type("/theme");
      await tmux.keys("Enter");
      await tmux.waitFor(/╭─ Theme/);
      await tmux.keys("Down", "Down");
      await waitForColours(tmux, "high-contrast", (s) => s.includes("\x1b[38;5;14mpanto"));
      await tmux.keys("Up");
      await waitForColours(tmux, "light", (s) => s.includes(LIGHT_TITLE));
      await tmux.keys("Enter");
      await tmux.waitFor(/Theme "light" saved in ~\/config\.json\./);
      assert.ok(!(await tmux.screen()).some((line) => line.startsWith("╭─")), "picker closed");
      assert.ok((await coloured(tmux)).includes(LIGHT_TITLE), "the chosen theme stays");

      const saved = await Deno.readTextFile(configPath);
      for (const comment of ["// My panto settings.", "// the quick one", "/* models I use */"]) {
        assert.ok(saved.includes(comment), `${comment} kept in:\n${saved}`);
      }
      assert.deepEqual(parse(saved), { ...parse(original), theme: "light" });
      assert.ok(
        saved.startsWith(original.slice(0, original.indexOf('  "retry"'))),
        `only the end changed:\n${saved}`,
      );
    }),
});

Deno.test({
  name: "tmux: NO_COLOR wins over the configured theme and over the picker's preview",
  ignore: !tmuxAvailable,
  fn: () =>
    withChatPane(
      { env: { NO_COLOR: "1" }, config: { theme: "high-contrast" } },
      async ({ tmux }) => {
        await tmux.waitFor(/fast/);
        assert.doesNotMatch(await coloured(tmux), COLOUR_CODE, "no colour at start");
        await tmux.type("/theme");
        await tmux.keys("Enter");
        await tmux.waitFor(/╭─ Theme/);
        assert.match((await tmux.screen()).join("\n"), /› high-contrast/, "the configured one");
        await tmux.keys("Up");
        await tmux.keys("Enter");
        await tmux.waitFor(/NO_COLOR is set, so colours stay off\./);
        assert.doesNotMatch(await coloured(tmux), COLOUR_CODE, "none after choosing light");
      },
    ),
});

/** A foreground or background colour in an SGR sequence. */
// deno-lint-ignore no-control-regex
const COLOUR_CODE = /\x1b\[[0-9;]*[34]8;/;

/** A pi-style theme (vars + colors) with a colour no built-in theme uses. */
const OCEAN = JSON.stringify({
  name: "ocean",
  vars: { sea: "#1188cc", foam: 194 },
  colors: { accent: "sea", muted: "foam", userMessageBg: "#102030" },
});

Deno.test({
  name:
    "installed panto in tmux: the theme named in config.json is read from $PANTO_HOME/themes; /theme lists it with the project's",
  ignore: !tmuxAvailable,
  fn: () =>
    withInstalledPanto((panto) =>
      withChatPane({
        command: shellQuote(panto),
        env: { NO_COLOR: "" },
        config: { theme: "ocean" },
        homeFiles: { "themes/ocean.json": OCEAN },
        files: { ".panto/themes/reef.json": '{"colors": {"accent": "#ff7f50"}}' },
      }, async ({ tmux }) => {
        await tmux.waitFor(/fast/);
        await waitForColours(
          tmux,
          "ocean's accent",
          (s) => s.includes("\x1b[38;2;17;136;204mpanto"),
        );
        await tmux.type("/theme");
        await tmux.keys("Enter");
        const screen = (await tmux.waitFor(/reef/)).join("\n");
        assert.match(screen, /› ocean +~\/themes\/ocean\.json/);
        assert.match(screen, /reef +.*\.panto\/themes\/reef\.json \(project\)/);
        await tmux.keys("Down");
        await waitForColours(
          tmux,
          "reef's accent",
          (s) => s.includes("\x1b[38;2;255;127;80mpanto"),
        );
        await tmux.keys("Escape");
        await waitForColours(tmux, "ocean again", (s) => s.includes("\x1b[38;2;17;136;204mpanto"));
      })
    ),
});

Deno.test({
  name:
    "installed panto in tmux: in macOS Terminal (TERM_PROGRAM=Apple_Terminal) a theme's hex colours become palette colours",
  ignore: !tmuxAvailable,
  fn: () =>
    withInstalledPanto((panto) =>
      withChatPane({
        command: shellQuote(panto),
        env: { NO_COLOR: "", TERM_PROGRAM: "Apple_Terminal" },
        config: { theme: "ocean" },
        homeFiles: { "themes/ocean.json": OCEAN },
      }, async ({ tmux }) => {
        await tmux.waitFor(/fast/);
        // #1188cc's nearest entry of the 256-colour palette is 38 (#00afd7).
        const screen = await waitForColours(
          tmux,
          "ocean's accent as palette colour 38",
          (s) => s.includes("\x1b[38;5;38mpanto"),
        );
        assert.doesNotMatch(screen, /\[38;2;/, "no 24-bit colour");
      })
    ),
});
