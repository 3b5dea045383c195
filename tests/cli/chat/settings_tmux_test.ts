/**
 * `/settings` under the installed `panto` command in a real pty (tmux): a
 * config.json with comments, trailing commas and a provider whose key
 * variable only the config names starts the chat (the launcher reads JSONC
 * too); hiding thinking blocks in /settings rewrites config.json on disk
 * with its comments intact and the running chat hides them at once; the
 * theme setting lists a theme file of `$PANTO_HOME/themes`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { withInstalledPanto } from "../../support/installed_panto.ts";
import { withFakeHome } from "../../support/fake_config.ts";
import type { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { pantoPaneEnv, shellQuote, tmuxAvailable, TmuxSession } from "../../support/tmux.ts";

if (!tmuxAvailable) {
  console.log("skipped: settings_tmux_test needs tmux on PATH (apt-get install -y tmux)");
}

/** A key variable only the config names: the launcher grants it only if it read the file. */
const KEY_VARIABLE = "SETTINGS_TEST_KEY";

function commentedConfig(server: FakeLlmServer): string {
  return `// My panto settings: keep these comments.
{
  "defaultModel": "m", // the only model
  "providers": {
    /* the fake server, with a key only this file names */
    "mine": {
      "api": "anthropic-messages",
      "baseUrl": ${JSON.stringify(server.anthropicBaseUrl)},
      "apiKeyEnv": "${KEY_VARIABLE}",
    },
  },
  "models": { "m": { "provider": "mine", "model": "m1" } },
  "retry": { "maxRetries": 0 },
}
`;
}

function answerWithThinking(server: FakeLlmServer, thought: string, text: string): void {
  server.enqueue({
    kind: "turn",
    blocks: [{ type: "thinking", thinking: thought, signature: "sig" }, { type: "text", text }],
  });
}

Deno.test({
  name:
    "installed panto in tmux: /settings hides thinking blocks in config.json (comments kept) and in the running chat",
  ignore: !tmuxAvailable,
  fn: () =>
    withInstalledPanto((panto) =>
      withFakeHome(async (server, home) => {
        const file = join(home, "config.json");
        const original = commentedConfig(server);
        await Deno.writeTextFile(file, original);
        await Deno.mkdir(join(home, "themes"));
        await Deno.writeTextFile(join(home, "themes", "ocean.json"), "{}");
        const project = await Deno.makeTempDir({ prefix: "panto-settings-project-" });
        const tmux = await TmuxSession.start(`${shellQuote(panto)}; sleep 60`, {
          cols: 120,
          rows: 40,
          cwd: project,
          env: { ...pantoPaneEnv(home), [KEY_VARIABLE]: "settings-test-key" },
        });
        try {
          await tmux.waitFor(/m · thinking off/);
          answerWithThinking(server, "Pondering the first question.", "First answer.");
          await tmux.type("first question");
          await tmux.keys("Enter");
          await tmux.waitFor(/First answer\./);
          assert.match((await tmux.screen()).join("\n"), /Pondering the first question\./);

          await tmux.type("/settings");
          await tmux.keys("Enter");
          await tmux.waitFor(/╭─ Settings/);
          await tmux.type("thinking blocks");
          await tmux.keys("Enter");
          await tmux.waitFor(/╭─ Thinking blocks/);
          await tmux.type("hidden");
          await tmux.keys("Enter");
          const notice = /Thinking blocks: hidden, saved in ~\/config\.json; applies now/;
          await tmux.waitFor(notice);

          // On disk: the one value added, every comment and trailing comma where it was.
          const saved = await Deno.readTextFile(file);
          assert.match(saved, /"hideThinkingBlock": true/);
          assert.equal(saved.replace(/,\n\s*"hideThinkingBlock": true/, ""), original);

          // The running chat: the earlier thinking is folded, and so is the next answer's.
          await tmux.keys("Escape");
          await tmux.waitUntilGone(/╭─ Settings/);
          const folded = await tmux.waitFor(/^(?![\s\S]*Pondering the first question)/);
          assert.match(folded.join("\n"), /Thinking/);
          answerWithThinking(server, "Pondering the second question.", "Second answer.");
          await tmux.type("second question");
          await tmux.keys("Enter");
          await tmux.waitFor(/Second answer\./);
          assert.doesNotMatch((await tmux.screen()).join("\n"), /Pondering the second question/);

          // The theme setting offers the built-in themes and the one in $PANTO_HOME/themes.
          await tmux.type("/settings");
          await tmux.keys("Enter");
          await tmux.waitFor(/╭─ Settings/);
          await tmux.type("theme");
          await tmux.keys("Enter");
          const themes = (await tmux.waitFor(/╭─ Theme/)).join("\n");
          for (const name of ["dark", "light", "high-contrast", "ocean"]) {
            assert.match(themes, new RegExp(`│ . ${name} `));
          }
          await tmux.keys("Escape");
          await tmux.keys("Escape");
          const history = (await tmux.history()).join("\n");
          assert.doesNotMatch(history, /panto may not|Error:|at .*\.ts:\d+/);
        } finally {
          await tmux.close();
          await Deno.remove(project, { recursive: true });
        }
      })
    ),
});
