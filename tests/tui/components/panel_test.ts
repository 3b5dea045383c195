import assert from "node:assert/strict";
import { CURSOR_MARKER } from "../../../tui/component.ts";
import { Panel } from "../../../tui/components/panel.ts";
import { SelectList } from "../../../tui/components/select_list.ts";
import { visibleWidth } from "../../../tui/text_width.ts";
import { assertFits, COLOR, PLAIN, plain } from "./helpers.ts";

const ITEMS = [
  { value: "a", label: "alpha", description: "first" },
  { value: "b", label: "beta", description: "second" },
];

Deno.test("panel: title in the top border, hints in the bottom one, content boxed", () => {
  const list = new SelectList(ITEMS, { theme: PLAIN });
  const panel = new Panel(list, {
    title: "Pick one",
    hints: ["enter select", "esc cancel"],
    theme: PLAIN,
  });
  const lines = panel.render(40);
  assert.equal(lines[0], `╭─ Pick one ${"─".repeat(27)}╮`);
  assert.equal(lines.at(-1), `╰─ enter select · esc cancel ${"─".repeat(10)}╯`);
  const body = lines.slice(1, -1);
  assert.equal(body.length, list.render(36).length, "one row per content row");
  for (const line of body) assert.match(line, /^│ .* │$/);
  assert.ok(body.some((line) => line.includes("alpha  first")));
  for (const line of lines) assert.equal(visibleWidth(line), 40, JSON.stringify(line));
});

Deno.test("panel: fits every width, colours included; a long title is cut", () => {
  for (const theme of [PLAIN, COLOR]) {
    const list = new SelectList(ITEMS, { theme });
    const panel = new Panel(list, { title: "A very long title ".repeat(5), hints: ["x"], theme });
    for (const width of [1, 3, 4, 10, 41, 120]) assertFits(panel.render(width), width);
  }
  const panel = new Panel(new SelectList(ITEMS, { theme: PLAIN }), {
    title: "A very long title ".repeat(5),
    theme: PLAIN,
  });
  assert.match(plain(panel.render(30)[0]!), /^╭─ A very long title A ver… ─╮$/);
});

Deno.test("panel: keys go to onKey first, then to the content; focus reaches the content", () => {
  const chosen: string[] = [];
  const seen: string[] = [];
  const list = new SelectList(ITEMS, { theme: PLAIN, onSelect: (item) => chosen.push(item.value) });
  const panel = new Panel(list, {
    title: "t",
    theme: PLAIN,
    onKey: (data) => {
      seen.push(data);
      return data === "\t";
    },
  });
  panel.focused = true;
  assert.ok(
    panel.render(30).some((line) => line.includes(CURSOR_MARKER)),
    "the filter has the cursor",
  );
  panel.handleInput("\t");
  assert.equal(list.filter, "", "a key onKey used does not reach the list");
  panel.handleInput("b");
  panel.handleInput("\r");
  assert.deepEqual(seen, ["\t", "b", "\r"]);
  assert.deepEqual(chosen, ["b"]);
});

Deno.test("panel: reports the content's change one row down, and its own from the top", () => {
  const list = new SelectList(ITEMS, { theme: PLAIN });
  const panel = new Panel(list, { title: "t", theme: PLAIN });
  panel.render(30);
  assert.equal(panel.firstLineChanged(), null);
  list.handleInput("\x1b[B");
  assert.equal(panel.firstLineChanged(), 1);
  assert.match(panel.render(30).join("\n"), /› beta/);
  panel.setTitle("new title");
  assert.equal(panel.firstLineChanged(), 0);
  assert.match(panel.render(30)[0]!, /new title/);
  panel.setHints(["tab all"]);
  assert.match(panel.render(30).at(-1)!, /tab all/);
});
