/**
 * Projects, sessions and pickers in a real pty (tmux): `-c` continues the
 * latest session of the directory it starts in (and says so when there is
 * none), a picker is a bordered panel drawn over the bottom rows of a full
 * screen, the transcript above it unmoved and back whole when it closes,
 * and `-r` on an empty screen draws its picker at the top.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { withFakeHome } from "../../support/fake_config.ts";
import type { FakeLlmServer } from "../../support/fake_llm_server.ts";
import { runPanto } from "../../support/run_panto.ts";
import { PANTO_SH_COMMAND, pantoPaneEnv, tmuxAvailable, TmuxSession } from "../../support/tmux.ts";

if (!tmuxAvailable) {
  console.log("skipped: pickers_tmux_test needs tmux on PATH (apt-get install -y tmux)");
}

function answer(server: FakeLlmServer, text: string): void {
  server.enqueue({ kind: "turn", blocks: [{ type: "text", text }] });
}

/** Runs `panto ARGS` in a 100×30 pane in `cwd`, then `fn`, then closes the pane. */
async function inPane(
  home: string,
  cwd: string,
  args: string,
  fn: (tmux: TmuxSession) => Promise<void>,
): Promise<void> {
  const tmux = await TmuxSession.start(`${PANTO_SH_COMMAND} ${args}; sleep 60`, {
    cols: 100,
    rows: 30,
    cwd,
    env: pantoPaneEnv(home),
  });
  try {
    await fn(tmux);
  } finally {
    await tmux.close();
  }
}

async function projectDirs(home: string): Promise<[string, string]> {
  const dirs = [join(home, "alpha"), join(home, "beta")];
  for (const dir of dirs) await Deno.mkdir(dir);
  return [await Deno.realPath(dirs[0]!), await Deno.realPath(dirs[1]!)];
}

Deno.test({
  name:
    "tmux: -c continues this directory's latest session; with none here it starts one and says so",
  ignore: !tmuxAvailable,
  fn: () =>
    withFakeHome(async (server, home) => {
      const env = { PANTO_HOME: home };
      const [alpha, beta] = await projectDirs(home);
      answer(server, "Alpha answer.");
      assert.equal((await runPanto(["-p", "alpha question"], { env, cwd: alpha })).code, 0);
      answer(server, "Elsewhere answer.");
      const other = join(home, "other");
      await Deno.mkdir(other);
      assert.equal((await runPanto(["-p", "other question"], { env, cwd: other })).code, 0);

      // The newest session overall is other's: -c in alpha still resumes alpha's.
      await inPane(home, alpha, "-c", async (tmux) => {
        const screen = (await tmux.waitFor(/Resumed session/)).join("\n");
        assert.match(screen, /alpha question/);
        assert.match(screen, /Alpha answer\./);
        assert.doesNotMatch(screen, /other question/);
      });
      await inPane(home, beta, "-c", async (tmux) => {
        const screen = (await tmux.waitFor(/started a new one/)).join("\n").replace(/\s+/g, " ");
        assert.match(screen, new RegExp(`No session of ${beta} to continue: started a new one`));
        assert.doesNotMatch(screen, /alpha question|other question|Resumed session/);
      });
    }),
});

Deno.test({
  name:
    "tmux: /model on a full screen is a bordered panel below the transcript; -r draws at the top",
  ignore: !tmuxAvailable,
  fn: () =>
    withFakeHome(async (server, home) => {
      const [project] = await projectDirs(home);
      await inPane(home, project, "", async (tmux) => {
        await tmux.waitFor(/fast/);
        const long = Array.from({ length: 40 }, (_, i) => `Row ${i + 1} of the answer.`).join(
          "\n\n",
        );
        answer(server, long);
        await tmux.type("fill the screen");
        await tmux.keys("Enter");
        await tmux.waitFor(/Row 40 of the answer\./);
        const before = await tmux.waitForSettled(/^─+$/m);

        await tmux.type("/model");
        await tmux.keys("Enter");
        const screen = await tmux.waitForSettled(/╭─ Model/);
        const top = screen.findIndex((line) => line.startsWith("╭─ Model"));
        const bottom = screen.findIndex((line) => line.startsWith("╰─"));
        assert.ok(bottom > top, screen.join("\n"));
        assert.match(screen[bottom]!, /↑↓ move · type to filter · enter select · esc cancel/);
        for (const row of screen.slice(top + 1, bottom)) assert.match(row, /^│ .* │$/);
        // Above the panel: the answer, whole rows, on the rows they were on, nothing drawn over.
        const above = screen.slice(0, top).filter((line) => line.trim() !== "");
        assert.ok(above.length >= 10, screen.join("\n"));
        for (const line of above) assert.match(line, /^\s*Row \d+ of the answer\.$/, line);
        assert.deepEqual(screen.slice(0, top), before.slice(0, top), screen.join("\n"));
        assert.ok(!screen.some((line) => /^─+$/.test(line)), "the editor gives its place");
        await tmux.keys("Escape");
        await tmux.waitFor(/^─+$/m);
        const after = await tmux.screen();
        assert.ok(!after.some((line) => line.startsWith("╭─")));
        assert.ok(
          after.some((line) => line.includes("Row 40 of the answer.")),
          "the last row is back",
        );
      });

      await inPane(home, project, "-r", async (tmux) => {
        const screen = await tmux.waitForSettled(/╭─ Sessions in/);
        assert.match(screen[0]!, new RegExp(`^╭─ Sessions in ${project} ─+╮$`));
        assert.match(screen.join("\n"), /│ .*fill the screen .*(just now|\dm ago) · \d+ messages/);
        await tmux.keys("Enter");
        await tmux.waitFor(/Resumed session/);
      });
    }),
});
