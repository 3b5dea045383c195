/**
 * Every chat component at widths 20, 40, 80 and 200 with wide characters:
 * the width contract holds on every render, and the emulator shows each
 * line on exactly one row.
 */
import type { Component } from "@panto/tui";
import { AssistantMessage } from "../../../../cli/chat/components/assistant_message.ts";
import { CompactionSummary } from "../../../../cli/chat/components/compaction_summary.ts";
import { Footer } from "../../../../cli/chat/components/footer.ts";
import { Thinking } from "../../../../cli/chat/components/thinking.ts";
import { ToolUse } from "../../../../cli/chat/components/tool_use.ts";
import { UserMessage } from "../../../../cli/chat/components/user_message.ts";
import { Welcome } from "../../../../cli/chat/components/welcome.ts";
import { assertComponentsFit, COLOR, WIDE } from "../../../tui/components/helpers.ts";

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
    [
      "footer",
      new Footer({ cwd: WIDE, branch: "main", model: WIDE, tokensIn: 1e6, cost: 12 }, COLOR),
    ],
  ];
}

Deno.test("every chat component fits widths 20, 40, 80, 200 and paints one row per line", async (t) => {
  await assertComponentsFit(t, components());
});
