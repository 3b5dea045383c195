import assert from "node:assert/strict";
import { Pager, type PagerOptions } from "../../../tui/components/pager.ts";
import { findMatches } from "../../../tui/components/pager_search.ts";
import { visibleWidth } from "../../../tui/text_width.ts";
import { startTui } from "../../support/tui_screen.ts";
import { assertFits, COLOR, PLAIN, plain } from "./helpers.ts";

const PAGE_DOWN = "\x1b[6~";
const PAGE_UP = "\x1b[5~";
const UP = "\x1b[A";
const DOWN = "\x1b[B";

function numbered(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `line ${i + 1}`);
}

/** A pager over `lines` on a `rows`-row screen; `closed` counts q/esc. */
function pager(lines: readonly string[], rows: number, options: Partial<PagerOptions> = {}) {
  const state = { closed: 0, rows };
  const view = new Pager({
    content: () => ({ lines, marks: [] }),
    rows: () => state.rows,
    onClose: () => state.closed++,
    theme: PLAIN,
    start: "top",
    ...options,
  });
  return { view, state };
}

function keys(view: Pager, ...sequences: string[]): void {
  for (const sequence of sequences) view.handleInput(sequence);
}

/** Types `/pattern` and enter. */
function search(view: Pager, pattern: string): void {
  keys(view, "/", ...[...pattern], "\r");
}

Deno.test("pager: a screenful of rows, the last one a status line saying where the view is", () => {
  const { view } = pager(numbered(100), 10);
  const rows = view.render(40);
  assert.equal(rows.length, 10);
  assert.deepEqual(rows.slice(0, 9), numbered(9));
  assert.match(rows[9]!, /^lines 1-9 of 100 \(9%\) · \/ search/);
});

Deno.test("pager: lines, pages, half pages and the ends, never past either end", () => {
  const { view } = pager(numbered(100), 11); // 10 rows of lines
  view.render(40);
  keys(view, "j", "j", DOWN);
  assert.equal(view.top, 3);
  keys(view, "k", UP);
  assert.equal(view.top, 1);
  keys(view, " ");
  assert.equal(view.top, 11);
  keys(view, PAGE_DOWN, "f");
  assert.equal(view.top, 31);
  keys(view, "b", PAGE_UP);
  assert.equal(view.top, 11);
  keys(view, "d");
  assert.equal(view.top, 16);
  keys(view, "u", "u");
  assert.equal(view.top, 6);
  keys(view, "G");
  assert.equal(view.top, 90, "the last line on the last row");
  assert.equal(view.render(40)[9], "line 100");
  keys(view, "j", " ", PAGE_DOWN);
  assert.equal(view.top, 90, "nothing below the end");
  keys(view, "g");
  assert.equal(view.top, 0);
  keys(view, "k", "b", PAGE_UP);
  assert.equal(view.top, 0, "nothing above the start");
});

Deno.test("pager: shorter content than the screen stays at the top, rows below marked ~", () => {
  const { view } = pager(["only", "two"], 6);
  const rows = view.render(20);
  assert.deepEqual(rows.slice(0, 5).map(plain), ["only", "two", "~", "~", "~"]);
  keys(view, "G", " ", "j");
  assert.equal(view.top, 0);
});

Deno.test("pager: opens at the end by default, or at the last mark", () => {
  const lines = numbered(50);
  const atEnd = pager(lines, 11, { start: "end" }).view;
  atEnd.render(20);
  assert.equal(atEnd.top, 40);
  const atMark = pager(lines, 11, {
    start: "lastMark",
    content: () => ({ lines, marks: [3, 20] }),
  }).view;
  atMark.render(20);
  assert.equal(atMark.top, 20);
});

Deno.test("pager: t and T go to the next and previous mark; at the last one it says so", () => {
  const lines = numbered(100);
  const { view } = pager(lines, 11, {
    content: () => ({ lines, marks: [5, 40, 70] }),
    markName: "tool call",
  });
  view.render(40);
  keys(view, "t");
  assert.equal(view.top, 5);
  keys(view, "t");
  assert.equal(view.top, 40);
  keys(view, "t");
  assert.equal(view.top, 70);
  keys(view, "t");
  assert.equal(view.top, 70);
  assert.match(view.render(60)[10]!, /No later tool call/);
  keys(view, "T");
  assert.equal(view.top, 40);
  keys(view, "T", "T");
  assert.equal(view.top, 5);
  assert.match(view.render(60)[10]!, /No earlier tool call/);
  keys(view, "G", "T");
  assert.equal(view.top, 70, "the last mark above the end");
});

