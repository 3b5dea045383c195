/**
 * A resize while an answer streams, when the engine learns of it late (a
 * busy process handles its SIGWINCH after drawing): a frame drawn for the
 * old size must not reach the resized terminal, where its moves and line
 * feeds land on other rows than the engine counts. Every word of the
 * answer must be in history or on screen exactly once. And resizes in
 * quick succession (tmux tells of the later ones up to 250 ms late) are
 * repainted once, when the size settles.
 */
import assert from "node:assert/strict";
import type { Component } from "../../tui/component.ts";
import { Text } from "../../tui/components/text.ts";
import { TUI } from "../../tui/tui.ts";
import { PARAGRAPHS, wordCounts } from "../support/numbered_paragraphs.ts";
import { VirtualTerminal } from "../support/virtual_terminal.ts";

const ANSWER = PARAGRAPHS.join("\n\n");
/** The answer arrives in chunks this long, a frame after each. */
const CHUNK = 64;
/**
 * The chunk after which the terminal goes from 120×30 to 40×24: a resize
 * the engine repaints exactly in xterm.js once told of it in time (xterm.js
 * reflows some other widths differently from tmux, which the engine follows).
 */
const RESIZE_AT = 65;

/** The chat's bottom: the editor's rules and a footer, as wide as the screen. */
const BOTTOM: Component = {
  render: (width) => ["─".repeat(width), "> ", "─".repeat(width), "footer"],
  firstLineChanged: () => null,
  invalidate: () => {},
};

/** `text`, calling `onRender` each time it is rendered. */
function watched(text: Text, onRender: () => void): Component {
  return {
    render: (width) => {
      onRender();
      return text.render(width);
    },
    firstLineChanged: () => text.firstLineChanged(),
    invalidate: () => text.invalidate(),
  };
}

/** Waits until the engine wrote nothing more (a cursor answer's frame included). */
async function settle(terminal: VirtualTerminal): Promise<void> {
  for (let written = -1; written !== terminal.writes.length;) {
    written = terminal.writes.length;
    await terminal.flush();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

/**
 * Streams the answer into a 120×30 terminal, a frame after each chunk;
 * `resizeAt(terminal)` resizes it (its signal comes late) at chunk
 * {@linkcode RESIZE_AT}: before the frame (`"before"`) or while the
 * transcript is rendered for it (`"during"`). Returns the history and screen, split
 * rows joined.
 */
async function stream(when: "before" | "during"): Promise<string[]> {
  const terminal = new VirtualTerminal(120, 30);
  const tui = new TUI(terminal, { minFrameIntervalMs: 0 });
  const transcript = new Text("");
  let resizeNow = false;
  tui.addChild(watched(transcript, () => {
    if (resizeNow) terminal.resizeUnsignalled(40, 24);
    resizeNow = false;
  }));
  tui.addChild(BOTTOM);
  tui.start();
  try {
    for (let chunk = 0; chunk * CHUNK < ANSWER.length; chunk++) {
      transcript.append(ANSWER.slice(chunk * CHUNK, (chunk + 1) * CHUNK));
      if (chunk === RESIZE_AT && when === "before") terminal.resizeUnsignalled(40, 24);
      resizeNow = chunk === RESIZE_AT && when === "during";
      tui.renderNow();
      await settle(terminal);
      // The resize signal arrives at last.
      terminal.refreshSize();
      await settle(terminal);
    }
    return terminal.joinedLines();
  } finally {
    tui.stop();
    await terminal.flush();
    terminal.dispose();
  }
}

function assertEveryWordOnce(lines: readonly string[]): void {
  assert.deepEqual(
    wordCounts(lines),
    { duplicated: [], missing: [] },
    lines.map((line, i) => `${i}: ${line}`).join("\n"),
  );
}

Deno.test("renderer: a terminal resized before a frame, its signal late, gets no frame for the old size", async () => {
  assertEveryWordOnce(await stream("before"));
});

Deno.test("renderer: a terminal resized while a frame is rendered gets no frame for the old size", async () => {
  assertEveryWordOnce(await stream("during"));
});

Deno.test("renderer: resizes in quick succession are repainted once the size settles, at the last size", async () => {
  const terminal = new VirtualTerminal(60, 12);
  // Long enough that the second resize surely comes within it, however busy the machine.
  const tui = new TUI(terminal, { minFrameIntervalMs: 0, resizeSettleMs: 1_000 });
  tui.addChild(new Text(ANSWER.slice(0, 2_000)));
  tui.addChild(BOTTOM);
  tui.start();
  try {
    tui.requestRender();
    await settle(terminal);
    const repaints = tui.stats.screenRepaints;
    terminal.resize(40, 12);
    // Without the settle time the first size's repaint would be drawn now.
    await settle(terminal);
    terminal.resize(80, 10);
    const deadline = Date.now() + 10_000;
    while (tui.stats.screenRepaints === repaints && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await settle(terminal);
    assert.equal(tui.stats.screenRepaints, repaints + 1, "one repaint, for the last size");
    assert.deepEqual(terminal.screenLines().slice(-4), [
      "─".repeat(80),
      ">",
      "─".repeat(80),
      "footer",
    ]);
  } finally {
    tui.stop();
    await terminal.flush();
    terminal.dispose();
  }
});
