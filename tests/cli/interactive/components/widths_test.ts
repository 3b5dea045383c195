/**
 * Every component at widths 20, 40, 80 and 200 with wide characters: the
 * width contract holds on every render, and the emulator shows each line on
 * exactly one row.
 */
import type { Component } from "../../../tui/component.ts";
import { AssistantMessage } from "../../../tui/components/assistant_message.ts";
import { CompactionSummary } from "../../../tui/components/compaction_summary.ts";
import { Editor } from "../../../tui/components/editor.ts";
import { Footer } from "../../../tui/components/footer.ts";
import { Loader } from "../../../tui/components/loader.ts";
import { SelectList } from "../../../tui/components/select_list.ts";
import { Text } from "../../../tui/components/text.ts";
import { Thinking } from "../../../tui/components/thinking.ts";
import { ToolUse } from "../../../tui/components/tool_use.ts";
import { UserMessage } from "../../../tui/components/user_message.ts";
import { Welcome } from "../../../tui/components/welcome.ts";
import { assertFits, assertScreen, COLOR, WIDTHS } from "./helpers.ts";

const WIDE = "中文字符 emoji 👍🏽 👨‍👩‍👧 ｆｕｌｌｗｉｄｔｈ and a verylongwordwithoutanyspacesinside ";

function components(): [string, Component][] {
  const assistant = new AssistantMessage({ theme: COLOR });
  assistant.append(
    `## ${WIDE}\n\n${
      WIDE.repeat(3)
    }\n\n| a | ${WIDE} |\n|---|---|\n| ${WIDE} | x |\n\n\`\`\`js\nconst s = "${WIDE}";\n`,
  );
  const thinking = new Thinking({ theme: COLOR });
  thinking.append(WIDE.repeat(4));
  const tool = new ToolUse({ callId: "c", name: "bash", args: JSON.stringify({ command: WIDE }) }, {
    theme: COLOR,
    expanded: true,
  });
  tool.setResult(`${WIDE}\n`.repeat(8));
  const summary = new CompactionSummary({ summary: WIDE.repeat(5), tokensBefore: 200_000 }, COLOR);
  summary.setExpanded(true);
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
    [
      "welcome",
      new Welcome({ version: "0.1.0", cwd: `/home/${WIDE}`, model: WIDE, hint: WIDE }, COLOR),
    ],
    ["user", new UserMessage(WIDE.repeat(3), COLOR)],
    ["assistant", assistant],
    ["thinking", thinking],
    ["tool", tool],
    ["compaction", summary],
    ["loader", new Loader({ theme: COLOR, message: WIDE, now: () => 0 })],
    [
      "footer",
      new Footer({ cwd: WIDE, branch: "main", model: WIDE, tokensIn: 1e6, cost: 12 }, COLOR),
    ],
    ["select", list],
    ["editor", editor],
    ["text", new Text(WIDE.repeat(3), { prefix: "  " })],
  ];
}

Deno.test("every component fits widths 20, 40, 80, 200 and paints one row per line", async (t) => {
  for (const [name, component] of components()) {
    await t.step(name, async () => {
      for (const width of WIDTHS) {
        const lines = component.render(width);
        assertFits(lines, width, `${name} at ${width}`);
        await assertScreen(lines, width);
      }
    });
  }
});