Deno.test("pager: / searches from the top row, n and N step through the matches and wrap", () => {
  const lines = numbered(100);
  const { view } = pager(lines, 11);
  view.render(40);
  search(view, "line 5");
  // "line 5", "line 50".."line 59": 11 matches; "line 5" is on screen already.
  assert.equal(view.matchCount, 11);
  assert.equal(view.top, 0);
  assert.match(view.render(60)[10]!, /match 1\/11 "line 5"/);
  keys(view, "n");
  assert.equal(view.top, 49, "line 50 brought to the first row");
  keys(view, "n", "n");
  assert.equal(view.top, 49, "line 52 is on screen: no scrolling");
  assert.match(view.render(60)[10]!, /match 4\/11/);
  keys(view, "N", "N", "N");
  assert.equal(view.top, 4, "back to line 5");
  keys(view, "N");
  assert.equal(view.top, 58, "wrapped to line 59 (as near the top as the end allows)");
  assert.match(view.render(80)[10]!, /wrapped to the end/);
  keys(view, "n");
  assert.equal(view.top, 4, "wrapped to line 5");
});

Deno.test("pager: a search starts at the view, smart case, and says when nothing matches", () => {
  const lines = ["Alpha", "alpha", "beta", "ALPHA", "gamma alpha"];
  const { view } = pager(lines, 3);
  view.render(40);
  search(view, "alpha");
  assert.equal(view.matchCount, 4, "lower case: case ignored");
  search(view, "Alpha");
  assert.equal(view.matchCount, 1, "an upper-case letter: case matters");
  search(view, "delta");
  assert.equal(view.matchCount, 0);
  assert.match(view.render(60)[2]!, /Pattern not found: delta/);
  keys(view, "n");
  assert.match(view.render(60)[2]!, /Pattern not found: delta/);
  keys(view, "G");
  search(view, "beta");
  assert.equal(view.top, 2);
  assert.match(view.render(60)[2]!, /wrapped to the top/, "searched from the view, then wrapped");
});

Deno.test("pager: typing a pattern shows it in the status line; esc and backspace give up", () => {
  const { view, state } = pager(numbered(30), 5);
  view.render(30);
  keys(view, "/", "l", "i", "x", "\x7f");
  assert.equal(plain(view.render(30)[4]!), "/li█");
  keys(view, "q");
  assert.equal(state.closed, 0, "q is typed, not a close");
  assert.equal(plain(view.render(30)[4]!), "/liq█");
  keys(view, "\x1b");
  assert.match(view.render(30)[4]!, /^lines/, "esc left the prompt");
  assert.equal(state.closed, 0, "esc in the prompt does not close");
  keys(view, "/", "\x7f");
  assert.match(view.render(30)[4]!, /^lines/, "backspace on an empty pattern left the prompt");
  keys(view, "/", "\x1b[200~line\n2\x1b[201~", "\r");
  assert.equal(view.matchCount, 11, "a pasted line break became a space: 'line 2', 'line 2x'");
  keys(view, "q");
  assert.equal(state.closed, 1);
  keys(view, "\x1b", "\x03");
  assert.equal(state.closed, 3, "esc and ctrl+c close too");
});

Deno.test("pager: an empty pattern searches the last one again", () => {
  const { view } = pager(numbered(100), 11);
  view.render(40);
  search(view, "line 9");
  const first = view.top;
  keys(view, "G", "g", "/", "\r");
  assert.equal(view.matchCount, 11);
  assert.equal(view.top, first);
});

Deno.test("pager: matches are highlighted on the screen, the current one in bold", async () => {
  await using t = startTui(30, 6);
  const lines = ["one two", "two \x1b[32mgreen two\x1b[39m", "three"];
  const view = new Pager({
    content: () => ({ lines, marks: [] }),
    rows: () => t.terminal.rows,
    onClose: () => {},
    theme: COLOR,
    start: "top",
  });
  t.tui.showFullScreen(view);
  await t.frame();
  search(view, "two");
  await t.frame();
  assert.deepEqual(t.terminal.screenLines().slice(0, 3), ["one two", "two green two", "three"]);
  const style = (x: number, y: number) => t.terminal.cell(x, y);
  assert.ok(style(4, 0).inverse && style(4, 0).bold, "the current match: inverse and bold");
  assert.ok(style(0, 1).inverse && !style(0, 1).bold, "another match: inverse");
  assert.ok(!style(3, 0).inverse, "the space before the match is not highlighted");
  assert.ok(!style(4, 1).inverse, "text between matches is not");
  assert.notEqual(style(4, 1).fg, -1, "…and keeps its own colour");
  assert.ok(style(10, 1).inverse && style(10, 1).fg !== -1, "a match in coloured text keeps it");
  assert.ok(!style(0, 2).inverse);
});

