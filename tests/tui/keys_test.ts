import assert from "node:assert/strict";
import { formatKey, type Key, matchesKey, parseKey, parseKeySpec } from "../../tui/keys.ts";

/** Decodes `data` and returns its canonical spec (or null), plus event and text. */
function decode(data: string): { spec: string; event: Key["event"]; text?: string } | null {
  const key = parseKey(data);
  if (key === null) return null;
  return key.text === undefined
    ? { spec: formatKey(key), event: key.event }
    : { spec: formatKey(key), event: key.event, text: key.text };
}

const VECTORS: readonly [name: string, data: string, spec: string | null, text?: string][] = [
  // Plain and legacy control bytes.
  ["letter", "a", "a", "a"],
  ["upper-case letter is shift", "A", "shift+a", "A"],
  ["digit", "7", "7", "7"],
  ["symbol", "/", "/", "/"],
  ["space", " ", "space", " "],
  ["CJK", "你", "你", "你"],
  ["emoji cluster", "👍🏽", "👍🏽", "👍🏽"],
  ["enter (CR)", "\r", "enter"],
  ["tab", "\t", "tab"],
  ["backspace DEL", "\x7f", "backspace"],
  ["backspace BS (tmux)", "\x08", "backspace"],
  ["escape", "\x1b", "escape"],
  ["ctrl+a", "\x01", "ctrl+a"],
  ["ctrl+c", "\x03", "ctrl+c"],
  ["ctrl+z", "\x1a", "ctrl+z"],
  ["ctrl+space", "\x00", "ctrl+space"],
  ["ctrl+backslash", "\x1c", "ctrl+\\"],
  ["ctrl+underscore", "\x1f", "ctrl+_"],
  // Alt via ESC prefix.
  ["alt+a", "\x1ba", "alt+a"],
  ["alt+shift+a", "\x1bA", "alt+shift+a"],
  ["alt+backspace", "\x1b\x7f", "alt+backspace"],
  ["alt+enter", "\x1b\r", "alt+enter"],
  ["ctrl+alt+a", "\x1b\x01", "ctrl+alt+a"],
  ["alt+up (rxvt ESC ESC [A)", "\x1b\x1b[A", "alt+up"],
  // xterm CSI and SS3.
  ["up", "\x1b[A", "up"],
  ["down", "\x1b[B", "down"],
  ["right", "\x1b[C", "right"],
  ["left", "\x1b[D", "left"],
  ["up (application mode)", "\x1bOA", "up"],
  ["home CSI H", "\x1b[H", "home"],
  ["end CSI F", "\x1b[F", "end"],
  ["home CSI 1~", "\x1b[1~", "home"],
  ["end CSI 4~", "\x1b[4~", "end"],
  ["home SS3", "\x1bOH", "home"],
  ["insert", "\x1b[2~", "insert"],
  ["delete", "\x1b[3~", "delete"],
  ["page up", "\x1b[5~", "pageup"],
  ["page down", "\x1b[6~", "pagedown"],
  ["ctrl+up", "\x1b[1;5A", "ctrl+up"],
  ["shift+alt+right", "\x1b[1;4C", "alt+shift+right"],
  ["ctrl+delete", "\x1b[3;5~", "ctrl+delete"],
  ["shift+tab", "\x1b[Z", "shift+tab"],
  ["f1 SS3", "\x1bOP", "f1"],
  ["f4 SS3", "\x1bOS", "f4"],
  ["f1 CSI 11~", "\x1b[11~", "f1"],
  ["f5", "\x1b[15~", "f5"],
  ["f12", "\x1b[24~", "f12"],
  ["shift+f5", "\x1b[15;2~", "shift+f5"],
  ["ctrl+f1 (xterm)", "\x1b[1;5P", "ctrl+f1"],
  ["f1 linux console", "\x1b[[A", "f1"],
  // rxvt.
  ["shift+up rxvt", "\x1b[a", "shift+up"],
  ["ctrl+left rxvt", "\x1bOd", "ctrl+left"],
  ["shift+delete rxvt", "\x1b[3$", "shift+delete"],
  ["ctrl+pageup rxvt", "\x1b[5^", "ctrl+pageup"],
  // modifyOtherKeys (CSI 27 ; mod ; code ~).
  ["mok shift+enter", "\x1b[27;2;13~", "shift+enter"],
  ["mok ctrl+enter", "\x1b[27;5;13~", "ctrl+enter"],
  ["mok ctrl+i is not tab", "\x1b[27;5;105~", "ctrl+i"],
  ["mok ctrl+shift+a (upper-case code)", "\x1b[27;6;65~", "ctrl+shift+a"],
  ["mok alt+space", "\x1b[27;3;32~", "alt+space"],
  // Kitty CSI u.
  ["kitty escape", "\x1b[27u", "escape"],
  ["kitty shift+enter", "\x1b[13;2u", "shift+enter"],
  ["kitty ctrl+c", "\x1b[99;5u", "ctrl+c"],
  ["kitty super+k", "\x1b[107;9u", "super+k"],
  ["kitty ctrl+alt+shift+super", "\x1b[120;16u", "ctrl+alt+shift+super+x"],
  ["kitty caps lock ignored", "\x1b[99;69u", "ctrl+c"],
  ["kitty shifted key gives text", "\x1b[49:33;2u", "shift+1", "!"],
  ["kitty Cyrillic ctrl+С → base-layout c", "\x1b[1089::99;5u", "ctrl+c"],
  ["kitty Cyrillic plain letter keeps its own code", "\x1b[1089::99u", "с", "с"],
  ["kitty Dvorak ctrl+k keeps k", "\x1b[107::118;5u", "ctrl+k"],
  ["kitty Dvorak symbol keeps its own code", "\x1b[47::91;5u", "ctrl+/"],
  ["kitty keypad enter", "\x1b[57414u", "enter"],
  ["kitty keypad digit", "\x1b[57400u", "1", "1"],
  ["kitty ctrl+up", "\x1b[1;5A", "ctrl+up"],
  ["kitty delete with event", "\x1b[3;1:2~", "delete"],
  ["kitty f1 with modifier", "\x1b[1;2P", "shift+f1"],
  // Not keys.
  ["SGR mouse", "\x1b[<0;10;5M", null],
  ["X10 mouse", "\x1b[M !!", null],
  ["kitty flags reply", "\x1b[?1u", null],
  ["DA1 reply", "\x1b[?62;22c", null],
  ["paste", "\x1b[200~hi\x1b[201~", null],
  ["OSC reply", "\x1b]11;rgb:0000/0000/0000\x07", null],
  ["unknown CSI", "\x1b[99x", null],
  ["empty", "", null],
];

