/**
 * Pickers and session commands on the virtual terminal: pickers drawn as a
 * bordered panel in place of the editor (never over the transcript),
 * `/sessions` listing this directory's sessions with tab for all, `/session`,
 * and `/export` naming files by the full id, creating directories and
 * explaining a path it cannot write.
 */
// The harness comes first: it must load the terminal emulator before @panto/lib (see there).
import { type ChatHarness, KEYS, withChat } from "./chat_harness.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { allNodes } from "../../support/tree_nodes.ts";

const TAB = "\t";
const CTRL_L = "\x0c";
const CTRL_U = "\x15";
const CTRL_A = "\x01";
/** Wide enough that temp paths are not wrapped. */
const WIDE = { columns: 200 };

function answer(chat: ChatHarness, text: string): void {
  chat.fixture.server.enqueue({ kind: "turn", blocks: [{ type: "text", text }] });
}

async function ask(chat: ChatHarness, prompt: string, reply: string): Promise<void> {
  answer(chat, reply);
  await chat.send(prompt);
  await chat.waitFor(reply);
  await chat.waitIdle();
}

/** `choice`, or a failure when the picker is still open after 3 s. */
async function settled<T>(choice: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("the picker is still open after 3 s")), 3000);
  });
  try {
    return await Promise.race([choice, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Rows of the bordered panel on `screen`, from its top edge to its bottom edge. */
function panelRows(screen: string): string[] {
  const lines = screen.split("\n");
  const top = lines.findIndex((line) => line.startsWith("╭─"));
  const bottom = lines.findIndex((line, i) => i > top && line.startsWith("╰─"));
  assert.ok(top >= 0 && bottom > top, `a bordered panel is on screen:\n${screen}`);
  return lines.slice(top, bottom + 1);
}

/** Stores a finished session started in `cwd` directly (as another panto run would). */
async function storeSessionIn(chat: ChatHarness, cwd: string, prompt: string): Promise<string> {
  const session = chat.controller.store.create({ cwd });
  const entry = (role: "user" | "assistant", text: string) => ({
    message: {
      role,
      content: [{ type: "text" as const, text }],
      timestamp: new Date().toISOString(),
    },
    conversation: [],
    toolsAvailable: [],
  });
  await session.append([entry("user", prompt), entry("assistant", "ok")]);
  return session.id;
}

Deno.test("pickers: /model is a bordered panel with a title, filter and hints where the editor was", async () => {
  await withChat(async (chat) => {
    // A full screen of transcript: the picker is drawn over its bottom rows, moving none.
    for (let i = 0; i < 40; i++) chat.chat.notify(`transcript line ${i}`, "info");
    const before = (await chat.waitFor("transcript line 39")).split("\n");
    const lastTranscript = before.findLastIndex((line) => line.startsWith("transcript line"));

    await chat.send("/model");
    const screen = await chat.waitFor("╭─ Model");
    const rows = panelRows(screen);
    assert.match(rows[0]!, /^╭─ Model ─+╮$/);
    assert.match(rows.at(-1)!, /^╰─ ↑↓ move · type to filter · enter select · esc cancel ─+╯$/);
    for (const row of rows.slice(1, -1)) assert.match(row, /^│ .* │$/, row);
    assert.match(rows[1]!, /│ › /, "the filter line comes first");
    assert.ok(rows.some((row) => /› fast\b/.test(row)), "the current model is selected");
    assert.ok(rows.some((row) => /\bsmart\b/.test(row)));
    // The transcript above the panel stays on its rows, none overwritten or scrolled away.
    const lines = screen.split("\n");
    const panelTop = lines.indexOf(rows[0]!);
    const shown = lines.slice(0, panelTop).filter((line) => line.startsWith("transcript line"));
    assert.ok(shown.length > 5, `transcript visible above the panel:\n${screen}`);
    assert.deepEqual(lines.slice(0, panelTop), before.slice(0, panelTop), screen);
    assert.ok(!lines.some((line) => /^─+$/.test(line)), "the editor gives its place to the panel");

    // Typing filters; enter selects; the editor comes back.
    await chat.type("sma");
    assert.match(await chat.waitFor("› sma"), /› smart/);
    await chat.press(KEYS.enter);
    const after = await chat.waitFor("Model: smart");
    assert.doesNotMatch(after, /╭─ Model/);
    assert.ok(after.split("\n").some((line) => /^─+$/.test(line)), "the editor is back");
    assert.ok(after.includes(before[lastTranscript]!), "the newest transcript line is back");
    await chat.send("/thinking");
    await chat.waitFor("╭─ Thinking");
    await chat.press(KEYS.escape);
    await chat.waitFor((text) => !text.includes("╭─ Thinking"));
    await chat.type("still typing here");
    await chat.waitFor("still typing here");
  });
});

Deno.test("pickers: /sessions lists this directory's sessions; tab shows every directory's", async () => {
  await withChat(async (chat) => {
    await ask(chat, "question here", "Answer here.");
    const elsewhere = join(chat.fixture.home, "other-project");
    await storeSessionIn(chat, elsewhere, "question elsewhere");

    await chat.send("/sessions");
    let rows = panelRows(await chat.waitFor(`╭─ Sessions in ${chat.fixture.project}`)).join("\n");
    assert.match(rows, /question here\s+(just now|\dm ago) · \d+ messages/);
    assert.doesNotMatch(rows, /question elsewhere/);
    assert.match(rows, /tab all directories ─*╯/);

    await chat.press(TAB);
    rows = panelRows(await chat.waitFor("╭─ All sessions")).join("\n");
    assert.match(rows, /question here .* · [^\n]*panto-chat-project-/);
    assert.match(rows, /question elsewhere .* · [^\n]*other-project/);
    assert.match(rows, /tab this directory ─*╯/);
    await chat.press(TAB);
    await chat.waitFor("╭─ Sessions in");
    await chat.press(KEYS.escape);
    await chat.waitFor((text) => !text.includes("╭─ Sessions"));
  }, WIDE);
});

Deno.test("/session shows the id, the file, the message and token counts and the cost", async () => {
  await withChat(async (chat) => {
    await chat.send("/session");
    await chat.waitFor("Saved in: not yet (after the first answer)");
    await ask(chat, "count me", "Counted.");
    await chat.send("/session");
    const id = chat.controller.session.id;
    const screen = await chat.waitFor(/Messages: 3[^]*Cost:/);
    assert.match(screen, new RegExp(`Session ${id}`));
    assert.match(
      screen,
      new RegExp(`Saved in: ${join(chat.fixture.home, "sessions", `${id}.jsonl`)}`),
    );
    assert.match(screen, /Messages: 3/);
    assert.match(screen, /Tokens: \S+ in, \S+ out/);
    assert.match(screen, /Cost: (\$\d|unknown)/);
  }, WIDE);
});

Deno.test("/export names the file with the full id, creates directories, explains a path it cannot write", async () => {
  await withChat(async (chat) => {
    await ask(chat, "export me", "Exported answer.");
    const id = chat.controller.session.id;
    await chat.send("/export");
    await chat.waitFor("Exported to");
    const named = join(chat.fixture.project, `panto-session-${id}.md`);
    assert.match(await Deno.readTextFile(named), /export me/);

    const nested = join(chat.fixture.project, "docs", "sessions", "today.md");
    await chat.send(`/export ${nested}`);
    await chat.waitFor(`Exported to ${nested}`);
    assert.match(await Deno.readTextFile(nested), /Exported answer\./);

    // A directory: the file goes inside it, named by the id.
    await chat.send(`/export docs`);
    await chat.waitFor(
      `Exported to ${join(chat.fixture.project, "docs", `panto-session-${id}.md`)}`,
    );

    const blocker = join(chat.fixture.project, "a-file");
    await Deno.writeTextFile(blocker, "not a directory");
    await chat.send(`/export a-file/inside.md`);
    const screen = (await chat.waitFor("Could not export")).replace(/\s+/g, " ");
    assert.match(
      screen,
      /Could not export to \S*a-file\/inside\.md: a file stands where a directory/,
    );
    assert.match(screen, /Pass another path: \/export PATH/);
  }, WIDE);
});

Deno.test("the session name appears in the footer once set, and goes with /new", async () => {
  await withChat(async (chat) => {
    const footer = (screen: string) =>
      screen.split("\n").findLast((l) => l.startsWith(chat.fixture.project));
    assert.equal(footer(await chat.screen()), chat.fixture.project);
    await chat.send("/name refactor-auth");
    await chat.waitFor((screen) => footer(screen)?.endsWith("· refactor-auth") === true);
    await ask(chat, "hello", "Hi.");
    assert.equal(footer(await chat.screen()), `${chat.fixture.project} · refactor-auth`);
    await chat.send("/new");
    await chat.waitFor((screen) =>
      screen.includes("New session.") && footer(screen) === chat.fixture.project
    );
  });
});

Deno.test("pickers: /tree lists the entries; choosing a prompt puts it in the editor, sending it makes a sibling", async () => {
  await withChat(async (chat) => {
    await ask(chat, "first prompt", "First answer.");
    await ask(chat, "second prompt", "Second answer.");
    await chat.send("/tree");
    const rows = panelRows(await chat.waitFor("Session tree"));
    assert.ok(rows.some((row) => row.includes("● you: first prompt")), rows.join("\n"));
    assert.ok(rows.some((row) => row.includes("● agent: Second answer.")), rows.join("\n"));
    await chat.type("second");
    await chat.press(KEYS.enter);
    await chat.waitFor("Summarise the branch you leave?");
    await chat.press(KEYS.enter); // no summary
    await chat.waitFor("edit it and send it to start the new branch");
    assert.equal(chat.chat.editor.getText(), "second prompt");
    await chat.type(", edited");
    answer(chat, "Edited answer.");
    await chat.press(KEYS.enter);
    await chat.waitFor("Edited answer.");
    await chat.waitIdle();
    const sent = JSON.stringify(chat.fixture.server.requests.at(-1)?.body);
    assert.match(sent, /second prompt, edited/);
    assert.doesNotMatch(sent, /Second answer\./, "the abandoned branch is not sent");
    const { roots } = await chat.controller.sessionTree();
    const branchPoint = allNodes(roots).find((node) => node.children.length === 2);
    assert.deepEqual(branchPoint?.children.map((node) => [node.preview, node.active]), [
      ["second prompt", false],
      ["second prompt, edited", true],
    ]);
  }, WIDE);
});

Deno.test("/session names the SQLite database on that store", async () => {
  await withChat(async (chat) => {
    await ask(chat, "count me", "Counted.");
    await chat.send("/session");
    const screen = await chat.waitFor(/Saved in: .*\(SQLite\)/);
    assert.doesNotMatch(screen, /\.jsonl/);
  }, { ...WIDE, argv: ["--store", "sqlite"] });
});

for (const store of ["jsonl", "sqlite"]) {
  Deno.test(`pickers: /tree ctrl+l labels the selected entry at once; an empty label removes it (${store})`, async () => {
    await withChat(async (chat) => {
      const expected = store === "sqlite" ? "SQLiteStore" : "FileSystemJSONLStore";
      assert.equal(chat.controller.store.constructor.name, expected);
      await ask(chat, "first prompt", "First answer.");
      await chat.send("/tree");
      await chat.waitFor("Session tree");
      assert.match(
        panelRows(await chat.waitFor("ctrl+l label")).at(-1)!,
        /tab prompts only · ctrl\+l label/,
      );
      await chat.type("first p");
      await chat.press(CTRL_L);
      let rows = panelRows(await chat.waitFor("Label for you: first prompt"));
      assert.match(rows.at(-1)!, /enter save · empty removes it · esc back/);
      await chat.type("before the change");
      await chat.press(KEYS.enter);
      rows = panelRows(await chat.waitFor("Session tree"));
      assert.ok(
        rows.some((row) => /› ● you: first prompt\s+before the change/.test(row)),
        `labelled, still selected:\n${rows.join("\n")}`,
      );
      const labels = async () => {
        const { roots } = await chat.controller.sessionTree();
        return allNodes(roots).flatMap((node) =>
          node.label === undefined ? [] : [[node.preview, node.label]]
        );
      };
      assert.deepEqual(await labels(), [["first prompt", "before the change"]], "stored");

      await chat.press(CTRL_L);
      await chat.waitFor("Label for you: first prompt");
      await chat.press(CTRL_U);
      await chat.press(KEYS.escape);
      await chat.waitFor("Session tree");
      assert.deepEqual(
        await labels(),
        [["first prompt", "before the change"]],
        "esc changes nothing",
      );
      await chat.press(CTRL_L);
      await chat.waitFor("Label for you: first prompt");
      await chat.press(CTRL_U);
      await chat.press(KEYS.enter);
      rows = panelRows(await chat.waitFor("Session tree"));
      assert.ok(!rows.some((row) => row.includes("before the change")), rows.join("\n"));
      assert.deepEqual(await labels(), []);
      await chat.press(KEYS.escape);
      await chat.waitFor(/^─+$/m);
      assert.equal(chat.chat.editor.getText(), "", "nothing chosen");
    }, { ...WIDE, argv: ["--store", store] });
  });
}

Deno.test("pickers: the label box edits with the editor keys; ctrl+d there deletes, it does not quit", async () => {
  await withChat(async (chat) => {
    await ask(chat, "first prompt", "First answer.");
    await chat.send("/tree");
    await chat.waitFor("Session tree");
    await chat.press(CTRL_L);
    await chat.waitFor("Label for agent: First answer.");
    await chat.type("xdone");
    await chat.press(CTRL_A, KEYS.ctrlD);
    assert.equal(chat.quitCount, 0, "ctrl+d on the chat's empty editor quits; not in the box");
    await chat.press(KEYS.enter);
    const rows = panelRows(await chat.waitFor("Session tree"));
    assert.ok(
      rows.some((row) => /agent: First answer\.\s+current · done/.test(row)),
      rows.join("\n"),
    );
    await chat.press(KEYS.escape);
    await chat.waitFor(/^─+$/m);
    await chat.press(KEYS.ctrlD);
    assert.equal(chat.quitCount, 1, "in the chat's editor it still quits");
  }, WIDE);
});

Deno.test("pickers: esc during a turn closes a picker (an extension's) and leaves the turn running", async () => {
  await withChat(async (chat) => {
    chat.fixture.server.enqueue({
      kind: "turn",
      blocks: [{ type: "text", text: "The slow answer." }],
      headerDelayMs: 400,
    });
    await chat.send("slow question");
    await chat.waitFor("Working");
    const picked = chat.chat.pick({ title: "Branch", items: [{ value: "main", label: "main" }] });
    await chat.waitFor("╭─ Branch");
    await chat.press(KEYS.escape);
    assert.equal(await picked, null);
    assert.ok(chat.chat.busy, "the turn goes on");
    const screen = await chat.waitFor("The slow answer.");
    assert.doesNotMatch(screen, /Interrupted|╭─ Branch/);
  });
});

Deno.test("pickers: ctrl+c cancels a picker and its label box; it does not clear the editor, quit or switch models", async () => {
  await withChat(async (chat) => {
    chat.chat.editor.setText("a draft");
    const picked = chat.chat.pick({ title: "Branch", items: [{ value: "main", label: "main" }] });
    await chat.waitFor("╭─ Branch");
    await chat.press(KEYS.ctrlC);
    assert.equal(await settled(picked), null, "ctrl+c cancels, as esc does");
    await chat.waitFor((text) => !text.includes("╭─ Branch"));
    assert.equal(chat.chat.editor.getText(), "a draft", "the hidden editor keeps its text");

    const again = chat.chat.pick({ title: "Branch", items: [{ value: "main", label: "main" }] });
    await chat.waitFor("╭─ Branch");
    await chat.press("\x10"); // ctrl+p: the picker's, not the model cycle
    await chat.press(KEYS.ctrlC, KEYS.ctrlC);
    assert.equal(await settled(again), null);
    assert.equal(chat.quitCount, 0, "ctrl+c in a picker never counts towards quitting");
    assert.equal(chat.controller.state().model.alias, "fast", "ctrl+p did not switch the model");

    chat.chat.editor.setText("");
    await ask(chat, "first prompt", "First answer.");
    await chat.send("/tree");
    await chat.waitFor("Session tree");
    await chat.press(CTRL_L);
    await chat.waitFor("Label for agent: First answer.");
    await chat.press(KEYS.ctrlC);
    await chat.waitFor((text) => text.includes("Session tree") && !text.includes("Label for"));
  }, WIDE);
});

Deno.test("pickers: an item that asks opens a text box; enter gives its value for the text, esc and ctrl+c cancel the picker", async () => {
  await withChat(async (chat) => {
    const greet = () =>
      chat.chat.pick({
        title: "Greet",
        items: [{ value: "plain", label: "plain hello" }, {
          value: "ask",
          label: "hello with a name…",
        }],
        ask: {
          value: "ask",
          title: "Whose name?",
          hints: ["enter greet", "esc cancel"],
          choose: (text) => `hello ${text}`,
        },
      });
    const openBox = async () => {
      await chat.waitFor("╭─ Greet");
      await chat.press(KEYS.down, KEYS.enter);
      const rows = panelRows(await chat.waitFor("╭─ Whose name?"));
      assert.match(rows.at(-1)!, /enter greet · esc cancel/);
    };
    chat.chat.editor.setText("a draft");
    let picked = greet();
    await openBox();
    await chat.type("  Ada   Lovelace ");
    await chat.press(KEYS.enter);
    assert.equal(await settled(picked), "hello Ada Lovelace", "the text, trimmed");
    for (const key of [KEYS.escape, KEYS.ctrlC]) {
      picked = greet();
      await openBox();
      await chat.type("Bob");
      await chat.press(key);
      assert.equal(await settled(picked), null, `${JSON.stringify(key)} cancels the picker`);
      const screen = await chat.waitFor((text) => !text.includes("╭─"));
      assert.match(screen, /a draft/, "the editor is back");
    }
    picked = greet();
    await chat.waitFor("╭─ Greet");
    await chat.press(KEYS.enter);
    assert.equal(await settled(picked), "plain", "the other items do not ask");
  });
});
