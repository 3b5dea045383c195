/**
 * Properties: whatever the component tree and the sequence of edits, after
 * every frame the emulator's screen shows a contiguous slice of the content
 * that ends with its last line; and history never receives a second copy
 * of a line.
 */
import stripAnsi from "strip-ansi";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Component } from "../../tui/component.ts";
import { Container } from "../../tui/container.ts";
import { truncateToWidth } from "../../tui/text_width.ts";
import { TUI, type TuiOptions } from "../../tui/tui.ts";
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
  | { kind: "resize"; columns: number; rows: number; answered: boolean };

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
      answered: fc.boolean(),
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

/**
 * Resizes; with `answered`, waits for the engine's cursor-position question
 * to be answered before the frame (else the frame goes on without it).
 */
async function resize(
  terminal: VirtualTerminal,
  edit: { columns: number; rows: number; answered: boolean },
) {
  // A real terminal takes output and resizes in order; xterm.js parses writes later. A
  // frame may be drawn while we wait (a cursor answer's), so wait until nothing new was
  // written, and resize in the same step as that check.
  for (let written = -1; written !== terminal.writes.length;) {
    written = terminal.writes.length;
    await terminal.flush();
  }
  terminal.resize(edit.columns, edit.rows);
  if (!edit.answered) return;
  await new Promise((resolve) => setTimeout(resolve, 0));
  await terminal.flush(); // the frame drawn once the answer came
}

