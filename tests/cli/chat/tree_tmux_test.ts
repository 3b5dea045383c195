/**
 * The session tree end to end in a real pty (tmux) against the fake LLM
 * server: `/tree` (branch points, the active path, filter, labels, going
 * back to an earlier point with or without a summary of the branch left,
 * and with instructions for it, editing an earlier prompt into a sibling),
 * the tree and labels after a resume, `/fork` and `--fork ID`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type ChatPane, withChatPane } from "../../support/chat_pane.ts";
import type { FakeLlmServer } from "../../support/fake_llm_server.ts";
import {
  PANTO_SH_COMMAND,
  pantoPaneEnv,
  shellQuote,
  tmuxAvailable,
  TmuxSession,
} from "../../support/tmux.ts";

if (!tmuxAvailable) {
  console.log("skipped: tree_tmux_test needs tmux on PATH (apt-get install -y tmux)");
}

const READY = /fast · thinking off/;

/** A tmux test that starts in a chat where "first question" got "Answer one.". */
function treeTest(name: string, body: (pane: ChatPane) => Promise<void>): void {
  Deno.test({
    name,
    ignore: !tmuxAvailable,
    async fn() {
      await withChatPane({}, async (pane) => {
        await pane.tmux.waitFor(READY);
        await ask(pane, "first question", "Answer one.");
        await body(pane);
      });
    },
  });
}

async function ask(
  { server, tmux }: { server: FakeLlmServer; tmux: TmuxSession },
  prompt: string,
  reply: string,
): Promise<void> {
  server.enqueue({ kind: "turn", blocks: [{ type: "text", text: reply }] });
  await tmux.type(prompt);
  await tmux.keys("Enter");
  await tmux.waitFor(new RegExp(reply.replace(/[.]/g, "\\.")));
  await tmux.waitFor(/^─+$/m);
}

/** Opens /tree and gives the panel's rows. */
async function openTree(tmux: TmuxSession): Promise<string[]> {
  await tmux.type("/tree");
  await tmux.keys("Enter");
  return panelRows(await tmux.waitFor(/╰─ ↑↓ move/));
}

/** The rows of the panel titled `title`, once drawn whole (its closing border on screen too). */
async function panelOf(tmux: TmuxSession, title: RegExp): Promise<string[]> {
  return panelRows(await tmux.waitFor(new RegExp(`${title.source}[\\s\\S]*\\n╰─`)));
}

/** The bordered panel's rows on `screen`. */
function panelRows(screen: string[]): string[] {
  const top = screen.findIndex((line) => line.startsWith("╭─"));
  const bottom = screen.findIndex((line, i) => i > top && line.startsWith("╰─"));
  assert.ok(top >= 0 && bottom > top, `a bordered panel:\n${screen.join("\n")}`);
  return screen.slice(top, bottom + 1);
}

/** Chooses "Answer one." in /tree; gives the rows of the question that move asks. */
async function backToAnswerOne(tmux: TmuxSession): Promise<string[]> {
  await openTree(tmux);
  await tmux.type("Answer one.");
  await tmux.keys("Enter");
  return await panelOf(tmux, /╭─ Summarise the branch you leave\?/);
}

/** Answers the question a move that leaves a branch asks: no summary. */
async function noSummary(tmux: TmuxSession): Promise<void> {
  const rows = await panelOf(tmux, /╭─ Summarise the branch you leave\?/);
  assert.match(rows[2]!, /› No summary/, "no summary is the default");
  await tmux.keys("Enter");
}

/** Waits for the notice that shows the branch summary `summary`. */
async function summaryShown(tmux: TmuxSession, summary: string): Promise<void> {
  await tmux.waitFor(/Summary of the branch left \(it goes with your next prompt\):/);
  await tmux.waitFor(new RegExp(summary.replace(/[.]/g, "\\.")));
}

/** Sends the next prompt and checks `summary` went with it, after its text. */
async function summaryGoesWithNextPrompt(pane: ChatPane, summary: string): Promise<void> {
  await ask(pane, "try the safe way", "Safe way works.");
  const [user] = lastRequestTexts(pane.server).slice(-1);
  assert.match(user!, /^user: try the safe way\n\n<branch_summary>\n/);
  assert.ok(user!.endsWith(`${summary}\n</branch_summary>`), user);
}

/**
 * Waits for `notice` and "second question" offered in the editor, clears it,
 * sends `prompt` instead (answered `reply`) and checks the request holds the first exchange and
 * `prompt`, not the second question.
 */
