import assert from "node:assert/strict";
import { CURSOR_MARKER } from "../../../tui/component.ts";
import { matchRank, SelectList } from "../../../tui/components/select_list.ts";
import type { SelectItem } from "../../../tui/components/select_list.ts";
import { assertFits, COLOR, PLAIN, plain } from "./helpers.ts";

const MODELS: SelectItem<string>[] = [
  { value: "a/sonnet", label: "claude-sonnet", description: "anthropic" },
  { value: "a/opus", label: "claude-opus", description: "anthropic" },
  { value: "o/gpt", label: "gpt-5", description: "openai" },
  { value: "o/mini", label: "gpt-5-mini", description: "openai" },
];

Deno.test("select list: up/down wrap, enter selects, escape cancels", () => {
  const selected: string[] = [];
  let cancelled = 0;
  const list = new SelectList(MODELS, {
    theme: PLAIN,
    onSelect: (item) => selected.push(item.value),
    onCancel: () => cancelled++,
  });
  list.handleInput("\x1b[A");
  assert.equal(list.selectedItem?.value, "o/mini", "up from the top wraps to the bottom");
  list.handleInput("\x1b[B");
  list.handleInput("\x1b[B");
  list.handleInput("\r");
  list.handleInput("\x1b");
  assert.deepEqual(selected, ["a/opus"]);
  assert.equal(cancelled, 1);
});

Deno.test("select list: typing filters (prefix, substring, subsequence); backspace edits", () => {
  const list = new SelectList(MODELS, { theme: PLAIN });
  for (const key of "gpt") list.handleInput(key);
  assert.deepEqual(list.visibleItems.map((item) => item.value), ["o/gpt", "o/mini"]);
  list.handleInput("\x7f");
  list.handleInput("\x7f");
  list.handleInput("\x7f");
  for (const key of "opus") list.handleInput(key);
  assert.deepEqual(list.visibleItems.map((item) => item.value), ["a/opus"]);
  list.setFilter("zzz");
  assert.deepEqual(list.render(30).map(plain), ["› zzz", "  no matches"]);
  assert.equal(matchRank("cs", { label: "claude-sonnet" }), 2);
  assert.equal(matchRank("sonnet", { label: "claude-sonnet" }), 1);
  assert.equal(matchRank("claude", { label: "claude-sonnet" }), 0);
  assert.equal(matchRank("x", { label: "claude" }), -1);
});

Deno.test("select list: scrolls to keep the selection visible and shows the position", () => {
  const items = Array.from({ length: 20 }, (_, i) => ({ value: i, label: `session ${i}` }));
  const list = new SelectList(items, { theme: PLAIN, maxVisible: 3, title: "Sessions" });
  for (let i = 0; i < 5; i++) list.handleInput("\x1b[B");
  assert.deepEqual(list.render(30).map(plain), [
    "Sessions",
    "› type to filter",
    "  session 3",
    "  session 4",
    "› session 5",
    "  (6/20)",
  ]);
  list.handleInput("\x1b[5~");
  assert.equal(list.selectedItem?.value, 2, "page up");
});

Deno.test("select list: focused lists show the cursor marker; every width fits", () => {
  const list = new SelectList(MODELS, { theme: COLOR, initialIndex: 3, maxVisible: 2 });
  list.focused = true;
  assert.ok(list.render(40).join("").includes(CURSOR_MARKER));
  assert.equal(plain(list.render(40)[2] ?? ""), "› gpt-5-mini  openai");
  for (const width of [20, 40, 80, 200]) assertFits(list.render(width), width);
});

Deno.test("select list: a multi-line description shows on its row with spaces for the breaks", () => {
  const list = new SelectList([
    { value: "x", label: "test", description: "Line one\nLine two\r\nLine three" },
  ], { theme: PLAIN });
  const [, row = ""] = list.render(100);
  assert.equal(row, "› test  Line one Line two Line three");
});

Deno.test("select list: selectValue selects a visible item by value, and scrolls to it", () => {
  const list = new SelectList(MODELS, { theme: PLAIN, maxVisible: 2 });
  list.selectValue("o/mini");
  assert.equal(list.selectedItem?.value, "o/mini");
  assert.match(list.render(40).map(plain).join("\n"), /› gpt-5-mini/, "scrolled into view");
  for (const key of "claude") list.handleInput(key);
  list.selectValue("o/gpt");
  assert.equal(list.selectedItem?.value, "a/sonnet", "a value the filter hides: nothing changes");
});

Deno.test("select list: onHighlight hears of each newly highlighted item, not of the first", () => {
  const highlighted: string[] = [];
  const list = new SelectList(MODELS, {
    theme: PLAIN,
    onHighlight: (item) => highlighted.push(item.value),
  });
  list.handleInput("\x1b[B");
  list.handleInput("\x1b[A");
  list.handleInput("\x1b[A");
  list.setFilter("gpt-5-");
  list.setFilter("gpt-5-m");
  list.selectValue("o/mini");
  assert.deepEqual(highlighted, ["a/opus", "a/sonnet", "o/mini"], "wraps; same item: no call");
});