Deno.test("pager: wide characters: matches found at their columns, highlighted there", async () => {
  await using t = startTui(20, 5);
  const lines = ["中文字符 and 中文", "ｆｕｌｌ 中文"];
  const view = new Pager({
    content: () => ({ lines, marks: [] }),
    rows: () => t.terminal.rows,
    onClose: () => {},
    theme: COLOR,
    start: "top",
  });
  assert.deepEqual(findMatches(lines, "中文"), [
    { line: 0, start: 0, end: 4 },
    { line: 0, start: 13, end: 17 },
    { line: 1, start: 9, end: 13 },
  ]);
  t.tui.showFullScreen(view);
  search(view, "中文");
  await t.frame();
  assert.deepEqual(t.terminal.screenLines().slice(0, 2), lines);
  const cell = (x: number, y: number) => t.terminal.cell(x, y);
  assert.ok(cell(0, 0).inverse && cell(2, 0).inverse && !cell(4, 0).inverse);
  assert.ok(cell(13, 0).inverse && cell(15, 0).inverse);
  assert.ok(!cell(8, 1).inverse && cell(9, 1).inverse && cell(11, 1).inverse);
  assert.equal(cell(0, 0).chars, "中", "the characters drawn whole");
});

Deno.test("pager: narrow and tiny screens: every row fits, the status line is cut", () => {
  const lines = ["a", "中文字符", "b"];
  for (const theme of [PLAIN, COLOR]) {
    for (const width of [1, 2, 5, 12]) {
      for (const rows of [1, 2, 3, 8]) {
        const { view } = pager(lines, rows, { theme });
        const shown = view.render(width);
        assert.equal(shown.length, rows, `${rows} rows at width ${width}`);
        assertFits(shown, width, `width ${width}, ${rows} rows`);
        keys(view, "G", "/", "x", "y", "z");
        assertFits(view.render(width), width, `prompt at width ${width}`);
      }
    }
  }
  const { view } = pager(numbered(10), 1);
  view.render(10);
  keys(view, "j");
  assert.equal(view.top, 1, "one row: it still scrolls a line at a time");
  assert.equal(visibleWidth(pager(numbered(3), 4).view.render(7)[3]!), 7);
});

Deno.test("pager: a new width asks for the content again and keeps the place", () => {
  const widths: number[] = [];
  const { view } = pager([], 11, {
    // At half the width every line takes two rows.
    content: (width) => {
      widths.push(width);
      const lines = numbered(100).flatMap((line) => width < 40 ? [line, "  (cont.)"] : [line]);
      return { lines, marks: [] };
    },
  });
  view.render(80);
  keys(view, "/", ..."line 50", "\r");
  assert.equal(view.top, 49);
  view.render(80);
  assert.deepEqual(widths, [80], "same width: not asked again");
  view.render(20);
  assert.deepEqual(widths, [80, 20]);
  assert.equal(view.top, 98, "line 50 is still on the first row");
  assert.equal(view.render(20)[0], "line 50");
});

Deno.test("pager: a shorter screen keeps the view within the content", () => {
  const { view, state } = pager(numbered(20), 11);
  view.render(20);
  keys(view, "G");
  assert.equal(view.top, 10);
  state.rows = 21;
  view.render(20);
  assert.equal(view.top, 0, "the whole content fits now");
});

Deno.test("pager: a view at the end stays at the end on a new width or height", () => {
  const { view, state } = pager([], 11, {
    content: (width) => ({
      lines: numbered(100).flatMap((line) => width < 40 ? [line, "  (cont.)"] : [line]),
      marks: [],
    }),
  });
  view.render(80);
  keys(view, "G");
  view.render(20);
  assert.equal(view.top, 190, "200 lines now, the last on the last row");
  state.rows = 6;
  view.render(20);
  assert.equal(view.top, 195);
  keys(view, "g");
  view.render(80);
  assert.equal(view.top, 0, "moved away from the end first: not pulled back");
});

Deno.test("pager: t near the end passes over marks the view cannot move to; closes keys", () => {
  const lines = numbered(100);
  const { view, state } = pager(lines, 11, {
    content: () => ({ lines, marks: [50, 93, 95] }),
    closes: (data) => data === "\x0f",
  });
  view.render(40);
  keys(view, "t", "t");
  assert.equal(view.top, 90, "93 as near as the end allows");
  keys(view, "t");
  assert.equal(view.top, 90);
  assert.match(view.render(60)[10]!, /No later mark/, "95 is on screen: nothing later to go to");
  keys(view, "T");
  assert.equal(view.top, 50);
  keys(view, "\x0f");
  assert.equal(state.closed, 1);
});
