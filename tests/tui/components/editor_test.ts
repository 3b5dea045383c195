import assert from "node:assert/strict";
import fc from "fast-check";
import { CURSOR_MARKER } from "../../../tui/component.ts";
import type { AutocompleteProvider } from "../../../tui/components/autocomplete.ts";
import { Editor } from "../../../tui/components/editor.ts";
import type { EditorOptions } from "../../../tui/components/editor.ts";
import { assertFits, assertScreen, COLOR, PLAIN, plain, WIDTHS } from "./helpers.ts";

const KEY = {
  enter: "\r",
  shiftEnterKitty: "\x1b[13;2u",
  shiftEnterModifyOtherKeys: "\x1b[27;2;13~",
  lineFeed: "\n",
  altEnter: "\x1b\r",
  left: "\x1b[D",
  right: "\x1b[C",
  up: "\x1b[A",
  down: "\x1b[B",
  home: "\x1b[H",
  end: "\x1b[F",
  ctrlA: "\x01",
  ctrlE: "\x05",
  ctrlW: "\x17",
  ctrlU: "\x15",
  ctrlK: "\x0b",
  ctrlY: "\x19",
  altY: "\x1by",
  altD: "\x1bd",
  altB: "\x1bb",
  altF: "\x1bf",
  ctrlLeft: "\x1b[1;5D",
  ctrlRight: "\x1b[1;5C",
  altBackspace: "\x1b\x7f",
  backspace: "\x7f",
  delete: "\x1b[3~",
  undoLegacy: "\x1f",
  undoKitty: "\x1b[45;5u",
  tab: "\t",
  escape: "\x1b",
} as const;

/** Splits "ab" into keys, passing named keys through. */
function keys(...parts: string[]): string[] {
  return parts.flatMap((
    part,
  ) => (part.startsWith("\x1b") || part.length === 1 ? [part] : [...part]));
}

function press(editor: Editor, ...parts: string[]): void {
  for (const key of keys(...parts)) editor.handleInput(key);
}

/** The raw text with "|" at the cursor. */
function show(editor: Editor): string {
  const lines = editor.getText().split("\n");
  const { line, col } = editor.cursor;
  lines[line] = (lines[line] ?? "").slice(0, col) + "|" + (lines[line] ?? "").slice(col);
  return lines.join("\n");
}

/** An editor holding `state` ("|" marks the cursor). */
function editorAt(state: string, options: EditorOptions = {}): Editor {
  const editor = new Editor({ theme: PLAIN, ...options });
  const cursor = state.indexOf("|");
  editor.setText(state.replace("|", ""));
  const before = state.slice(0, cursor).split("\n");
  const targetLine = before.length - 1;
  const targetCol = (before.at(-1) ?? "").length;
  // Walk the cursor there with plain motions.
  while (editor.cursor.line > targetLine) editor.handleInput(KEY.up);
  editor.handleInput(KEY.ctrlA);
  for (let i = 0; editor.cursor.col < targetCol && i < 1000; i++) editor.handleInput(KEY.right);
  assert.equal(show(editor), state, "test setup");
  return editor;
}

Deno.test("editor: enter submits the text and clears; blank input is not submitted", () => {
  const sent: string[] = [];
  const editor = new Editor({ theme: PLAIN, onSubmit: (text) => sent.push(text) });
  press(editor, KEY.enter, "  ", KEY.enter);
  assert.deepEqual(sent, []);
  press(editor, KEY.ctrlU, "hi there", KEY.enter);
  assert.deepEqual(sent, ["hi there"]);
  assert.equal(editor.getText(), "");
});

Deno.test("editor: shift+enter in every encoding, and backslash+enter, insert a newline", () => {
  for (
    const newline of [
      KEY.shiftEnterKitty,
      KEY.shiftEnterModifyOtherKeys,
      KEY.lineFeed,
      KEY.altEnter,
    ]
  ) {
    const editor = new Editor({ theme: PLAIN });
    press(editor, "a", newline, "b");
    assert.equal(show(editor), "a\nb|", JSON.stringify(newline));
  }
  const sent: string[] = [];
  const editor = new Editor({ theme: PLAIN, onSubmit: (text) => sent.push(text) });
  press(editor, "a\\", KEY.enter, "b", KEY.enter);
  assert.deepEqual(sent, ["a\nb"]);
});

