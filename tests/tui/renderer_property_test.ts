/**
 * Property: whatever the component tree and the sequence of edits, after
 * every frame the emulator's visible screen equals a from-scratch render of
 * the same lines (the tail that fits the screen).
 */
import stripAnsi from "strip-ansi";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Component } from "../../tui/component.ts";
import { Container } from "../../tui/container.ts";
import { truncateToWidth } from "../../tui/text_width.ts";
import { TUI } from "../../tui/tui.ts";
import { VirtualTerminal } from "../support/virtual_terminal.ts";
import { expectedScreen, frame, Lines } from "./test_lines.ts";

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const GRAPHEMES = ["a", "b", "x", " ", "-", "漢", "字", "👍🏽", "🇯🇵", "é"];
const STYLES = ["", "\x1b[31m", "\x1b[1;32m", "\x1b[7m"];

const lineArbitrary = fc.tuple(
  fc.array(fc.constantFrom(...GRAPHEMES), { maxLength: 30 }),
  fc.constantFrom(...STYLES),
).map(([graphemes, style]) =>
  style === "" ? graphemes.join("") : `${style}${graphemes.join("")}\x1b[0m`
);

const linesArbitrary = fc.array(lineArbitrary, { maxLength: 12 });

/** Where an edit applies: leaf index (modulo the number of leaves). */
type Edit =
  | { kind: "append"; leaf: number; lines: string[] }
  | { kind: "edit"; leaf: number; at: number; line: string }
  | { kind: "extend"; leaf: number; at: number; suffix: string; keep: number }
  | { kind: "truncate"; leaf: number; keep: number }
  | { kind: "replace"; leaf: number; lines: string[] }
  | { kind: "resize"; columns: number; rows: number };

const editArbitrary: fc.Arbitrary<Edit> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("append" as const),
      leaf: fc.nat(),
      lines: fc.array(lineArbitrary, { minLength: 1, maxLength: 6 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("edit" as const),
      leaf: fc.nat(),
      at: fc.nat(),
      line: lineArbitrary,
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("extend" as const),
      leaf: fc.nat(),
      at: fc.nat(),
      suffix: lineArbitrary,
      keep: fc.nat({ max: 40 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("truncate" as const),
      leaf: fc.nat(),
      keep: fc.nat({ max: 10 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("replace" as const),
      leaf: fc.nat(),
      lines: linesArbitrary,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("resize" as const),
      columns: fc.integer({ min: 4, max: 30 }),
      rows: fc.integer({ min: 2, max: 10 }),
    }),
  },
);

/** A tree shape: each top-level child is a leaf (one list) or a container of leaves. */
const treeArbitrary = fc.array(
  fc.oneof(
    linesArbitrary.map((lines) => [lines]),
    fc.array(linesArbitrary, { minLength: 1, maxLength: 3 }),
  ),
  { minLength: 1, maxLength: 4 },
);

function build(tree: string[][][], tui: TUI): Lines[] {
  const leaves: Lines[] = [];
  for (const group of tree) {
    const parent: Container = group.length === 1 ? tui : new Container();
    for (const lines of group) {
      const leaf = new Lines(lines);
      leaves.push(leaf);
      parent.addChild(leaf as Component);
    }
    if (parent !== tui) tui.addChild(parent);
  }
  return leaves;
}

function apply(edit: Edit, leaves: Lines[], terminal: VirtualTerminal): void {
  if (edit.kind === "resize") {
    terminal.resize(edit.columns, edit.rows);
    return;
  }
  const leaf = leaves[edit.leaf % leaves.length]!;
  switch (edit.kind) {
    case "append":
      leaf.append(...edit.lines);
      break;
    case "edit":
      if (leaf.lines.length > 0) leaf.edit(edit.at % leaf.lines.length, edit.line);
      break;
    case "extend": {
      // Streaming: a line grows at its end (or is cut back), sharing its start.
      if (leaf.lines.length === 0) break;
      const at = edit.at % leaf.lines.length;
      const plain = [...segmenter.segment(stripAnsi(leaf.lines[at]!))];
      const kept = plain.slice(0, edit.keep).map(({ segment }) => segment).join("");
      leaf.edit(at, kept + edit.suffix);
      break;
    }
    case "truncate":
      leaf.set(leaf.lines.slice(0, edit.keep));
      break;
    case "replace":
      leaf.set(edit.lines);
      break;
  }
}

/** What the screen shows for these lines, as plain text. */
function fromScratch(leaves: readonly Lines[], columns: number, rows: number): string[] {
  const lines = leaves.flatMap((leaf) => leaf.lines).map((line) =>
    stripAnsi(truncateToWidth(line, columns))
  );
  return expectedScreen(lines, rows);
}

Deno.test("renderer property: the visible screen always equals a from-scratch render", async () => {
  await fc.assert(
    fc.asyncProperty(
      treeArbitrary,
      fc.array(editArbitrary, { maxLength: 15 }),
      fc.integer({ min: 4, max: 30 }),
      fc.integer({ min: 2, max: 10 }),
      async (tree, edits, columns, rows) => {
        const terminal = new VirtualTerminal(columns, rows, { scrollback: 500 });
        const tui = new TUI(terminal);
        try {
          const leaves = build(tree, tui);
          tui.start();
          await frame(tui, terminal);
          assert.deepEqual(
            terminal.screenLines(),
            fromScratch(leaves, columns, rows),
            "first paint",
          );
          for (const [step, edit] of edits.entries()) {
            apply(edit, leaves, terminal);
            await frame(tui, terminal);
            assert.deepEqual(
              terminal.screenLines(),
              fromScratch(leaves, terminal.columns, terminal.rows),
              `after edit ${step}: ${JSON.stringify(edit)}`,
            );
          }
        } finally {
          tui.stop();
          await terminal.flush();
          terminal.dispose();
        }
      },
    ),
    { numRuns: 100 },
  );
});
