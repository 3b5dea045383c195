import stripAnsi from "strip-ansi";
import assert from "node:assert/strict";
import { CURSOR_MARKER } from "../../tui/component.ts";
import { Container } from "../../tui/container.ts";
import { TUI } from "../../tui/tui.ts";
import { startTui } from "../support/tui_screen.ts";
import { VirtualTerminal } from "../support/virtual_terminal.ts";
import { expectedScreen, frame, Lines } from "./test_lines.ts";

function numbered(count: number, prefix = "line"): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix} ${i}`);
}

Deno.test("renderer: first paint is one synchronized write, cursor hidden, no screen clearing", async () => {
  await using t = startTui(20, 5);
  t.tui.addChild(new Lines(["hello", "world"]));
  await frame(t.tui, t.terminal);
  assert.deepEqual(t.terminal.screenLines(), expectedScreen(["hello", "world"], 5));
  assert.equal(t.terminal.writes.length, 1);
  const write = t.terminal.writes[0]!;
  assert.ok(write.startsWith("\x1b[?2026h") && write.endsWith("\x1b[?2026l"));
  assert.ok(
    !write.includes("\x1b[2J") && !write.includes("\x1b[3J") && !write.includes("\x1b[?1049h"),
  );
  assert.equal(t.terminal.cursorVisible, false);
});

Deno.test("renderer: nothing changed writes nothing", async () => {
  await using t = startTui(20, 5);
  t.tui.addChild(new Lines(["static"]));
  await frame(t.tui, t.terminal);
  await frame(t.tui, t.terminal);
  t.tui.requestRender();
  await frame(t.tui, t.terminal);
  assert.equal(t.terminal.writes.length, 1);
});

Deno.test("renderer: appends write only the new lines", async () => {
  await using t = startTui(20, 10);
  const body = new Lines(["a", "b"]);
  t.tui.addChild(body);
  await frame(t.tui, t.terminal);
  body.append("c", "d");
  await frame(t.tui, t.terminal);
  const write = t.terminal.writes.at(-1)!;
  assert.ok(write.includes("c") && write.includes("d"));
  assert.ok(
    !/[ab]/.test(stripAnsi(write)),
    "old lines are not rewritten",
  );
  assert.deepEqual(t.terminal.screenLines(), expectedScreen(["a", "b", "c", "d"], 10));
});

Deno.test("renderer: lines added above an unchanged footer move it down without rewriting it", async () => {
  for (const size of [4, 12]) {
    // Short content (the screen not full yet) and long content (the screen scrolls).
    await using t = startTui(30, 8);
    const body = new Lines(numbered(size, "body"));
    const footer = new Lines(["── editor rule ──", "> prompt", "footer: model name"]);
    t.tui.addChild(body);
    t.tui.addChild(footer);
    await frame(t.tui, t.terminal);
    for (const added of [1, 2, 3]) {
      body.edit(body.lines.length - 1, `${body.lines.at(-1)} grew`);
      body.append(...numbered(added, `new ${added}`));
      await frame(t.tui, t.terminal);
      const write = stripAnsi(t.terminal.writes.at(-1)!);
      assert.ok(!/editor|prompt|footer/.test(write), `${size}+${added}: footer rewritten`);
      const all = [...body.lines, ...footer.lines];
      assert.deepEqual(t.terminal.screenLines(), expectedScreen(all.slice(-8), 8));
      assert.deepEqual(
        t.terminal.allLines().filter((line) => line !== ""),
        all,
        `${size}+${added}: every line once, in order, history included`,
      );
    }
  }
});

Deno.test("renderer: an edit in the middle rewrites that line only", async () => {
  await using t = startTui(20, 10);
  const body = new Lines(numbered(6));
  t.tui.addChild(body);
  await frame(t.tui, t.terminal);
  body.edit(2, "CHANGED");
  await frame(t.tui, t.terminal);
  const text = stripAnsi(t.terminal.writes.at(-1)!);
  assert.equal(text.replace(/[\r\n]/g, ""), "CHANGED");
  assert.deepEqual(t.terminal.screenLines().slice(0, 6), [
    "line 0",
    "line 1",
    "CHANGED",
    "line 3",
    "line 4",
    "line 5",
  ]);
});

Deno.test("renderer: a spinner below a long transcript rewrites one line", async () => {
  await using t = startTui(30, 10);
  const transcript = new Lines(numbered(100));
  const spinner = new Lines(["⠋ working"]);
  t.tui.addChild(transcript);
  t.tui.addChild(spinner);
  await frame(t.tui, t.terminal);
  const rendersBefore = transcript.renders;
  spinner.set(["⠙ working"]);
  await frame(t.tui, t.terminal);
  assert.equal(transcript.renders, rendersBefore, "the clean transcript is not re-rendered");
  const write = t.terminal.writes.at(-1)!;
  assert.ok(write.length < 40, `small write, got ${JSON.stringify(write)}`);
  assert.equal(t.terminal.screenLines().at(-1), "⠙ working");
});

Deno.test("renderer: shrink clears stale lines and grow extends (short content)", async () => {
  await using t = startTui(20, 8);
  const body = new Lines(numbered(5));
  t.tui.addChild(body);
  t.tui.addChild(new Lines(["footer"]));
  await frame(t.tui, t.terminal);
  body.set(numbered(2));
  await frame(t.tui, t.terminal);
  assert.deepEqual(t.terminal.screenLines(), expectedScreen([...numbered(2), "footer"], 8));
  body.set(numbered(4));
  await frame(t.tui, t.terminal);
  assert.deepEqual(t.terminal.screenLines(), expectedScreen([...numbered(4), "footer"], 8));
});

Deno.test("renderer: content that scrolls away stays intact in scrollback", async () => {
  await using t = startTui(20, 5);
  const body = new Lines();
  t.tui.addChild(body);
  t.tui.addChild(new Lines(["> input"]));
  for (let i = 0; i < 30; i++) {
    body.append(`line ${i}`);
    await frame(t.tui, t.terminal);
  }
  const all = [...numbered(30), "> input"];
  assert.deepEqual(t.terminal.screenLines(), expectedScreen(all, 5));
  assert.deepEqual(t.terminal.scrollbackLines(), all.slice(0, all.length - 5));
  for (const write of t.terminal.writes) {
    assert.ok(!write.includes("\x1b[3J"), "scrollback is never cleared");
    assert.ok(!write.includes("\x1b[2J"));
    assert.ok(!write.includes("\x1b[?1049h"), "never the alternate screen");
  }
});

Deno.test("renderer: an edit above the screen is frozen, counted, and the screen stays right", async () => {
  await using t = startTui(20, 5);
  const body = new Lines(numbered(20));
  t.tui.addChild(body);
  await frame(t.tui, t.terminal);
  const scrollback = t.terminal.scrollbackLines();
  body.edit(3, "EDITED ABOVE");
  body.edit(18, "EDITED BELOW");
  await frame(t.tui, t.terminal);
  assert.deepEqual(t.terminal.scrollbackLines(), scrollback, "scrollback untouched");
  assert.equal(t.tui.stats.frozenLineEdits, 1);
  assert.deepEqual(t.terminal.screenLines(), expectedScreen(body.lines, 5));
});

Deno.test("renderer: shrinking content that fills the screen keeps it on the bottom rows, pulls nothing back", async () => {
  await using t = startTui(20, 5);
  const body = new Lines(numbered(12));
  const editor = new Lines(["> a", "  b", "  c"]);
  t.tui.addChild(body);
  t.tui.addChild(editor);
  await frame(t.tui, t.terminal);
  const scrollback = t.terminal.scrollbackLines();
  editor.set(["> "]);
  await frame(t.tui, t.terminal);
  // Showing line 9 again would put a second copy of it into history later: blank rows
  // go on top instead, so the editor stays on the bottom row.
  assert.deepEqual(t.terminal.screenLines(), ["", "", "line 10", "line 11", ">"]);
  assert.deepEqual(t.terminal.scrollbackLines(), scrollback);
  body.append("line 12");
  await frame(t.tui, t.terminal);
  assert.deepEqual(t.terminal.screenLines(), ["", "line 10", "line 11", "line 12", ">"]);
  body.append("line 13", "line 14");
  await frame(t.tui, t.terminal);
  assert.deepEqual(t.terminal.screenLines(), ["line 11", "line 12", "line 13", "line 14", ">"]);
  // The blank rows were deleted, not scrolled: history goes on with line 10, no blank between.
  assert.deepEqual(t.terminal.scrollbackLines(), [...scrollback, "line 10"]);
});

Deno.test("renderer: resize repaints the visible screen only and keeps scrollback", async () => {
  await using t = startTui(30, 6);
  const wrapped = new Container();
  // Lines that depend on the width, like wrapped text.
  const byWidth = {
    render: (width: number) => numbered(40).map((line) => `${line} `.padEnd(width, "-")),
    firstLineChanged: () => null,
    invalidate: () => {},
  };
  wrapped.addChild(byWidth);
  t.tui.addChild(wrapped);
  await frame(t.tui, t.terminal);
  const scrollbackBefore = t.terminal.scrollbackLines().length;
  const writesBefore = t.terminal.writes.length;
  t.terminal.resize(20, 6);
  await frame(t.tui, t.terminal);
  assert.equal(t.terminal.writes.length, writesBefore + 1);
  const resizeBytes = t.terminal.writes.at(-1)!.length;
  assert.ok(resizeBytes <= 6 * (20 + 8) + 40, `resize wrote ${resizeBytes} bytes`);
  // The terminal split lines 34-39 in two and pushed 34-36 into history: the screen
  // shows the rest, re-rendered, on the bottom rows, and no line twice.
  const expected = byWidth.render(20).slice(37);
  assert.deepEqual(t.terminal.screenLines(), ["", "", "", ...expected]);
  for (let i = 0; i < 40; i++) {
    const copies = t.terminal.allLines().filter((line) => line.startsWith(`line ${i} `));
    assert.equal(copies.length, 1, `line ${i} appears ${copies.length} times`);
  }
  assert.ok(t.terminal.scrollbackLines().length >= scrollbackBefore, "scrollback not cleared");
  assert.equal(t.terminal.scrollbackLines()[0]?.startsWith("line 0"), true);
  assert.equal(t.tui.stats.screenRepaints, 1);
});

Deno.test("renderer: resize of short content repaints in place", async () => {
  await using t = startTui(30, 10);
  const body = new Lines(["one", "two", "three"]);
  t.tui.addChild(body);
  await frame(t.tui, t.terminal);
  t.terminal.resize(25, 12);
  await frame(t.tui, t.terminal);
  assert.deepEqual(t.terminal.screenLines(), expectedScreen(["one", "two", "three"], 12));
  assert.deepEqual(t.terminal.scrollbackLines(), []);
});

Deno.test("renderer: styles are reset at the end of every line", async () => {
  await using t = startTui(20, 5);
  t.tui.addChild(new Lines(["\x1b[31;1mred bold never reset", "plain"]));
  await frame(t.tui, t.terminal);
  assert.equal(t.terminal.cell(0, 0).bold, true);
  assert.notEqual(t.terminal.cell(0, 0).fg, -1);
  const plain = t.terminal.cell(0, 1);
  assert.equal(plain.chars, "p");
  assert.equal(plain.bold, false);
  assert.equal(plain.fg, -1, "the red did not leak into the next line");
});

Deno.test("renderer: wide CJK and emoji clusters at an odd width", async () => {
  await using t = startTui(9, 6);
  const lines = ["漢字漢字x", "x漢字漢字", "👍🏽👍🏽👍🏽👍🏽a", "🇯🇵🇫🇷🇩🇪🇮🇹b", "👨‍👩‍👧👩‍💻é", "a漢"];
  const body = new Lines(lines);
  t.tui.addChild(body);
  await frame(t.tui, t.terminal);
  assert.deepEqual(t.terminal.screenLines(), lines);
  assert.equal(t.terminal.cell(0, 0).width, 2);
  assert.equal(t.terminal.cell(8, 0).chars, "x", "the 9th column after four wide clusters");
  assert.equal(t.terminal.cell(8, 2).chars, "a", "skin-tone clusters are two columns");
  assert.equal(t.terminal.cell(8, 3).chars, "b", "flags are two columns");
  body.edit(4, "👩‍💻👨‍👩‍👧é");
  await frame(t.tui, t.terminal);
  assert.equal(t.terminal.screenLines()[4], "👩‍💻👨‍👩‍👧é");
  assert.equal(t.tui.stats.truncatedLines, 0);
});

Deno.test("renderer: an over-wide line is truncated and counted, not a crash", async () => {
  await using t = startTui(9, 4);
  const body = new Lines([
    "0123456789abcdef",
    "漢字漢字漢字",
    "\x1b[32mgreen text too long\x1b[0m",
    "ok",
  ]);
  t.tui.addChild(body);
  await frame(t.tui, t.terminal);
  assert.deepEqual(t.terminal.screenLines(), ["012345678", "漢字漢字", "green tex", "ok"]);
  assert.equal(t.tui.stats.truncatedLines, 3);
  assert.equal(t.terminal.cell(0, 3).fg, -1, "the cut style does not leak");
  await frame(t.tui, t.terminal);
  assert.equal(t.tui.stats.truncatedLines, 3, "unchanged lines are not re-counted");
});

Deno.test("renderer: the cursor marker places the visible hardware cursor and is stripped", async () => {
  await using t = startTui(20, 5);
  const editor = new Lines([`> ab${CURSOR_MARKER}c`]);
  t.tui.addChild(new Lines(["transcript"]));
  t.tui.addChild(editor);
  t.tui.setFocus(editor);
  await frame(t.tui, t.terminal);
  assert.deepEqual(t.terminal.screenLines().slice(0, 2), ["transcript", "> abc"]);
  assert.deepEqual(t.terminal.cursor(), { x: 4, y: 1 });
  assert.equal(t.terminal.cursorVisible, true);
  editor.set([`> 漢${CURSOR_MARKER}字`]);
  await frame(t.tui, t.terminal);
  assert.deepEqual(t.terminal.cursor(), { x: 4, y: 1 }, "columns count wide characters");
  editor.set(["> no cursor"]);
  await frame(t.tui, t.terminal);
  assert.equal(t.terminal.cursorVisible, false);
});

Deno.test("renderer: requests in one tick coalesce into one frame; bursts are capped", async () => {
  await using t = startTui(20, 5);
  const body = new Lines(["0"]);
  t.tui.addChild(body);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(t.tui.stats.frames, 1, "the start request rendered at once");
  for (let i = 1; i <= 10; i++) {
    body.set([String(i)]);
    t.tui.requestRender();
  }
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.ok(t.tui.stats.frames <= 3, `frames: ${t.tui.stats.frames}`);
  await t.terminal.flush();
  assert.equal(t.terminal.screenLines()[0], "10");
});

Deno.test("renderer: input goes to hooks, then to the focused component", async () => {
  await using t = startTui(20, 5);
  const editor = new Lines([">"]);
  const other = new Lines(["x"]);
  t.tui.addChild(other);
  t.tui.addChild(editor);
  t.tui.setFocus(editor);
  const seen: string[] = [];
  const remove = t.tui.onInput((data) => {
    seen.push(data);
    return data === "\x03";
  });
  t.terminal.feed("ab\x03\x1b[A");
  assert.deepEqual(seen, ["a", "b", "\x03", "\x1b[A"]);
  assert.deepEqual(editor.inputs, ["a", "b", "\x1b[A"], "ctrl+c was consumed by the hook");
  assert.deepEqual(other.inputs, []);
  remove();
  t.terminal.feed("\x1b[99;5:3u");
  assert.deepEqual(editor.inputs.length, 3, "key releases need wantsKeyRelease");
  await frame(t.tui, t.terminal);
});

Deno.test("renderer: stop leaves the cursor visible below the content", async () => {
  const terminal = new VirtualTerminal(20, 6);
  const tui = new TUI(terminal);
  tui.addChild(new Lines(["a", "b", "c"]));
  tui.start();
  await frame(tui, terminal);
  tui.stop();
  await terminal.flush();
  assert.deepEqual(terminal.cursor(), { x: 0, y: 3 });
  assert.equal(terminal.cursorVisible, true);
  assert.ok(terminal.writes.at(-1)!.includes("\x1b[?7h"), "auto-wrap back on");
  terminal.dispose();
});

Deno.test("renderer: keystroke cost does not depend on the transcript length", async () => {
  const costs: number[] = [];
  for (const size of [100, 20_000]) {
    await using t = startTui(40, 10);
    const transcript = new Container();
    for (let i = 0; i < size / 10; i++) transcript.addChild(new Lines(numbered(10, `m${i}`)));
    const editor = new Lines(["> "]);
    t.tui.addChild(transcript);
    t.tui.addChild(editor);
    await frame(t.tui, t.terminal);
    const bytesBefore = t.terminal.bytesWritten;
    editor.set(["> h"]);
    await frame(t.tui, t.terminal);
    costs.push(t.terminal.bytesWritten - bytesBefore);
  }
  assert.equal(costs[0], costs[1], `bytes per keystroke: ${costs.join(" vs ")}`);
});

Deno.test("renderer: tabs, control bytes and cut escape sequences are neutralised", async () => {
  await using t = startTui(20, 5);
  t.tui.addChild(new Lines(["a\tb", "c\x07d\re", "cut \x1b[3", "\x1b"]));
  t.tui.addChild(new Lines(["after"]));
  await frame(t.tui, t.terminal);
  assert.deepEqual(t.terminal.screenLines(), ["a   b", "cde", "cut", "", "after"]);
});

Deno.test("renderer: a BEL-terminated OSC 8 hyperlink keeps its text", async () => {
  await using t = startTui(30, 4);
  t.tui.addChild(new Lines(["see \x1b]8;;https://x.dev\x07the docs\x1b]8;;\x07 now", "next"]));
  await frame(t.tui, t.terminal);
  assert.deepEqual(t.terminal.screenLines().slice(0, 2), ["see the docs now", "next"]);
  assert.ok(t.terminal.writes.join("").includes("\x1b]8;;https://x.dev\x07the docs"));
});

Deno.test("renderer: a tab before the cursor marker counts as the spaces it becomes", async () => {
  await using t = startTui(20, 3);
  const editor = new Lines([`a\tb${CURSOR_MARKER}c`]);
  t.tui.addChild(editor);
  t.tui.setFocus(editor);
  await frame(t.tui, t.terminal);
  assert.equal(t.terminal.screenLines()[0], "a   bc");
  assert.deepEqual(t.terminal.cursor(), { x: 5, y: 0 });
});

/** An engine on an emulator that models tmux's scroll-on-clear, optionally without cursor reports. */
function historyScreen(columns: number, rows: number, reportsCursor = true) {
  const terminal = new VirtualTerminal(columns, rows, { scrollOnClear: true, reportsCursor });
  const tui = new TUI(terminal);
  tui.start();
  return {
    terminal,
    tui,
    async [Symbol.asyncDispose]() {
      tui.stop();
      await terminal.flush();
      terminal.dispose();
    },
  };
}

/** Resizes, lets the engine's cursor question be answered, and draws the frame. */
async function resizeAnswered(tui: TUI, terminal: VirtualTerminal, columns: number, rows: number) {
  terminal.resize(columns, rows);
  await terminal.flush();
  await new Promise((resolve) => setTimeout(resolve, 0));
  await frame(tui, terminal);
}

Deno.test("renderer: a resize finds its lines from the cursor report: none lost, none twice", async () => {
  await using t = historyScreen(30, 10);
  const body = new Lines(numbered(20));
  // The cursor sits on the input line; the terminal drops the footer rows below it first.
  // A full-width rule above it: a narrower terminal splits it in two rows.
  const rule = {
    render: (width: number) => ["=".repeat(width)],
    firstLineChanged: () => null,
    invalidate() {},
  };
  const editor = new Lines([`> typing${CURSOR_MARKER}`]);
  const footer = new Lines(["footer one", "footer two"]);
  t.tui.addChild(body);
  t.tui.addChild(rule);
  t.tui.addChild(editor);
  t.tui.addChild(footer);
  await frame(t.tui, t.terminal);
  const onceEach = () => {
    const all = t.terminal.allLines();
    for (const line of [...body.lines, "> typing", "footer one", "footer two"]) {
      const count = all.filter((row) => row === line).length;
      assert.equal(count, 1, `${line} appears ${count} times in ${JSON.stringify(all)}`);
    }
  };
  await resizeAnswered(t.tui, t.terminal, 24, 6);
  assert.deepEqual(t.terminal.screenLines().slice(-3), ["> typing", "footer one", "footer two"]);
  onceEach();
  await resizeAnswered(t.tui, t.terminal, 30, 12);
  onceEach();
  await resizeAnswered(t.tui, t.terminal, 30, 5);
  onceEach();
  assert.equal(t.terminal.screenLines().at(-1), "footer two");
});

Deno.test("renderer: without a cursor report a resize still adds no copies to history", async () => {
  await using t = historyScreen(30, 10, false);
  const body = new Lines(numbered(20));
  t.tui.addChild(body);
  t.tui.addChild(new Lines([`> typing${CURSOR_MARKER}`, "footer"]));
  await frame(t.tui, t.terminal);
  for (const [columns, rows] of [[30, 6], [20, 12], [30, 4]] as const) {
    await resizeAnswered(t.tui, t.terminal, columns, rows);
    const all = t.terminal.allLines().filter((line) => line !== "");
    assert.equal(new Set(all).size, all.length, `no line twice: ${JSON.stringify(all)}`);
    assert.equal(t.terminal.screenLines().filter((line) => line !== "").at(-1), "footer");
  }
});

Deno.test("renderer: answer, tool call, resizes, expand/collapse, picker, shrink, new session: each line once", async () => {
  await using t = historyScreen(40, 10);
  const transcript = new Container();
  const answer = new Lines();
  const tool = new Lines(["tool: read", "output 1"]);
  const loader = new Lines(["⠋ working"]);
  const editor = new Lines([`> ${CURSOR_MARKER}`]);
  const footer = {
    render: (width: number) => ["─".repeat(width), "model fast"],
    firstLineChanged: () => null,
    invalidate() {},
  };
  transcript.addChild(new Lines(["welcome"]));
  transcript.addChild(answer);
  transcript.addChild(tool);
  for (const child of [transcript, loader, editor, footer]) t.tui.addChild(child);
  for (let i = 0; i < 30; i++) {
    answer.append(`answer ${i}`);
    await frame(t.tui, t.terminal);
  }
  const expanded = ["tool: read", ...Array.from({ length: 12 }, (_, i) => `output ${i + 1}`)];
  tool.set(expanded); // ctrl+o with the tool call on screen
  await frame(t.tui, t.terminal);
  await resizeAnswered(t.tui, t.terminal, 30, 7);
  await resizeAnswered(t.tui, t.terminal, 40, 10);
  answer.edit(2, "answer 2 (restyled)"); // a change far above the screen: frozen
  tool.set(["tool: read", "output 1"]); // collapse
  await frame(t.tui, t.terminal);
  const picker = t.tui.showOverlay(new Lines(["fast", "smart"]), { anchor: "center" });
  await frame(t.tui, t.terminal);
  picker.close();
  await frame(t.tui, t.terminal);
  loader.set([]); // the loader goes away on a full screen
  await frame(t.tui, t.terminal);
  const before = t.terminal.allLines();
  transcript.clear(); // /new
  transcript.addChild(new Lines(["welcome", "New session."]));
  t.tui.keepScreenInHistory();
  await frame(t.tui, t.terminal);

  const all = t.terminal.allLines();
  const newSession = all.lastIndexOf("welcome");
  const old = all.slice(0, newSession).filter((line) => line !== "" && !line.startsWith("─"));
  const counts = new Map<string, number>();
  for (const line of old) counts.set(line, (counts.get(line) ?? 0) + 1);
  const twice = [...counts].filter(([, count]) => count > 1);
  assert.deepEqual(twice, [], `lines twice in:\n${all.join("\n")}`);
  for (let i = 3; i < 30; i++) assert.equal(counts.get(`answer ${i}`), 1, `answer ${i}`);
  assert.ok(before.includes("answer 29"));
  assert.deepEqual(t.terminal.screenLines().slice(0, 5), [
    "welcome",
    "New session.",
    ">",
    "─".repeat(40),
    "model fast",
  ]);
});

/** An emulated terminal with job control: `suspend` restores, `resume` plays the shell's part. */
class SuspendableTerminal extends VirtualTerminal {
  readonly #beforeRestore: (() => void)[] = [];
  override onBeforeRestore(handler: () => void): void {
    this.#beforeRestore.push(handler);
    super.onBeforeRestore(handler);
  }
  suspend(): boolean {
    for (const handler of this.#beforeRestore) handler();
    return true;
  }
  /** The shell prints its lines, then `fg` continues us (a SIGCONT repaints like a resize). */
  resume(shellOutput: string): void {
    this.write(shellOutput);
    this.resize(this.columns, this.rows);
  }
}

Deno.test("renderer: ctrl+z and fg leave each line once in history, the shell's lines between", async () => {
  const terminal = new SuspendableTerminal(30, 6, { scrollOnClear: true });
  const tui = new TUI(terminal);
  try {
    tui.addChild(new Lines(numbered(20)));
    tui.addChild(new Lines([`> ${CURSOR_MARKER}`]));
    tui.start();
    await frame(tui, terminal);
    terminal.feed("\x1a");
    await terminal.flush();
    assert.deepEqual(terminal.screenLines(), ["", "", "", "", "", ""], "our rows are cleared");
    terminal.resume("[1]+  Stopped\r\n$ fg\r\n");
    await frame(tui, terminal);
    const all = terminal.allLines().filter((line) => line !== "");
    assert.deepEqual(all, [
      ...numbered(15),
      "[1]+  Stopped",
      "$ fg",
      ...numbered(20).slice(15),
      ">",
    ]);
  } finally {
    tui.stop();
    await terminal.flush();
    terminal.dispose();
  }
});

/** An emulated terminal that can be lent to another program, which writes its own screen. */
class LendingTerminal extends VirtualTerminal {
  runOutside<T>(run: () => Promise<T>): Promise<T> {
    return run();
  }
}

Deno.test("renderer: while the terminal is lent (ctrl+g's editor), no frame is drawn into the other program's screen; it is repainted after", async () => {
  const terminal = new LendingTerminal(30, 6);
  const tui = new TUI(terminal);
  const lines = new Lines(["draft one", `> ${CURSOR_MARKER}`]);
  try {
    tui.addChild(lines);
    tui.start();
    await frame(tui, terminal);
    await tui.runOutside(async () => {
      terminal.write("\x1b[2J\x1b[Hthe editor's screen");
      const writes = terminal.writes.length;
      // Something changes meanwhile (a footer update, a notice) and asks for a frame.
      lines.set(["draft two", `> ${CURSOR_MARKER}`]);
      tui.requestRender();
      tui.renderNow();
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(terminal.writes.length, writes, "nothing written while lent");
    });
    await frame(tui, terminal);
    assert.ok(terminal.screenLines().includes("draft two"), terminal.screenLines().join("\n"));
  } finally {
    tui.stop();
    await terminal.flush();
    terminal.dispose();
  }
});