for (const [name, data, spec, text] of VECTORS) {
  Deno.test(`parseKey: ${name}`, () => {
    const decoded = decode(data);
    if (spec === null) {
      assert.equal(decoded, null);
      return;
    }
    assert.equal(decoded?.spec, spec);
    assert.equal(decoded?.text, text);
  });
}

Deno.test("parseKey: Kitty event types", () => {
  assert.equal(parseKey("\x1b[97;1:1u")?.event, "press");
  assert.equal(parseKey("\x1b[97;1:2u")?.event, "repeat");
  assert.equal(parseKey("\x1b[97;1:3u")?.event, "release");
  assert.equal(parseKey("\x1b[1;1:3A")?.event, "release");
  assert.equal(parseKey("\x1b[97;1:3u")?.text, undefined, "a release inserts nothing");
});

Deno.test("parseKey: modifiers never insert text", () => {
  assert.equal(parseKey("\x1b[99;5u")?.text, undefined);
  assert.equal(parseKey("\x1ba")?.text, undefined);
});

Deno.test("matchesKey: specs, aliases and ambiguity", () => {
  assert.ok(matchesKey("\x03", "ctrl+c"));
  assert.ok(matchesKey("\x03", "Ctrl+C"), "specs are case-insensitive");
  assert.ok(matchesKey("\x1b[99;5u", "ctrl+c"));
  assert.ok(matchesKey("\x1b[1089::99;5u", "ctrl+c"), "Cyrillic layout");
  assert.ok(!matchesKey("\x1b[107::118;5u", "ctrl+v"), "Dvorak: no base-layout match");
  assert.ok(matchesKey("\x1b", "esc"));
  assert.ok(matchesKey("\r", "return"));
  assert.ok(matchesKey("\x1b[5~", "pageUp"));
  assert.ok(matchesKey("\x1b[13;2u", "shift+enter"));
  assert.ok(matchesKey("\x1b[27;2;13~", "shift+enter"));
  assert.ok(matchesKey("\n", "shift+enter"), "LF is a common legacy shift+enter");
  assert.ok(matchesKey("\x1b\r", "shift+enter"), "ESC CR from terminal keymaps");
  assert.ok(matchesKey("\x1b\r", "alt+enter"));
  assert.ok(!matchesKey("\r", "shift+enter"));
  assert.ok(matchesKey("\t", "ctrl+i"), "legacy ctrl+i is tab");
  assert.ok(matchesKey("\t", "tab"));
  assert.ok(!matchesKey("\x1b[105;5u", "tab"), "Kitty tells ctrl+i from tab");
  assert.ok(matchesKey("\x08", "ctrl+h"));
  assert.ok(matchesKey("\x08", "backspace"));
  assert.ok(matchesKey("?", "?"));
  assert.ok(matchesKey("\x1b[47:63;2u", "?"), "bare symbol spec matches its text");
  assert.ok(matchesKey("+", "plus"));
  assert.ok(matchesKey("\x1b[43;5u", "ctrl++"));
  assert.ok(!matchesKey("a", "shift+a"));
  assert.ok(matchesKey("A", "shift+a"));
  assert.ok(!matchesKey("\x1b[99;5:3u", "ctrl+c"), "releases never match");
  assert.ok(matchesKey("\x1b[99;5:2u", "ctrl+c"), "repeats match");
});

