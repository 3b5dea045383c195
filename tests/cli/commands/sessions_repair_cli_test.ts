/**
 * `panto sessions repair` on a session whose entry id is used twice: once
 * "intact; nothing to repair" while `show` failed; now it gives the later
 * entry a new id, says so, and the session shows again.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { withFakeHome } from "../../support/fake_config.ts";
import { runPanto } from "../../support/run_panto.ts";

Deno.test("sessions repair gives a reused entry id a new one, and show works again", async () => {
  await withFakeHome(async (server, home) => {
    const env = { PANTO_HOME: home };
    server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "the answer" }] });
    assert.equal((await runPanto(["-p", "the question"], { env })).code, 0);
    const listed = await runPanto(["sessions", "--json", "--all"], { env });
    const [{ id }] = JSON.parse(listed.stdout) as [{ id: string }];
    const path = join(home, "sessions", `${id}.jsonl`);
    const lines = (await Deno.readTextFile(path)).trimEnd().split("\n");
    // The answer's line appended again: same entry id, continuing itself.
    const answer = JSON.parse(lines.at(-1)!);
    await Deno.writeTextFile(path, JSON.stringify({ ...answer, parentId: answer.id }) + "\n", {
      append: true,
    });

    const broken = await runPanto(["sessions", "show", id], { env });
    assert.notEqual(broken.code, 0);
    assert.match(broken.stderr, /entry id ".+" is used twice; run repair/);

    const repaired = await runPanto(["sessions", "repair", id], { env });
    assert.equal(repaired.code, 0, repaired.stderr);
    assert.match(
      repaired.stdout,
      new RegExp(
        `gave 1 a new entry id, dropped 0\\n {2}line ${lines.length + 1}: entry id ${answer.id} ` +
          `was used before: it is now [0-9a-f]{12}\\n`,
      ),
    );
    const shown = await runPanto(["sessions", "show", id], { env });
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(shown.stdout.match(/the answer/g)?.length, 2, "both copies are kept");
  });
});
