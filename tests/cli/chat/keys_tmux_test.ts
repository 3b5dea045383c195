/**
 * The daily keys and commands pi users type, under the installed `panto`
 * command in a real pty (tmux) against the fake LLM server: `!!command`
 * (output shown, never sent), esc twice on an empty editor (`/tree`; a
 * single esc does nothing, esc while a turn streams interrupts it), ctrl+l
 * (the model picker; rebindable), `/hotkeys` (the user's bindings
 * included), `/copy` (OSC 52 to the terminal, or the clipboard tool) and
 * `panto A B` (two prompts in turn).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type ChatPane, type ChatPaneOptions, withChatPane } from "../../support/chat_pane.ts";
import { withInstalledPanto } from "../../support/installed_panto.ts";
import { shellQuote, tmuxAvailable, type TmuxSession } from "../../support/tmux.ts";
import { fakeTool } from "./clipboard_fakes.ts";

if (!tmuxAvailable) {
  console.log("skipped: keys_tmux_test needs tmux on PATH (apt-get install -y tmux)");
}

const READY = /fast · thinking off/;
/** The first screen may wait for the launcher and a cold module cache. */
const START_MS = 90_000;
/** The bottom border of a picker panel. */
const PANEL = /╰─ ↑↓ move/;

/** Runs `body` in a chat pane of the installed command, once it is ready for input. */
function inInstalledChat(
  options: Omit<ChatPaneOptions, "command">,
  body: (pane: ChatPane) => Promise<void>,
): Promise<void> {
  return withInstalledPanto((panto) =>
    withChatPane({ ...options, command: shellQuote(panto) }, async (pane) => {
      await pane.tmux.waitFor(READY, { timeoutMs: START_MS });
      await body(pane);
    })
  );
}

/** A test in a chat pane of the installed command. */
function keysTest(
  name: string,
  options: Omit<ChatPaneOptions, "command">,
  body: (pane: ChatPane) => Promise<void>,
): void {
  Deno.test({
    name: `installed panto in tmux: ${name}`,
    ignore: !tmuxAvailable,
    fn: () => inInstalledChat(options, body),
  });
}

async function ask({ server, tmux }: ChatPane, prompt: string, reply: string): Promise<void> {
  server.enqueue({ kind: "turn", blocks: [{ type: "text", text: reply }] });
  await send(tmux, prompt);
  await tmux.waitFor(new RegExp(reply.replace(/[.]/g, "\\.")));
  await idle(tmux);
}

async function send(tmux: TmuxSession, line: string): Promise<void> {
  await tmux.type(line);
  await tmux.keys("Enter");
}