Deno.test("parseKeySpec: rejects unknown modifiers with a useful message", () => {
  assert.throws(() => parseKeySpec("ctl+c"), /Unknown modifier "ctl" in key spec "ctl\+c"/);
  assert.throws(() => parseKeySpec("ctrl+"), /names no key/);
  assert.deepEqual(parseKeySpec("cmd+shift+P"), {
    code: "p",
    ctrl: false,
    alt: false,
    shift: true,
    super: true,
  });
});

Deno.test("parseKey: several characters at once are not one key", () => {
  assert.equal(parseKey("abc"), null);
  assert.equal(parseKey("\x1bab"), null);
});

Deno.test("parseKey: out-of-range or empty Kitty codepoints do not throw", () => {
  // An empty or out-of-range text field falls back to the key's own text.
  assert.equal(parseKey("\x1b[97;1;u")?.text, "a");
  assert.equal(parseKey("\x1b[97;1;99999999u")?.text, "a");
  assert.equal(parseKey("\x1b[97:99999999;2u")?.text, "A");
  assert.deepEqual(decode("\x1b[97;0u"), { spec: "a", event: "press", text: "a" });
});

Deno.test("matchesKey: 0x1f is ctrl+- as well as ctrl+_", () => {
  assert.ok(matchesKey("\x1f", "ctrl+-"));
  assert.ok(matchesKey("\x1f", "ctrl+minus"));
  assert.ok(matchesKey("\x1f", "ctrl+_"));
  assert.ok(!matchesKey("-", "ctrl+-"));
});

Deno.test("matchesKey: ESC then an ambiguous control byte is ctrl+alt+ that key", () => {
  assert.ok(matchesKey("\x1b\x1f", "ctrl+alt+-"));
  assert.ok(matchesKey("\x1b\x1f", "ctrl+alt+_"));
  assert.ok(matchesKey("\x1b\x1b", "ctrl+alt+["));
  assert.ok(matchesKey("\x1b\x08", "ctrl+alt+h"));
  assert.ok(matchesKey("\x1b\t", "ctrl+alt+i"));
  assert.ok(matchesKey("\x1b\r", "ctrl+alt+m"));
  // The decoded meaning still matches too.
  assert.ok(matchesKey("\x1b\x08", "alt+backspace"));
  assert.ok(matchesKey("\x1b\x1b", "alt+escape"));
  assert.ok(!matchesKey("\x1b\x08", "ctrl+h"), "the ESC prefix means alt");
  assert.ok(!matchesKey("\x1b\x1f", "ctrl+alt+h"));
});
