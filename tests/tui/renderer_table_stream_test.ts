/**
 * A wide table streamed into a long screen re-lays out rows that already
 * scrolled into history whenever a column widens, and its wrapped rows
 * repeat the same continuation line. The renderer must still show every
 * row: history may keep an old layout, but no row may be skipped.
 */
import assert from "node:assert/strict";
import { Markdown } from "../../tui/components/markdown.ts";
import { createTheme } from "../../tui/theme.ts";
import { TUI } from "../../tui/tui.ts";
import { VirtualTerminal } from "../support/virtual_terminal.ts";
import { Lines } from "./test_lines.ts";

const token = (i: number) => `Q${String(i).padStart(5, "0")}`;

function wideTable(rows: number): string {
  const header = "| id | service | state | memory | owner | updated | region | note |";
  const rule = "|---|---|---|---:|---|---|---|---|";
  const row = (i: number) =>
    `| ${token(i)} | service-${i} | ${i % 3 ? "running" : "stopped"} | ${
      (i * 1.5).toFixed(1)
    } MiB` +
    ` | owner-${i % 17} | 2026-11-${String(1 + (i % 28)).padStart(2, "0")} | eu-west-${i % 3}` +
    ` | restarted ${i % 5} times after the nightly deploy |`;
  return [header, rule, ...Array.from({ length: rows }, (_, i) => row(i))].join("\n");
}

Deno.test("renderer: a streamed wide table whose columns widen shows every row", async () => {
  const terminal = new VirtualTerminal(120, 40, { scrollOnClear: true });
  const tui = new TUI(terminal);
  const markdown = new Markdown("", { theme: createTheme({ noColor: true }) });
  tui.addChild(new Lines(Array.from({ length: 300 }, (_, i) => `earlier line ${i}`)));
  tui.addChild(markdown);
  tui.addChild(new Lines(["", "─".repeat(120), "> ", "─".repeat(120), "/tmp/work", "fake"]));
  tui.start();
  try {
    const rows = 300;
    const text = `${wideTable(rows)}\n\nEND`;
    for (let at = 0, delta = 0; at < text.length; at += 20, delta++) {
      markdown.append(text.slice(at, at + 20));
      if (delta % 5 === 0) tui.renderNow();
    }
    tui.renderNow();
    await terminal.flush();
    const shown = terminal.allLines().join("\n");
    const missing = Array.from({ length: rows }, (_, i) => token(i)).filter((t) =>
      !shown.includes(t)
    );
    assert.deepEqual(missing, [], "every row reached the screen or history");
    assert.match(terminal.screenLines().join("\n"), /END/);
  } finally {
    tui.stop();
    await terminal.flush();
    terminal.dispose();
  }
});
