/**
 * `/theme` on the virtual terminal, for what the tmux tests leave out: a
 * broken theme file is explained while previewing and on enter, and the
 * theme before stays; `/theme NAME` switches and saves without the picker;
 * and the theme at start falls back to `dark`, saying why.
 */
// The harness comes first: it must load the terminal emulator before @panto/lib (see there).
import { type ChatHarness, KEYS, withChat } from "./chat_harness.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import type { PantoConfig } from "../../../cli/config/panto_config.ts";
import { startTheme } from "../../../cli/chat/theme_command.ts";

const BROKEN = '{"colors": {"accent": "#12345"}}';

async function writeTheme(home: string, name: string, text: string): Promise<void> {
  await Deno.mkdir(join(home, "themes"), { recursive: true });
  await Deno.writeTextFile(join(home, "themes", `${name}.json`), text);
}

async function savedTheme(chat: ChatHarness): Promise<unknown> {
  return JSON.parse(await Deno.readTextFile(join(chat.fixture.home, "config.json"))).theme;
}

Deno.test("/theme: a broken theme is explained once while previewing; enter keeps the theme before", async () => {
  await withChat(async (chat) => {
    await writeTheme(chat.fixture.home, "broken", BROKEN);
    await chat.send("/theme");
    await chat.waitFor(/broken/);
    await chat.press(KEYS.down, KEYS.down, KEYS.down);
    await chat.waitFor(/colors\.accent: "#12345" is not a colour;\s+use "#rrggbb"/);
    await chat.press(KEYS.down, "\x1b[A");
    await chat.press(KEYS.enter);
    const screen = await chat.waitFor(/Kept the theme "dark"/);
    assert.match(screen, /"broken" has the mistakes shown above\s+Kept the theme "dark"\./);
    assert.equal(screen.match(/is not a colour/g)?.length, 1, "said once");
    assert.equal(chat.chat.activeTheme.name, "dark");
    assert.equal(await savedTheme(chat), undefined, "nothing saved");
  });
});

Deno.test("/theme NAME switches and saves without the picker; an unknown name is explained", async () => {
  await withChat(async (chat) => {
    await chat.send("/theme high-contrast");
    await chat.waitFor(/Theme "high-contrast" saved in .*config\.json\./);
    assert.equal(chat.chat.activeTheme.name, "high-contrast");
    assert.equal(await savedTheme(chat), "high-contrast");
    await chat.send("/theme nord");
    await chat.waitFor(/No theme is called "nord": the built-in themes are dark, light/);
    await chat.waitFor(/Kept the theme "high-contrast"\./);
    assert.equal(await savedTheme(chat), "high-contrast");
  });
});

Deno.test("theme at start: the configured one, else dark with the reason", async () => {
  const pantoHome = await Deno.makeTempDir({ prefix: "panto_start_theme_" });
  try {
    await writeTheme(pantoHome, "sea", '{"colors": {"accent": 33}}');
    await writeTheme(pantoHome, "broken", BROKEN);
    const start = (theme?: string) => {
      const config = { ...(theme ? { theme, themeSource: "config.json" } : {}) } as PantoConfig;
      return startTheme({ config, pantoHome, cwd: pantoHome });
    };
    assert.equal((await start()).name, "dark");
    const sea = await start("sea");
    assert.equal(sea.name, "sea");
    assert.equal(sea.problem, undefined);
    const broken = await start("broken");
    assert.equal(broken.name, "dark");
    assert.match(broken.problem ?? "", /broken\.json: colors\.accent: "#12345" is not a colour/);
    assert.match(
      broken.problem ?? "",
      /Using the dark theme: fix config\.json or the theme, or pick one with \/theme\./,
    );
    assert.match((await start("nord")).problem ?? "", /^No theme is called "nord"/);
  } finally {
    await Deno.remove(pantoHome, { recursive: true });
  }
});
