/**
 * Hostile control sequences in the model's text, a tool's output, a
 * provider's error body and a stored session never reach the terminal: the
 * chat's writes are replayed into a terminal emulator that records title
 * changes, clipboard writes (OSC 52) and screen clears.
 */
// The harness comes first: it must load the terminal emulator before @panto/lib (see there).
import { type ChatHarness, createChatFixture, openChat, projectPath } from "./chat_harness.ts";
import assert from "node:assert/strict";
import xterm from "@xterm/headless";

/** Title (OSC 0), screen clear, clipboard write (OSC 52) and 8-bit C1 CSI/OSC. */
const HOSTILE = "\x1b]0;pwned-title\x07\x1b[2J\x1b]52;c;cHduZWQ=\x07\x9b2J\x9d2;c1-title\x9c";

/** What a terminal did with everything the chat wrote. */
interface Effects {
  titles: string[];
  clipboard: string[];
  clears: number;
}

/** Replays the chat's writes into a fresh emulator that records what they did. */
async function effectsOf(chat: ChatHarness): Promise<Effects> {
  await chat.terminal.flush();
  const term = new xterm.Terminal({ cols: 100, rows: 40, allowProposedApi: true });
  const effects: Effects = { titles: [], clipboard: [], clears: 0 };
  term.onTitleChange((title) => effects.titles.push(title));
  term.parser.registerOscHandler(52, (data) => {
    effects.clipboard.push(data);
    return true;
  });
  term.parser.registerCsiHandler({ final: "J" }, (params) => {
    if (params[0] === 2 || params[0] === 3) effects.clears++;
    return false;
  });
  await new Promise<void>((resolve) => term.write(chat.terminal.writes.join(""), resolve));
  term.dispose();
  return effects;
}

function assertHarmless(effects: Effects, writes: readonly string[]): void {
  assert.deepEqual(effects, { titles: [], clipboard: [], clears: 0 });
  const all = writes.join("");
  assert.ok(!/[\x80-\x9f]/.test(all), "no C1 control was written");
  assert.ok(!all.includes("\x1b]"), "no OSC was written");
}

Deno.test("chat: escapes in model text, thinking, tool output and tool arguments do nothing", async () => {
  const fixture = await createChatFixture();
  const chat = await openChat(fixture);
  try {
    await Deno.writeTextFile(projectPath(chat, "evil.txt"), `tool-before${HOSTILE}tool-after\n`);
    // Three deltas of 50 characters: the first ends on a lone ESC whose OSC comes in the next.
    const head = "model-start".padEnd(49) + "\x1b";
    const tail = "]0;split-title\x07model-middle" + HOSTILE;
    const text = head + tail + "model-end".padStart(100 - tail.length, "x");
    fixture.server.enqueue({
      kind: "turn",
      blocks: [
        { type: "thinking", thinking: `think-start${HOSTILE}think-end` },
        { type: "text", text },
        { type: "tool_use", id: "c1", name: "read", input: { path: `evil.txt` } },
      ],
    });
    fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "all done" }] });
    // As piped or sent by an extension: the editor never sees it.
    chat.chat.submit(`user-start${HOSTILE}user-end`);
    await chat.waitFor("all done");
    await chat.press("\x0f"); // ctrl+o: the tool's whole output and arguments
    const screen = await chat.waitFor("tool-after", { everywhere: true });
    for (const visible of ["panto ", "user-start", "user-end", "think-start", "think-end"]) {
      assert.ok(screen.includes(visible), `"${visible}" is shown:\n${screen}`);
    }
    for (const visible of ["model-start", "model-middle", "model-end", "tool-before"]) {
      assert.ok(screen.includes(visible), `"${visible}" is shown:\n${screen}`);
    }
    assert.ok(!screen.includes("split-title"), "the OSC split across deltas is removed whole");
    assertHarmless(await effectsOf(chat), chat.terminal.writes);
  } finally {
    await chat.close();
    await fixture.close();
  }
});

Deno.test("chat: a provider error body with escapes is shown without them", async () => {
  const fixture = await createChatFixture();
  const chat = await openChat(fixture);
  try {
    fixture.server.enqueue({
      kind: "http_error",
      status: 400,
      body: { error: { message: `bad-start${HOSTILE}bad-end`, type: "invalid_request_error" } },
    });
    await chat.send("hello");
    const screen = await chat.waitFor("bad-end");
    assert.match(screen, /The request failed .*bad-start.*bad-end/s);
    assert.ok(screen.includes("› hello"), "the earlier lines are still on the screen");
    assertHarmless(await effectsOf(chat), chat.terminal.writes);
  } finally {
    await chat.close();
    await fixture.close();
  }
});

Deno.test("chat: a resumed session and the /resume picker show stored escapes as text only", async () => {
  const fixture = await createChatFixture();
  try {
    const first = await openChat(fixture);
    try {
      fixture.server.enqueue({
        kind: "turn",
        blocks: [{ type: "text", text: `stored-answer${HOSTILE}stored-end` }],
      });
      first.chat.submit(`stored-prompt${HOSTILE}`);
      await first.waitFor("stored-end");
      await first.waitIdle();
    } finally {
      await first.close();
    }
    const resumed = await openChat(fixture, { argv: ["-c"] });
    try {
      await resumed.waitFor("Resumed session");
      await resumed.send("/resume");
      const screen = await resumed.waitFor("╭─ Sessions in");
      assert.ok(screen.includes("stored-answer") && screen.includes("stored-end"), screen);
      assert.ok(
        screen.split("stored-prompt").length >= 3,
        `prompt in history and picker:\n${screen}`,
      );
      assertHarmless(await effectsOf(resumed), resumed.terminal.writes);
    } finally {
      await resumed.press("\x1b");
      await resumed.close();
    }
  } finally {
    await fixture.close();
  }
});

Deno.test("chat: escapes typed or pasted into the editor, or in a completed file name, do nothing", async () => {
  const fixture = await createChatFixture();
  const chat = await openChat(fixture);
  try {
    await chat.type(`typed-start${HOSTILE}typed-end`);
    await chat.press(`\x1b[200~ pasted-start${HOSTILE}pasted-end\x1b[201~`);
    let screen = await chat.waitFor("pasted-end");
    assert.ok(screen.includes("typed-start") && screen.includes("panto "), screen);
    // A file name is untrusted too: the completed @path is stripped.
    await Deno.writeTextFile(projectPath(chat, `evil\x1b]0;file-title\x07\x9b2Jname.txt`), "");
    await chat.type(" @evil");
    await chat.press("\t");
    // The list typing opened shows the name too: wait for it completed in the text.
    screen = await chat.waitFor(/@evil\]0;file-title2Jname\.txt/);
    assert.match(screen, /typed-start.*@evil\]0;file-title2Jname\.txt/s, screen);
    assert.ok(screen.includes("panto "), screen);
    assertHarmless(await effectsOf(chat), chat.terminal.writes);
  } finally {
    await chat.close();
    await fixture.close();
  }
});
