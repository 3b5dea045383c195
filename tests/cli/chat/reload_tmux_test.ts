/**
 * `/reload` through the installed command in a real pty (tmux): config.json,
 * AGENTS.md, a skill and an extension edited while panto runs reach the
 * chat after /reload, whose notice lists what changed; the next request to
 * the fake LLM server carries the new system prompt and the conversation so far.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { withChatPane } from "../../support/chat_pane.ts";
import { requestMessages, textReply } from "../../support/fake_replies.ts";
import { withInstalledPanto } from "../../support/installed_panto.ts";
import { shellQuote, tmuxAvailable } from "../../support/tmux.ts";

if (!tmuxAvailable) {
  console.log("skipped: reload_tmux_test needs tmux on PATH (apt-get install -y tmux)");
}

const skill = (name: string) =>
  `---\nname: ${name}\ndescription: The ${name} steps\n---\nDo ${name}.\n`;

const extension = (command: string) =>
  `export default (panto) => panto.registerCommand("${command}", {
    description: "says ${command}",
    run: (_args, ctx) => ctx.notify("${command} ran"),
  });\n`;

/** `words` as a pattern that lets the chat wrap the line anywhere between them. */
const wrapped = (words: string) =>
  new RegExp(words.split(" ").map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s+"));

Deno.test({
  name:
    "installed panto in tmux: /reload picks up config.json, AGENTS.md, a skill and an extension",
  ignore: !tmuxAvailable,
  fn: () =>
    withInstalledPanto((panto) =>
      withChatPane({
        command: shellQuote(panto),
        files: { "AGENTS.md": "Rule one." },
        homeFiles: {
          "skills/alpha/SKILL.md": skill("alpha"),
          "extensions/greet.ts": extension("hello"),
        },
      }, async ({ tmux, server, project, home }) => {
        await tmux.waitFor(/thinking off/);
        server.enqueue(textReply("First answer."), textReply("Second answer."));
        await tmux.type("first question");
        await tmux.keys("Enter");
        await tmux.waitFor(/First answer\./);
        assert.match(requestMessages(server, 0), /Rule one\./);

        const configPath = join(home, "config.json");
        const config = JSON.parse(await Deno.readTextFile(configPath));
        await Deno.writeTextFile(
          configPath,
          JSON.stringify({
            ...config,
            theme: "light",
            keybindings: { "app.nextModel": ["ctrl+n"] },
          }),
        );
        await Deno.writeTextFile(join(project, "AGENTS.md"), "Rule two.");
        await Deno.mkdir(join(home, "skills", "beta"));
        await Deno.writeTextFile(join(home, "skills", "beta", "SKILL.md"), skill("beta"));
        await Deno.writeTextFile(join(home, "extensions", "greet.ts"), extension("goodbye"));
        await tmux.type("/reload");
        await tmux.keys("Enter");
        await tmux.waitFor(
          wrapped(
            "Reloaded: theme dark → light; 1 skill added (beta); AGENTS.md changed; " +
              "extension greet reloaded; config: keybindings",
          ),
        );

        await tmux.type("second question");
        await tmux.keys("Enter");
        await tmux.waitFor(/Second answer\./);
        const second = requestMessages(server, 1);
        assert.match(second, /Rule two\./);
        assert.doesNotMatch(second, /Rule one\./);
        assert.match(second, /beta/);
        assert.match(second, /first question[\s\S]*First answer\.[\s\S]*second question/);

        await tmux.type("/goodbye");
        await tmux.keys("Enter");
        await tmux.waitFor(/goodbye ran/);
      })
    ),
});
