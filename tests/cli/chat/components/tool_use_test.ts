import assert from "node:assert/strict";
import { ToolUse } from "../../../../cli/chat/components/tool_use.ts";
import { formatArgs, summarizeArgs } from "../../../../cli/chat/components/tools/generic_view.ts";
import { assertFits, COLOR, PLAIN } from "../../../tui/components/helpers.ts";

Deno.test("tool use: streamed partial arguments show as a preview in the header", () => {
  const tool = new ToolUse({ callId: "c1", name: "shell" }, { theme: PLAIN });
  assert.deepEqual(tool.render(40), ["○ shell"]);
  tool.appendArgs('{"command": "ls -la /tm');
  assert.deepEqual(tool.render(40), ["○ shell command: ls -la /tm"]);
  tool.appendArgs('p", "timeout": 5}');
  assert.deepEqual(tool.render(40), ["○ shell command: ls -la /tmp, timeout: 5"]);
  tool.appendArgs("");
  assert.equal(summarizeArgs("not json"), "not json");
  assert.equal(summarizeArgs('{"a": "x\\ny"}'), "a: x ⏎ y");
});

Deno.test("tool use: status icons and a collapsed result with a more-lines hint", () => {
  const tool = new ToolUse({ callId: "c1", name: "fetch", args: '{"path":"a.ts"}' }, {
    theme: PLAIN,
    collapsedLines: 2,
  });
  tool.setStatus("running");
  assert.equal(tool.render(40)[0], "◐ fetch path: a.ts");
  tool.appendResult("one\ntwo\nthree\nfour");
  assert.deepEqual(tool.render(40), [
    "◐ fetch path: a.ts",
    "  one",
    "  two",
    "  … 2 more lines (ctrl+o to expand)",
  ]);
  tool.setResult("one\ntwo\nthree\nfour");
  assert.equal(tool.status, "done");
  assert.equal(tool.render(40)[0], "✓ fetch path: a.ts");
});

Deno.test("tool use: expanded shows readable arguments and the whole result; errors are red", () => {
  const tool = new ToolUse({ callId: "c2", name: "patch" }, { theme: PLAIN, collapsedLines: 1 });
  tool.setArgs({ path: "a.ts", old: "x\ny", count: 2 });
  tool.setResult("failed: no match\nsecond line", true);
  tool.setExpanded(true);
  assert.deepEqual(tool.render(40), [
    "✗ patch path: a.ts, old: x ⏎ y, count: 2",
    "  path: a.ts",
    "  old:",
    "    x",
    "    y",
    "  count: 2",
    "  failed: no match",
    "  second line",
  ]);
  const colored = new ToolUse({ callId: "c3", name: "x" }, { theme: COLOR });
  colored.setResult("bad", true);
  assert.ok(colored.render(20)[1]?.includes("\x1b[38;5;167mbad"), "error colour");
  assert.equal(formatArgs("[1,2]"), "[\n  1,\n  2\n]");
});

Deno.test("tool use: firstLineChanged names the header, the body, or only the ticking footer", () => {
  let now = 1_000;
  const tool = new ToolUse({ callId: "c1", name: "bash", args: '{"command":"make"}' }, {
    theme: PLAIN,
    now: () => now,
  });
  assert.equal(tool.firstLineChanged(), 0);
  tool.setStatus("running");
  tool.render(40);
  assert.equal(tool.firstLineChanged(), null);
  tool.setProgress("a\n");
  assert.equal(tool.firstLineChanged(), 1, "progress changes the body, not the header");
  assert.deepEqual(tool.render(40), ["◐ bash $ make", "  a", "  0.0s"]);
  now += 50;
  assert.equal(tool.firstLineChanged(), null, "the shown time is the same");
  now += 1_000;
  assert.equal(tool.firstLineChanged(), 2, "only the footer line ticks");
  assert.deepEqual(tool.render(40), ["◐ bash $ make", "  a", "  1.0s"]);
  tool.setExpanded(true);
  assert.equal(tool.firstLineChanged(), 0, "collapse/expand is a layout change");
});

Deno.test("tool use: parallel calls are independent instances", () => {
  const a = new ToolUse({ callId: "a", name: "fetch" }, { theme: PLAIN });
  const b = new ToolUse({ callId: "b", name: "fetch" }, { theme: PLAIN });
  a.appendArgs('{"path":"one"}');
  b.appendArgs('{"path":"two"}');
  a.setResult("A");
  assert.deepEqual([a.render(30), b.render(30)], [["✓ fetch path: one", "  A"], [
    "○ fetch path: two",
  ]]);
});

Deno.test("tool use: long output fits every width", () => {
  const tool = new ToolUse({
    callId: "c",
    name: "bash",
    args: '{"command":"' + "x".repeat(300) + '"}',
  }, {
    theme: COLOR,
    expanded: true,
  });
  tool.setResult("表格 👍🏽 ".repeat(100));
  for (const width of [20, 40, 80, 200]) assertFits(tool.render(width), width, `width ${width}`);
});

Deno.test("tool use: a result set after the status already became error is red", () => {
  const tool = new ToolUse({ callId: "c9", name: "x" }, { theme: COLOR });
  tool.appendResult("partial");
  tool.setStatus("error");
  tool.setResult("bad", true);
  assert.ok(tool.render(20)[1]?.includes("\x1b[38;5;167mbad"), "error colour");
  tool.setResult("fine");
  assert.ok(!tool.render(20)[1]?.includes("\x1b[38;5;167m"), "back to the output colour");
});

Deno.test("ToolUse: arguments nested 20,000 deep (a hostile call) are shown as text, without overflowing the stack", () => {
  const deep = `{"path":${"[".repeat(20_000)}${"]".repeat(20_000)}}`;
  for (const name of ["read", "some_mcp_tool"]) {
    const tool = new ToolUse({ callId: "c", name }, { theme: PLAIN });
    tool.appendArgs(deep.slice(0, 9000));
    tool.appendArgs(deep.slice(9000));
    const lines = tool.render(60);
    assertFits(lines, 60);
    assert.match(lines[0]!, new RegExp(name));
  }
});
