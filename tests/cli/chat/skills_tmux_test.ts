/**
 * Skills and prompt templates in the interactive chat, in a real pty
 * (tmux) against the fake LLM server: slash completion offers
 * `/skill:name` and `/template` with their descriptions, tab takes one,
 * enter sends the skill's instructions or the filled-in template, and
 * /help lists them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { writeFakeConfig } from "../../support/fake_config.ts";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { textReply } from "../../support/fake_replies.ts";
import { PANTO_SH_COMMAND, pantoPaneEnv, tmuxAvailable, TmuxSession } from "../../support/tmux.ts";

if (!tmuxAvailable) {
  console.log("skipped: skills_tmux_test needs tmux on PATH (apt-get install -y tmux)");
}

/** A request's body as text. */
const request = (server: FakeLlmServer, index: number) =>
  JSON.stringify(server.requests[index]?.body ?? null);

async function waitForRequests(server: FakeLlmServer, count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (server.requests.length < count) {
    if (Date.now() > deadline) {
      throw new Error(`the chat sent ${server.requests.length} requests, not ${count}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

Deno.test({
  name: "chat in tmux: /skill:name args and a /template with completion, and /help lists them",
  ignore: !tmuxAvailable,
  fn: async () => {
    const server = await FakeLlmServer.start();
    const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "panto-skills-home-" }));
    const project = await Deno.makeTempDir({ prefix: "panto-skills-project-" });
    const pantoHome = join(home, ".panto");
    const skillDir = join(home, ".claude", "skills", "release-notes");
    await Deno.mkdir(skillDir, { recursive: true });
    await Deno.mkdir(join(pantoHome, "prompts"), { recursive: true });
    await writeFakeConfig(pantoHome, server, { retry: { maxRetries: 0 } });
    await Deno.writeTextFile(
      join(skillDir, "SKILL.md"),
      "---\nname: release-notes\ndescription: Writes release notes from the git log\n---\nGroup changes by Added and Fixed.\n",
    );
    await Deno.writeTextFile(
      join(pantoHome, "prompts", "fix.md"),
      "---\ndescription: Fix an issue\nargument-hint: <issue> [area]\n---\nFix issue #$1 in ${2:-the whole project}.",
    );
    server.enqueue(textReply("Notes drafted."), textReply("Issue fixed."));
    const tmux = await TmuxSession.start(`${PANTO_SH_COMMAND}; sleep 60`, {
      cols: 110,
      rows: 40,
      cwd: project,
      env: pantoPaneEnv(home, pantoHome),
    });
    try {
      await tmux.waitFor(/thinking off/);
      await tmux.waitFor(/skills release-notes/, { inHistory: true });
      await tmux.waitFor(/prompts \/fix/, { inHistory: true });
      await tmux.type("/skill:");
      await tmux.waitFor(/\/skill:release-notes\s+Writes release notes from the git log/);
      await tmux.keys("Tab");
      await tmux.type("since v1.9");
      await tmux.keys("Enter");
      await tmux.waitFor(/Notes drafted\./);
      const skillRequest = request(server, 0);
      assert.ok(
        skillRequest.includes(
          `<skill name=\\"release-notes\\" location=\\"${join(skillDir, "SKILL.md")}\\">`,
        ),
        skillRequest,
      );
      assert.ok(
        skillRequest.includes("Group changes by Added and Fixed.\\n</skill>\\n\\nsince v1.9"),
      );

      await tmux.type("/fi");
      await tmux.waitFor(/\/fix\s+<issue> \[area\] — Fix an issue/);
      await tmux.keys("Tab");
      await tmux.type("42 parser");
      await tmux.keys("Enter");
      await waitForRequests(server, 2);
      await tmux.waitFor(/Issue fixed\./);
      assert.ok(request(server, 1).includes('"Fix issue #42 in parser."'), request(server, 1));

      await tmux.type("/help");
      await tmux.keys("Enter");
      await tmux.waitFor(/Prompt templates and skills:/);
      const screen = (await tmux.screen()).join("\n");
      assert.match(screen, /\/fix\s+<issue> \[area\] — Fix an issue/);
      assert.match(screen, /\/skill:release-notes Writes release notes from the git log/);
    } finally {
      await tmux.close();
      await server.close();
      await Deno.remove(home, { recursive: true });
      await Deno.remove(project, { recursive: true });
    }
  },
});
