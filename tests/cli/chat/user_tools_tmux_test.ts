/**
 * The programs the chat starts for the user, under the installed `panto`
 * command in a real pty (tmux): ctrl+g opens `$VISUAL` on the draft (kept
 * under `$PANTO_HOME`, removed afterwards) and the edited text comes back;
 * the editor, a `!command` and the clipboard tool (ctrl+v) each get the
 * user's environment without any withheld variable.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { withInstalledPanto } from "../../support/installed_panto.ts";
import { shellQuote, tmuxAvailable, TmuxSession } from "../../support/tmux.ts";
import {
  assertUserEnvironment,
  FLAG_KEY_VARIABLE,
  withUserSetup,
} from "../../support/user_environment.ts";
import { fakeTool, XCLIP_WITH_PNG } from "./clipboard_fakes.ts";

if (!tmuxAvailable) {
  console.log("skipped: user_tools_tmux_test needs tmux on PATH (apt-get install -y tmux)");
}

/** Waits until `path` exists and is not empty; its text. */
async function fileWritten(path: string, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const text = await Deno.readTextFile(path).catch(() => "");
    if (text.endsWith("\n")) return text;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${path} was not written within ${timeoutMs} ms`);
}

/** How a user starts panto: the installed command, or `deno task panto` run against the checkout. */
const STARTS: Record<string, (body: (command: string) => Promise<void>) => Promise<void>> = {
  "installed panto": (body) => withInstalledPanto((panto) => body(shellQuote(panto))),
  "deno task panto": (body) =>
    body(
      [Deno.execPath(), "task", "--config", CHECKOUT_CONFIG, "-q", "panto"].map(shellQuote).join(
        " ",
      ),
    ),
};

const CHECKOUT_CONFIG = new URL("../../../deno.json", import.meta.url).pathname;

for (const [how, start] of Object.entries(STARTS)) {
  Deno.test({
    name:
      `${how} in tmux: ctrl+g edits the draft in $VISUAL; the editor, a !command and the clipboard tool get the user's environment without any withheld variable`,
    ignore: !tmuxAvailable,
    fn: () => start(userToolsWork),
  });
}

async function userToolsWork(panto: string): Promise<void> {
  await withUserSetup(async ({ project, home, env }) => {
    const dumps = await Deno.makeTempDir({ prefix: "panto-dumps-" });
    const editor = join(dumps, "editor.sh");
    await Deno.writeTextFile(
      editor,
      `#!/bin/sh\nenv > ${shellQuote(join(dumps, "editor.env"))}\n` +
        `sed -i -e 's/a draft/edited by the editor/' "$1"\n`,
      { mode: 0o755 },
    );
    const clipboard = await fakeTool(
      "xclip",
      `env > ${shellQuote(join(dumps, "xclip.env"))}\n${XCLIP_WITH_PNG}`,
    );
    const tmux = await TmuxSession.start(`${panto} --api-key-env ${FLAG_KEY_VARIABLE}; sleep 60`, {
      cwd: project,
      env: {
        ...env,
        PATH: `${clipboard}:${env.PATH}`,
        DISPLAY: ":0",
        VISUAL: editor,
        TERM: "xterm-256color",
      },
    });
    try {
      await tmux.waitFor(/m · thinking off/);
      await tmux.type("a draft to finish");
      await tmux.keys("C-g");
      await tmux.waitFor(/edited by the editor to finish/);
      assertUserEnvironment(await fileWritten(join(dumps, "editor.env")), "the editor");
      assert.deepEqual(await Array.fromAsync(Deno.readDir(join(home, "drafts"))), []);

      await tmux.keys("C-c");
      await tmux.type(`!env > ${join(dumps, "bang.env")}`);
      await tmux.keys("Enter");
      const bang = await fileWritten(join(dumps, "bang.env"));
      assertUserEnvironment(bang, "a !command");
      // `deno task panto` passes the directory in PANTO_CWD: a panto run from `!` must not inherit it.
      assert.doesNotMatch(bang, /^PANTO_CWD=/m);

      await tmux.keys("C-v");
      await tmux.waitFor(/\[image 1: .* png\]/);
      assertUserEnvironment(await fileWritten(join(dumps, "xclip.env")), "the clipboard tool");
      const screen = (await tmux.history()).join("\n");
      assert.doesNotMatch(screen, /panto may not|Error:|at .*\.ts:\d+/);
    } finally {
      await tmux.close();
      await Deno.remove(dumps, { recursive: true });
      await Deno.remove(clipboard, { recursive: true });
    }
  });
}