async function apply(edit: Edit, leaves: Lines[], terminal: VirtualTerminal): Promise<void> {
  if (edit.kind === "resize") return await resize(terminal, edit);
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

/** The content as the screen shows it: plain text, cut to the width. */
function plainLines(leaves: readonly Lines[], columns: number): string[] {
  return leaves.flatMap((leaf) => leaf.lines).map((line) =>
    stripAnsi(truncateToWidth(line, columns)).trimEnd()
  );
}

/**
 * Whether `screen` shows content lines from some line on, ending with the
 * last one and blank rows below it, where the last lines of the first
 * child (the transcript, lines before `transcriptEnd`) may be left out
 * (covered by the children below it when they grew). The slice starts on
 * the top row or below blank rows (put there so a shrunk screen stays on
 * the bottom rows), or, once the terminal was resized (it may pull old rows
 * back from history or keep rows the engine no longer knows), on any row.
 */
function showsTail(
  screen: readonly string[],
  content: readonly string[],
  anyRow: boolean,
  transcriptEnd: number,
): boolean {
  for (let covered = 0; covered <= transcriptEnd; covered++) {
    const shown = [...content.slice(0, transcriptEnd - covered), ...content.slice(transcriptEnd)];
    if (showsSliceTail(screen, shown, anyRow)) return true;
  }
  return false;
}

/** {@linkcode showsTail} with nothing left out. */
function showsSliceTail(
  screen: readonly string[],
  content: readonly string[],
  anyRow: boolean,
): boolean {
  const leadingBlank = screen.findIndex((line) => line !== "");
  const firstRows = screen.map((_, row) => row).filter((row) =>
    anyRow || leadingBlank === -1 || row <= leadingBlank
  );
  for (const row of firstRows) {
    for (let start = 0; start <= content.length; start++) {
      const shown = content.slice(start, start + screen.length - row);
      if (start + shown.length < content.length) continue;
      const expected = [...shown];
      while (expected.length < screen.length - row) expected.push("");
      if (expected.every((line, i) => line === screen[row + i])) return true;
    }
  }
  return false;
}

Deno.test("renderer property: the screen shows the content's tail, whatever the edits", async () => {
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
            expectedScreen(plainLines(leaves, columns), rows),
            "first paint",
          );
          let resized = false;
          for (const [step, edit] of edits.entries()) {
            await apply(edit, leaves, terminal);
            resized ||= edit.kind === "resize";
            await frame(tui, terminal);
            const content = plainLines(leaves, terminal.columns);
            // With more than one child at the root, the first is the transcript.
            const transcriptEnd = tree.length === 1
              ? 0
              : plainLines(leaves.slice(0, tree[0]!.length), terminal.columns).length;
            assert.ok(
              showsTail(terminal.screenLines(), content, resized, transcriptEnd),
              `after edit ${step}: ${JSON.stringify(edit)}\nscreen: ${
                JSON.stringify(terminal.screenLines())
              }\ncontent: ${JSON.stringify(content)}`,
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

let nextTag = 0;
/** A line no other line equals, short enough never to be cut or split. */
const uniqueLine = fc.constant(null).map(() => `#${nextTag++}`);

type HistoryEdit =
  | { kind: "append"; leaf: number; count: number }
  | { kind: "replace"; leaf: number; at: number; count: number; remove: number }
  | { kind: "resize"; columns: number; rows: number; answered: boolean }
  | { kind: "force" };

const historyEditArbitrary: fc.Arbitrary<HistoryEdit> = fc.oneof(
  fc.record({
    kind: fc.constant("append" as const),
    leaf: fc.nat(),
    count: fc.integer({ min: 1, max: 8 }),
  }),
  fc.record({
    kind: fc.constant("replace" as const),
    leaf: fc.nat(),
    at: fc.nat(),
    count: fc.nat({ max: 12 }),
    remove: fc.nat({ max: 12 }),
  }),
  fc.record({
    kind: fc.constant("resize" as const),
    columns: fc.integer({ min: 8, max: 30 }),
    rows: fc.integer({ min: 2, max: 10 }),
    answered: fc.boolean(),
  }),
  fc.record({ kind: fc.constant("force" as const) }),
);

async function applyHistoryEdit(
  edit: HistoryEdit,
  leaves: Lines[],
  terminal: VirtualTerminal,
  tui: TUI,
) {
  if (edit.kind === "resize") return await resize(terminal, edit);
  if (edit.kind === "force") return tui.requestRender(true);
  const leaf = leaves[edit.leaf % leaves.length]!;
  const fresh = () => fc.sample(uniqueLine, 1)[0]!;
  if (edit.kind === "append") {
    leaf.append(...Array.from({ length: edit.count }, fresh));
    return;
  }
  // An expanded or collapsed block (ctrl+o), a loader that went away, a picker closed.
  const lines = [...leaf.lines];
  const at = lines.length === 0 ? 0 : edit.at % lines.length;
  lines.splice(at, edit.remove, ...Array.from({ length: edit.count }, fresh));
  leaf.set(lines);
}

/** The history property; `options` are the engine's (frame pacing). */
function historyProperty(options: TuiOptions) {
  return fc.asyncProperty(
    fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 3 }),
    // Several edits may land in one frame (an edit far up and a collapse below it).
    fc.array(fc.array(historyEditArbitrary, { minLength: 1, maxLength: 3 }), { maxLength: 15 }),
    fc.integer({ min: 8, max: 30 }),
    fc.integer({ min: 2, max: 10 }),
    async (sizes, edits, columns, rows) => {
      const terminal = new VirtualTerminal(columns, rows, { scrollOnClear: true });
      const tui = new TUI(terminal, options);
      try {
        const leaves = sizes.map((size) =>
          new Lines(Array.from({ length: size }, () => fc.sample(uniqueLine, 1)[0]!))
        );
        for (const leaf of leaves) tui.addChild(leaf);
        tui.start();
        await frame(tui, terminal);
        for (const [step, batch] of edits.entries()) {
          for (const edit of batch) await applyHistoryEdit(edit, leaves, terminal, tui);
          await frame(tui, terminal);
          const seen = new Set<string>();
          for (const line of terminal.allLines().filter((line) => line !== "")) {
            assert.ok(
              !seen.has(line),
              `after frame ${step} (${JSON.stringify(batch)}): ${line} twice`,
            );
            seen.add(line);
          }
        }
      } finally {
        tui.stop();
        await terminal.flush();
        terminal.dispose();
      }
    },
  );
}

Deno.test("renderer property: history never gets a second copy of a line (tmux scroll-on-clear)", async () => {
  await fc.assert(historyProperty({}), { numRuns: 150 });
});

Deno.test("renderer property: history, a cursor answer's frame drawn while the next resize waits", async () => {
  // This case failed about once in 1,500 runs, replayed here with frames drawn as soon as
  // asked: the first resize's cursor answer came while the harness waited to make the
  // second, and the frame drawn on it reached the emulator after that resize (a terminal
  // takes output and resizes in order); its line feeds put a second copy of a line in history.
  await fc.assert(historyProperty({ minFrameIntervalMs: 0 }), {
    seed: 1362861089,
    path:
      "9:0:0:3:1:3:5:3:6:5:6:6:8:2:12:9:13:7:14:11:3:6:6:6:6:6:13:13:15:15:1:7:8:10:10:10:10:10:7:7",
  });
});
