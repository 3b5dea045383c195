/**
 * Every generic component at widths 20, 40, 80 and 200 with wide
 * characters: the width contract holds on every render, and the emulator
 * shows each line on exactly one row. (panto's chat components are checked
 * in tests/cli/chat/components/widths_test.ts.)
 */
import type { Component } from "../../../tui/component.ts";
import { Editor } from "../../../tui/components/editor.ts";
import { Loader } from "../../../tui/components/loader.ts";
import { Markdown } from "../../../tui/components/markdown.ts";
import { SelectList } from "../../../tui/components/select_list.ts";
import { Text } from "../../../tui/components/text.ts";
import { assertComponentsFit, COLOR, WIDE } from "./helpers.ts";

function components(): [string, Component][] {
  const markdown = new Markdown(
    `## ${WIDE}\n\n${
      WIDE.repeat(3)
    }\n\n| a | ${WIDE} |\n|---|---|\n| ${WIDE} | x |\n\n\`\`\`js\nconst s = "${WIDE}";\n`,
    { theme: COLOR },
  );
  const editor = new Editor({ theme: COLOR });
  editor.focused = true;
  editor.insertText(WIDE.repeat(3));
  const list = new SelectList([{ value: 1, label: WIDE, description: WIDE }, {
    value: 2,
    label: "b",
  }], {
    theme: COLOR,
    title: WIDE,
  });
  return [
    ["markdown", markdown],
    ["loader", new Loader({ theme: COLOR, message: WIDE, now: () => 0 })],
    ["select", list],
    ["editor", editor],
    ["text", new Text(WIDE.repeat(3), { prefix: "  " })],
  ];
}

Deno.test("every generic component fits widths 20, 40, 80, 200 and paints one row per line", async (t) => {
  await assertComponentsFit(t, components());
});
