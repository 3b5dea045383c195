/**
 * `/hotkeys`: every action the chat binds is listed with the keys it has
 * now, the user's rebindings marked with their file, extensions' keys and
 * the typed prefixes (`!!command` among them).
 */
import assert from "node:assert/strict";
import { DEFAULT_KEYBINDINGS, Keybindings } from "@panto/tui";
import { hotkeysText, KEY_ACTIONS } from "../../../cli/chat/hotkeys.ts";
import { APP_KEYBINDINGS } from "../../../cli/chat/run_interactive.ts";

Deno.test("/hotkeys: every bound action of the chat has a line", () => {
  const listed = KEY_ACTIONS.flatMap(([, rows]) => rows.map(([action]) => action)).sort();
  const bound = Object.keys({ ...DEFAULT_KEYBINDINGS, ...APP_KEYBINDINGS }).sort();
  assert.deepEqual(listed, bound);
});

Deno.test("/hotkeys: the keys in use, the config's marked with its file, unbound ones said", () => {
  const keys = new Keybindings(APP_KEYBINDINGS);
  keys.override("app.selectModel", ["ctrl+k"]);
  keys.override("app.expandTools", []);
  const text = hotkeysText({
    keys,
    configured: { "app.selectModel": "~/.panto/config.json", "app.expandTools": "x.json" },
    extensionKeys: [],
  });
  const lines = text.split("\n");
  assert.ok(
    lines.includes(
      `  ${"ctrl+k".padEnd(22)} pick a model (/model) (set in ~/.panto/config.json)`,
    ),
    text,
  );
  assert.ok(!/ctrl\+l(?![a-z])/.test(text), "ctrl+l is no longer listed once rebound");
  assert.match(text, /\(unbound\) +expand or collapse tool calls \(set in x\.json\)/);
  assert.match(text, /ctrl\+p +next model\n/);
  assert.match(text, /escape +interrupt the turn; twice on an empty editor: \/tree/);
  assert.match(text, /!!command +run a shell command; its output is only shown/);
});

Deno.test("/hotkeys: extensions' keys and actions the config names beyond the built-in ones", () => {
  const text = hotkeysText({
    keys: new Keybindings({ ...APP_KEYBINDINGS, "app.custom": ["f7"] }),
    configured: { "app.custom": "p.json" },
    extensionKeys: [
      { keys: ["ctrl+shift+t"], description: "ask the time", extension: "clock" },
      { keys: ["f5", "f6"], extension: "quiet" },
    ],
  });
  assert.match(
    text,
    /Extensions\n {2}ctrl\+shift\+t +ask the time \(clock\)\n {2}f5 \/ f6 +\(no description\) \(quiet\)/,
  );
  assert.match(text, /Other\n {2}f7 +app\.custom \(set in p\.json\)/);
});
