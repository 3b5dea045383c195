/**
 * The screen after the content shrinks, after a transient component (a
 * picker in the editor's place, a completion list) grows and shrinks, and
 * after width changes: the last line stays on the bottom row, history gets
 * every line once (none twice, none lost), and closing a transient
 * component restores the screen exactly.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Component } from "../../tui/component.ts";
import { TUI } from "../../tui/tui.ts";
import { VirtualTerminal } from "../support/virtual_terminal.ts";
import { frame, Lines } from "./test_lines.ts";

function numbered(count: number, prefix = "line"): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix} ${i}`);
}

/** A started engine on a tmux-like emulator (scroll-on-clear), stopped by `await using`. */
function screen(columns: number, rows: number) {
  const terminal = new VirtualTerminal(columns, rows, { scrollOnClear: true });
  const tui = new TUI(terminal);
  tui.start();
  return {
    terminal,
    tui,
    frame: () => frame(tui, terminal),
    async [Symbol.asyncDispose]() {
      tui.stop();
      await terminal.flush();
      terminal.dispose();
    },
  };
}

/** The lines of `expected` that history and screen hold other than once. */
function notOnce(all: readonly string[], expected: readonly string[]) {
  const count = (line: string) => all.filter((row) => row === line).length;
  return {
    duplicated: expected.filter((line) => count(line) > 1),
    missing: expected.filter((line) => count(line) === 0),
  };
}

/** A chat: transcript, editor and footer, the editor swappable for a picker. */
function chat(tui: TUI, transcriptLines: readonly string[]) {
  const transcript = new Lines(transcriptLines);
  const editor = new Lines(["> "]);
  const footer = new Lines(["footer"]);
  for (const child of [transcript, editor, footer]) tui.addChild(child);
  return {
    transcript,
    editor,
    footer,
    /** Puts `panel` where the editor is (a picker); returns the function closing it. */
    open(panel: Component): () => void {
      tui.insertChild(1, panel);
      tui.removeChild(editor);
      return () => {
        tui.insertChild(1, editor);
        tui.removeChild(panel);
      };
    },
  };
}

Deno.test("transient: deleting lines of a full screen keeps the footer on the bottom row; blank rows go on top and never into history", async () => {
  await using t = screen(20, 6);
  const { transcript } = chat(t.tui, numbered(12));
  await t.frame();
  const history = t.terminal.scrollbackLines();
  // A tool call collapsed: three lines on screen went away.
  transcript.set(numbered(9));
  await t.frame();
  assert.deepEqual(t.terminal.screenLines(), ["", "", "", "line 8", ">", "footer"]);
  assert.deepEqual(t.terminal.scrollbackLines(), history, "nothing pulled back from history");
  // Appending after the shrink fills the blank rows first; they are deleted, not scrolled.
  transcript.append("line 12", "line 13", "line 14", "line 15");
  await t.frame();
  assert.deepEqual(t.terminal.screenLines(), [
    "line 12",
    "line 13",
    "line 14",
    "line 15",
    ">",
    "footer",
  ]);
  const all = t.terminal.allLines();
  assert.ok(!t.terminal.scrollbackLines().includes(""), `no blank line in history: ${all}`);
  assert.deepEqual(notOnce(all, [...numbered(9), "line 12", "line 15"]), {
    duplicated: [],
    missing: [],
  });
});

Deno.test("transient: a picker taller than the editor covers the transcript's last rows; closing it restores the screen exactly", async () => {
  await using t = screen(30, 10);
  const c = chat(t.tui, numbered(30));
  await t.frame();
  const before = t.terminal.screenLines();
  const history = t.terminal.scrollbackLines();
  const close = c.open(new Lines(["╭─ Sessions", "│ one", "│ two", "│ three", "│ four", "╰─"]));
  await t.frame();
  assert.deepEqual(t.terminal.screenLines(), [
    ...before.slice(0, 3),
    "╭─ Sessions",
    "│ one",
    "│ two",
    "│ three",
    "│ four",
    "╰─",
    "footer",
  ]);
  assert.deepEqual(t.terminal.scrollbackLines(), history, "no transcript line pushed into history");
  close();
  await t.frame();
  assert.deepEqual(t.terminal.screenLines(), before);
  assert.deepEqual(t.terminal.scrollbackLines(), history);
});

Deno.test("transient: the transcript streams under an open picker; after it closes each line is in history or on screen once", async () => {
  await using t = screen(30, 10);
  const c = chat(t.tui, numbered(30));
  await t.frame();
  const close = c.open(new Lines(["╭─ Model", "│ fast", "│ smart", "╰─"]));
  await t.frame();
  for (let i = 30; i < 45; i++) {
    c.transcript.append(`line ${i}`);
    await t.frame();
  }
  // The stream scrolled the covered lines back first: the newest line is right above the picker.
  assert.deepEqual(t.terminal.screenLines().slice(-6), [
    "line 44",
    "╭─ Model",
    "│ fast",
    "│ smart",
    "╰─",
    "footer",
  ]);
  close();
  await t.frame();
  assert.deepEqual(t.terminal.screenLines().slice(-3), ["line 44", ">", "footer"]);
  assert.deepEqual(notOnce(t.terminal.allLines(), numbered(45)), { duplicated: [], missing: [] });
  assert.ok(!t.terminal.allLines().some((line) => line.startsWith("╭─")), "the picker is gone");
});