Deno.test("editor: motion table", async (t) => {
  const table: [string, string[], string][] = [
    ["hello world|", [KEY.ctrlA], "|hello world"],
    ["hello world|", [KEY.home], "|hello world"],
    ["|hello world", [KEY.ctrlE], "hello world|"],
    ["|hello world", [KEY.end], "hello world|"],
    ["hello world|", [KEY.altB], "hello |world"],
    ["hello world|", [KEY.altB, KEY.altB], "|hello world"],
    ["hello world|", [KEY.ctrlLeft], "hello |world"],
    ["|hello world", [KEY.altF], "hello| world"],
    ["|hello world", [KEY.ctrlRight, KEY.ctrlRight], "hello world|"],
    ["foo.bar|", [KEY.altB], "foo.|bar"],
    ["foo  |", [KEY.altB], "|foo  "],
    ["a 👍🏽b|", [KEY.left], "a 👍🏽|b"],
    ["a 👍🏽b|", [KEY.left, KEY.left], "a |👍🏽b"],
    ["|你好世界", [KEY.right, KEY.right], "你好|世界"],
    ["e\u0301x|", [KEY.left, KEY.left], "|e\u0301x"],
    ["ab\n|cd", [KEY.left], "ab|\ncd"],
    ["ab|\ncd", [KEY.right], "ab\n|cd"],
    ["ab\ncd|", [KEY.up], "ab|\ncd"],
    ["abcdef\nx\nabcd|ef", [KEY.up], "abcdef\nx|\nabcdef"],
    ["abcdef\nx\nabcd|ef", [KEY.up, KEY.up], "abcd|ef\nx\nabcdef"],
    ["abcd|ef\nx\nabcdef", [KEY.down, KEY.down], "abcdef\nx\nabcd|ef"],
    ["ab|\nx", [KEY.altF], "ab\n|x"],
  ];
  for (const [start, input, expected] of table) {
    await t.step(`${JSON.stringify(start)} + ${JSON.stringify(input)}`, () => {
      const editor = editorAt(start);
      press(editor, ...input);
      assert.equal(show(editor), expected);
    });
  }
});

Deno.test("editor: deletion is grapheme-aware", async (t) => {
  const table: [string, string[], string][] = [
    ["你好|", [KEY.backspace], "你|"],
    ["e\u0301|", [KEY.backspace], "|"],
    ["x👨‍👩‍👧|", [KEY.backspace], "x|"],
    ["|👍🏽y", [KEY.delete], "|y"],
    ["ab\n|cd", [KEY.backspace], "ab|cd"],
    ["ab|\ncd", [KEY.delete], "ab|cd"],
  ];
  for (const [start, input, expected] of table) {
    await t.step(JSON.stringify(start), () => {
      const editor = editorAt(start);
      press(editor, ...input);
      assert.equal(show(editor), expected);
    });
  }
});

