/**
 * Screen tests of each built-in tool's view at 40, 80 and 200 columns: the
 * results come from the real tools, the lines are painted on the emulator.
 */
import assert from "node:assert/strict";
import type { Tool } from "@panto/lib";
import { ToolUse } from "../../../../cli/chat/components/tool_use.ts";
import { parseEditDiff } from "../../../../cli/chat/components/tools/edit_view.ts";
import { bashTool } from "../../../../lib/tools/bash.ts";
import { editTool } from "../../../../lib/tools/edit.ts";
import { findTool } from "../../../../lib/tools/find.ts";
import { grepTool } from "../../../../lib/tools/grep.ts";
import { lsTool } from "../../../../lib/tools/ls.ts";
import { readTool } from "../../../../lib/tools/read.ts";
import { writeTool } from "../../../../lib/tools/write.ts";
import { VirtualTerminal } from "../../../support/virtual_terminal.ts";
import { assertFits, assertScreen, COLOR, plain } from "../../../tui/components/helpers.ts";
import { call, withProject } from "../../../lib/tools/tool_fixture.ts";

const WIDTHS = [40, 80, 200] as const;

/** A call as the chat shows it: arguments, running, then the real tool's result. */
async function finished(
  tool: Tool,
  args: Record<string, unknown>,
  options: { expanded?: boolean; now?: () => number } = {},
): Promise<ToolUse> {
  const view = new ToolUse({ callId: "c", name: tool.decl.name, args: JSON.stringify(args) }, {
    theme: COLOR,
    ...options,
  });
  view.setStatus("running");
  const result = await call(tool, args);
  view.setResult(result.text, result.isError);
  return view;
}

/** The screen rows of `view` at each width (each line fits and paints on one row). */
async function screens(view: ToolUse): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  for (const width of WIDTHS) {
    const lines = view.render(width);
    assertFits(lines, width, `width ${width}`);
    out.set(width, await assertScreen(lines, width));
  }
  return out;
}

/** The foreground colour of the first cell of `row` whose text is `char`. */
async function colourOf(lines: readonly string[], width: number, row: number, char: string) {
  const terminal = new VirtualTerminal(width, lines.length + 1, { scrollback: 0 });
  try {
    terminal.write(lines.join("\r\n"));
    await terminal.flush();
    const x = terminal.screenLines()[row]!.indexOf(char);
    assert.ok(x >= 0, `${char} on row ${row}`);
    return terminal.cell(x, row).fg;
  } finally {
    terminal.dispose();
  }
}

Deno.test("bash view: the last lines stream live with the elapsed time, then exit code and duration", async () => {
  await withProject({}, async (root) => {
    let now = 0;
    const command = "for i in $(seq 1 12); do echo line $i; done; echo failed >&2; exit 2";
    const view = new ToolUse({ callId: "c", name: "bash", args: JSON.stringify({ command }) }, {
      theme: COLOR,
      now: () => now,
    });
    view.setStatus("running");
    now = 2_300;
    view.setProgress(Array.from({ length: 9 }, (_, i) => `line ${i + 1}\n`).join(""));
    for (const [width, rows] of await screens(view)) {
      assert.ok(rows[0]!.startsWith("◐ bash $ for i in"), rows[0]);
      assert.equal(rows[1], "  … 4 earlier lines (ctrl+o to expand)");
      assert.deepEqual(
        rows.slice(2, 7),
        ["line 5", "line 6", "line 7", "line 8", "line 9"].map((l) => `  ${l}`),
      );
      assert.equal(rows[7], "  2.3s", `width ${width}`);
    }
    const result = await call(bashTool({ root }), { command });
    now = 3_000;
    view.setResult(result.text, result.isError);
    for (const rows of (await screens(view)).values()) {
      assert.ok(rows[0]!.startsWith("✗ bash $ for i in"), rows[0]);
      assert.deepEqual(rows.slice(-5, -1), ["  line 10", "  line 11", "  line 12", "  failed"]);
      assert.equal(rows[1], "  … 8 earlier lines (ctrl+o to expand)", "errors are at the end");
    }
    const lines = view.render(80);
    assert.equal(await assertScreen(lines, 80).then((rows) => rows.at(-1)), "  exit 2 · 3.0s");
    assert.equal(await colourOf([...lines, ""], 80, lines.length - 1, "e"), 167, "red exit code");
    view.setExpanded(true);
    const expanded = await screens(view);
    assert.equal(expanded.get(200)!.length, 1 + 13 + 1, "header, every output line, the ending");
  });
});