async function sendInstead(
  pane: ChatPane,
  notice: RegExp,
  [prompt, reply]: [string, string],
): Promise<void> {
  await pane.tmux.waitFor(notice);
  await pane.tmux.waitFor(/^second question$/m);
  await pane.tmux.keys("C-u");
  await ask(pane, prompt, reply);
  assert.deepEqual(lastRequestTexts(pane.server), [
    "user: first question",
    "assistant: Answer one.",
    `user: ${prompt}`,
  ]);
}

/** Esc, then a pause: a key typed right after it would read as alt+key. */
async function escape(tmux: TmuxSession): Promise<void> {
  await tmux.keys("Escape");
  await tmux.waitFor(/^─+$/m);
  await new Promise((resolve) => setTimeout(resolve, 200));
}

/** The user and assistant texts of the last request, in order. */
function lastRequestTexts(server: FakeLlmServer): string[] {
  const body = server.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
  return body.messages.filter((m) => m.role !== "system").map((m) =>
    `${m.role}: ${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`
  );
}

/** Each session file's header, by session id. */
async function sessionHeaders(home: string): Promise<Map<string, Record<string, unknown>>> {
  const headers = new Map<string, Record<string, unknown>>();
  for await (const entry of Deno.readDir(join(home, "sessions"))) {
    if (!entry.name.endsWith(".jsonl")) continue;
    const text = await Deno.readTextFile(join(home, "sessions", entry.name));
    const header = JSON.parse(text.split("\n")[0]!) as Record<string, unknown>;
    headers.set(header.id as string, { ...header, text });
  }
  return headers;
}

/** Quits the pane's panto, then runs `panto args` in another pane on the same home and project. */
async function rerun(pane: ChatPane, args: string[], fn: (tmux: TmuxSession) => Promise<void>) {
  await pane.tmux.keys("C-d");
  await pane.tmux.waitFor(/\$ ?$|^$/m, { timeoutMs: 10_000 }).catch(() => {});
  await new Promise((resolve) => setTimeout(resolve, 500));
  const tmux = await TmuxSession.start(
    `${PANTO_SH_COMMAND} ${args.map(shellQuote).join(" ")}; sleep 60`,
    { cols: 100, rows: 30, cwd: pane.project, env: pantoPaneEnv(pane.home) },
  );
  try {
    await tmux.waitFor(READY);
    await fn(tmux);
  } finally {
    await tmux.close();
  }
}

treeTest(
  "tmux /tree: branch points, active path, filter, going back, editing an earlier prompt",
  async (pane) => {
    const { server, tmux } = pane;
    await ask(pane, "second question", "Answer two.");

    let rows = await openTree(tmux);
    assert.match(rows[0]!, /^╭─ Session tree \(● active path\) ─+╮$/);
    assert.match(
      rows.at(-1)!,
      /↑↓ move · type to filter · enter select · esc cancel · tab prompts only · ctrl\+l label/,
    );
    assert.ok(rows.some((r) => /│ {3}● you: first question\s+│/.test(r)), rows.join("\n"));
    assert.ok(rows.some((r) => /│ › ● agent: Answer two\.\s+current/.test(r)), rows.join("\n"));

    // Edit and resubmit the second prompt: a sibling of the original.
    await tmux.keys("Up");
    await tmux.keys("Enter");
    await noSummary(tmux);
    await sendInstead(pane, /edit it and send it to start the new branch/, [
      "second question, edited",
      "Answer two b.",
    ]);

    rows = await openTree(tmux);
    const tree = rows.slice(2, -1).map((r) => r.replace(/^│ [ ›] /, "").replace(/\s*│$/, ""));
    assert.deepEqual(tree.slice(1), [
      "● you: first question",
      "● agent: Answer one.  2 branches",
      "├─ ○ you: second question",
      "│  ○ agent: Answer two.",
      "└─ ● you: second question, edited",
      "   ● agent: Answer two b.  current",
    ]);

    // The filter finds an entry on the abandoned branch; continuing from it.
    await tmux.type("Answer two.");
    rows = panelRows(await tmux.waitFor(/› Answer two\./));
    assert.match(rows[2]!, /› │ {2}○ agent: Answer two\./, rows.join("\n"));
    await tmux.keys("Enter");
    await noSummary(tmux);
    // The notice of the first move may still be on screen: wait for the redrawn old branch.
    await tmux.waitFor(/^(?![\s\S]*second question, edited)[\s\S]*Continuing from an earlier/);
    await ask(pane, "third question", "Answer three.");
    assert.deepEqual(lastRequestTexts(server), [
      "user: first question",
      "assistant: Answer one.",
      "user: second question",
      "assistant: Answer two.",
      "user: third question",
    ]);
    rows = await openTree(tmux);
    assert.ok(rows.some((r) => /├─ ● you: second question\s+│/.test(r)), rows.join("\n"));
    assert.ok(rows.some((r) => /│ {2}● you: third question/.test(r)), rows.join("\n"));
    assert.ok(rows.some((r) => /└─ ○ you: second question, edited/.test(r)), rows.join("\n"));
    await escape(tmux);
    const [session] = (await sessionHeaders(pane.home)).values();
    const entries = (session!.text as string).trim().split("\n").slice(1).map((l) => JSON.parse(l));
    assert.equal(entries.filter((e) => e.type === "message").length, 9, "one session, 9 entries");
  },
);