Deno.test("editor: kill ring table", async (t) => {
  const table: [string, string[], string][] = [
    ["one two three|", [KEY.ctrlW], "one two |"],
    ["one two three|", [KEY.altBackspace], "one two |"],
    ["one two three|", [KEY.ctrlW, KEY.ctrlW, KEY.ctrlY], "one two three|"],
    ["|one two three", [KEY.altD, KEY.altD, KEY.end, KEY.ctrlY], " threeone two|"],
    ["one two| three", [KEY.ctrlU, KEY.end, KEY.ctrlY], " threeone two|"],
    ["one two| three", [KEY.ctrlK, KEY.ctrlA, KEY.ctrlY], " three|one two"],
    ["ab|\ncd", [KEY.ctrlK], "ab|cd"],
    ["ab\n|cd", [KEY.ctrlU], "ab|cd"],
    // Separate kills, then yank the newest and yank-pop to the older one.
    ["a b|", [KEY.ctrlW, KEY.left, KEY.ctrlW, KEY.ctrlY], "a| "],
    ["a b|", [KEY.ctrlW, KEY.left, KEY.ctrlW, KEY.ctrlY, KEY.altY], "b| "],
    ["a b|", [KEY.ctrlW, KEY.left, KEY.ctrlW, KEY.ctrlY, KEY.altY, KEY.altY], "a| "],
    // Yank-pop only right after a yank.
    ["a b|", [KEY.ctrlW, KEY.left, KEY.ctrlW, KEY.altY], "| "],
  ];
  for (const [start, input, expected] of table) {
    await t.step(`${JSON.stringify(start)} + ${JSON.stringify(input)}`, () => {
      const editor = editorAt(start);
      press(editor, ...input);
      assert.equal(show(editor), expected);
    });
  }
});

Deno.test("editor: undo groups typing by word and restores kills and pastes", async (t) => {
  await t.step("typing a word is one step", () => {
    const editor = new Editor({ theme: PLAIN });
    press(editor, "hello world");
    const states: string[] = [];
    for (let i = 0; i < 4; i++) {
      editor.handleInput(KEY.undoLegacy);
      states.push(show(editor));
    }
    assert.deepEqual(states, ["hello |", "hello|", "|", "|"]);
  });
  await t.step("ctrl+- (Kitty) undoes a kill", () => {
    const editor = editorAt("one two|");
    press(editor, KEY.ctrlW, KEY.undoKitty);
    assert.equal(show(editor), "one two|");
  });
  await t.step("consecutive backspaces are one step", () => {
    const editor = editorAt("abcdef|");
    press(editor, KEY.backspace, KEY.backspace, KEY.backspace, KEY.undoLegacy);
    assert.equal(show(editor), "abcdef|");
  });
  await t.step("a paste is one step", () => {
    const editor = editorAt("x|");
    editor.paste("pasted text");
    press(editor, KEY.undoLegacy);
    assert.equal(show(editor), "x|");
  });
  await t.step("moving the cursor ends a typing group", () => {
    const editor = new Editor({ theme: PLAIN });
    press(editor, "ab", KEY.left, KEY.right, "cd", KEY.undoLegacy);
    assert.equal(show(editor), "ab|");
  });
});

Deno.test("editor: history on up/down from the first/last row keeps the draft", () => {
  const sent: string[] = [];
  const editor = new Editor({
    theme: PLAIN,
    history: ["first"],
    onSubmit: (text) => sent.push(text),
  });
  press(editor, "second", KEY.enter, "draft");
  press(editor, KEY.up);
  assert.equal(show(editor), "second|");
  press(editor, KEY.up);
  assert.equal(show(editor), "first|");
  press(editor, KEY.up);
  assert.equal(show(editor), "first|", "stays at the oldest");
  press(editor, KEY.down, KEY.down);
  assert.equal(show(editor), "draft|");
  press(editor, KEY.down);
  assert.equal(show(editor), "draft|", "down past the draft does nothing");
  assert.deepEqual(editor.history, ["first", "second"]);
});

Deno.test("editor: up inside a multi-line text moves rows before reaching history", () => {
  const editor = new Editor({ theme: PLAIN, history: ["old"] });
  press(editor, "one", KEY.shiftEnterKitty, "two");
  press(editor, KEY.up);
  assert.equal(show(editor), "one|\ntwo");
  press(editor, KEY.up);
  assert.equal(show(editor), "old|");
  press(editor, KEY.down);
  assert.equal(show(editor), "one\ntwo|");
});