Deno.test("transient: a completion list below the editor grows and shrinks over the transcript", async () => {
  await using t = screen(30, 8);
  const c = chat(t.tui, numbered(20));
  await t.frame();
  const before = t.terminal.screenLines();
  const history = t.terminal.scrollbackLines();
  c.editor.set(["> /s", "  /sessions", "  /settings", "  /skills"]);
  await t.frame();
  assert.deepEqual(t.terminal.screenLines().slice(-5), [
    "> /s",
    "  /sessions",
    "  /settings",
    "  /skills",
    "footer",
  ]);
  c.editor.set(["> /se", "  /sessions", "  /settings"]);
  await t.frame();
  c.editor.set(["> /sessions"]);
  await t.frame();
  assert.deepEqual(t.terminal.screenLines(), [...before.slice(0, -2), "> /sessions", "footer"]);
  assert.deepEqual(t.terminal.scrollbackLines(), history);
});

/** Paragraphs of numbered words, wrapped at the width, a blank line between them (like markdown). */
function paragraphs(count: number): Component {
  const texts = Array.from({ length: count }, (_, p) => {
    const words = Array.from({ length: 3 + (p * 5) % 11 }, (_, k) => `w${p}x${k}`);
    return [`P${p}:`, ...words];
  });
  return {
    render(width: number) {
      const lines: string[] = [];
      for (const words of texts) {
        if (lines.length > 0) lines.push("");
        let line = "";
        for (const word of words) {
          if (line !== "" && line.length + 1 + word.length > width) {
            lines.push(line);
            line = word;
          } else line = line === "" ? word : `${line} ${word}`;
        }
        lines.push(line);
      }
      return lines;
    },
    firstLineChanged: () => null,
    invalidate() {},
  };
}

/** The words of the paragraphs that history and screen (rows the emulator split joined) hold other than once. */
function wordCounts(terminal: VirtualTerminal, count: number) {
  const words = new Map<string, number>();
  for (const word of terminal.joinedLines().join(" ").split(/\s+/)) {
    if (/^(P\d+:|w\d+x\d+)$/.test(word)) words.set(word, (words.get(word) ?? 0) + 1);
  }
  const expected = Array.from({ length: count }, (_, p) => [
    `P${p}:`,
    ...Array.from({ length: 3 + (p * 5) % 11 }, (_, k) => `w${p}x${k}`),
  ]).flat();
  return {
    duplicated: expected.filter((word) => (words.get(word) ?? 0) > 1),
    missing: expected.filter((word) => !words.has(word)),
  };
}

async function resizeAnswered(t: ReturnType<typeof screen>, columns: number, rows: number) {
  t.terminal.resize(columns, rows);
  await t.terminal.flush();
  await new Promise((resolve) => setTimeout(resolve, 0));
  await t.frame();
}

Deno.test("transient: width changes keep every word once, the footer on the bottom row", async () => {
  await using t = screen(60, 12);
  t.tui.addChild(paragraphs(40));
  t.tui.addChild(new Lines(["> ", "footer"]));
  await t.frame();
  for (const [columns, rows] of [[40, 12], [30, 10], [60, 12], [45, 14], [80, 12]] as const) {
    await resizeAnswered(t, columns, rows);
    assert.deepEqual(
      wordCounts(t.terminal, 40),
      { duplicated: [], missing: [] },
      `${columns}x${rows}`,
    );
    assert.deepEqual(t.terminal.screenLines().slice(-2), [">", "footer"], `${columns}x${rows}`);
  }
});

Deno.test("transient property: a transcript and a bottom growing and shrinking in any order keep every transcript line once", async () => {
  const step = fc.oneof(
    fc.record({ kind: fc.constant("append" as const), count: fc.integer({ min: 1, max: 4 }) }),
    fc.record({ kind: fc.constant("bottom" as const), size: fc.integer({ min: 1, max: 9 }) }),
  );
  await fc.assert(
    fc.asyncProperty(
      fc.array(step, { maxLength: 25 }),
      fc.integer({ min: 3, max: 10 }),
      fc.integer({ min: 0, max: 12 }),
      async (steps, rows, initial) => {
        await using t = screen(20, rows);
        const lines = numbered(initial, "t");
        const transcript = new Lines(lines);
        const bottom = new Lines(["> "]);
        t.tui.addChild(transcript);
        t.tui.addChild(bottom);
        await t.frame();
        for (const s of steps) {
          if (s.kind === "append") {
            const added = Array.from({ length: s.count }, (_, i) => `t ${lines.length + i}`);
            lines.push(...added);
            transcript.append(...added);
          } else {
            // The bottom fits on the screen with a transcript row to spare (a picker's list is
            // capped by the screen's height): lines added above a taller one land in history.
            const size = Math.min(s.size, rows - 2);
            bottom.set(Array.from({ length: size }, (_, i) => `> ${i}`));
          }
          await t.frame();
        }
        bottom.set(["> "]);
        await t.frame();
        assert.deepEqual(notOnce(t.terminal.allLines(), lines), { duplicated: [], missing: [] });
        // Once lines are in history the bottom stays on the last row; before, it follows them.
        const shown = t.terminal.screenLines();
        const scrolled = t.terminal.scrollbackLines().length > 0;
        assert.equal(scrolled ? shown.at(-1) : shown.findLast((line) => line !== ""), ">");
      },
    ),
    { numRuns: 150 },
  );
});
