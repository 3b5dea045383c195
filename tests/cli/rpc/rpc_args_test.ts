import assert from "node:assert/strict";
import { parseArgs } from "../../../cli/setup/args.ts";
import { UsageError } from "../../../cli/shared/errors.ts";
import { withFakeHome } from "../../support/fake_config.ts";
import { runPanto } from "../../support/run_panto.ts";

Deno.test("--mode rpc takes the chat's flags", () => {
  const args = parseArgs(["--mode", "rpc", "-m", "smart", "--no-session"]);
  assert.ok(args.command === "chat");
  assert.deepEqual([args.mode, args.print, args.model, args.noSession], [
    "rpc",
    false,
    "smart",
    true,
  ]);
});

Deno.test("--mode rpc refuses -p and prompt words: prompts come as commands", () => {
  for (const argv of [["--mode", "rpc", "-p"], ["--mode", "rpc", "hello"]]) {
    assert.throws(() => parseArgs(argv), (error: unknown) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, /--mode rpc reads its prompts as commands on stdin: drop -p/);
      return true;
    });
  }
});

Deno.test("--mode rpc with a bad model fails at startup: exit 2, the reason on stderr, nothing on stdout", async () => {
  await withFakeHome(async (_server, home) => {
    const run = await runPanto(["--mode", "rpc", "-m", "nonesuch"], {
      env: { PANTO_HOME: home },
      stdin: '{"type":"get_state"}\n',
    });
    assert.equal(run.code, 2);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /Unknown model "nonesuch"/);
  });
});