Deno.test("editor: large pastes become atomic markers expanded on submit", () => {
  const sent: string[] = [];
  const editor = new Editor({ theme: PLAIN, onSubmit: (text) => sent.push(text) });
  const big = Array.from({ length: 42 }, (_, i) => `line ${i}`).join("\n");
  press(editor, "see ");
  editor.handleInput(`\x1b[200~${big}\x1b[201~`);
  assert.equal(show(editor), "see [paste #1 +42 lines]|");
  press(editor, KEY.left);
  assert.equal(show(editor), "see |[paste #1 +42 lines]", "the marker is one cursor unit");
  press(editor, KEY.right, " and ");
  editor.paste("x".repeat(1500));
  assert.equal(editor.getText(), "see [paste #1 +42 lines] and [paste #2 1500 chars]");
  press(editor, KEY.altB);
  assert.equal(show(editor), "see [paste #1 +42 lines] and |[paste #2 1500 chars]");
  press(editor, KEY.end, KEY.enter);
  assert.deepEqual(sent, [`see ${big} and ${"x".repeat(1500)}`]);
});

Deno.test("editor: backspace removes a whole paste marker; small pastes are inline", () => {
  const editor = new Editor({ theme: PLAIN });
  editor.paste("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk");
  assert.equal(editor.getText(), "[paste #1 +11 lines]");
  press(editor, KEY.backspace);
  assert.equal(show(editor), "|");
  editor.paste("two\r\nlines");
  assert.equal(show(editor), "two\nlines|");
  const literal = new Editor({ theme: PLAIN });
  press(literal, "[paste #9 +3 lines]", KEY.backspace);
  assert.equal(
    show(literal),
    "[paste #9 +3 lines|",
    "text that merely looks like a marker is not atomic",
  );
});

Deno.test("editor: grows to maxRows then scrolls with the cursor", () => {
  const editor = new Editor({ theme: PLAIN, maxRows: 3 });
  editor.focused = true;
  press(editor, "1");
  assert.equal(editor.render(20).length, 3, "border, one row, border");
  for (const line of ["2", "3", "4", "5"]) press(editor, KEY.shiftEnterKitty, line);
  let lines = editor.render(20).map(plain);
  assert.deepEqual(lines.slice(1, 4), ["3", "4", "5 "]);
  assert.match(lines[0] ?? "", /↑ 2 more/);
  press(editor, KEY.up, KEY.up, KEY.up, KEY.up);
  lines = editor.render(20).map(plain);
  assert.deepEqual(lines.slice(1, 4), ["1 ", "2", "3"], "the cursor block sits after the 1");
  assert.match(lines[4] ?? "", /↓ 2 more/);
});

Deno.test("editor: long lines wrap at the width; the cursor never overflows", () => {
  const editor = new Editor({ theme: COLOR });
  editor.focused = true;
  press(editor, "the quick brown fox jumps");
  const lines = editor.render(10);
  assertFits(lines, 10);
  assert.deepEqual(lines.slice(1, -1).map(plain), ["the quick ", "brown fox ", "jumps "]);
  const full = new Editor({ theme: PLAIN });
  full.focused = true;
  press(full, "0123456789");
  const rows = full.render(10).map(plain);
  assert.deepEqual(rows.slice(1, -1), ["0123456789", " "], "cursor gets its own row");
  assertFits(full.render(10), 10);
});

Deno.test("editor: up/down move by screen row inside a wrapped line", () => {
  const editor = new Editor({ theme: PLAIN });
  press(editor, "aaaa bbbb cccc");
  editor.render(5);
  press(editor, KEY.up);
  assert.equal(show(editor), "aaaa bbbb| cccc");
  press(editor, KEY.up);
  assert.equal(show(editor), "aaaa| bbbb cccc");
});

Deno.test("editor: fits every width with wide characters, on the emulator too", async () => {
  for (const width of WIDTHS) {
    const editor = new Editor({ theme: COLOR, maxRows: 4 });
    editor.focused = true;
    press(editor, "混合 text with 表情 👍🏽 and more words ".repeat(4));
    editor.paste("p\n".repeat(20));
    const lines = editor.render(width);
    assertFits(lines, width, `width ${width}`);
    await assertScreen(lines, width);
  }
});

