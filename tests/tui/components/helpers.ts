/**
 * Shared checks for component tests: the width contract on every render,
 * plain-text views of styled lines, and painting lines on the emulator.
 *
 * @module
 */
import assert from "node:assert/strict";
import stripAnsi from "strip-ansi";
import { type Component, CURSOR_MARKER } from "../../../tui/component.ts";
import { visibleWidth } from "../../../tui/text_width.ts";
import { createTheme } from "../../../tui/theme.ts";
import type { Theme } from "../../../tui/theme.ts";
import { VirtualTerminal } from "../../support/virtual_terminal.ts";

/** The widths every component is rendered at. */
export const WIDTHS: readonly number[] = [20, 40, 80, 200];

/** Wide characters, emoji sequences and an unbreakable word, to stress the width contract. */
export const WIDE =
  "中文字符 emoji 👍🏽 👨‍👩‍👧 ｆｕｌｌｗｉｄｔｈ and a verylongwordwithoutanyspacesinside ";

/** A colour theme independent of the environment. */
export const COLOR: Theme = createTheme({ noColor: false });
/** A theme without SGR, for readable expectations. */
export const PLAIN: Theme = createTheme({ noColor: true });

/** Styled line → what a terminal shows (cursor marker and escapes removed). */
export function plain(line: string): string {
  return stripAnsi(line.replaceAll(CURSOR_MARKER, ""));
}

/** Asserts the width contract: every line is at most `width` columns. */
export function assertFits(lines: readonly string[], width: number, label = ""): void {
  lines.forEach((line, i) => {
    const columns = visibleWidth(line);
    assert.ok(
      columns <= width,
      `${label} line ${i} is ${columns} columns, wider than ${width}: ${JSON.stringify(line)}`,
    );
  });
}

/**
 * Paints `lines` on a `width`-column emulator and asserts that each line
 * lands on exactly one screen row with the expected text (an over-wide
 * line would wrap and shift every row after it). Returns the screen.
 */
export async function assertScreen(lines: readonly string[], width: number): Promise<string[]> {
  const terminal = new VirtualTerminal(width, lines.length + 1, { scrollback: 0 });
  try {
    const output = lines.map((line) => line.replaceAll(CURSOR_MARKER, "")).join("\r\n");
    terminal.write(output);
    await terminal.flush();
    const screen = terminal.screenLines().slice(0, lines.length);
    assert.deepEqual(screen, lines.map((line) => plain(line).trimEnd()));
    return screen;
  } finally {
    terminal.dispose();
  }
}

/**
 * Renders each named component at every width of {@linkcode WIDTHS} (one
 * test step per component): every line fits and paints on one row.
 */
export async function assertComponentsFit(
  t: Deno.TestContext,
  components: readonly (readonly [string, Component])[],
): Promise<void> {
  for (const [name, component] of components) {
    await t.step(name, async () => {
      for (const width of WIDTHS) {
        const lines = component.render(width);
        assertFits(lines, width, `${name} at ${width}`);
        await assertScreen(lines, width);
      }
    });
  }
}
