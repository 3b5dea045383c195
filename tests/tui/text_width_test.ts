import stripAnsi from "strip-ansi";
import assert from "node:assert/strict";
import stringWidth from "string-width";
import { startTui } from "../support/tui_screen.ts";
import { frame, Lines } from "./test_lines.ts";
import { expandTabs, sliceColumns, truncateToWidth, visibleWidth } from "../../tui/text_width.ts";

const SAMPLES = [
  "plain",
  "\x1b[1;31mbold red\x1b[0m",
  "漢字かな",
  "👍🏽 skin tone",
  "🇯🇵🇫🇷 flags",
  "👨‍👩‍👧 family",
  "e\u0301 combining",
  "\x1b]8;;https://x.y\x07link\x1b]8;;\x07",
  "\x1b[38;5;240m│ \x1b[39mQ00193\x1b[38;5;240m │\x1b[39m ┌─┬─┐ ╭╮╰╯ ═║╬",
  "│ box then wide 漢字 │",
];

Deno.test("visibleWidth: agrees with string-width and ignores escapes", () => {
  for (const sample of SAMPLES) {
    const plain = stripAnsi(sample);
    assert.equal(visibleWidth(sample), stringWidth(plain), JSON.stringify(sample));
  }
  assert.equal(
    visibleWidth("a\x1b_panto:c\x07b"),
    2,
    "APC strings (the cursor marker) are zero-width",
  );
});

Deno.test("truncateToWidth: never exceeds the width, never splits a cluster", () => {
  for (const sample of SAMPLES) {
    for (let width = 0; width <= visibleWidth(sample) + 1; width++) {
      const cut = truncateToWidth(sample, width);
      assert.ok(visibleWidth(cut) <= width, `${JSON.stringify(sample)} at ${width}`);
      assert.ok(visibleWidth(cut) >= width - 1, "loses at most the half of a wide cluster");
      const clusters = [...new Intl.Segmenter().segment(stripAnsi(cut))];
      for (const { segment } of clusters) {
        assert.ok(sample.includes(segment), `cluster ${JSON.stringify(segment)} is intact`);
      }
    }
  }
});

Deno.test("truncateToWidth: ellipsis and style reset", () => {
  assert.equal(truncateToWidth("hello world", 8, "…"), "hello w…");
  assert.equal(truncateToWidth("short", 8, "…"), "short");
  assert.equal(truncateToWidth("\x1b[31mredredred", 3), "\x1b[31mred\x1b[0m");
  assert.equal(truncateToWidth("漢字", 3), "漢");
});

Deno.test("sliceColumns: carries the style in and pads cut wide clusters", () => {
  assert.equal(sliceColumns("abcdef", 2, 4), "cd");
  assert.equal(sliceColumns("漢字", 1, 3), "  ");
  assert.equal(sliceColumns("漢字", 0, 2), "漢");
  assert.equal(sliceColumns("\x1b[31mab\x1b[1mcd", 3, 4), "\x1b[31m\x1b[1md");
  assert.equal(sliceColumns("\x1b[31mab\x1b[0mcd", 3, 4), "d", "a reset drops earlier styles");
  assert.equal(sliceColumns("ab", 1, 10), "b");
});

Deno.test("tabs measure the 3 columns the renderer draws for them", () => {
  assert.equal(visibleWidth("ab\tcd"), 7);
  assert.equal(visibleWidth("\x1b[1m\t\x1b[0m"), 3);
  assert.equal(visibleWidth("漢\t"), 5);
  assert.equal(truncateToWidth("ab\tcd", 7), "ab\tcd");
  assert.equal(truncateToWidth("ab\tcd", 5), "ab\t", "a whole tab fits");
  assert.equal(truncateToWidth("ab\tcd", 4), "ab", "a tab is never cut in half");
  assert.equal(truncateToWidth("ab\tcd\tef", 9, "…"), "ab\tcd…");
  assert.equal(sliceColumns("ab\tcd", 5, 7), "cd");
  assert.equal(sliceColumns("ab\tcd", 0, 5), "ab\t");
  assert.equal(sliceColumns("ab\tcd", 3, 6), "  c", "a cut tab becomes the spaces left of it");
});

Deno.test("expandTabs: tabs in printable text become 3 spaces, escape sequences stay intact", () => {
  assert.equal(expandTabs("ab\tcd"), "ab   cd");
  assert.equal(visibleWidth(expandTabs("ab\tcd")), visibleWidth("ab\tcd"));
  for (
    const sequence of [
      "\x1b]8;;https://example.test/a\tb\x07",
      "\x1b]0;window\ttitle\x1b\\",
      "\x1b_payload\tdata\x1b\\",
    ]
  ) {
    assert.equal(expandTabs(`${sequence}label\ttext`), `${sequence}label   text`);
  }
});

Deno.test("tabs: text padded by visibleWidth lines up on the screen", async () => {
  await using t = startTui(20, 3);
  const pad = (text: string) => text + " ".repeat(10 - visibleWidth(text)) + "|";
  t.tui.addChild(new Lines([pad("ab\tcd"), pad("abcdefg")]));
  await frame(t.tui, t.terminal);
  assert.deepEqual(t.terminal.screenLines().slice(0, 2), ["ab   cd   |", "abcdefg   |"]);
});

Deno.test("tabs: the renderer keeps a tab inside an OSC 8 link's URL", async () => {
  await using t = startTui(20, 3);
  const link = "\x1b]8;;https://example.test/a\tb\x07";
  t.tui.addChild(new Lines([`${link}go\tthere\x1b]8;;\x07`]));
  await frame(t.tui, t.terminal);
  assert.equal(t.terminal.screenLines()[0], "go   there");
  assert.ok(t.terminal.writes.join("").includes(`${link}go   there`), "the URL is unchanged");
});