treeTest(
  "tmux /tree: the branch left can be summarised; the summary goes with the next prompt",
  async (pane) => {
    const { server, tmux } = pane;
    await ask(pane, "try the risky way", "Risky way failed.");
    // Stopped with esc while the model writes it: the session stays where it was.
    await backToAnswerOne(tmux);
    server.enqueue({
      kind: "turn",
      blocks: [{ type: "text", text: "Late." }],
      headerDelayMs: 30_000,
    });
    await tmux.keys("Down");
    await tmux.keys("Enter");
    await tmux.waitFor(/Summarising the branch you leave \(esc stops it\)/);
    await tmux.keys("Escape");
    await tmux.waitFor(/Summary stopped: the session stays where it was\./);
    let rows = await openTree(tmux);
    assert.ok(
      rows.some((r) => /› ● agent: Risky way failed\.\s+current/.test(r)),
      rows.join("\n"),
    );
    await escape(tmux);

    await backToAnswerOne(tmux);
    server.enqueue({
      kind: "turn",
      blocks: [{ type: "text", text: "The risky way was tried and failed." }],
    });
    await tmux.keys("Down");
    await tmux.keys("Enter");
    await summaryShown(tmux, "The risky way was tried and failed.");
    assert.match(JSON.stringify(server.requests.at(-1)!.body), /try the risky way/);
    await summaryGoesWithNextPrompt(pane, "The risky way was tried and failed.");
    assert.ok(
      lastRequestTexts(server).every((text) => !text.includes("Risky way failed")),
      "the branch left is not sent",
    );
    rows = await openTree(tmux);
    assert.ok(rows.some((r) => /├─ ○ you: try the risky way/.test(r)), rows.join("\n"));
    assert.ok(rows.some((r) => /└─ ● you: try the safe way/.test(r)), rows.join("\n"));
  },
);

treeTest(
  "tmux /tree: the summary can follow instructions typed for it; esc there cancels the move",
  async (pane) => {
    const { server, tmux } = pane;
    await ask(pane, "try the risky way", "Risky way failed.");
    /** Moves back to the first answer and picks the summary with instructions. */
    const instructionsBox = async () => {
      const rows = await backToAnswerOne(tmux);
      assert.match(rows[4]!, /│ {3}Summarise it, with my instructions…/, rows.join("\n"));
      await tmux.keys("Down");
      await tmux.keys("Down");
      await tmux.keys("Enter");
      return await panelOf(tmux, /╭─ What should the summary of the branch keep\?/);
    };

    // Esc in the box: no summary asked for, the session stays where it was.
    let rows = await instructionsBox();
    assert.match(rows.at(-1)!, /enter summarise · empty: no instructions · esc cancel the move/);
    const requests = server.requests.length;
    await tmux.type("never sent");
    await escape(tmux);
    await tmux.waitFor(/Move cancelled: the session stays where it was\./);
    assert.equal(server.requests.length, requests, "no summary was asked for");
    rows = await openTree(tmux);
    assert.ok(
      rows.some((r) => /› ● agent: Risky way failed\.\s+current/.test(r)),
      rows.join("\n"),
    );
    await escape(tmux);

    // Enter: the summary request carries the instructions.
    await instructionsBox();
    server.enqueue({
      kind: "turn",
      blocks: [{ type: "text", text: "The risky way failed on the lock." }],
    });
    await tmux.type("keep the lock error");
    await tmux.keys("Enter");
    await summaryShown(tmux, "The risky way failed on the lock.");
    const request = JSON.stringify(server.requests.at(-1)!.body);
    assert.match(request, /Additional instructions: keep the lock error/);
    assert.match(request, /try the risky way/, "it is the summary of the branch left");
    await summaryGoesWithNextPrompt(pane, "The risky way failed on the lock.");
  },
);