Deno.test("bash view: output streamed before an abort stays, with why the call ended", async () => {
  const view = new ToolUse({ callId: "c", name: "bash", args: '{"command":"make"}' }, {
    theme: COLOR,
  });
  view.setProgress("compiling a\ncompiling b\n");
  view.setResult("bash was aborted: The signal has been aborted", true);
  for (const rows of (await screens(view)).values()) {
    assert.deepEqual(rows.slice(1, 3), ["  compiling a", "  compiling b"]);
    assert.ok(rows[3]!.startsWith("  bash was aborted"), rows[3]);
  }
  const ok = new ToolUse({ callId: "d", name: "bash", args: '{"command":"true"}' }, {
    theme: COLOR,
  });
  ok.setResult("(no output)");
  assert.deepEqual((await screens(ok)).get(40), ["✓ bash $ true", "  (no output)", "  exit 0"]);
});

Deno.test("edit view: a coloured diff with line numbers, without expanding and without the arguments", async () => {
  const file = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  await withProject({ "a.txt": file }, async (root) => {
    const view = await finished(editTool({ root }), {
      path: "a.txt",
      oldText: "line 20\n",
      newText: "line twenty\nline twenty-one\n",
    });
    for (const [width, rows] of await screens(view)) {
      assert.equal(rows[0], "✓ edit a.txt +2 -1", `width ${width}`);
      assert.deepEqual(rows.slice(1), [
        "  18   line 18",
        "  19   line 19",
        "  20 - line 20",
        "  20 + line twenty",
        "  21 + line twenty-one",
        "  21   line 21",
        "  22   line 22",
      ]);
    }
    const lines = view.render(80);
    assert.equal(await colourOf(lines, 80, 3, "-"), 204, "removed lines are red");
    assert.equal(await colourOf(lines, 80, 4, "+"), 114, "added lines are green");
    view.setExpanded(true);
    const expanded = view.render(80).map(plain);
    assert.ok(!expanded.some((line) => line.includes("oldText")), "no arguments under the header");
  });
});

Deno.test("edit view: a long diff is cut, never before its first added line", async () => {
  const file = Array.from({ length: 60 }, (_, i) => `old ${i + 1}`).join("\n") + "\n";
  await withProject({ "big.txt": file }, async (root) => {
    const oldText = Array.from({ length: 30 }, (_, i) => `old ${i + 11}`).join("\n");
    const newText = Array.from({ length: 30 }, (_, i) => `new ${i + 11}`).join("\n");
    const view = await finished(editTool({ root }), { path: "big.txt", oldText, newText });
    for (const rows of (await screens(view)).values()) {
      assert.deepEqual(rows.slice(0, 4), [
        "✓ edit big.txt +30 -30",
        "   9   old 9",
        "  10   old 10",
        "  11 - old 11",
      ]);
      assert.ok(rows.includes("     ⋮ 24 lines"), rows.join("\n"));
      assert.ok(rows.includes("  11 + new 11"), "the first added line is shown");
      assert.equal(rows.at(-1), "  … 24 more lines (ctrl+o to expand)");
      assert.equal(rows.length, 1 + 8 + 1 + 8 + 1);
    }
    view.setExpanded(true);
    assert.ok(view.render(200).length > 60, "expanded shows the whole diff");
  });
  assert.deepEqual(parseEditDiff("Edited a: replaced 1 occurrence.\n\n@@ -3,1 +3,1 @@\n-a\n+b"), [
    { kind: "-", line: 3, text: "a" },
    { kind: "+", line: 3, text: "b" },
  ]);
});

Deno.test("write view: line count in the header and the first lines of the content", async () => {
  await withProject({}, async (root) => {
    const content = Array.from({ length: 12 }, (_, i) => `row ${i + 1}`).join("\n") + "\n";
    const view = await finished(writeTool({ root }), { path: "out/new.txt", content });
    for (const rows of (await screens(view)).values()) {
      assert.deepEqual(rows, [
        "✓ write out/new.txt (12 lines)",
        "  row 1",
        "  row 2",
        "  row 3",
        "  row 4",
        "  row 5",
        "  … 7 more lines (ctrl+o to expand)",
      ]);
    }
  });
});

Deno.test("read view: path and range, then how many lines came back", async () => {
  const file = Array.from({ length: 40 }, (_, i) => `text ${i + 1}`).join("\n");
  await withProject({ "src/a.ts": file }, async (root) => {
    const view = await finished(readTool({ root }), { path: "src/a.ts", offset: 3, limit: 5 });
    for (const rows of (await screens(view)).values()) {
      assert.deepEqual(rows, ["✓ read src/a.ts:3-7", "  5 lines (3-7)"]);
    }
    view.setExpanded(true);
    assert.equal(view.render(80).length, 1 + 5 + 2, "the lines and the note on the rest");
  });
});