Deno.test("editor: the cursor marker appears only when focused; firstLineChanged follows edits", () => {
  const editor = new Editor({ theme: COLOR });
  press(editor, "abc");
  assert.ok(!editor.render(20).join("").includes(CURSOR_MARKER));
  assert.equal(editor.firstLineChanged(), null);
  editor.focused = true;
  assert.equal(editor.firstLineChanged(), 0);
  const row = editor.render(20)[1] ?? "";
  assert.equal(row, `abc${CURSOR_MARKER}\x1b[7m \x1b[27m`);
  press(editor, KEY.left);
  assert.equal(editor.firstLineChanged(), 0);
  assert.equal(editor.render(20)[1], `ab${CURSOR_MARKER}\x1b[7mc\x1b[27m`);
});

const COMMANDS = ["/model", "/mode", "/quit"];
const slash: AutocompleteProvider = {
  suggest: ({ text, cursor }) => {
    const prefix = text.slice(0, cursor);
    if (!prefix.startsWith("/") || prefix.includes(" ")) return null;
    return {
      from: 0,
      items: COMMANDS.filter((c) => c.startsWith(prefix)).map((value) => ({
        value,
        description: "cmd",
      })),
    };
  },
};

Deno.test("editor: autocomplete lists, navigates, accepts with tab or enter, closes on escape", () => {
  const sent: string[] = [];
  const editor = new Editor({ theme: PLAIN, autocomplete: slash, onSubmit: (t) => sent.push(t) });
  press(editor, "/mo");
  assert.ok(editor.showingSuggestions);
  assert.deepEqual(editor.render(30).slice(3).map(plain), ["› /model  cmd", "  /mode  cmd"]);
  press(editor, KEY.down, KEY.tab);
  assert.equal(show(editor), "/mode|");
  press(editor, KEY.backspace);
  assert.ok(editor.showingSuggestions);
  press(editor, KEY.enter);
  assert.equal(show(editor), "/model|");
  assert.deepEqual(sent, [], "enter accepted, did not submit");
  press(editor, KEY.escape);
  assert.ok(!editor.showingSuggestions);
  press(editor, KEY.enter);
  assert.deepEqual(sent, ["/model"]);
});

Deno.test("editor: tab forces completion and applies a single match directly", () => {
  const files: AutocompleteProvider = {
    suggest: ({ text, cursor, force }) =>
      force
        ? { from: text.lastIndexOf(" ", cursor - 1) + 1, items: [{ value: "src/main.ts" }] }
        : null,
  };
  const editor = new Editor({ theme: PLAIN, autocomplete: files });
  press(editor, "open sr");
  assert.ok(!editor.showingSuggestions);
  press(editor, KEY.tab);
  assert.equal(show(editor), "open src/main.ts|");
});

Deno.test("editor: async suggestions render when they arrive; stale answers are dropped", async () => {
  const pending: { resolve: () => void; text: string }[] = [];
  let renders = 0;
  const provider: AutocompleteProvider = {
    suggest: ({ text }) =>
      new Promise((resolve) => {
        pending.push({ text, resolve: () => resolve({ from: 0, items: [{ value: `${text}!` }] }) });
      }),
  };
  const editor = new Editor({
    theme: PLAIN,
    autocomplete: provider,
    requestRender: () => renders++,
  });
  press(editor, "a", "b");
  pending[0]?.resolve();
  await Promise.resolve();
  await Promise.resolve();
  assert.ok(!editor.showingSuggestions, "the answer for 'a' is stale");
  pending[1]?.resolve();
  await Promise.resolve();
  await Promise.resolve();
  assert.ok(editor.showingSuggestions);
  assert.equal(renders, 1);
  assert.deepEqual(editor.render(20).slice(3).map(plain), ["› ab!"]);
});

Deno.test("editor: a throwing provider is reported, editing goes on", () => {
  const errors: unknown[] = [];
  const editor = new Editor({
    theme: PLAIN,
    autocomplete: {
      suggest: () => {
        throw new Error("boom");
      },
    },
    onError: (error) => errors.push(error),
  });
  press(editor, "ok");
  assert.equal(editor.getText(), "ok");
  assert.equal(errors.length, 2);
});