treeTest(
  "tmux /tree: ctrl+l labels an entry at once; the label and the tree are there after -c",
  async (pane) => {
    const { tmux } = pane;
    await ask(pane, "second question", "Answer two.");
    await openTree(tmux);
    await tmux.type("first question");
    await tmux.keys("C-l");
    let rows = await panelOf(tmux, /╭─ Label for you: first question/);
    assert.match(rows.at(-1)!, /enter save · empty removes it · esc back/);
    await tmux.type("the start");
    await tmux.keys("Enter");
    rows = await panelOf(tmux, /╭─ Session tree/);
    assert.ok(
      rows.some((r) => /› ● you: first question\s+the start\s+│$/.test(r)),
      rows.join("\n"),
    );
    await escape(tmux);

    await rerun(pane, ["-c"], async (resumed) => {
      await resumed.waitFor(/Resumed session/);
      const rows = await openTree(resumed);
      assert.ok(
        rows.some((r) => /● you: first question\s+the start\s+│$/.test(r)),
        rows.join("\n"),
      );
      assert.ok(rows.some((r) => /› ● agent: Answer two\.\s+current/.test(r)), rows.join("\n"));
    });
  },
);

treeTest(
  "tmux /fork (at a prompt, at the current point) and --fork ID: new sessions recording their parent",
  async (pane) => {
    const { server, tmux } = pane;
    await ask(pane, "second question", "Answer two.");
    const original = [...(await sessionHeaders(pane.home)).keys()][0]!;

    // At the current point: the whole conversation.
    await tmux.type("/fork");
    await tmux.keys("Enter");
    const rows = await panelOf(tmux, /╭─ Fork from \(● active path\)/);
    assert.ok(rows.some((r) => /› ● agent: Answer two\.\s+current/.test(r)), rows.join("\n"));
    await tmux.keys("Enter");
    const screen = (await tmux.waitFor(/Forked into session (\S+)/)).join("\n");
    const forked = /Forked into session (\S+)/.exec(screen)![1]!;
    assert.notEqual(forked, original);
    await ask(pane, "question in the fork", "Fork answer.");
    assert.deepEqual(lastRequestTexts(server), [
      "user: first question",
      "assistant: Answer one.",
      "user: second question",
      "assistant: Answer two.",
      "user: question in the fork",
    ]);
    let headers = await sessionHeaders(pane.home);
    assert.equal(headers.get(forked)?.parentSessionId, original);
    assert.doesNotMatch(headers.get(original)!.text as string, /question in the fork/);

    // At a prompt: a session up to it, the prompt in the editor.
    await tmux.type("/fork");
    await tmux.keys("Enter");
    await tmux.waitFor(/╭─ Fork from \(● active path\)/);
    await tmux.type("you: second question");
    await tmux.waitFor(/› ● you: second question/);
    await tmux.keys("Enter");
    await sendInstead(pane, /edit it and send it to go on in the new session/, [
      "other second question",
      "Other answer two.",
    ]);
    headers = await sessionHeaders(pane.home);
    const atPrompt = [...headers.values()].find((h) =>
      (h.text as string).includes("other second question")
    );
    assert.equal(atPrompt?.parentSessionId, forked);
    assert.doesNotMatch(headers.get(forked)!.text as string, /other second question/);

    await rerun(pane, ["--fork", original], async (again) => {
      await again.waitFor(/Forked session \S+ into a new session/);
      await again.waitFor(/Answer one\./);
      await ask({ server, tmux: again }, "question in the second fork", "Second fork answer.");
      assert.deepEqual(lastRequestTexts(server), [
        "user: first question",
        "assistant: Answer one.",
        "user: second question",
        "assistant: Answer two.",
        "user: question in the second fork",
      ]);
    });
    headers = await sessionHeaders(pane.home);
    assert.equal(headers.size, 4);
    const second = [...headers.values()].find((h) =>
      (h.text as string).includes("question in the second fork")
    );
    assert.equal(second?.parentSessionId, original);
  },
);