Deno.test("ls, find and grep views: a count and the first results", async () => {
  const files: Record<string, string> = { "notes.md": "todo: x\n" };
  for (let i = 1; i <= 8; i++) files[`src/m${i}.ts`] = `export const m${i} = ${i}; // todo\n`;
  await withProject(files, async (root) => {
    const ls = await finished(lsTool({ root }), { path: "src" });
    for (const rows of (await screens(ls)).values()) {
      assert.deepEqual(rows.slice(0, 3), ["✓ ls src", "  8 entries", "  m1.ts"]);
      assert.equal(rows.at(-1), "  … 3 more lines (ctrl+o to expand)");
    }
    const find = await finished(findTool({ root }), { pattern: "**/*.ts" });
    for (const rows of (await screens(find)).values()) {
      assert.deepEqual(rows.slice(0, 2), ["✓ find **/*.ts in .", "  8 paths"]);
      assert.equal(rows.length, 2 + 5 + 1);
    }
    const grep = await finished(grepTool({ root }), { pattern: "todo" });
    for (const [width, rows] of await screens(grep)) {
      assert.deepEqual(rows.slice(0, 2), ["✓ grep /todo/ in .", "  9 matches in 9 files"]);
      if (width === 200) assert.ok(rows[2]!.includes(":1:"), rows[2]);
    }
    const none = await finished(grepTool({ root }), { pattern: "absent" });
    assert.deepEqual(none.render(80).length, 2, "header and the no-match sentence");
  });
});

Deno.test("bash view: a user's !command and a timed-out command end in words, not a code", async () => {
  await withProject({}, async (root) => {
    const shell = new ToolUse({ callId: "s", name: "!", args: '{"command":"echo hi"}' }, {
      theme: COLOR,
    });
    shell.setResult("hi");
    assert.deepEqual((await screens(shell)).get(80), ["✓ ! $ echo hi", "  hi", "  exit 0"]);
    const args = { command: "echo waiting; sleep 5", timeout: 0.3 };
    const slow = await finished(bashTool({ root }), args, { now: () => 0 });
    for (const rows of (await screens(slow)).values()) {
      assert.deepEqual(rows.slice(1), ["  waiting", "  timed out · 0.0s"]);
    }
  });
});

Deno.test("edit view: the change asked for shows while the arguments stream, before the result", async () => {
  const view = new ToolUse({ callId: "e", name: "edit" }, { theme: COLOR });
  view.appendArgs('{"path":"a.ts","oldText":"let x = 1;","newText":"const x');
  for (const rows of (await screens(view)).values()) {
    assert.deepEqual(rows, ["○ edit a.ts", "    - let x = 1;", "    + const x"]);
  }
});

Deno.test("every tool view fits every width from 8 to 120 with wide text, collapsed and expanded", () => {
  const wide = "中文 👍🏽 ｆｕｌｌ verylongwordwithoutanyspaces";
  const cases: [string, Record<string, unknown>, string, boolean][] = [
    ["bash", { command: wide }, `${wide}\n`.repeat(9) + "\n\nExit code: 1", true],
    [
      "edit",
      { path: wide },
      `Edited.\n\n@@ -99999,2 +99999,2 @@\n ${wide}\n-${wide}\n+${wide}`,
      false,
    ],
    ["write", { path: wide, content: `${wide}\n`.repeat(9) }, "Created.", false],
    ["read", { path: wide, offset: 2 }, `     2\t${wide}\n     3\t${wide}`, false],
    ["ls", { path: wide }, `${wide}\n`.repeat(9), false],
    ["find", { pattern: wide }, `${wide}\n`.repeat(9), false],
    ["grep", { pattern: wide }, `${wide}:1:${wide}\n`.repeat(9), false],
    ["ext", { any: wide }, `${wide}\n`.repeat(9), false],
  ];
  for (const [name, args, result, isError] of cases) {
    const view = new ToolUse({ callId: "w", name, args: JSON.stringify(args) }, { theme: COLOR });
    view.setResult(result, isError);
    for (const expanded of [false, true]) {
      view.setExpanded(expanded);
      for (let width = 8; width <= 120; width++) {
        assertFits(view.render(width), width, `${name} expanded=${expanded} at ${width}`);
      }
    }
  }
});

Deno.test("edit view: a diff cut by the tool still counts every changed line in its header", async () => {
  const file = "same line\n".repeat(2000);
  await withProject({ "big.txt": file }, async (root) => {
    const view = await finished(editTool({ root }), {
      path: "big.txt",
      oldText: "same line",
      newText: "other line",
      replaceAll: true,
    });
    assert.equal((await screens(view)).get(80)?.[0], "✓ edit big.txt +2000 -2000");
  });
});