Deno.test("editor: key releases and unknown escapes insert nothing", () => {
  const editor = new Editor({ theme: PLAIN });
  press(editor, "\x1b[97;1:3u", "\x1b[99~", "\x1b[200~x\x1b[201~");
  assert.equal(editor.getText(), "x");
});

Deno.test("editor: a recalled prompt or set text with tabs and control bytes renders within the width", () => {
  const editor = new Editor({ theme: PLAIN, pasteMaxLines: 1 });
  editor.focused = true;
  editor.handleInput("\x1b[200~a\tb\x07\nc\x1b[201~");
  editor.handleInput(KEY.enter);
  editor.handleInput(KEY.up);
  assert.equal(editor.getText(), "a    b\nc");
  editor.setText("x\ty\r\nz");
  assert.equal(editor.getText(), "x    y\nz");
  const lines = editor.render(8);
  const cleaned = lines.map((line) => line.replace(CURSOR_MARKER, ""));
  assert.ok(cleaned.every((line) => !["\t", "\x07", "\r"].some((char) => line.includes(char))));
  assertFits(lines, 8);
});

Deno.test("editor: a wide character after a word-boundary wrap is kept on the next row", async () => {
  const editor = new Editor({ theme: PLAIN });
  editor.setText(" aaaaaaaaa你b");
  const lines = editor.render(10);
  assert.deepEqual(lines.slice(1, -1).map(plain), [" ", "aaaaaaaaa", "你b"]);
  assertFits(lines, 10);
  await assertScreen(lines, 10);
});

Deno.test("editor: setText ends history browsing, so up starts again from the newest", () => {
  const editor = new Editor({ theme: PLAIN, history: ["first", "second", "third"] });
  press(editor, KEY.up, KEY.up);
  assert.equal(editor.getText(), "second");
  editor.setText(""); // what ctrl+c does
  press(editor, KEY.up);
  assert.equal(editor.getText(), "third");
});

Deno.test("editor: typing into a recalled prompt ends browsing; up recalls from the newest", () => {
  const editor = new Editor({ theme: PLAIN, history: ["first", "second"] });
  press(editor, KEY.up, KEY.up, "!");
  assert.equal(editor.getText(), "first!");
  press(editor, KEY.up);
  assert.equal(editor.getText(), "second");
  press(editor, KEY.down);
  assert.equal(editor.getText(), "first!", "the edited prompt is the draft");
});

Deno.test("editor: insertText turns CR and CRLF into newlines, like setText and paste", () => {
  const editor = new Editor({ theme: PLAIN });
  editor.insertText("x\ry\r\nz");
  assert.equal(editor.getText(), "x\ny\nz");
  assert.equal(show(editor), "x\ny\nz|");
});

Deno.test("editor property: rows fit the width and hold every character, in order", () => {
  const piece = fc.constantFrom(" ", "  ", "a", "word", "aaaaaaaaa", "你", "你好", "👍🏽", "e\u0301");
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 30 }), fc.integer({ min: 2, max: 16 }), (parts, w) => {
      const editor = new Editor({ theme: PLAIN, maxRows: 100 });
      const text = parts.join("");
      editor.setText(text);
      const lines = editor.render(w);
      assertFits(lines, w);
      assert.equal(lines.slice(1, -1).map(plain).join(""), text);
    }),
    { numRuns: 300 },
  );
});

Deno.test("editor: a multi-line suggestion description shows on its row with spaces", () => {
  const provider: AutocompleteProvider = {
    suggest: () => ({ from: 0, items: [{ value: "/x", description: "one\ntwo" }] }),
  };
  const editor = new Editor({ theme: PLAIN, autocomplete: provider });
  press(editor, "/");
  assert.deepEqual(editor.render(30).slice(3).map(plain), ["› /x  one two"]);
});