/** Nothing running: the loader's "esc to cancel" line is gone. */
async function idle(tmux: TmuxSession): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (/esc to cancel|Working/.test((await tmux.screen()).join("\n"))) {
    if (Date.now() > deadline) throw new Error("the chat did not come back to idle");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A lone esc, then a pause: a key typed right after it would read as
 * alt+key, and one within pi's 500 ms as the second esc.
 */
async function escapeAlone(tmux: TmuxSession): Promise<void> {
  await tmux.keys("Escape");
  await new Promise((resolve) => setTimeout(resolve, 700));
}

/** Types a probe and waits for it in the editor: no picker took the keys. */
async function editorTakesKeys(tmux: TmuxSession, probe: string): Promise<void> {
  await tmux.type(probe);
  const screen = await tmux.waitFor(new RegExp(`^${probe}$`, "m"));
  assert.doesNotMatch(screen.join("\n"), PANEL, "no picker is open");
  await tmux.keys("C-u");
}

/** The user messages of the last request, as sent. */
function lastUserTexts(pane: ChatPane): string[] {
  const body = pane.server.requests.at(-1)!.body as {
    messages: { role: string; content: unknown }[];
  };
  return body.messages.filter((m) => m.role === "user").map((m) =>
    typeof m.content === "string" ? m.content : JSON.stringify(m.content)
  );
}

keysTest(
  "!!command shows its output and sends nothing to the model; !command does",
  {},
  async (pane) => {
    const { tmux } = pane;
    await send(tmux, "!!echo only-for-my-eyes");
    await tmux.waitFor(
      /!! \$ echo only-for-my-eyes\n +only-for-my-eyes\n +exit 0 · .* · not sent to the model/,
    );
    await send(tmux, "!echo for-the-model");
    const screen = await tmux.waitFor(/! \$ echo for-the-model\n +for-the-model\n +exit 0/);
    assert.doesNotMatch(screen.join("\n"), /for-the-model\n +exit 0 · [^\n]*not sent/);
    await ask(pane, "what ran?", "Two echoes.");
    const [user] = lastUserTexts(pane);
    assert.match(user!, /what ran\?[^]*for-the-model/);
    assert.doesNotMatch(JSON.stringify(pane.server.requests), /only-for-my-eyes/);
  },
);

keysTest(
  "esc twice on an empty editor opens /tree; once does nothing; while streaming it interrupts",
  {},
  async (pane) => {
    const { tmux, server } = pane;
    await ask(pane, "first question", "Answer one.");

    await escapeAlone(tmux);
    await editorTakesKeys(tmux, "probe-after-one-esc");

    await tmux.keys("Escape", "Escape");
    await tmux.waitFor(PANEL);
    await tmux.waitFor(/first question/);
    await tmux.keys("Escape");
    await tmux.waitUntilGone(PANEL);
    await editorTakesKeys(tmux, "probe-after-closing-the-tree");

    server.enqueue({ kind: "long", deltas: Infinity });
    await send(tmux, "stream forever");
    await tmux.waitFor(/line 3/);
    await tmux.keys("Escape", "Escape");
    await tmux.waitFor(/Interrupted\. The partial answer was kept\./);
    await idle(tmux);
    await new Promise((resolve) => setTimeout(resolve, 700));
    await editorTakesKeys(tmux, "probe-after-the-interrupt");
  },
);

keysTest("ctrl+l opens the model picker", {}, async ({ tmux }) => {
  await tmux.keys("C-l");
  await tmux.waitFor(/╭─ Model/);
  await tmux.type("smart");
  await tmux.keys("Enter");
  await tmux.waitFor(/Model: smart \(smart-model\)/);
});

keysTest(
  "a rebound ctrl+l: the configured key opens the picker, /hotkeys lists it with its file and !!",
  { config: { keybindings: { "app.selectModel": "ctrl+k" } } },
  async (pane) => {
    const { tmux } = pane;
    await tmux.keys("C-l");
    await editorTakesKeys(tmux, "probe-after-ctrl-l");
    await tmux.keys("C-k");
    await tmux.waitFor(/╭─ Model/);
    await tmux.keys("Escape");
    await tmux.waitUntilGone(PANEL);
    await editorTakesKeys(tmux, "probe-after-the-picker");
    await send(tmux, "/hotkeys");
    const screen = (await tmux.waitFor(/Typed/, { inHistory: true })).join("\n");
    // HOME is the pane's PANTO_HOME: the file is shown under ~.
    assert.match(screen, /ctrl\+k +pick a model \(\/model\) \(set in ~\/config\.json\)/);
    assert.match(screen, /!!command +run a shell command; its output is only shown/);
  },
);

keysTest("/copy sends the last answer to the terminal as OSC 52", {}, async (pane) => {
  const { tmux } = pane;
  // tmux keeps what OSC 52 sets as a paste buffer.
  await tmux.tmux("set-option", "-g", "set-clipboard", "on");
  await send(tmux, "/copy");
  await tmux.waitFor(/There is no answer to copy yet\./);
  await ask(pane, "a question", "The answer to copy, ünïcode.");
  await send(tmux, "/copy");
  await tmux.waitFor(
    /Copied the last answer \(28 characters\) to the clipboard via the terminal \(OSC 52\)\./,
  );
  assert.equal(await tmux.tmux("show-buffer"), "The answer to copy, ünïcode.");
});

Deno.test({
  name: "installed panto in tmux: /copy with a display goes through xclip",
  ignore: !tmuxAvailable,
  async fn() {
    const clipboard = await fakeTool("xclip", `cat > "$DIR/copied.txt"`);
    const path = `${clipboard}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`;
    try {
      await inInstalledChat({ env: { DISPLAY: ":0", PATH: path } }, async (pane) => {
        await ask(pane, "a question", "Copied by xclip.");
        await send(pane.tmux, "/copy");
        await pane.tmux.waitFor(
          /Copied the last answer \(16 characters\) to the clipboard via xclip\./,
        );
        assert.equal(await Deno.readTextFile(join(clipboard, "copied.txt")), "Copied by xclip.");
      });
    } finally {
      await Deno.remove(clipboard, { recursive: true });
    }
  },
});

Deno.test({
  name: "installed panto in tmux: panto A B sends A, then B once A is answered",
  ignore: !tmuxAvailable,
  fn: () =>
    withInstalledPanto((panto) => {
      // panto starts once the replies are queued (the test creates `.go` in the project).
      const command = `while [ ! -e .go ]; do sleep 0.1; done; ${shellQuote(panto)} ${
        shellQuote("first question")
      } ${shellQuote("second question")}`;
      return withChatPane({ command }, async (pane) => {
        pane.server.enqueue(
          { kind: "turn", blocks: [{ type: "text", text: "Answer one." }] },
          { kind: "turn", blocks: [{ type: "text", text: "Answer two." }] },
        );
        await Deno.writeTextFile(join(pane.project, ".go"), "");
        const screen = await pane.tmux.waitFor(/Answer two\./, { timeoutMs: START_MS });
        assert.match(
          screen.join("\n"),
          /› first question\n\nAnswer one\.\n\n› second question\n\nAnswer two\./,
        );
        assert.deepEqual(lastUserTexts(pane), ["first question", "second question"]);
        assert.equal(pane.server.requests.length, 2);
      });
    }),
});
